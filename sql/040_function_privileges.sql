-- Functions created after 032 were executable by PUBLIC: a schema's default privileges can only add to the
-- global default (EXECUTE for PUBLIC), never take it away. Take it away from every function of ours (not from
-- extensions' functions: pgvector's casts must stay executable by everyone); service_role (the writer) may run
-- all of ours, as 032 intended. A later migration that adds a function revokes it itself (a test checks).
do $$
declare
    f record;
begin
    for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'public' and p.prokind = 'f'
                and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e') loop
        execute format('revoke execute on function %s from public', f.sig);
        if exists (select 1 from pg_roles where rolname = 'service_role') then
            execute format('grant execute on function %s to service_role', f.sig);
        end if;
    end loop;
end
$$;
