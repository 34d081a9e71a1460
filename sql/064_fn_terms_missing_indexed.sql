-- terms_missing (replaces 019; same signature and results): the full-text index finds each term under row-level
-- security too.
-- In 019 each term's query was computed inside the join (`fts @@ phraseto_tsquery('english', t)` for every term t):
-- a function that is not LEAKPROOF applied to a column, so under the chunks policy (rag_app, 041) Postgres could
-- not use the GIN index even after 061, and a term absent from the library was looked for in every chunk: 6 s at a
-- million chunks for "What score does XYLayoutLM achieve on DocVQA?" (bench/bench_scale.py's store), 23 s when the
-- search was narrowed to a list of documents. Each term's query is now computed first and matched as a value.
-- Sequential scans are off inside the function, and the documents filter is kept off the document_id index
-- ("+ 0"): for a term missing from the library the planner's estimates made reading the table in order, or every
-- chunk of a long list of documents, look cheaper than the full-text index.
create or replace function terms_missing(p_terms text[], p_document_ids bigint[] default null)
returns table (term text)
language plpgsql
stable
set search_path = public, pg_temp
set enable_seqscan = off
set plan_cache_mode = force_custom_plan
as $$
declare
    t text;
    q tsquery;
begin
    foreach t in array coalesce(p_terms, '{}'::text[]) loop
        q := phraseto_tsquery('english', t);
        if numnode(q) > 0 and not exists (
               select 1 from chunks c
                where c.fts @@ q
                  and (p_document_ids is null or c.document_id + 0 = any(p_document_ids))) then
            term := t;
            return next;
        end if;
    end loop;
end;
$$;
