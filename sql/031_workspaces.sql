-- Optional per-workspace isolation: a document belongs to a workspace (null = shared with everyone). The
-- workspace is taken from the caller — Supabase's JWT claim "workspace", else the session setting
-- rag.workspace — when the document is written; the row-level-security policies (032) show a caller only the
-- shared documents and those of its own workspace, so two teams' documents never mix.
alter table documents add column if not exists workspace text;
create index if not exists documents_workspace_idx on documents (workspace);

create or replace function current_workspace()
returns text
language sql
stable
set search_path = public, pg_temp
as $$
    select coalesce(nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'workspace',
                    nullif(current_setting('rag.workspace', true), ''));
$$;

create or replace function documents_set_workspace()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    new.workspace := coalesce(new.workspace, current_workspace());
    return new;
end;
$$;

drop trigger if exists documents_workspace on documents;
create trigger documents_workspace before insert on documents
    for each row execute function documents_set_workspace();

-- visible_document(id): the caller may see this document (shared, or of the caller's workspace).
create or replace function visible_document(p_document_id bigint)
returns boolean
language sql
stable
set search_path = public, pg_temp
as $$
    select exists (select 1 from documents d
                    where d.id = p_document_id
                      and (d.workspace is null or d.workspace = current_workspace()));
$$;
