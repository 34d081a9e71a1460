-- terms_missing (replaces 064; same signature and results) for the full-text match that is not LEAKPROOF (065).
-- 064 kept the document list off the document_id index ("+ 0") so that the GIN index would serve every term; under
-- row-level security that index is no longer usable (065), and for a narrowed search the document_id index is the
-- only one the app's role may use (a million chunks as rag_app, 3 documents: 5 ms with it, seconds without).
-- Sequential scans stay off: where no policy applies (the owner) the GIN index finds a missing term at once, where
-- the planner's estimate preferred reading the table until a first match (7.6 s at a million chunks).
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
                  and (p_document_ids is null or c.document_id = any(p_document_ids))) then
            term := t;
            return next;
        end if;
    end loop;
end;
$$;
