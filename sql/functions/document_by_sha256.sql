-- document_by_sha256(sha256): the caller's own copy of that file, else a shared one; null when it has none. Ingestion
-- uses it to skip a file already in the library.

CREATE OR REPLACE FUNCTION public.document_by_sha256(p_sha256 text) RETURNS bigint
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select id from documents
     where sha256 = p_sha256 and (workspace is null or workspace = current_workspace())
     order by workspace nulls last, id
     limit 1;
$$;

REVOKE ALL ON FUNCTION public.document_by_sha256(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.document_by_sha256(text) TO service_role, anon, authenticated, rag_app;
