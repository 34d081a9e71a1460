-- Nothing a question runs may outlive its transaction: session-level advisory locks, session settings and
-- signals to other sessions are taken away from PUBLIC in this database and given back to the roles that
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
                                  'pg_cancel_backend') loop
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
