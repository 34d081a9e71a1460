-- add_conversation_turn(conversation, question, answer, follow_ups): appends a turn to one of the caller's
-- conversations; the first question titles the conversation. Returns the turn's position (0-based), or null when the
-- conversation is not the caller's (row-level security: a workspace's conversations are its own).

CREATE OR REPLACE FUNCTION public.add_conversation_turn(
    p_conversation_id bigint,
    p_question text,
    p_answer jsonb,
    p_follow_ups text[] DEFAULT '{}'::text[]
) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_pos int;
begin
    perform 1 from conversations where id = p_conversation_id for update;
    if not found then
        return null;
    end if;
    select coalesce(max(position) + 1, 0) into v_pos from conversation_turns where conversation_id = p_conversation_id;
    insert into conversation_turns (conversation_id, position, question, answer, follow_ups)
    values (p_conversation_id, v_pos, p_question, p_answer, coalesce(p_follow_ups, '{}'));
    update conversations
       set updated_at = now(),
           title = case when title = 'New chat' then left(regexp_replace(btrim(p_question), '\s+', ' ', 'g'), 80)
                        else title end
     where id = p_conversation_id;
    return v_pos;
end;
$$;

REVOKE ALL ON FUNCTION public.add_conversation_turn(bigint, text, jsonb, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.add_conversation_turn(bigint, text, jsonb, text[]) TO service_role, rag_app;
