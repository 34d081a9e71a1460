-- configure_reader_role(role): makes a login a reader of SQL written by users and models. It becomes a member of
-- rag_reader (the reader views only) and nothing else (no superuser, CREATEROLE, CREATEDB, replication, BYPASSRLS),
-- with session defaults: read only, 5 s statements, 10 s idle in a transaction, 4 MB of work memory, 16 MB of temporary
-- files (a superuser setting: skipped with a notice where the migrating role is not one), search_path public. The app
-- calls it again whenever it opens the reader pool, since a role may change its own defaults. Owner only.

CREATE OR REPLACE FUNCTION public.configure_reader_role(p_role text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.configure_reader_role(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.configure_reader_role(text) TO service_role;

-- Every reader login (rag_query, and each workspace's from ensure_workspace_reader) takes these settings again
-- whenever this file changes.
select public.configure_reader_role(role_name) from public.reader_roles;
