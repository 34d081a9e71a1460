-- Trigger on chunks (after insert, per statement): adds the new chunks to chunk_postings, the inverted index
-- (workspace, lexeme, document) -> chunk ids that match_chunks and terms_missing use for callers under row-level
-- security. Why an index is allowed there: Postgres puts a qual into an index scan under row-level security only when
-- its operator is LEAKPROOF; `@@` is not (and must stay so: a shared index would let one team time another's words),
-- text equality is. The key starts with the workspace (the document's, '' for the shared ones), so a caller's lookup
-- reads its own workspace's postings and the shared ones, never another team's. No foreign key: its cascade would need
-- an index on document_id alone, through which a lookup would read other teams' postings before the policy filters
-- them.

CREATE OR REPLACE FUNCTION public.chunk_postings_after_insert() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    n_docs int;
    n_held int;
begin
    -- hold the documents until this transaction ends: the owner's move of one waits, and its trigger then rewrites
    -- the postings from every committed chunk; a document this caller may not write (moved away meanwhile) fails
    select count(distinct n.document_id) into n_docs from new_rows n;
    select count(*) into n_held
      from (select d.id from documents d where d.id in (select n.document_id from new_rows n) for share of d) x;
    if n_held < n_docs then
        raise exception 'a document changed workspace while its chunks were written: ingest it again'
            using errcode = '40001';
    end if;
    insert into chunk_postings as p (workspace, lexeme, document_id, chunk_ids)
    select coalesce(d.workspace, ''), l.lexeme, n.document_id, array_agg(n.id order by n.id)
      from new_rows n
      join documents d on d.id = n.document_id
     cross join lateral unnest(tsvector_to_array(n.fts)) l(lexeme)
     where d.workspace is null or d.workspace <> ''
     group by 1, 2, 3
        on conflict (workspace, lexeme, document_id) do update set chunk_ids = p.chunk_ids || excluded.chunk_ids;
    return null;
end;
$$;

CREATE OR REPLACE TRIGGER chunks_postings_insert
    AFTER INSERT ON public.chunks
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.chunk_postings_after_insert();

REVOKE ALL ON FUNCTION public.chunk_postings_after_insert() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.chunk_postings_after_insert() TO service_role, rag_app;
