-- match_chunks(query_embedding, query_text, match_count, candidate_count, filters…, rrf_k, weights): the hybrid search.
-- The chunks the caller may see (row-level security), filtered by document, company, fiscal years, document and section
-- types, ranked by reciprocal-rank fusion of two candidate lists:
--   * semantic: cosine distance to the query's embedding; a library of up to 30,000 chunks is scanned exactly (HNSW's
--     greedy walk can miss a small cluster far from the rest), a larger one through the HNSW index (ef_search 200);
--   * full text: ts_rank over the query's terms, weighted by their document frequency in the workspaces the caller can
--     see (term_stats); for callers under row-level security the candidates come from chunk_postings (their own and the
--     shared workspace's postings of the rarest terms, the latest documents first, at most 5,000), since the GIN index
--     on chunks.fts may not be used there.
-- Returns up to match_count chunks with their document's metadata, each list's rank and similarity, and the fused
-- score. What one team asks takes the same path whatever another team's documents hold (timings included).

CREATE OR REPLACE FUNCTION public.match_chunks(
    query_embedding public.vector,
    query_text text,
    match_count integer DEFAULT 10,
    candidate_count integer DEFAULT 50,
    filter_document_ids bigint[] DEFAULT NULL::bigint[],
    filter_companies text[] DEFAULT NULL::text[],
    filter_year_min integer DEFAULT NULL::integer,
    filter_year_max integer DEFAULT NULL::integer,
    filter_doc_types text[] DEFAULT NULL::text[],
    filter_section_types text[] DEFAULT NULL::text[],
    rrf_k integer DEFAULT 60,
    semantic_weight double precision DEFAULT 1.0,
    full_text_weight double precision DEFAULT 1.0
) RETURNS TABLE (
    chunk_id bigint,
    document_id bigint,
    chunk_index integer,
    page_start integer,
    page_end integer,
    heading text,
    section_type text,
    content text,
    token_count integer,
    file_name text,
    title text,
    company text,
    fiscal_year integer,
    fiscal_period text,
    doc_type text,
    published_date date,
    uploaded_at timestamp with time zone,
    cosine_similarity double precision,
    text_rank double precision,
    semantic_rank integer,
    full_text_rank integer,
    fused_score double precision
)
    LANGUAGE plpgsql STABLE
    SET "hnsw.ef_search" TO '200'
    SET plan_cache_mode TO 'force_custom_plan'
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    q tsquery;
    q_match tsquery;
    n_chunks bigint;
    selective text[];
    sem_ids bigint[];
    sem_dists double precision[];
    filtered boolean := filter_document_ids is not null or filter_companies is not null
                        or filter_year_min is not null or filter_year_max is not null
                        or filter_doc_types is not null or filter_section_types is not null;
    exact boolean;
    big boolean;
    lex boolean := row_security_active('public.chunks');
    lex_ids bigint[];
    lex_q tsquery;
    terms text[];
    doc_ids bigint[];
    vouched boolean := false;  -- the candidates come from the postings of a query without a phrase
begin
    begin
        q := to_tsquery('english', replace(websearch_to_tsquery('english', coalesce(query_text, ''))::text,
                                           ' & ', ' | '));
    exception when others then
        q := plainto_tsquery('english', coalesce(query_text, ''));
    end;
    select c.reltuples::bigint into n_chunks from pg_class c where c.oid = 'public.chunks'::regclass;
    if n_chunks is null or n_chunks < 0 then  -- never analysed: count once
        select count(*) into n_chunks from chunks;
    end if;
    big := n_chunks > 30000;
    -- a library of up to 30,000 chunks (about a hundred filings) is scanned exactly: HNSW's greedy walk can miss a
    -- small cluster far from the rest (a few papers among many 10-Ks) even at ef_search 200, and the exact scan of
    -- that many chunks costs tens of milliseconds
    exact := filtered or n_chunks <= 30000;
    -- document frequency summed over the workspaces the caller can see (term_stats is per workspace)
    if not big then
        select array_agg(x.l) into selective
          from (select distinct l from unnest(tsvector_to_array(to_tsvector('english', coalesce(query_text, '')))) l) x
          cross join lateral (select sum(t.ndoc) as ndoc from term_stats t where t.lexeme = x.l) t
         where t.ndoc > 0 and t.ndoc <= greatest(50, 0.2 * n_chunks);
    else
        select array_agg(y.l order by y.ndoc, y.l) into selective
          from (select x.l, x.ndoc, sum(x.ndoc) over (order by x.ndoc, x.l) as cum,
                       row_number() over (order by x.ndoc, x.l) as rn
                  from (select u.l, sum(t.ndoc) as ndoc
                          from (select distinct l
                                  from unnest(tsvector_to_array(to_tsvector('english', coalesce(query_text, ''))))
                                       l) u
                          join term_stats t on t.lexeme = u.l
                         group by u.l) x
                 where x.ndoc > 0) y
         where y.cum <= 3000 or y.rn = 1;
    end if;
    if selective is null then
        q_match := q;
    else
        q_match := to_tsquery('simple', array_to_string(array(select quote_literal(s) from unnest(selective) s), ' | '));
    end if;

    -- Semantic candidates into arrays (a stable function may not write a temporary table).
    if exact then
        -- "+ 0" keeps the planner off the HNSW index: the filtered (or small) set is scanned exactly.
        select array_agg(x.id order by x.dist), array_agg(x.dist order by x.dist) into sem_ids, sem_dists
          from (select c.id, (c.embedding <=> query_embedding) + 0 as dist
                  from chunks c join documents d on d.id = c.document_id
                 where c.embedding is not null
                   and (filter_document_ids is null or c.document_id = any(filter_document_ids))
                   and (filter_companies is null or d.company_key = any(filter_companies))
                   and (filter_year_min is null or d.fiscal_year >= filter_year_min)
                   and (filter_year_max is null or d.fiscal_year <= filter_year_max)
                   and (filter_doc_types is null or d.doc_type = any(filter_doc_types))
                   and (filter_section_types is null or c.section_type = any(filter_section_types))
                 order by 2
                 limit candidate_count) x;
    else
        select array_agg(x.id order by x.dist), array_agg(x.dist order by x.dist) into sem_ids, sem_dists
          from (select c.id, c.embedding <=> query_embedding as dist
                  from chunks c
                 order by c.embedding <=> query_embedding
                 limit candidate_count) x;
    end if;

    -- chunk_lexemes has no positions: a phrase (`<->`, `<N>`) is looked for as all its words (`&`), a wider match
    -- that the check on chunks.fts narrows again; a negated phrase cannot be widened that way, so it takes the old path
    lex_q := q_match;
    if lex and q_match::text ~ '<(-|[0-9]+)>' then
        if position('!' in q_match::text) > 0 then
            lex := false;
        else
            lex_q := regexp_replace(q_match::text, '<(-|[0-9]+)>', '&', 'g')::tsquery;
        end if;
    end if;
    if lex and big and q_match::text !~ '!|:[*A-D]' then
        -- the lexemes to look up (a tsquery prints them quoted, a quote inside doubled): the first of each branch of
        -- the query's top-level OR, since a chunk that matches a branch holds every lexeme of it (a hyphenated
        -- word is the phrase 'clause-level' <-> 'clause' <-> 'level': its common parts would add thousands of
        -- chunks that the check below throws away); with parentheses, every lexeme
        if q_match::text ~ '[()]' then
            select array_agg(distinct replace(m[1], '''''', '''')) into terms
              from regexp_matches(q_match::text, '''((?:[^'']|'''')*)''', 'g') m;
        else
            select array_agg(distinct replace((regexp_match(b, '''((?:[^'']|'''')*)'''))[1], '''''', '''')) into terms
              from regexp_split_to_table(q_match::text, ' \| ') b;
        end if;
        if filter_document_ids is not null or filter_companies is not null or filter_year_min is not null
           or filter_year_max is not null or filter_doc_types is not null then
            select coalesce(array_agg(d.id), '{}') into doc_ids
              from documents d
             where (filter_document_ids is null or d.id = any(filter_document_ids))
               and (filter_companies is null or d.company_key = any(filter_companies))
               and (filter_year_min is null or d.fiscal_year >= filter_year_min)
               and (filter_year_max is null or d.fiscal_year <= filter_year_max)
               and (filter_doc_types is null or d.doc_type = any(filter_doc_types));
        end if;
        select array_agg(distinct x.id) into lex_ids
          from (select u.id
                  from (select p.chunk_ids
                          from chunk_postings p
                         where p.lexeme = any(coalesce(terms, '{}'))
                           and (doc_ids is null or p.document_id = any(doc_ids))
                         order by p.document_id desc) p
                 cross join lateral unnest(p.chunk_ids) u(id)
                 limit 5000) x;
        vouched := q_match::text !~ '[()&<]';  -- an OR of single lexemes: each candidate holds one of them
    elsif lex then
        select array_agg(x.chunk_id) into lex_ids
          from (select l.chunk_id
                  from chunk_lexemes l join documents d on d.id = l.document_id
                 where l.lexemes @@ lex_q
                   and (filter_document_ids is null or l.document_id = any(filter_document_ids))
                   and (filter_companies is null or d.company_key = any(filter_companies))
                   and (filter_year_min is null or d.fiscal_year >= filter_year_min)
                   and (filter_year_max is null or d.fiscal_year <= filter_year_max)
                   and (filter_doc_types is null or d.doc_type = any(filter_doc_types))
                 limit case when big then 20000 end) x;
    end if;

    return query
    with matched as (
        select c.id, ts_rank_cd(c.fts, q, 32) as rank
          from chunks c join documents d on d.id = c.document_id
         where (not lex or c.id = any(lex_ids))
           and (not lex or lex_ids is not null)  -- no candidates: no plan at all, whatever the statistics say
           and (vouched or c.fts @@ q_match)
           and (filter_document_ids is null or c.document_id = any(filter_document_ids))
           and (filter_companies is null or d.company_key = any(filter_companies))
           and (filter_year_min is null or d.fiscal_year >= filter_year_min)
           and (filter_year_max is null or d.fiscal_year <= filter_year_max)
           and (filter_doc_types is null or d.doc_type = any(filter_doc_types))
           and (filter_section_types is null or c.section_type = any(filter_section_types))
         limit case when big then 20000 end
    ), full_text as (
        select m.id, m.rank, row_number() over (order by m.rank desc, m.id) as rnk
          from matched m
         order by m.rank desc, m.id
         limit candidate_count
    ), fused as (
        select coalesce(s.id, f.id) as id, s.sim, f.rank, s.rnk as srnk, f.rnk as frnk,
               coalesce(semantic_weight / (rrf_k + s.rnk), 0.0)
             + coalesce(full_text_weight / (rrf_k + f.rnk), 0.0) as score
          from (select u.id, 1 - u.dist as sim, u.rnk
                  from unnest(sem_ids, sem_dists) with ordinality as u(id, dist, rnk)) s
          full outer join full_text f on s.id = f.id
    )
    select c.id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type,
           c.content, c.token_count, d.file_name, d.title, d.company, d.fiscal_year, d.fiscal_period,
           d.doc_type, d.published_date, d.uploaded_at,
           coalesce(fu.sim, 1 - (c.embedding <=> query_embedding)), coalesce(fu.rank, 0.0)::double precision,
           fu.srnk::int, fu.frnk::int, fu.score
      from fused fu
      join chunks c on c.id = fu.id
      join documents d on d.id = c.document_id
     where c.id = any(array(select f2.id from fused f2))  -- the pool's ~100 rows by primary key, under RLS too
     order by fu.score desc, fu.id
     limit match_count;
end;
$$;

REVOKE ALL ON FUNCTION public.match_chunks(public.vector, text, integer, integer, bigint[], text[], integer, integer, text[], text[], integer, double precision, double precision)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.match_chunks(public.vector, text, integer, integer, bigint[], text[], integer, integer, text[], text[], integer, double precision, double precision)
    TO service_role, anon, authenticated, rag_app;
