-- chunks_by_id(ids): chunks by id with their document's metadata (the shape of a match_chunks row, scores zero), for
-- the evidence of a table fact whose chunk the search did not return. Runs as the caller: row-level security leaves
-- each workspace its own documents' chunks.
create or replace function chunks_by_id(p_ids bigint[])
returns table (chunk_id bigint, document_id bigint, chunk_index int, page_start int, page_end int, heading text,
               section_type text, content text, token_count int, file_name text, title text, company text,
               fiscal_year int, fiscal_period text, doc_type text, published_date date)
language sql
stable
set search_path = public, pg_temp
as $$
    select c.id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type, c.content,
           c.token_count, d.file_name, d.title, d.company, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date
      from chunks c join documents d on d.id = c.document_id
     where c.id = any(p_ids);
$$;

revoke execute on function chunks_by_id(bigint[]) from public;
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function chunks_by_id(bigint[]) to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant execute on function chunks_by_id(bigint[]) to rag_app;
    end if;
end
$$;
