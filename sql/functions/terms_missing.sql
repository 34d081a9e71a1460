-- terms_missing(terms, document_ids): the terms (words or phrases) that no chunk the caller may see holds, optionally
-- within given documents, so that an answer can say which of the question's words the library lacks. Under row-level
-- security each term's lexemes are looked up in chunk_postings (a phrase: the chunks holding its rarest lexeme, checked
-- on their full text); the owner uses the GIN index on chunks.

CREATE OR REPLACE FUNCTION public.terms_missing(
    p_terms text[],
    p_document_ids bigint[] DEFAULT NULL::bigint[]
) RETURNS TABLE (
    term text
)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'public', 'pg_temp'
    SET enable_seqscan TO 'off'
    SET plan_cache_mode TO 'force_custom_plan'
    AS $$
declare
    t text;
    q tsquery;
    lx text[];
    found boolean;
    lex boolean := row_security_active('public.chunks');
    pr record;
    cands bigint[];
begin
    foreach t in array coalesce(p_terms, '{}'::text[]) loop
        q := phraseto_tsquery('english', t);
        continue when numnode(q) = 0;
        if not lex then
            found := exists (select 1 from chunks c
                              where c.fts @@ q
                                and (p_document_ids is null or c.document_id = any(p_document_ids)));
        else
            -- the phrase's lexemes (a tsquery prints them quoted, a quote inside doubled), the rarest first
            select array_agg(x.l order by x.n, x.l) into lx
              from (select u.l, coalesce((select sum(s.ndoc) from term_stats s where s.lexeme = u.l), 0) as n
                      from (select distinct replace(m[1], '''''', '''') as l
                              from regexp_matches(q::text, '''((?:[^'']|'''')*)''', 'g') m) u) x;
            if cardinality(lx) = 1 and q::text !~ '<(-|[0-9]+)>' then  -- one word: its lexeme is the whole match
                found := exists (select 1 from chunk_postings p
                                  where p.lexeme = lx[1]
                                    and (p_document_ids is null or p.document_id = any(p_document_ids)));
            else
                -- document by document (a loop, so that no plan can first collect every candidate): the chunks
                -- holding the rarest lexeme, narrowed by each other lexeme's postings in the same document, then
                -- checked on their fts until one holds the phrase
                found := false;
                for pr in select p.workspace, p.document_id, p.chunk_ids
                            from chunk_postings p
                           where p.lexeme = lx[1]
                             and (p_document_ids is null or p.document_id = any(p_document_ids)) loop
                    cands := pr.chunk_ids;
                    for i in 2 .. coalesce(cardinality(lx), 0) loop
                        select array(select unnest(cands) intersect select unnest(p2.chunk_ids)) into cands
                          from chunk_postings p2
                         where p2.workspace = pr.workspace and p2.lexeme = lx[i] and p2.document_id = pr.document_id;
                        exit when coalesce(cardinality(cands), 0) = 0;
                    end loop;
                    continue when coalesce(cardinality(cands), 0) = 0;
                    if exists (select 1 from chunks c where c.id = any(cands) and c.fts @@ q) then
                        found := true;
                        exit;
                    end if;
                end loop;
            end if;
        end if;
        if not found then
            term := t;
            return next;
        end if;
    end loop;
end;
$$;

REVOKE ALL ON FUNCTION public.terms_missing(text[], bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.terms_missing(text[], bigint[]) TO service_role, anon, authenticated, rag_app;
