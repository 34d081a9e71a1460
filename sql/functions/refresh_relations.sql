-- refresh_relations(company_key): rebuilds the previous / next period links of an issuer's documents as the caller sees
-- them (the shared documents and its own workspace's), linking only from the caller's own documents: one team's upload
-- never rewrites the links among shared documents or another team's. Returns the links written.

CREATE OR REPLACE FUNCTION public.refresh_relations(p_company_key text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    n int;
    v_ws text := coalesce(current_workspace(), '');
begin
    if p_company_key is null or p_company_key = '' then
        return 0;
    end if;
    delete from document_relations r
     using documents d
     where d.id = r.source_id and d.company_key = p_company_key and coalesce(d.workspace, '') = v_ws
       and r.relation in ('previous_period', 'next_period');
    with ordered as (
        select id, doc_type, coalesce(workspace, '') as ws,
               lag(id) over w as prev_id, lead(id) over w as next_id
          from documents
         where company_key = p_company_key and fiscal_year is not null
           and (workspace is null or workspace = nullif(v_ws, ''))
        window w as (partition by doc_type
                     order by fiscal_year nulls last,
                              case fiscal_period when 'Q1' then 1 when 'Q2' then 2 when 'Q3' then 3
                                                 when 'Q4' then 4 else 5 end,
                              published_date nulls last, id)
    ), pairs as (
        select id as source_id, prev_id as target_id, 'previous_period' as relation
          from ordered where prev_id is not null and ordered.ws = v_ws
        union all
        select id, next_id, 'next_period' from ordered where next_id is not null and ordered.ws = v_ws
    )
    insert into document_relations (source_id, target_id, relation)
    select source_id, target_id, relation from pairs
    on conflict do nothing;
    get diagnostics n = row_count;
    return n;
end;
$$;

REVOKE ALL ON FUNCTION public.refresh_relations(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.refresh_relations(text) TO service_role, rag_app;
