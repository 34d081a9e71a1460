-- tables_of_chunks(chunk_ids): the tables with a row in any of these chunks (a citation's table), in document order.
-- Runs as the caller: each workspace its own documents' tables.

CREATE OR REPLACE FUNCTION public.tables_of_chunks(
    p_chunk_ids bigint[]
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
    select distinct on (t.id) t.id, t.document_id, t.table_no, t.chunk_indexes, t.page_start, t.page_end, t.title,
           t.unit, t.scale, t.stub, t.columns, t.rows
      from chunks c
      join doc_tables t on t.document_id = c.document_id and t.chunk_indexes @> array[c.chunk_index]
     where c.id = any(p_chunk_ids)
     order by t.id;
$$;

REVOKE ALL ON FUNCTION public.tables_of_chunks(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.tables_of_chunks(bigint[]) TO service_role, rag_app;
