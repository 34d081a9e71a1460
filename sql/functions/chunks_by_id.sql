-- chunks_by_id(ids): chunks by id with their document's metadata (the shape of a match_chunks row, scores zero), for
-- the evidence of a table fact whose chunk the search did not return. Runs as the caller: row-level security leaves
-- each workspace its own documents' chunks.

CREATE OR REPLACE FUNCTION public.chunks_by_id(
    p_ids bigint[]
) RETURNS TABLE (
    chunk_id bigint,
    document_id bigint,
    chunk_index integer,
    page_start integer,
    page_end integer,
    heading text,
    section_type text,
    content text,
    token_count integer,
    file_name text,
    title text,
    company text,
    fiscal_year integer,
    fiscal_period text,
    doc_type text,
    published_date date
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select c.id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type, c.content,
           c.token_count, d.file_name, d.title, d.company, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date
      from chunks c join documents d on d.id = c.document_id
     where c.id = any(p_ids);
$$;

REVOKE ALL ON FUNCTION public.chunks_by_id(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.chunks_by_id(bigint[]) TO service_role, rag_app;
