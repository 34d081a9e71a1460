-- recent_similarities(n): the similarities of the chunks kept for the caller's workspace's last n questions, for the
-- Debug page's histogram.

CREATE OR REPLACE FUNCTION public.recent_similarities(
    p_last integer DEFAULT 100
) RETURNS TABLE (
    similarity double precision
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select s from (select similarities from query_log order by id desc limit greatest(p_last, 1)) q,
                  unnest(q.similarities) s;
$$;

REVOKE ALL ON FUNCTION public.recent_similarities(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.recent_similarities(integer) TO service_role, rag_app;
