-- add_feedback(question, answer, chunk_ids, rating, comment): records a thumbs up (1) or down (-1) on an answer, with
-- the chunks it cited, in the caller's workspace. Returns the feedback's id.

CREATE OR REPLACE FUNCTION public.add_feedback(
    p_question text,
    p_answer text,
    p_chunk_ids bigint[],
    p_rating integer,
    p_comment text DEFAULT NULL::text
) RETURNS bigint
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    insert into feedback (question, answer, chunk_ids, rating, comment)
    values (p_question, p_answer, coalesce(p_chunk_ids, '{}'), p_rating, p_comment)
    returning id;
$$;

REVOKE ALL ON FUNCTION public.add_feedback(text, text, bigint[], integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.add_feedback(text, text, bigint[], integer, text) TO service_role, rag_app;
