-- current_workspace() from trusted sources only (replaces 031's, which trusted settings any caller can set):
--   1. a reader login role (033): its row in reader_roles, looked up by session_user — SET ROLE and SET do not
--      change it, so SQL text cannot move a reader to another workspace (null = the shared documents only);
--   2. Supabase's API roles (anon, authenticated): the "workspace" claim of the JWT that PostgREST verified and
--      put in request.jwt.claims (they have no other way in: PostgREST calls functions, it runs no SQL text);
--   3. the owner, rag_app (041) and service_role (the app's own connection): the app's setting rag.workspace (set
--      from RAG_DB__WORKSPACE when the connection opens), else the JWT claim.
-- Any other role gets null: the shared documents.
create or replace function current_workspace()
returns text
language sql
stable
set search_path = public, pg_temp
as $$
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

-- Everyone who can run current_workspace() may see their own row of reader_roles (the lookup above).
grant select on reader_roles to public;
drop policy if exists own_reader_role on reader_roles;
create policy own_reader_role on reader_roles for select to public using (role_name = session_user::text);
