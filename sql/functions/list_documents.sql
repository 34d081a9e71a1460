-- list_documents(): the documents the caller may see, by issuer, year and file name, with their metadata, authors, the
-- fiscal years their tables label, and their chunk and figure counts (kept on the row by documents_count_rows, not
-- counted).

CREATE OR REPLACE FUNCTION public.list_documents(

) RETURNS TABLE (
    document_id bigint,
    file_name text,
    title text,
    company text,
    company_key text,
    fiscal_year integer,
    fiscal_period text,
    doc_type text,
    published_date date,
    uploaded_at timestamp with time zone,
    sha256 text,
    page_count integer,
    ocr_pages integer,
    embedding_model text,
    status text,
    chunks bigint,
    figures bigint,
    year_labels integer[],
    authors text[]
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select d.id, d.file_name, d.title, d.company, d.company_key, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date, d.uploaded_at, d.sha256, d.page_count, d.ocr_pages, d.embedding_model, d.status,
           d.chunk_count::bigint, d.figure_count::bigint,
           coalesce((select array_agg(y::int order by y::int)
                       from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'year_labels') = 'array'
                                                           then d.meta -> 'year_labels' end) y),
                    case when d.fiscal_year is not null then array[d.fiscal_year] end),
           (select array_agg(a) from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'authors') = 'array'
                                                                   then d.meta -> 'authors' end) a)
      from documents d
     order by d.company nulls last, d.fiscal_year nulls last, d.file_name;
$$;

REVOKE ALL ON FUNCTION public.list_documents() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.list_documents() TO service_role, rag_app, anon, authenticated;
