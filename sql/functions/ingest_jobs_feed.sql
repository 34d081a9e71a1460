-- ingest_jobs_feed(): defers a procrastinate job for every queued row that has none, each row once (FOR UPDATE SKIP
-- LOCKED: two workers never defer the same row); returns how many. Workers call it every poll, as the owner: the app's
-- role may not touch the queue's tables, and no SECURITY DEFINER trigger does it for it.

CREATE OR REPLACE FUNCTION public.ingest_jobs_feed() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.ingest_jobs_feed() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_jobs_feed() TO service_role;
