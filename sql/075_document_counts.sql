-- Each document's number of chunks and figures, kept on its row. list_documents() counted them on every call: at a
-- million chunks (4,620 documents) that was 117 of its 127 ms as rag_app, an index scan per document with each row
-- checked by the policy, and the Ask and Library pages call it on every rerun. Chunks and figures are inserted with
-- their document (ingest_document, one transaction) and deleted with it (cascade); statement triggers keep the
-- counts through both, and through a direct insert or delete. A team may only write its own documents (041), so a
-- count it could forge is only ever its own.
alter table documents add column if not exists chunk_count int not null default 0;
alter table documents add column if not exists figure_count int not null default 0;

update documents d
   set chunk_count = (select count(*) from chunks c where c.document_id = d.id),
       figure_count = (select count(*) from figures f where f.document_id = d.id);

create or replace function documents_count_rows()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    -- the rows a statement added (+1) or removed (-1), per document; a document deleted in the same statement
    -- (cascade) has no row left to update
    if tg_table_name = 'chunks' and tg_op = 'INSERT' then
        update documents d set chunk_count = d.chunk_count + n.n
          from (select document_id, count(*)::int as n from new_rows group by document_id) n
         where d.id = n.document_id;
    elsif tg_table_name = 'chunks' then
        update documents d set chunk_count = greatest(0, d.chunk_count - n.n)
          from (select document_id, count(*)::int as n from old_rows group by document_id) n
         where d.id = n.document_id;
    elsif tg_op = 'INSERT' then
        update documents d set figure_count = d.figure_count + n.n
          from (select document_id, count(*)::int as n from new_rows group by document_id) n
         where d.id = n.document_id;
    else
        update documents d set figure_count = greatest(0, d.figure_count - n.n)
          from (select document_id, count(*)::int as n from old_rows group by document_id) n
         where d.id = n.document_id;
    end if;
    return null;
end;
$$;
revoke execute on function documents_count_rows() from public;

drop trigger if exists chunks_count_insert on chunks;
create trigger chunks_count_insert after insert on chunks
    referencing new table as new_rows for each statement execute function documents_count_rows();
drop trigger if exists chunks_count_delete on chunks;
create trigger chunks_count_delete after delete on chunks
    referencing old table as old_rows for each statement execute function documents_count_rows();
drop trigger if exists figures_count_insert on figures;
create trigger figures_count_insert after insert on figures
    referencing new table as new_rows for each statement execute function documents_count_rows();
drop trigger if exists figures_count_delete on figures;
create trigger figures_count_delete after delete on figures
    referencing old table as old_rows for each statement execute function documents_count_rows();

-- list_documents (replaces 055; same signature and result): the counts are read from the row
create or replace function list_documents()
returns table (
    document_id bigint, file_name text, title text, company text, company_key text, fiscal_year int, fiscal_period text,
    doc_type text, published_date date, uploaded_at timestamptz, sha256 text, page_count int,
    ocr_pages int, embedding_model text, status text, chunks bigint, figures bigint, year_labels int[], authors text[]
)
language sql
stable
set search_path = public, pg_temp
as $$
    select d.id, d.file_name, d.title, d.company, d.company_key, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date, d.uploaded_at, d.sha256, d.page_count, d.ocr_pages, d.embedding_model, d.status,
           d.chunk_count::bigint, d.figure_count::bigint,
           coalesce((select array_agg(y::int order by y::int)
                       from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'year_labels') = 'array'
                                                           then d.meta -> 'year_labels' end) y),
                    case when d.fiscal_year is not null then array[d.fiscal_year] end),
           (select array_agg(a) from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'authors') = 'array'
                                                                   then d.meta -> 'authors' end) a)
      from documents d
     order by d.company nulls last, d.fiscal_year nulls last, d.file_name;
$$;
