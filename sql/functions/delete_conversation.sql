-- delete_conversation(id): deletes one of the caller's conversations with its turns; true when one was deleted.

CREATE OR REPLACE FUNCTION public.delete_conversation(p_conversation_id bigint) RETURNS boolean
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    with gone as (delete from conversations where id = p_conversation_id returning 1)
    select exists (select 1 from gone);
$$;

REVOKE ALL ON FUNCTION public.delete_conversation(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.delete_conversation(bigint) TO service_role, rag_app;
