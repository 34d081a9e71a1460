-- ingest_job_begin(job): a worker starts a job: running, one more attempt. Returns what the worker needs (file name,
-- sha256, bytes, workspace, attempts), or null when the job is gone or over. Owner only (workers log in as the owner).

CREATE OR REPLACE FUNCTION public.ingest_job_begin(p_job_id bigint) RETURNS jsonb
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    update ingest_jobs set status = 'running', attempts = attempts + 1, started_at = now(), updated_at = now(),
                           stage = 'starting', done = 0, total = 0, error = null
     where id = p_job_id and status in ('queued', 'running') and pdf is not null
    returning jsonb_build_object('job_id', id, 'workspace', workspace, 'file_name', file_name, 'sha256', sha256,
                                 'attempts', attempts, 'pdf_b64', encode(pdf, 'base64'));
$$;

REVOKE ALL ON FUNCTION public.ingest_job_begin(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_job_begin(bigint) TO service_role;
