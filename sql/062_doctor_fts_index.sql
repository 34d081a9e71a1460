-- doctor (replaces 012, same signature and rows, one more): whether the full-text index serves searches under
-- row-level security (061). Not ok only for a library past 100,000 chunks whose database would not let 061 mark the
-- full-text match LEAKPROOF (no superuser, e.g. Supabase): its searches stay right but read every chunk.
create or replace function doctor(expected_model text, expected_dim int)
returns table (check_name text, ok boolean, detail text)
language sql
stable
set search_path = public, pg_temp
as $$
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
        or not exists (select 1 from documents d where d.id = r.target_id)
    union all
    select 'full-text index under row-level security', lp or n < 100000,
           case when lp then 'used (full-text match is LEAKPROOF, sql/061)'
                else 'not used: sql/061 needs a superuser; every search reads all ' || greatest(n, 0)::bigint
                     || ' chunk(s)' end
      from (select (select p.proleakproof from pg_proc p
                     where p.oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure) as lp,
                   (select c.reltuples from pg_class c where c.oid = 'public.chunks'::regclass) as n) x;
$$;
