-- ensure_workspace_reader(workspace): the login role of that workspace's structured questions (rag_query for none),
-- created once (rag_query_<hash>), recorded in reader_roles and configured by configure_reader_role. Returns its name;
-- a workspace name other than letters, digits, _ - . is refused. Owner only.

CREATE OR REPLACE FUNCTION public.ensure_workspace_reader(p_workspace text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $_$
declare
    r text;
begin
    if p_workspace is null then
        return 'rag_query';
    end if;
    if p_workspace !~ '^[A-Za-z0-9_.-]{1,64}$' then
        raise exception 'workspace names are letters, digits, _ - . (got %)', p_workspace;
    end if;
    select role_name into r from reader_roles where workspace = p_workspace;
    if r is not null then
        return r;
    end if;
    r := 'rag_query_' || left(md5(p_workspace), 16);
    if not exists (select 1 from pg_roles where rolname = r) then
        execute format('create role %I login', r);
    end if;
    insert into reader_roles (role_name, workspace) values (r, p_workspace)
    on conflict (role_name) do update set workspace = excluded.workspace;
    perform configure_reader_role(r);
    return r;
end;
$_$;

REVOKE ALL ON FUNCTION public.ensure_workspace_reader(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ensure_workspace_reader(text) TO service_role;
