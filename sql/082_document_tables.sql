-- doc_tables: every table of a document as a record, read once at ingestion (rag/ingest/facts.py read_tables): its
-- title, the unit and scale its header or caption states, its columns (header as printed, with the period each
-- reads as) and its rows (label, the group labels above it, each value cell with its unit, scale and column, page
-- and chunk). Table facts (sql/043) derive from these; a citation shows the table of its chunk. What hangs off a
-- document follows it: the same row-level security as chunks and facts.
create table if not exists doc_tables (
    id bigserial primary key,
    document_id bigint not null references documents(id) on delete cascade,
    table_no int not null,
    chunk_indexes int[] not null,
    page_start int not null,
    page_end int not null,
    title text not null default '',
    unit text,
    scale double precision not null default 1,
    stub text not null default '',
    columns jsonb not null default '[]'::jsonb,
    rows jsonb not null default '[]'::jsonb,
    unique (document_id, table_no)
);
create index if not exists doc_tables_chunks_idx on doc_tables using gin (chunk_indexes);

alter table doc_tables enable row level security;

do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant all on doc_tables to service_role;
        grant usage, select on sequence doc_tables_id_seq to service_role;
        grant select on doc_tables to anon, authenticated;
        drop policy if exists read_doc_tables on doc_tables;
        create policy read_doc_tables on doc_tables for select to anon, authenticated
            using (visible_document(document_id));
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select, insert, update, delete on doc_tables to rag_app;
        grant usage, select on sequence doc_tables_id_seq to rag_app;
        drop policy if exists app_read_doc_tables on doc_tables;
        create policy app_read_doc_tables on doc_tables for select to rag_app
            using (document_id in (select d.id from documents d));
        drop policy if exists app_write_doc_tables on doc_tables;
        create policy app_write_doc_tables on doc_tables for all to rag_app
            using (document_id in (select d.id from documents d
                                    where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')))
            with check (document_id in (select d.id from documents d
                                         where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')));
    end if;
end
$$;
