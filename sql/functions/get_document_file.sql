-- get_document_file(id): the original PDF of a document the caller may see, as base64 text; null when none was kept.

CREATE OR REPLACE FUNCTION public.get_document_file(p_document_id bigint) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select encode(pdf, 'base64') from document_files where document_id = p_document_id;
$$;

REVOKE ALL ON FUNCTION public.get_document_file(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.get_document_file(bigint) TO service_role, anon, authenticated, rag_app;
