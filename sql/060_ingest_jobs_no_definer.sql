-- The job queue without SECURITY DEFINER and with a fixed search_path everywhere (the rule tests/db/test_security.py
-- checks for every function of ours):
-- - procrastinate's functions (057) run with search_path = public, pg_temp, like ours;
-- - a queued row no longer defers its procrastinate job through a definer trigger (the app's role may not touch the
--   queue's tables): workers feed the queue, ingest_jobs_feed() below, every poll (2 s), as the owner, each row once
--   (FOR UPDATE SKIP LOCKED: two workers never defer the same row);
-- - ingest_workers_alive() runs as its caller; rag_app may read the workers' heartbeats (ids and times only).
do $$
declare
    f record;
begin
    for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'public' and p.proname like 'procrastinate\_%' loop
        execute format('alter function %s set search_path = public, pg_temp', f.sig);
    end loop;
end
$$;

drop trigger if exists ingest_jobs_defer on ingest_jobs;
drop function if exists ingest_jobs_defer();

create or replace function ingest_jobs_feed()
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    n integer := 0;
    r record;
begin
    for r in select j.id from ingest_jobs j where j.status = 'queued' and j.queue_job_id is null
              order by j.id for update skip locked loop
        update ingest_jobs set queue_job_id = (procrastinate_defer_jobs_v1(array[row(
            'ingest', 'ingest_job', 0, null, null, jsonb_build_object('job_id', r.id), null
        )::procrastinate_job_to_defer_v1]))[1]
         where id = r.id;
        n := n + 1;
    end loop;
    return n;
end;
$$;

alter function ingest_workers_alive(integer) security invoker;

do $$
begin
    revoke execute on function ingest_jobs_feed() from public;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function ingest_jobs_feed() to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select (id, last_heartbeat) on procrastinate_workers to rag_app;
        drop policy if exists app_read_workers on procrastinate_workers;
        create policy app_read_workers on procrastinate_workers for select to rag_app using (true);
    end if;
end
$$;
