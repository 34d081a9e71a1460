-- reindex_begin(model, dim): starts re-embedding the store with another model (`python -m rag reindex`): records the
-- model; when the dimension changes, the vector columns are retyped (old vectors cleared) and the HNSW indexes rebuilt.
-- Owner only, like every store-wide change.

CREATE OR REPLACE FUNCTION public.reindex_begin(p_model text, p_dim integer) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    cur_dim int;
begin
    select atttypmod into cur_dim from pg_attribute
     where attrelid = 'chunks'::regclass and attname = 'embedding';
    if cur_dim is distinct from p_dim then
        drop index if exists chunks_embedding_hnsw;
        drop index if exists figures_embedding_hnsw;
        execute format('alter table chunks alter column embedding type vector(%s) using null', p_dim);
        execute format('alter table figures alter column embedding type vector(%s) using null', p_dim);
        create index chunks_embedding_hnsw on chunks using hnsw (embedding vector_cosine_ops);
        create index figures_embedding_hnsw on figures using hnsw (embedding vector_cosine_ops);
    end if;
    insert into store_info (key, value) values ('embedding_model', p_model), ('embedding_dim', p_dim::text)
    on conflict (key) do update set value = excluded.value;
    update documents set embedding_model = p_model;
    return jsonb_build_object('model', p_model, 'dim', p_dim, 'retyped', cur_dim is distinct from p_dim);
end;
$$;

REVOKE ALL ON FUNCTION public.reindex_begin(text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.reindex_begin(text, integer) TO service_role;
