-- enqueue_ingest(file_name, pdf_b64, sha256): queues a PDF for background ingestion in the caller's workspace. Returns
-- {job_id, status, document_id, duplicate}: the new job, the job already waiting for or running the same file, or, when
-- the file is in the library already, its document and no job.

CREATE OR REPLACE FUNCTION public.enqueue_ingest(p_file_name text, p_pdf_b64 text, p_sha256 text) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_doc bigint;
    v_job ingest_jobs%rowtype;
    v_pdf bytea := decode(p_pdf_b64, 'base64');
begin
    if encode(sha256(v_pdf), 'hex') <> lower(p_sha256) then
        raise exception 'the file does not match its sha256';
    end if;
    select d.id into v_doc from documents d
     where d.sha256 = lower(p_sha256) and coalesce(d.workspace, '') = coalesce(current_workspace(), '') limit 1;
    if v_doc is not null then
        return jsonb_build_object('job_id', null, 'status', 'done', 'document_id', v_doc, 'duplicate', 'document');
    end if;
    select * into v_job from ingest_jobs j
     where j.sha256 = lower(p_sha256) and j.status in ('queued', 'running')
       and coalesce(j.workspace, '') = coalesce(current_workspace(), '');
    if found then
        return jsonb_build_object('job_id', v_job.id, 'status', v_job.status, 'document_id', null, 'duplicate', 'job');
    end if;
    insert into ingest_jobs (file_name, sha256, size_bytes, pdf)
    values (left(p_file_name, 300), lower(p_sha256), length(v_pdf), v_pdf)
    returning * into v_job;
    return jsonb_build_object('job_id', v_job.id, 'status', 'queued', 'document_id', null, 'duplicate', null);
exception when unique_violation then  -- the same file queued at the same instant by another session
    select * into v_job from ingest_jobs j
     where j.sha256 = lower(p_sha256) and j.status in ('queued', 'running')
       and coalesce(j.workspace, '') = coalesce(current_workspace(), '');
    return jsonb_build_object('job_id', v_job.id, 'status', v_job.status, 'document_id', null, 'duplicate', 'job');
end;
$$;

REVOKE ALL ON FUNCTION public.enqueue_ingest(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.enqueue_ingest(text, text, text) TO service_role, rag_app;
