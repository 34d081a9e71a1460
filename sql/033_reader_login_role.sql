-- Structured questions (SQL written by a user or a model) run on a connection that LOGS IN as a reader role:
-- not a superuser, no CREATEROLE / CREATEDB / REPLICATION / BYPASSRLS, a member of the unprivileged group
-- rag_reader only (SELECT on the reader views and the columns they show, 035). No SQL text can switch such a
-- session to a stronger role: SET ROLE / set_config('role', …) only reach roles the login role is a member of.
--   rag_query                 the shared documents (workspace null)
--   rag_query_<md5 prefix>    one login role per workspace, made by ensure_workspace_reader(workspace)
-- reader_roles maps each login role to its workspace; only the owner writes it, and current_workspace() (034)
-- reads it by session_user, which no SQL text can change.
create table if not exists reader_roles (
    role_name text primary key,
    workspace text
);
alter table reader_roles enable row level security;
revoke all on reader_roles from public;

-- The reader's session defaults: read only, short statements, little memory, no temp-file spill, public first.
-- temp_file_limit is a superuser setting: where the migrating role is not one, it is skipped with a notice.
create or replace function configure_reader_role(p_role text)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if p_role <> 'rag_query' and not exists (select 1 from reader_roles where role_name = p_role) then
        raise exception '% is not a reader role', p_role;
    end if;
    -- a role may change its own defaults: start from none, then set ours
    execute format('alter role %I reset all', p_role);
    execute format('alter role %I in database %I reset all', p_role, current_database());
    execute format('alter role %I nosuperuser nocreatedb nocreaterole noreplication nobypassrls inherit '
                   'connection limit 16', p_role);
    execute format('grant rag_reader to %I', p_role);
    execute format('alter role %I set default_transaction_read_only = on', p_role);
    execute format('alter role %I set statement_timeout = %L', p_role, '5s');
    execute format('alter role %I set idle_in_transaction_session_timeout = %L', p_role, '10s');
    execute format('alter role %I set work_mem = %L', p_role, '4MB');
    execute format('alter role %I set search_path = public, pg_temp', p_role);
    begin
        execute format('alter role %I set temp_file_limit = %L', p_role, '16MB');
    exception when insufficient_privilege then
        raise notice 'temp_file_limit for % needs a superuser; skipped', p_role;
    end;
end;
$$;
revoke execute on function configure_reader_role(text) from public;

do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'rag_query') then
        create role rag_query login;
    end if;
    perform configure_reader_role('rag_query');
    insert into reader_roles (role_name, workspace) values ('rag_query', null) on conflict (role_name) do nothing;
    -- 026 let the owner SET ROLE rag_reader; structured questions no longer run on the owner's connection
    begin
        execute format('revoke rag_reader from %I', current_user);
    exception when others then
        null;
    end;
exception when insufficient_privilege then
    raise notice 'cannot create the reader login role here (%): set RAG_DB__READER_URL', sqlerrm;
end
$$;

-- ensure_workspace_reader(workspace): the login role for that workspace's structured questions (created once).
create or replace function ensure_workspace_reader(p_workspace text)
returns text
language plpgsql
set search_path = public, pg_temp
as $$
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
$$;
revoke execute on function ensure_workspace_reader(text) from public;

-- set_reader_password(password): for a Postgres that asks for passwords (DATABASE_URL); embedded needs none.
create or replace function set_reader_password(p_role text, p_password text)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if not exists (select 1 from reader_roles where role_name = p_role) then
        raise exception '% is not a reader role', p_role;
    end if;
    execute format('alter role %I password %L', p_role, p_password);
end;
$$;
revoke execute on function set_reader_password(text, text) from public;
