-- current_workspace(): the caller's workspace, from trusted sources only (null = the shared documents only):
--   1. a reader login (configure_reader_role): its row in reader_roles, looked up by session_user, which SET ROLE and
--      SET cannot change, so SQL text cannot move a reader to another workspace;
--   2. Supabase's API roles (anon, authenticated): the "workspace" claim of the JWT that PostgREST verified and put in
--      request.jwt.claims (they have no other way in: PostgREST calls functions, it runs no SQL text);
--   3. the owner, rag_app and service_role (the app's own connections): the setting rag.workspace (RAG_DB__WORKSPACE,
--      set when the connection opens), else the JWT claim.
-- Any other role gets null. Every row-level-security policy of a workspace's rows calls it.

CREATE OR REPLACE FUNCTION public.current_workspace() RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select case
        when exists (select 1 from reader_roles r where r.role_name = session_user::text)
            then (select r.workspace from reader_roles r where r.role_name = session_user::text)
        when current_user::text in ('anon', 'authenticated')
            then nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'workspace'
        when current_user::text in ('service_role', 'rag_app')
            or pg_has_role(current_user, (select relowner from pg_class where oid = 'public.documents'::regclass),
                           'USAGE')
            then coalesce(nullif(current_setting('rag.workspace', true), ''),
                          nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'workspace')
        else null
    end;
$$;

REVOKE ALL ON FUNCTION public.current_workspace() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.current_workspace() TO service_role, anon, authenticated, rag_reader, rag_app;
