-- Re-embedding the store with another model (python -m rag reindex).
-- reindex_begin(model, dim): records the new model; when the dimension changes, the vector columns are
-- retyped (old vectors cleared) and the HNSW indexes rebuilt.
create or replace function reindex_begin(p_model text, p_dim int)
returns jsonb
language plpgsql
as $$
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

-- reindex_texts(kind, after_id, batch): the next batch of chunk or figure texts to embed, by id.
create or replace function reindex_texts(p_kind text, p_after_id bigint, p_batch int)
returns table (id bigint, text_to_embed text)
language sql
stable
as $$
    (select c.id, c.context || E'\n' || c.content from chunks c
      where p_kind = 'chunks' and c.id > p_after_id order by c.id limit p_batch)
    union all
    (select f.id, coalesce((select d.meta->>'label' from documents d where d.id = f.document_id), '') || ' | '
                 || concat_ws(E'\n', nullif(f.caption, ''), nullif(left(f.ocr_text, 400), ''), nullif(left(f.context, 400), ''))
      from figures f
     where p_kind = 'figures' and f.id > p_after_id order by 1 limit p_batch);
$$;

-- reindex_write(kind, items): items = [{id, embedding}]; returns rows updated.
create or replace function reindex_write(p_kind text, items jsonb)
returns int
language plpgsql
as $$
declare
    n int;
begin
    if p_kind = 'chunks' then
        update chunks c set embedding = (i->>'embedding')::vector
          from jsonb_array_elements(items) i where c.id = (i->>'id')::bigint;
    else
        update figures f set embedding = (i->>'embedding')::vector
          from jsonb_array_elements(items) i where f.id = (i->>'id')::bigint;
    end if;
    get diagnostics n = row_count;
    return n;
end;
$$;
