-- match_facts(query, document_ids, chunk_ids, fiscal_years, match_count): table facts (label, period, value, unit,
-- scale) whose label or table title matches a word of the query, ranked by full-text rank. With documents or chunks
-- given, their facts are read first (by the document and chunk indexes) and only those are ranked; a search of the
-- whole library goes through the full-text index. Runs as the caller: each workspace its own documents' facts.

CREATE OR REPLACE FUNCTION public.match_facts(
    p_query text,
    p_document_ids bigint[] DEFAULT NULL::bigint[],
    p_chunk_ids bigint[] DEFAULT NULL::bigint[],
    p_fiscal_years integer[] DEFAULT NULL::integer[],
    p_match_count integer DEFAULT 50
) RETURNS TABLE (
    fact_id bigint,
    document_id bigint,
    chunk_id bigint,
    page integer,
    label text,
    label_path text,
    col_header text,
    period text,
    fiscal_year integer,
    fiscal_period text,
    is_change boolean,
    value double precision,
    raw text,
    unit text,
    scale double precision,
    table_title text,
    row_text text,
    col integer,
    rank real
)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.match_facts(text, bigint[], bigint[], integer[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.match_facts(text, bigint[], bigint[], integer[], integer)
    TO service_role, anon, authenticated, rag_app;
