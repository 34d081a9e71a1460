-- reindex_write(kind, items): writes the new embeddings, items = [{id, embedding}]; returns the rows updated. Owner
-- only.

CREATE OR REPLACE FUNCTION public.reindex_write(p_kind text, items jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    n int;
begin
    if p_kind = 'chunks' then
        update chunks c set embedding = (i->>'embedding')::vector
          from jsonb_array_elements(items) i where c.id = (i->>'id')::bigint;
    else
        update figures f set embedding = (i->>'embedding')::vector
          from jsonb_array_elements(items) i where f.id = (i->>'id')::bigint;
    end if;
    get diagnostics n = row_count;
    return n;
end;
$$;

REVOKE ALL ON FUNCTION public.reindex_write(text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.reindex_write(text, jsonb) TO service_role;
