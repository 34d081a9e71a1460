-- list_conversations(limit): the caller's conversations, most recent first, with their number of turns.

CREATE OR REPLACE FUNCTION public.list_conversations(
    p_limit integer DEFAULT 50
) RETURNS TABLE (
    conversation_id bigint,
    title text,
    created_at timestamp with time zone,
    updated_at timestamp with time zone,
    turns integer
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select c.id, c.title, c.created_at, c.updated_at,
           (select count(*)::int from conversation_turns t where t.conversation_id = c.id)
      from conversations c
     order by c.updated_at desc, c.id desc
     limit greatest(1, least(coalesce(p_limit, 50), 500));
$$;

REVOKE ALL ON FUNCTION public.list_conversations(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.list_conversations(integer) TO service_role, rag_app;
