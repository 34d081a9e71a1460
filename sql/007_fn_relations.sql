-- refresh_relations(company_key): rebuilds previous_period / next_period links among one issuer's
-- documents of the same type, ordered by fiscal year, period and date. Idempotent.
create or replace function refresh_relations(p_company_key text)
returns int
language plpgsql
as $$
declare
    n int;
begin
    if p_company_key is null or p_company_key = '' then
        return 0;
    end if;
    delete from document_relations r
     using documents d
     where d.id = r.source_id and d.company_key = p_company_key
       and r.relation in ('previous_period', 'next_period');
    with ordered as (
        select id, doc_type,
               lag(id) over (partition by doc_type
                             order by fiscal_year nulls last,
                                      case fiscal_period when 'Q1' then 1 when 'Q2' then 2 when 'Q3' then 3
                                                         when 'Q4' then 4 else 5 end,
                                      published_date nulls last, id) as prev_id
          from documents
         where company_key = p_company_key and fiscal_year is not null
    ), pairs as (
        select id as source_id, prev_id as target_id, 'previous_period' as relation from ordered where prev_id is not null
        union all
        select prev_id, id, 'next_period' from ordered where prev_id is not null
    )
    insert into document_relations (source_id, target_id, relation)
    select source_id, target_id, relation from pairs
    on conflict do nothing;
    get diagnostics n = row_count;
    return n;
end;
$$;
