-- ingest_job_requeue(job): a job whose worker stopped sending heartbeats (killed, machine lost) waits again. Owner
-- only.

CREATE OR REPLACE FUNCTION public.ingest_job_requeue(p_job_id bigint) RETURNS void
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    update ingest_jobs set status = 'queued', stage = 'retrying', updated_at = now()
     where id = p_job_id and status = 'running';
$$;

REVOKE ALL ON FUNCTION public.ingest_job_requeue(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_job_requeue(bigint) TO service_role;
