-- match_facts(query, documents, chunks, fiscal years, count): table facts whose row label (with its parent rows)
-- or table title matches any word of the query (ranked by full text, label words first), optionally only of
-- these documents, these chunks or these fiscal years. With an empty query: every fact of the documents / chunks,
-- in reading order. Runs as the caller: row-level security leaves each workspace its own documents' facts.
create or replace function match_facts(p_query text, p_document_ids bigint[] default null,
                                       p_chunk_ids bigint[] default null, p_fiscal_years int[] default null,
                                       p_match_count int default 50)
returns table (fact_id bigint, document_id bigint, chunk_id bigint, page int, label text, label_path text,
               col_header text, period text, fiscal_year int, fiscal_period text, is_change boolean,
               value double precision, raw text, unit text, scale double precision, table_title text,
               row_text text, col int, rank real)
language sql
stable
set search_path = public, pg_temp
as $$
    with q as (
        select case when coalesce(trim(p_query), '') = '' then null
                    else nullif(replace(plainto_tsquery('english', p_query)::text, ' & ', ' | '), '')::tsquery
               end as tsq
    )
    select f.id, f.document_id, f.chunk_id, f.page, f.label, f.label_path, f.col_header, f.period, f.fiscal_year,
           f.fiscal_period, f.is_change, f.value, f.raw, f.unit, f.scale, f.table_title, f.row_text, f.col,
           case when q.tsq is null then 0 else ts_rank_cd(f.tsv, q.tsq) end::real as rank
      from facts f, q
     where (q.tsq is null or f.tsv @@ q.tsq)
       and (q.tsq is not null or p_document_ids is not null or p_chunk_ids is not null)
       and (p_document_ids is null or f.document_id = any(p_document_ids))
       and (p_chunk_ids is null or f.chunk_id = any(p_chunk_ids))
       and (p_fiscal_years is null or f.fiscal_year = any(p_fiscal_years))
     order by rank desc, f.document_id, f.id
     limit greatest(1, least(coalesce(p_match_count, 50), 5000));
$$;

revoke execute on function match_facts(text, bigint[], bigint[], int[], int) from public;
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function match_facts(text, bigint[], bigint[], int[], int) to service_role, anon, authenticated;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant execute on function match_facts(text, bigint[], bigint[], int[], int) to rag_app;
    end if;
end
$$;
