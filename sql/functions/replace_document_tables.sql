-- replace_document_tables(id, tables, facts): a stored document's tables and the facts read from them replaced in one
-- transaction (`python -m rag facts --rebuild`), in reading order. Returns the facts written. Runs as the caller.

CREATE OR REPLACE FUNCTION public.replace_document_tables(
    p_document_id bigint,
    p_tables jsonb,
    p_facts jsonb
) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    delete from doc_tables where document_id = p_document_id;
    insert into doc_tables (document_id, table_no, chunk_indexes, page_start, page_end, title, unit, scale, stub,
                            columns, rows)
    select p_document_id, (t->>'table_no')::int,
           array(select jsonb_array_elements_text(t->'chunk_indexes')::int),
           (t->>'page_start')::int, (t->>'page_end')::int, coalesce(t->>'title', ''), t->>'unit',
           coalesce((t->>'scale')::double precision, 1), coalesce(t->>'stub', ''),
           coalesce(t->'columns', '[]'::jsonb), coalesce(t->'rows', '[]'::jsonb)
      from jsonb_array_elements(case when jsonb_typeof(p_tables) = 'array' then p_tables else '[]'::jsonb end)
           with ordinality as tj(t, ti)
      join documents d on d.id = p_document_id
     order by tj.ti;
    return replace_document_facts(p_document_id, p_facts);
end;
$$;

REVOKE ALL ON FUNCTION public.replace_document_tables(bigint, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.replace_document_tables(bigint, jsonb, jsonb) TO service_role, rag_app;
