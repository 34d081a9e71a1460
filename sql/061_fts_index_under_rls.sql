-- The full-text index serves the app's searches under row-level security.
-- Every search of the app runs as rag_app (041), so the chunks policy applies. Postgres then evaluates a condition
-- on chunks before that policy only if its function is LEAKPROOF, and only such a condition may drive an index scan.
-- The full-text match `fts @@ query` (pg_catalog.ts_match_vq) is not marked so: under RLS the GIN index on
-- chunks.fts was never used, and at a million chunks the full-text side read the whole table on every question
-- (match_chunks took about 4 s as rag_app, tens of milliseconds as the owner: bench/bench_scale.py).
-- ts_match_vq does leak nothing: it returns whether the vector matches the query and raises no error that depends on
-- the vector's contents (its only errors are the stack-depth check on the query, which is ours, and a cancel). So it
-- is marked LEAKPROOF here. Rows outside the caller's workspace are still never returned: the policy is still
-- applied to every row the index finds.
-- Marking a function LEAKPROOF needs a superuser (the embedded database's owner is one; a DATABASE_URL login may
-- be). Elsewhere, Supabase included, this migration changes nothing and says so: the search is right, only slower
-- past about 100,000 chunks (`python -m rag doctor` reports which case a store is in).
do $$
begin
    if (select rolsuper from pg_roles where rolname = current_user) then
        alter function pg_catalog.ts_match_vq(tsvector, tsquery) leakproof;
    else
        raise notice 'not a superuser: the full-text index is not used under row-level security (slower at scale)';
    end if;
end
$$;
