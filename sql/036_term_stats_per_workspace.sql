-- term_stats per workspace: the vocabulary of one team's documents is not another team's to read. Each row counts
-- the chunks of one workspace's documents ('' = shared) containing a lexeme; row-level security shows a reader the
-- shared rows and its own workspace's, so match_chunks (which sums them, below) sees the document frequency of
-- the documents it can search. Counts follow inserts of chunks, deletes of documents (before the cascade, while
-- the document still says its workspace) and a document moved to another workspace; a lexeme no chunk of a
-- workspace holds any more leaves no row behind (a zero would still name it).
alter table term_stats add column if not exists workspace text not null default '';
alter table term_stats drop constraint if exists term_stats_pkey;
alter table term_stats add primary key (workspace, lexeme);
create index if not exists term_stats_lexeme_idx on term_stats (lexeme);

truncate term_stats;
insert into term_stats (workspace, lexeme, ndoc)
select coalesce(d.workspace, ''), l, count(*)
  from chunks c join documents d on d.id = c.document_id, unnest(tsvector_to_array(c.fts)) as l
 group by 1, 2;

create or replace function term_stats_after_insert()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    insert into term_stats (workspace, lexeme, ndoc)
    select coalesce(d.workspace, ''), l, count(*)
      from new_rows join documents d on d.id = new_rows.document_id, unnest(tsvector_to_array(new_rows.fts)) as l
     group by 1, 2 order by 1, 2
    on conflict (workspace, lexeme) do update set ndoc = term_stats.ndoc + excluded.ndoc;
    return null;
end;
$$;

create or replace function term_stats_documents_change()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'DELETE' then
        update term_stats t set ndoc = greatest(0, t.ndoc - d.n)
          from (select l, count(*) as n from chunks c, unnest(tsvector_to_array(c.fts)) as l
                 where c.document_id = old.id group by l) d
         where t.workspace = coalesce(old.workspace, '') and t.lexeme = d.l;
        delete from term_stats where workspace = coalesce(old.workspace, '') and ndoc <= 0;
        return old;
    end if;
    if coalesce(new.workspace, '') <> coalesce(old.workspace, '') then
        update term_stats t set ndoc = greatest(0, t.ndoc - d.n)
          from (select l, count(*) as n from chunks c, unnest(tsvector_to_array(c.fts)) as l
                 where c.document_id = old.id group by l) d
         where t.workspace = coalesce(old.workspace, '') and t.lexeme = d.l;
        delete from term_stats where workspace = coalesce(old.workspace, '') and ndoc <= 0;
        insert into term_stats (workspace, lexeme, ndoc)
        select coalesce(new.workspace, ''), l, count(*)
          from chunks c, unnest(tsvector_to_array(c.fts)) as l where c.document_id = new.id
         group by 1, 2 order by 1, 2
        on conflict (workspace, lexeme) do update set ndoc = term_stats.ndoc + excluded.ndoc;
    end if;
    return new;
end;
$$;

-- chunks are deleted with their document (cascade); the document's trigger has already counted them out
drop trigger if exists chunks_term_stats_delete on chunks;
drop function if exists term_stats_after_delete();
drop trigger if exists documents_term_stats_delete on documents;
create trigger documents_term_stats_delete before delete on documents
    for each row execute function term_stats_documents_change();
drop trigger if exists documents_term_stats_workspace on documents;
create trigger documents_term_stats_workspace after update of workspace on documents
    for each row execute function term_stats_documents_change();

-- readers: the shared rows and their own workspace's (032 let them read every row)
drop policy if exists read_term_stats on term_stats;
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'anon') and exists (select 1 from pg_roles where rolname = 'authenticated') then
        create policy read_term_stats on term_stats for select to anon, authenticated
            using (workspace = '' or workspace = (select current_workspace()));
    end if;
end
$$;

-- match_chunks (replaces 016, same signature and result): selective terms by the visible document frequency.
create or replace function match_chunks(
    query_embedding      vector,
    query_text           text,
    match_count          int default 10,
    candidate_count      int default 50,
    filter_document_ids  bigint[] default null,
    filter_companies     text[] default null,
    filter_year_min      int default null,
    filter_year_max      int default null,
    filter_doc_types     text[] default null,
    filter_section_types text[] default null,
    rrf_k                int default 60,
    semantic_weight      double precision default 1.0,
    full_text_weight     double precision default 1.0
)
returns table (
    chunk_id          bigint,
    document_id       bigint,
    chunk_index       int,
    page_start        int,
    page_end          int,
    heading           text,
    section_type      text,
    content           text,
    token_count       int,
    file_name         text,
    title             text,
    company           text,
    fiscal_year       int,
    fiscal_period     text,
    doc_type          text,
    published_date    date,
    uploaded_at       timestamptz,
    cosine_similarity double precision,
    text_rank         double precision,
    semantic_rank     int,
    full_text_rank    int,
    fused_score       double precision
)
language plpgsql
stable
set hnsw.ef_search = 200
set search_path = public, pg_temp
as $$
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
begin
    begin
        q := to_tsquery('english', replace(websearch_to_tsquery('english', coalesce(query_text, ''))::text,
                                           ' & ', ' | '));
    exception when others then
        q := plainto_tsquery('english', coalesce(query_text, ''));
    end;
    select count(*) into n_chunks from chunks;
    -- document frequency summed over the workspaces the caller can see (term_stats is per workspace)
    select array_agg(x.l) into selective
      from (select distinct l from unnest(tsvector_to_array(to_tsvector('english', coalesce(query_text, '')))) l) x
      cross join lateral (select sum(t.ndoc) as ndoc from term_stats t where t.lexeme = x.l) t
     where t.ndoc > 0 and t.ndoc <= greatest(50, 0.2 * n_chunks);
    if selective is null then
        q_match := q;
    else
        q_match := to_tsquery('simple', array_to_string(array(select quote_literal(s) from unnest(selective) s), ' | '));
    end if;

    -- Semantic candidates into arrays (a stable function may not write a temporary table).
    if filtered then
        -- "+ 0" keeps the planner off the HNSW index: the filtered set is scanned exactly.
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

    return query
    with full_text as (
        select c.id, ts_rank_cd(c.fts, q, 32) as rank,
               row_number() over (order by ts_rank_cd(c.fts, q, 32) desc, c.id) as rnk
          from chunks c join documents d on d.id = c.document_id
         where c.fts @@ q_match
           and (filter_document_ids is null or c.document_id = any(filter_document_ids))
           and (filter_companies is null or d.company_key = any(filter_companies))
           and (filter_year_min is null or d.fiscal_year >= filter_year_min)
           and (filter_year_max is null or d.fiscal_year <= filter_year_max)
           and (filter_doc_types is null or d.doc_type = any(filter_doc_types))
           and (filter_section_types is null or c.section_type = any(filter_section_types))
         order by rank desc, c.id
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
     order by fu.score desc, fu.id
     limit match_count;
end;
$$;
