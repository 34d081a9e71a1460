-- Read-only views for structured questions ("How many sustainability reports are from 2023?") and the role
-- that runs them. The role can read these three views and nothing else: no table, no function with side
-- effects, no write. rag/sqlguard.py parses the SQL first (single SELECT over these views, LIMIT enforced) and
-- runs it in a READ ONLY transaction with a statement timeout under SET LOCAL ROLE rag_reader.
create or replace view v_documents as
select d.id as document_id, d.file_name, d.title, d.company, d.fiscal_year, d.fiscal_period, d.doc_type,
       d.published_date, d.uploaded_at, d.page_count, d.ocr_pages,
       (select count(*) from chunks c where c.document_id = d.id) as chunk_count,
       (select count(*) from figures f where f.document_id = d.id) as figure_count
  from documents d;

create or replace view v_chunks as
select c.id as chunk_id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type,
       c.token_count
  from chunks c;

create or replace view v_figures as
select f.id as figure_id, f.document_id, f.page, f.kind, f.caption, f.chart_type, f.width, f.height
  from figures f;

do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'rag_reader') then
        create role rag_reader nologin;
    end if;
end
$$;
revoke all on all tables in schema public from rag_reader;
grant usage on schema public to rag_reader;
grant select on v_documents, v_chunks, v_figures to rag_reader;
-- the connecting user may switch to the role (a superuser always can)
do $$
begin
    execute format('grant rag_reader to %I', current_user);
exception when others then
    null;
end
$$;
