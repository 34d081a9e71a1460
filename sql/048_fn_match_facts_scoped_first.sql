-- match_facts (replaces 045, same signature and result): with documents or chunks given, their facts are read first
-- (by the document and chunk indexes) and only those are matched and ranked; a search of the whole library still
-- goes through the full-text index. An answer's searches are over one issuer's few filings: 10–20 ms instead of
-- the ~170 ms of ranking every fact that shares a word.
create or replace function match_facts(p_query text, p_document_ids bigint[] default null,
                                       p_chunk_ids bigint[] default null, p_fiscal_years int[] default null,
                                       p_match_count int default 50)
returns table (fact_id bigint, document_id bigint, chunk_id bigint, page int, label text, label_path text,
               col_header text, period text, fiscal_year int, fiscal_period text, is_change boolean,
               value double precision, raw text, unit text, scale double precision, table_title text,
               row_text text, col int, rank real)
language plpgsql
stable
set search_path = public, pg_temp
as $$
declare
    tsq tsquery := case when coalesce(trim(p_query), '') = '' then null
                        else nullif(replace(plainto_tsquery('english', p_query)::text, ' & ', ' | '), '')::tsquery
                   end;
    n int := greatest(1, least(coalesce(p_match_count, 50), 5000));
begin
    if p_document_ids is null and p_chunk_ids is null then
        if tsq is null then
            return;  -- no query and no documents: nothing, not the whole table
        end if;
        return query
            select f.id, f.document_id, f.chunk_id, f.page, f.label, f.label_path, f.col_header, f.period,
                   f.fiscal_year, f.fiscal_period, f.is_change, f.value, f.raw, f.unit, f.scale, f.table_title,
                   f.row_text, f.col, ts_rank_cd(f.tsv, tsq)::real
              from facts f
             where f.tsv @@ tsq and (p_fiscal_years is null or f.fiscal_year = any(p_fiscal_years))
             order by 19 desc, f.document_id, f.id
             limit n;
        return;
    end if;
    return query
        with scoped as materialized (
            select f.* from facts f
             where (p_document_ids is null or f.document_id = any(p_document_ids))
               and (p_chunk_ids is null or f.chunk_id = any(p_chunk_ids))
               and (p_fiscal_years is null or f.fiscal_year = any(p_fiscal_years))
        )
        select f.id, f.document_id, f.chunk_id, f.page, f.label, f.label_path, f.col_header, f.period,
               f.fiscal_year, f.fiscal_period, f.is_change, f.value, f.raw, f.unit, f.scale, f.table_title,
               f.row_text, f.col, (case when tsq is null then 0 else ts_rank_cd(f.tsv, tsq) end)::real
          from scoped f
         where tsq is null or f.tsv @@ tsq
         order by 19 desc, f.document_id, f.id
         limit n;
end;
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
