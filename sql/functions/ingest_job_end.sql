-- ingest_job_end(job, status, document, error, summary): a job ends done or failed, with its document or its one-line
-- error; the file's bytes go (the document keeps its own copy). Owner only.

CREATE OR REPLACE FUNCTION public.ingest_job_end(
    p_job_id bigint,
    p_status text,
    p_document_id bigint DEFAULT NULL::bigint,
    p_error text DEFAULT NULL::text,
    p_summary jsonb DEFAULT NULL::jsonb
) RETURNS void
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    update ingest_jobs set status = p_status, document_id = p_document_id, error = left(p_error, 500),
                           summary = p_summary, pdf = null, finished_at = now(), updated_at = now(),
                           stage = case when p_status = 'done' then 'done' else stage end
     where id = p_job_id and p_status in ('done', 'failed');
$$;

REVOKE ALL ON FUNCTION public.ingest_job_end(bigint, text, bigint, text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_job_end(bigint, text, bigint, text, jsonb) TO service_role;
