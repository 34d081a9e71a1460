-- update_document_metadata(id, company, fiscal_year, fiscal_period, doc_type): corrections from the library page.
-- Null leaves a field as it is; the issuer key follows the company name, and period relations are rebuilt.
create or replace function update_document_metadata(p_document_id bigint, p_company text default null,
                                                    p_company_key text default null, p_fiscal_year int default null,
                                                    p_fiscal_period text default null, p_doc_type text default null)
returns boolean
language plpgsql
as $$
declare
    old_key text;
begin
    select company_key into old_key from documents where id = p_document_id;
    if not found then
        return false;
    end if;
    update documents
       set company = coalesce(p_company, company),
           company_key = coalesce(p_company_key, company_key),
           fiscal_year = coalesce(p_fiscal_year, fiscal_year),
           fiscal_period = coalesce(p_fiscal_period, fiscal_period),
           doc_type = coalesce(p_doc_type, doc_type),
           meta = case when p_fiscal_year is not null
                       then meta || jsonb_build_object('year_labels', jsonb_build_array(p_fiscal_year))
                       else meta end
     where id = p_document_id;
    perform refresh_relations(old_key);
    if p_company_key is not null and p_company_key is distinct from old_key then
        perform refresh_relations(p_company_key);
    end if;
    return true;
end;
$$;
