-- document_chunks(document): the document's chunks in order (index, pages, heading, text), to read them again.
create or replace function document_chunks(p_document_id bigint)
returns table (chunk_index int, page_start int, page_end int, heading text, content text)
language sql
stable
set search_path = public, pg_temp
as $$
    select c.chunk_index, c.page_start, c.page_end, c.heading, c.content
      from chunks c
     where c.document_id = p_document_id
     order by c.chunk_index;
$$;

-- replace_document_facts(document, facts): a stored document's table facts read again (`rag facts --rebuild`,
-- after the reader improves): the old ones deleted and the new ones written in one transaction, each linked to the
-- chunk of its chunk_index. Runs as the caller: row-level security lets a workspace rewrite only its own
-- documents' facts. Returns the number written.
create or replace function replace_document_facts(p_document_id bigint, p_facts jsonb)
returns int
language plpgsql
set search_path = public, pg_temp
as $$
declare
    n int;
begin
    delete from facts where document_id = p_document_id;
    insert into facts (document_id, chunk_id, page, label, label_path, col_header, period, fiscal_year,
                       fiscal_period, is_change, value, raw, unit, scale, table_title, row_text, col)
    select p_document_id, ch.id, coalesce((x->>'page')::int, ch.page_start), x->>'label',
           coalesce(x->>'label_path', x->>'label'), coalesce(x->>'col_header', ''), x->>'period',
           (x->>'fiscal_year')::int, x->>'fiscal_period', coalesce((x->>'is_change')::boolean, false),
           (x->>'value')::double precision, coalesce(x->>'raw', ''), x->>'unit',
           coalesce((x->>'scale')::double precision, 1), coalesce(x->>'table_title', ''),
           coalesce(x->>'row_text', ''), coalesce((x->>'column')::int, 0)
      from jsonb_array_elements(case when jsonb_typeof(p_facts) = 'array' then p_facts else '[]'::jsonb end) as x
      join chunks ch on ch.document_id = p_document_id and ch.chunk_index = (x->>'chunk_index')::int;
    get diagnostics n = row_count;
    return n;
end;
$$;

revoke execute on function replace_document_facts(bigint, jsonb) from public;
revoke execute on function document_chunks(bigint) from public;
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function replace_document_facts(bigint, jsonb) to service_role;
        grant execute on function document_chunks(bigint) to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant execute on function replace_document_facts(bigint, jsonb) to rag_app;
        grant execute on function document_chunks(bigint) to rag_app;
    end if;
end
$$;
