-- figures_numbered(figure_number, filter_document_ids): the figures the caller may see, of the given documents, whose
-- caption begins with that number ("Figure 3:", "Fig. 3.", "Figure 3 –"): what a question that names a figure by its
-- number ("show Figure 3 of the S2ORC paper") asks for. The same columns as match_figures, similarity 0 and not
-- linked. A number is one to three digits; anything else matches nothing (it is never read as a pattern). At most
-- 20 rows, by document, page and id.

CREATE OR REPLACE FUNCTION public.figures_numbered(
    figure_number text,
    filter_document_ids bigint[]
) RETURNS TABLE (
    figure_id bigint,
    document_id bigint,
    chunk_id bigint,
    page integer,
    kind text,
    caption text,
    ocr_text text,
    chart_type text,
    bbox double precision[],
    file_name text,
    similarity double precision,
    linked boolean,
    figure_kind text,
    kind_why text,
    context text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select f.id, f.document_id, f.chunk_id, f.page, f.kind, f.caption, f.ocr_text, f.chart_type, f.bbox,
           d.file_name, 0::double precision, false, f.figure_kind, f.kind_why, f.context
      from figures f join documents d on d.id = f.document_id
     where figure_number ~ '^[0-9]{1,3}$'
       and f.document_id = any(filter_document_ids)
       and f.caption ~* ('^\s*fig(ure|\.)?\s*' || figure_number || '([^0-9]|$)')
     order by f.document_id, f.page, f.id
     limit 20;
$$;

REVOKE ALL ON FUNCTION public.figures_numbered(text, bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.figures_numbered(text, bigint[])
    TO service_role, anon, authenticated, rag_app;
