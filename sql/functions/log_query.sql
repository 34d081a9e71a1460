-- log_query(question, document_ids, chunk_ids, similarities, total_ms): records a question's final chunks and their
-- similarities in the caller's workspace, for result_share and recent_similarities. Returns the row's id.

CREATE OR REPLACE FUNCTION public.log_query(
    p_question text,
    p_document_ids bigint[],
    p_chunk_ids bigint[],
    p_similarities double precision[],
    p_total_ms double precision
) RETURNS bigint
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    insert into query_log (question, document_ids, chunk_ids, similarities, total_ms)
    values (p_question, coalesce(p_document_ids, '{}'), coalesce(p_chunk_ids, '{}'),
            coalesce(p_similarities, '{}'), p_total_ms)
    returning id;
$$;

REVOKE ALL ON FUNCTION public.log_query(text, bigint[], bigint[], double precision[], double precision) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.log_query(text, bigint[], bigint[], double precision[], double precision)
    TO service_role, rag_app;
