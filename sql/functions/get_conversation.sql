-- get_conversation(id): a conversation's turns in order; nothing when it is not the caller's.

CREATE OR REPLACE FUNCTION public.get_conversation(
    p_conversation_id bigint
) RETURNS TABLE (
    conversation_id bigint,
    title text,
    turn integer,
    question text,
    answer jsonb,
    follow_ups text[],
    created_at timestamp with time zone
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select c.id, c.title, t.position, t.question, t.answer, t.follow_ups, t.created_at
      from conversations c
      left join conversation_turns t on t.conversation_id = c.id
     where c.id = p_conversation_id
     order by t.position;
$$;

REVOKE ALL ON FUNCTION public.get_conversation(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.get_conversation(bigint) TO service_role, rag_app;
