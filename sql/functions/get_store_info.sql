-- get_store_info(): store-wide facts as one JSON object: the embedding model and its dimension.

CREATE OR REPLACE FUNCTION public.get_store_info() RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select coalesce(jsonb_object_agg(key, value), '{}'::jsonb) from store_info;
$$;

REVOKE ALL ON FUNCTION public.get_store_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.get_store_info() TO service_role, anon, authenticated, rag_app;
