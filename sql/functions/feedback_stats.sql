-- feedback_stats(): counts of up and down votes of the caller's workspace, overall and in the last 7 days.

CREATE OR REPLACE FUNCTION public.feedback_stats(

) RETURNS TABLE (
    total bigint,
    up bigint,
    down bigint,
    last_7_days bigint
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select count(*), count(*) filter (where rating = 1), count(*) filter (where rating = -1),
           count(*) filter (where created_at > now() - interval '7 days')
      from feedback;
$$;

REVOKE ALL ON FUNCTION public.feedback_stats() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.feedback_stats() TO service_role, rag_app;
