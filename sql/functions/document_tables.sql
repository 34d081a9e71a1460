-- document_tables(id): every table of a document as read at ingestion (title, unit, scale, stub, columns, rows), in
-- order. Runs as the caller: row-level security leaves each workspace its own documents' tables.

CREATE OR REPLACE FUNCTION public.document_tables(
    p_document_id bigint
) RETURNS TABLE (
    table_id bigint,
    document_id bigint,
    table_no integer,
    chunk_indexes integer[],
    page_start integer,
    page_end integer,
    title text,
    unit text,
    scale double precision,
    stub text,
    columns jsonb,
    rows jsonb
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select t.id, t.document_id, t.table_no, t.chunk_indexes, t.page_start, t.page_end, t.title, t.unit, t.scale,
           t.stub, t.columns, t.rows
      from doc_tables t
     where t.document_id = p_document_id
     order by t.table_no;
$$;

REVOKE ALL ON FUNCTION public.document_tables(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.document_tables(bigint) TO service_role, rag_app;
