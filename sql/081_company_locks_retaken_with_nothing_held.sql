-- A writer whose filing moved to another company while it waited for the company's locks takes them again with
-- nothing held. 079's update_document_metadata kept the old company's locks while it took the new one's, out of id
-- order, and could deadlock with another edit (an independent review: 5 retries in 2,400 calls of a stress with
-- moves between two companies, and a three-edit interleaving that deadlocks). Each pass now runs in its own block: a
-- pass that finds the filing moved ends in an error of our own, which rolls the block back and releases its row
-- locks. delete_document (078) read the company once and never looked again; it now does the same.
create or replace function update_document_metadata(p_document_id bigint, p_company text default null,
                                                    p_company_key text default null, p_fiscal_year int default null,
                                                    p_fiscal_period text default null, p_doc_type text default null,
                                                    p_title text default null)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
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


-- delete_document (replaces 078; same signature and result)
create or replace function delete_document(p_document_id bigint)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
declare
    ck text;
    ws text;
    now_ck text;
    now_ws text;
begin
    select d.company_key, coalesce(d.workspace, '') into ck, ws from documents d where d.id = p_document_id;
    if not found then
        return false;
    end if;
    loop
        begin
            perform 1 from documents d
             where d.id = p_document_id
                or (d.company_key = ck and d.company_key <> '' and coalesce(d.workspace, '') = ws)
             order by d.id
               for no key update;
            select d.company_key, coalesce(d.workspace, '') into now_ck, now_ws from documents d
             where d.id = p_document_id;
            if not found then
                return false;
            end if;
            exit when now_ck is not distinct from ck and now_ws = ws;
            raise exception 'moved meanwhile' using errcode = 'RGMOV';
        exception when sqlstate 'RGMOV' then
            ck := now_ck;
            ws := now_ws;
        end;
    end loop;
    delete from documents where id = p_document_id returning company_key into ck;
    if not found then
        return false;
    end if;
    perform refresh_relations(ck);
    return true;
end;
$$;
