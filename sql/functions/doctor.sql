-- doctor(expected_model, expected_dim): the store's consistency checks as rows (check_name, ok, detail): the embedding
-- model recorded and every document's against the one configured, every vector of the expected dimension, no chunk
-- without an embedding or text, no figure linked to a missing chunk or to another document's, no ready document without
-- chunks, no period link to a missing document. `python -m rag doctor` prints them and exits non-zero when one fails.
-- Counts only what the caller may see: nothing about the size of other workspaces.

CREATE OR REPLACE FUNCTION public.doctor(
    expected_model text,
    expected_dim integer
) RETURNS TABLE (
    check_name text,
    ok boolean,
    detail text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select 'embedding model', coalesce((select value from store_info where key = 'embedding_model'), expected_model) = expected_model
                              and not exists (select 1 from documents where embedding_model <> expected_model),
           'store: ' || coalesce((select value from store_info where key = 'embedding_model'), '(empty)')
           || ', configured: ' || expected_model
    union all
    select 'embedding dimension',
           not exists (select 1 from chunks where embedding is not null and vector_dims(embedding) <> expected_dim),
           'expected ' || expected_dim
    union all
    select 'chunks without embeddings', count(*) = 0, count(*) || ' chunk(s)' from chunks where embedding is null
    union all
    select 'empty chunks', count(*) = 0, count(*) || ' chunk(s)' from chunks where length(btrim(content)) = 0
    union all
    select 'figures linked to missing chunks', count(*) = 0, count(*) || ' figure(s)'
      from figures f where f.chunk_id is not null and not exists (select 1 from chunks c where c.id = f.chunk_id)
    union all
    select 'figures of another document''s chunk', count(*) = 0, count(*) || ' figure(s)'
      from figures f join chunks c on c.id = f.chunk_id where c.document_id <> f.document_id
    union all
    select 'documents without chunks', count(*) = 0, coalesce(string_agg(file_name, ', '), '')
      from documents d where not exists (select 1 from chunks c where c.document_id = d.id)
                         and d.page_count > 0 and d.status = 'ready'
    union all
    select 'relations to missing documents', count(*) = 0, count(*) || ' relation(s)'
      from document_relations r
     where not exists (select 1 from documents d where d.id = r.source_id)
        or not exists (select 1 from documents d where d.id = r.target_id);
$$;

REVOKE ALL ON FUNCTION public.doctor(text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.doctor(text, integer) TO service_role, anon, authenticated, rag_app;
