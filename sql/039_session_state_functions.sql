-- Nothing a question runs may outlive its transaction: session-level advisory locks, session settings, signals to
-- other sessions, large objects (which persist and are not bounded by temp_file_limit) and the view of other
-- sessions' running queries (pg_stat_activity: another user's question in flight) are taken away from PUBLIC in
-- this database and given back to the roles that
-- administer it (the migrating owner, service_role, and PostgREST's authenticator, which sets the request's
-- settings). The reader roles (033) are left without them. Transaction-level advisory locks are harmless (they end
-- with the question's transaction) and stay. On a managed Postgres where the migrating role does not own these
-- catalog functions (Supabase), the revoke is skipped with a notice: there, readers reach the database only
-- through PostgREST's function calls, and structured questions through a reader login whose connection is
-- reset before reuse (rag/store/reader.py).
do $$
declare
    f regprocedure;
    r text;
begin
    for f in select p.oid::regprocedure from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'pg_catalog'
                and p.proname in ('pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock',
                                  'pg_try_advisory_lock_shared', 'set_config', 'pg_terminate_backend',
                                  'pg_cancel_backend', 'pg_stat_get_activity', 'lo_create', 'lo_creat',
                                  'lo_from_bytea', 'lo_open', 'lowrite', 'lo_put', 'lo_truncate', 'lo_truncate64',
                                  'lo_unlink', 'lo_import', 'lo_export') loop
        begin
            execute format('revoke execute on function %s from public', f);
            execute format('grant execute on function %s to %I', f, current_user);
            foreach r in array array['service_role', 'authenticator', 'supabase_admin', 'postgres'] loop
                if exists (select 1 from pg_roles where rolname = r) then
                    execute format('grant execute on function %s to %I', f, r);
                end if;
            end loop;
        exception when insufficient_privilege then
            raise notice 'cannot revoke % from public here (%)', f, sqlerrm;
        end;
    end loop;
end
$$;

do $$
declare
    r text;
begin
    revoke select on pg_catalog.pg_stat_activity from public;
    execute format('grant select on pg_catalog.pg_stat_activity to %I', current_user);
    foreach r in array array['service_role', 'supabase_admin', 'postgres', 'pg_monitor'] loop
        if exists (select 1 from pg_roles where rolname = r) then
            execute format('grant select on pg_catalog.pg_stat_activity to %I', r);
        end if;
    end loop;
exception when insufficient_privilege then
    raise notice 'cannot revoke pg_stat_activity from public here (%)', sqlerrm;
end
$$;
