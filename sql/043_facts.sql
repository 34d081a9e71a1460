-- facts: every value of every table row of a document (financial statements, KPI tables), read at ingestion
-- (rag/ingest/facts.py): the row label with its parent rows, the column header read as a period where it is one,
-- the value with its sign, and the unit and scale of the table. Linked to its chunk and page; searchable by label
-- (full text) and period. What hangs off a document follows it: the same row-level security as chunks.
create table if not exists facts (
    id bigserial primary key,
    document_id bigint not null references documents(id) on delete cascade,
    chunk_id bigint references chunks(id) on delete cascade,
    page int not null,
    label text not null,
    label_path text not null,
    col_header text not null default '',
    period text,
    fiscal_year int,
    fiscal_period text,
    is_change boolean not null default false,
    value double precision not null,
    raw text not null,
    unit text,
    scale double precision not null default 1,
    table_title text not null default '',
    row_text text not null default '',
    col int not null default 0,
    tsv tsvector generated always as (
        setweight(to_tsvector('english', label_path), 'A') || setweight(to_tsvector('english', table_title), 'C')
    ) stored
);
create index if not exists facts_document_idx on facts (document_id);
create index if not exists facts_chunk_idx on facts (chunk_id);
create index if not exists facts_tsv_idx on facts using gin (tsv);
create index if not exists facts_year_idx on facts (fiscal_year);

alter table facts enable row level security;

do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant all on facts to service_role;
        grant usage, select on sequence facts_id_seq to service_role;
        grant select on facts to anon, authenticated;
        drop policy if exists read_facts on facts;
        create policy read_facts on facts for select to anon, authenticated using (visible_document(document_id));
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select, insert, update, delete on facts to rag_app;
        grant usage, select on sequence facts_id_seq to rag_app;
        drop policy if exists app_read_facts on facts;
        create policy app_read_facts on facts for select to rag_app
            using (document_id in (select d.id from documents d));
        drop policy if exists app_write_facts on facts;
        create policy app_write_facts on facts for all to rag_app
            using (document_id in (select d.id from documents d
                                    where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')))
            with check (document_id in (select d.id from documents d
                                         where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')));
    end if;
end
$$;
