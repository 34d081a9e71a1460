-- terms_missing (replaces 066; same signature and results): a caller under row-level security looks for each term
-- in chunk_lexemes (067), the chunks' lexemes in a narrow table, instead of in chunks.fts.
-- Under row-level security the GIN index is not used (065), so a term that no visible chunk holds is looked for in
-- every visible row; on chunks each row's fts is a TOAST fetch (a million chunks as rag_app: 5 s for one missing
-- term), on chunk_lexemes it is in the row. chunk_lexemes has no positions: a phrase is looked for as all its words
-- (`&`), and each chunk found that way is checked on its full fts by primary key until one holds the phrase. The
-- policies are the chunks' (067), and the match is still applied only after them. Callers not under row-level
-- security (the owner) keep 066's path: the GIN index on chunks.
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
    wide tsquery;
    found boolean;
    lex boolean := row_security_active('public.chunks');
    cid bigint;
begin
    foreach t in array coalesce(p_terms, '{}'::text[]) loop
        q := phraseto_tsquery('english', t);
        continue when numnode(q) = 0;
        if not lex then
            found := exists (select 1 from chunks c
                              where c.fts @@ q
                                and (p_document_ids is null or c.document_id = any(p_document_ids)));
        elsif q::text !~ '<(-|[0-9]+)>' then  -- one word: its lexeme is the whole match
            found := exists (select 1 from chunk_lexemes l
                              where l.lexemes @@ q
                                and (p_document_ids is null or l.document_id = any(p_document_ids)));
        else
            wide := regexp_replace(q::text, '<(-|[0-9]+)>', '&', 'g')::tsquery;
            found := false;
            for cid in select l.chunk_id from chunk_lexemes l
                        where l.lexemes @@ wide
                          and (p_document_ids is null or l.document_id = any(p_document_ids)) loop
                if exists (select 1 from chunks c where c.id = cid and c.fts @@ q) then
                    found := true;
                    exit;
                end if;
            end loop;
        end if;
        if not found then
            term := t;
            return next;
        end if;
    end loop;
end;
$$;
