-- match_figures(query_embedding, match_count, chunk_ids, document_ids): the figures the caller may see nearest the
-- query's embedding, optionally of given chunks or documents, with their kind, caption, OCR text, chart type, region,
-- what the figure is (figure_kind, kind_why) and similarity.

CREATE OR REPLACE FUNCTION public.match_figures(
    query_embedding public.vector,
    match_count integer DEFAULT 5,
    filter_chunk_ids bigint[] DEFAULT NULL::bigint[],
    filter_document_ids bigint[] DEFAULT NULL::bigint[]
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
    with nearest as (
        select f.id
          from figures f
         where f.embedding is not null
           and (filter_document_ids is null or f.document_id = any(filter_document_ids))
         order by (f.embedding <=> query_embedding) + 0
         limit match_count
    ), linked as (
        select f.id from figures f where filter_chunk_ids is not null and f.chunk_id = any(filter_chunk_ids)
    ), ids as (
        select id from nearest union select id from linked
    )
    select f.id, f.document_id, f.chunk_id, f.page, f.kind, f.caption, f.ocr_text, f.chart_type, f.bbox,
           d.file_name, 1 - (f.embedding <=> query_embedding),
           coalesce(f.chunk_id = any(filter_chunk_ids), false), f.figure_kind, f.kind_why, f.context
      from ids join figures f on f.id = ids.id join documents d on d.id = f.document_id
     order by 11 desc, f.id;
$$;

REVOKE ALL ON FUNCTION public.match_figures(public.vector, integer, bigint[], bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.match_figures(public.vector, integer, bigint[], bigint[])
    TO service_role, anon, authenticated, rag_app;
