-- match_chunks_cosine(query_embedding, match_count): the plain cosine top-k the evaluation compares against (`rag eval
-- --baseline`): the caller's visible chunks by embedding distance alone, exact on a small library, through the HNSW
-- index on a large one (the library's size from the planner's estimate).

CREATE OR REPLACE FUNCTION public.match_chunks_cosine(
    query_embedding public.vector,
    match_count integer DEFAULT 5
) RETURNS TABLE (
    chunk_id bigint,
    document_id bigint,
    chunk_index integer,
    page_start integer,
    page_end integer,
    heading text,
    section_type text,
    content text,
    file_name text,
    cosine_similarity double precision
)
    LANGUAGE plpgsql STABLE
    SET "hnsw.ef_search" TO '200'
    SET plan_cache_mode TO 'force_custom_plan'
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if coalesce((select nullif(c.reltuples, -1) from pg_class c where c.oid = 'public.chunks'::regclass),
                (select count(*) from chunks)) <= 30000 then
        return query
        select c.id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type, c.content,
               d.file_name, 1 - (c.embedding <=> query_embedding)
          from chunks c join documents d on d.id = c.document_id
         order by (c.embedding <=> query_embedding) + 0
         limit match_count;
    else
        return query
        select c.id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type, c.content,
               d.file_name, 1 - (c.embedding <=> query_embedding)
          from chunks c join documents d on d.id = c.document_id
         order by c.embedding <=> query_embedding
         limit match_count;
    end if;
end;
$$;

REVOKE ALL ON FUNCTION public.match_chunks_cosine(public.vector, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.match_chunks_cosine(public.vector, integer)
    TO service_role, anon, authenticated, rag_app;
