-- ingest_job_progress(job, stage, done, total): a running job's stage and progress, and the worker's heartbeat. Owner
-- only. Jobs live in ingest_jobs, one row per uploaded file in the uploader's workspace, holding the file itself so
-- that a worker on another machine reads it from the database.

CREATE OR REPLACE FUNCTION public.ingest_job_progress(
    p_job_id bigint,
    p_stage text,
    p_done integer,
    p_total integer
) RETURNS void
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    update ingest_jobs set stage = left(p_stage, 40), done = p_done, total = p_total, updated_at = now()
     where id = p_job_id and status = 'running';
$$;

REVOKE ALL ON FUNCTION public.ingest_job_progress(bigint, text, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_job_progress(bigint, text, integer, integer) TO service_role;
