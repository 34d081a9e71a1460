-- delete_document(id): deletes a document the caller may write (its workspace's, or a shared one for the owner and
-- service_role) with everything that hangs off it (chunks, figures, facts, tables, file, relations, postings, term
-- counts), then refreshes its issuer's period links. True when a document was deleted. Before deleting it takes the
-- locks an ingestion of the same company takes, in the same order (documents_lock_company): the rows of that company's
-- documents in the writer's workspace, by id, re-taken with nothing held when the document moved meanwhile; so a delete
-- and an ingestion of the same company never deadlock.

CREATE OR REPLACE FUNCTION public.delete_document(p_document_id bigint) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.delete_document(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.delete_document(bigint) TO service_role, rag_app;
