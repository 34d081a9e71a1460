-- update_document_metadata(id, company, company_key, fiscal_year, fiscal_period, doc_type, title): corrects a
-- document's metadata (null keeps a field); true when a row changed, false when nothing was saved. Takes the locks of
-- the old and the new company's documents in id order first, as ingestion does; a filing that moved to another company
-- while the writer waited is retried with nothing held, so two edits never deadlock. Refreshes both issuers' period
-- links.

CREATE OR REPLACE FUNCTION public.update_document_metadata(
    p_document_id bigint,
    p_company text DEFAULT NULL::text,
    p_company_key text DEFAULT NULL::text,
    p_fiscal_year integer DEFAULT NULL::integer,
    p_fiscal_period text DEFAULT NULL::text,
    p_doc_type text DEFAULT NULL::text,
    p_title text DEFAULT NULL::text
) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    old_key text;
    ws text;
    now_key text;
    now_ws text;
begin
    select company_key, coalesce(workspace, '') into old_key, ws from documents where id = p_document_id;
    if not found then
        return false;
    end if;
    loop  -- until the company locked for is the filing's company once the locks are held
        begin
            perform 1 from documents d
             where (d.id = p_document_id
                    or (d.company_key in (old_key, p_company_key) and d.company_key <> ''
                        and coalesce(d.workspace, '') = ws))
             order by d.id
               for no key update;
            select company_key, coalesce(workspace, '') into now_key, now_ws from documents where id = p_document_id;
            if not found then
                return false;
            end if;
            exit when now_key is not distinct from old_key and now_ws = ws;
            raise exception 'moved meanwhile' using errcode = 'RGMOV';  -- gives back this pass's locks
        exception when sqlstate 'RGMOV' then
            old_key := now_key;
            ws := now_ws;
        end;
    end loop;
    update documents
       set company = coalesce(p_company, company),
           company_key = coalesce(p_company_key, company_key),
           fiscal_year = coalesce(p_fiscal_year, fiscal_year),
           fiscal_period = coalesce(p_fiscal_period, fiscal_period),
           doc_type = coalesce(p_doc_type, doc_type),
           title = coalesce(nullif(btrim(p_title), ''), title),
           meta = case when p_fiscal_year is not null
                       then meta || jsonb_build_object('year_labels', jsonb_build_array(p_fiscal_year))
                       else meta end
     where id = p_document_id;
    if not found then  -- visible but not the caller's to edit (a shared document, for a team): nothing was saved
        return false;
    end if;
    perform refresh_relations(old_key);
    if p_company_key is not null and p_company_key is distinct from old_key then
        perform refresh_relations(p_company_key);
    end if;
    return true;
end;
$$;

REVOKE ALL ON FUNCTION public.update_document_metadata(bigint, text, text, integer, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.update_document_metadata(bigint, text, text, integer, text, text, text)
    TO service_role, rag_app;
