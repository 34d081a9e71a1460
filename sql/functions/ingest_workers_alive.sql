-- ingest_workers_alive(seconds): how many workers sent a heartbeat in the last `seconds` (workers serve every
-- workspace). Runs as its caller; rag_app may read only the workers' ids and heartbeats.

CREATE OR REPLACE FUNCTION public.ingest_workers_alive(p_seconds integer DEFAULT 30) RETURNS integer
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select count(*)::integer from procrastinate_workers
     where last_heartbeat > now() - make_interval(secs => greatest(p_seconds, 1));
$$;

REVOKE ALL ON FUNCTION public.ingest_workers_alive(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_workers_alive(integer) TO service_role, rag_app;
