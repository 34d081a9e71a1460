-- list_ingest_jobs(limit): the caller's workspace's jobs, newest first, with their stage, progress, attempts, document,
-- error and size (never the file's bytes).

CREATE OR REPLACE FUNCTION public.list_ingest_jobs(
    p_limit integer DEFAULT 100
) RETURNS TABLE (
    id bigint,
    file_name text,
    status text,
    stage text,
    done integer,
    total integer,
    attempts integer,
    document_id bigint,
    error text,
    summary jsonb,
    size_bytes bigint,
    created_at timestamp with time zone,
    started_at timestamp with time zone,
    updated_at timestamp with time zone,
    finished_at timestamp with time zone
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select j.id, j.file_name, j.status, j.stage, j.done, j.total, j.attempts, j.document_id, j.error, j.summary,
           j.size_bytes, j.created_at, j.started_at, j.updated_at, j.finished_at
      from ingest_jobs j
     where coalesce(j.workspace, '') = coalesce(current_workspace(), '')
     order by j.created_at desc, j.id desc
     limit least(greatest(coalesce(p_limit, 100), 1), 1000);
$$;

REVOKE ALL ON FUNCTION public.list_ingest_jobs(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.list_ingest_jobs(integer) TO service_role, rag_app;
