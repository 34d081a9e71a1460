-- A document's insert and its delete take the same locks first, in the same order: the rows of the same company's
-- documents in the writer's workspace, by id (FOR NO KEY UPDATE). Before, a delete locked its document, then the
-- term statistics (its trigger counts the chunks out), while an ingestion of the same company held those statistics
-- (its chunks' insert) and then waited for the deleted document (refresh_relations' foreign-key check): a deadlock,
-- found by an independent attack (8 threads of ingests and deletes of one company: 28 deadlocks in 61 calls). Now
-- the second of two such writers waits at its first lock until the first commits. Only the writer's own workspace
-- is locked: another team never waits for it. Different companies never share these locks.
create or replace function documents_lock_company()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
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
revoke execute on function documents_lock_company() from public;

-- after documents_workspace (triggers of one kind fire in name order), which sets the new row's workspace
drop trigger if exists documents_workspace_then_lock on documents;
create trigger documents_workspace_then_lock before insert on documents
    for each row execute function documents_lock_company();

-- delete_document (replaces 011; same signature and result): the company's documents are locked first, in id order
create or replace function delete_document(p_document_id bigint)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
declare
    ck text;
    ws text;
begin
    select d.company_key, coalesce(d.workspace, '') into ck, ws from documents d where d.id = p_document_id;
    if ck is not null and ck <> '' then
        perform 1 from documents d
         where d.company_key = ck and coalesce(d.workspace, '') = ws
         order by d.id
           for no key update;
    end if;
    delete from documents where id = p_document_id returning company_key into ck;
    if not found then
        return false;
    end if;
    perform refresh_relations(ck);
    return true;
end;
$$;
