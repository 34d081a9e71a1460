-- Trigger on documents (before insert): takes, in id order, the row locks of the same company's documents in the
-- writer's workspace (FOR NO KEY UPDATE), as delete_document and update_document_metadata do first: two writers of one
-- company queue at their first lock instead of deadlocking over its term statistics and period links. Another team
-- never waits for them; different companies never share these locks.

CREATE OR REPLACE FUNCTION public.documents_lock_company() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if new.company_key is not null and new.company_key <> '' then
        perform 1 from documents d
         where d.company_key = new.company_key and coalesce(d.workspace, '') = coalesce(new.workspace, '')
         order by d.id
           for no key update;
    end if;
    return new;
end;
$$;

CREATE OR REPLACE TRIGGER documents_workspace_then_lock
    BEFORE INSERT ON public.documents
    FOR EACH ROW
    EXECUTE FUNCTION public.documents_lock_company();

REVOKE ALL ON FUNCTION public.documents_lock_company() FROM PUBLIC;
