-- chunk_embeddings(ids): the embedding of each given chunk the caller may see, as text ('[x,y,…]'), for the diversity
-- (MMR) the caller computes over its candidate pool.

CREATE OR REPLACE FUNCTION public.chunk_embeddings(p_ids bigint[]) RETURNS TABLE(chunk_id bigint, embedding text)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select c.id, c.embedding::text from chunks c where c.id = any(p_ids);
$$;

REVOKE ALL ON FUNCTION public.chunk_embeddings(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.chunk_embeddings(bigint[]) TO service_role, anon, authenticated, rag_app;
