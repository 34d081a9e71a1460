-- The reader views run with the caller's rights (security_invoker), so row-level security applies through them:
-- a reader sees the shared documents and its own workspace's, in every view. The views need the caller to read
-- the columns they show, so rag_reader gets exactly those columns of the base tables (never chunks.content,
-- embeddings, images, meta, sha256, workspace) and row policies that follow the documents it may see.
alter view v_documents set (security_invoker = true);
alter view v_chunks set (security_invoker = true);
alter view v_figures set (security_invoker = true);

revoke all on documents, chunks, figures from rag_reader;
grant select (id, file_name, title, company, fiscal_year, fiscal_period, doc_type, published_date, uploaded_at,
              page_count, ocr_pages) on documents to rag_reader;
grant select (id, document_id, chunk_index, page_start, page_end, heading, section_type, token_count)
    on chunks to rag_reader;
grant select (id, document_id, page, kind, caption, chart_type, width, height) on figures to rag_reader;
grant select on v_documents, v_chunks, v_figures to rag_reader;
grant execute on function current_workspace() to rag_reader;

drop policy if exists reader_documents on documents;
create policy reader_documents on documents for select to rag_reader
    using (workspace is null or workspace = (select current_workspace()));
-- chunks and figures follow their document: the subquery is itself filtered by the documents policy
drop policy if exists reader_chunks on chunks;
create policy reader_chunks on chunks for select to rag_reader
    using (exists (select 1 from documents d where d.id = chunks.document_id));
drop policy if exists reader_figures on figures;
create policy reader_figures on figures for select to rag_reader
    using (exists (select 1 from documents d where d.id = figures.document_id));
