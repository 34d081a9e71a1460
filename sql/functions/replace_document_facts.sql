-- replace_document_facts(id, facts): a stored document's table facts replaced in one transaction, written in reading
-- order (their ids follow the list), as ingest_document writes them. Returns the facts written. Runs as the caller.

CREATE OR REPLACE FUNCTION public.replace_document_facts(p_document_id bigint, p_facts jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    n int;
begin
    delete from facts where document_id = p_document_id;
    insert into facts (document_id, chunk_id, page, label, label_path, col_header, period, fiscal_year,
                       fiscal_period, is_change, value, raw, unit, scale, table_title, row_text, col)
    select p_document_id, ch.id, coalesce((x->>'page')::int, ch.page_start), x->>'label',
           coalesce(x->>'label_path', x->>'label'), coalesce(x->>'col_header', ''), x->>'period',
           (x->>'fiscal_year')::int, x->>'fiscal_period', coalesce((x->>'is_change')::boolean, false),
           (x->>'value')::double precision, coalesce(x->>'raw', ''), x->>'unit',
           coalesce((x->>'scale')::double precision, 1), coalesce(x->>'table_title', ''),
           coalesce(x->>'row_text', ''), coalesce((x->>'column')::int, 0)
      from jsonb_array_elements(case when jsonb_typeof(p_facts) = 'array' then p_facts else '[]'::jsonb end)
           with ordinality as xj(x, xi)
      join chunks ch on ch.document_id = p_document_id and ch.chunk_index = (xj.x->>'chunk_index')::int
     order by xj.xi;  -- ids in reading order, as at ingestion
    get diagnostics n = row_count;
    return n;
end;
$$;

REVOKE ALL ON FUNCTION public.replace_document_facts(bigint, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.replace_document_facts(bigint, jsonb) TO service_role, rag_app;
