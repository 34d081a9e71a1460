-- Undo 061 and 062's check: the full-text match is NOT LEAKPROOF again, and doctor no longer shows the library's
-- size (replaces 062; same signature and rows as 012).
-- An independent attack on 061 found that marking ts_match_vq LEAKPROOF let one workspace learn about another's
-- text, because Postgres then evaluates the match on every row the index finds before the policy filters it:
-- - timing: a search for a word only another team's chunks hold took measurably longer than for a word nobody has,
--   through the app's own search (match_chunks, terms_missing), for any user of the app;
-- - EXPLAIN ANALYZE counts, for a role that may read chunks.fts (anon, authenticated): exact numbers of matching
--   rows across workspaces, enough to read another team's table back word by word with phrase and prefix queries;
-- - an error (stack depth) that, for a deeply nested query, depended on whether another team's row matched: the
--   match stops early on AND, so its recursion depends on the row (061's comment said otherwise; it was wrong).
-- Isolation comes before speed: under row-level security the full-text side reads every chunk again (seconds at a
-- million chunks; bench/bench_scale.py). And 062's doctor row showed every role the number of chunks of all
-- workspaces (pg_class.reltuples), so it is dropped.
do $$
begin
    if (select rolsuper from pg_roles where rolname = current_user) then
        alter function pg_catalog.ts_match_vq(tsvector, tsquery) not leakproof;
    elsif (select proleakproof from pg_proc where oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure) then
        raise warning 'pg_catalog.ts_match_vq is LEAKPROOF here and only a superuser can undo it: '
                      'ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) NOT LEAKPROOF';
    end if;
end
$$;

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
        or not exists (select 1 from documents d where d.id = r.target_id);
$$;
