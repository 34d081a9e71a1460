-- document_chunks(id): a document's chunks in order (index, pages, heading, text), to read its tables again.

CREATE OR REPLACE FUNCTION public.document_chunks(
    p_document_id bigint
) RETURNS TABLE (
    chunk_index integer,
    page_start integer,
    page_end integer,
    heading text,
    content text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select c.chunk_index, c.page_start, c.page_end, c.heading, c.content
      from chunks c
     where c.document_id = p_document_id
     order by c.chunk_index;
$$;

REVOKE ALL ON FUNCTION public.document_chunks(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.document_chunks(bigint) TO service_role, rag_app;
