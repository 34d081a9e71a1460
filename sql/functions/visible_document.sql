-- visible_document(id): the caller may see this document (shared, or of the caller's workspace).

CREATE OR REPLACE FUNCTION public.visible_document(p_document_id bigint) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select exists (select 1 from documents d
                    where d.id = p_document_id
                      and (d.workspace is null or d.workspace = current_workspace()));
$$;

REVOKE ALL ON FUNCTION public.visible_document(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.visible_document(bigint) TO service_role, anon, authenticated, rag_app;
