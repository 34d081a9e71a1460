-- tables_of_chunks(chunk ids): the tables with a row in any of these chunks (a citation's table), in document order.
-- document_tables(document): every table of a document, in order.
-- replace_document_tables(document, tables, facts): a stored document's tables and the facts derived from them read
-- again (`rag facts --rebuild`), the old ones deleted and the new ones written in one transaction, in reading order
-- (as ingest_document writes them, sql/083); returns the number of facts written.
-- replace_document_facts (046's, same signature) now writes the facts in reading order; replace_document_tables calls it.
-- All run as the caller: row-level security leaves each workspace its own documents' tables.
create or replace function tables_of_chunks(p_chunk_ids bigint[])
returns table (table_id bigint, document_id bigint, table_no int, chunk_indexes int[], page_start int, page_end int,
               title text, unit text, scale double precision, stub text, columns jsonb, rows jsonb)
language sql
stable
set search_path = public, pg_temp
as $$
    select distinct on (t.id) t.id, t.document_id, t.table_no, t.chunk_indexes, t.page_start, t.page_end, t.title,
           t.unit, t.scale, t.stub, t.columns, t.rows
      from chunks c
      join doc_tables t on t.document_id = c.document_id and t.chunk_indexes @> array[c.chunk_index]
     where c.id = any(p_chunk_ids)
     order by t.id;
$$;

create or replace function document_tables(p_document_id bigint)
returns table (table_id bigint, document_id bigint, table_no int, chunk_indexes int[], page_start int, page_end int,
               title text, unit text, scale double precision, stub text, columns jsonb, rows jsonb)
language sql
stable
set search_path = public, pg_temp
as $$
    select t.id, t.document_id, t.table_no, t.chunk_indexes, t.page_start, t.page_end, t.title, t.unit, t.scale,
           t.stub, t.columns, t.rows
      from doc_tables t
     where t.document_id = p_document_id
     order by t.table_no;
$$;

-- replace_document_facts (replaces 046, same signature and result): the facts written in reading order (their ids
-- follow the list given), as ingest_document writes them (sql/083).
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
      from jsonb_array_elements(case when jsonb_typeof(p_facts) = 'array' then p_facts else '[]'::jsonb end)
           with ordinality as xj(x, xi)
      join chunks ch on ch.document_id = p_document_id and ch.chunk_index = (xj.x->>'chunk_index')::int
     order by xj.xi;  -- ids in reading order, as at ingestion
    get diagnostics n = row_count;
    return n;
end;
$$;

create or replace function replace_document_tables(p_document_id bigint, p_tables jsonb, p_facts jsonb)
returns int
language plpgsql
set search_path = public, pg_temp
as $$
begin
    delete from doc_tables where document_id = p_document_id;
    insert into doc_tables (document_id, table_no, chunk_indexes, page_start, page_end, title, unit, scale, stub,
                            columns, rows)
    select p_document_id, (t->>'table_no')::int,
           array(select jsonb_array_elements_text(t->'chunk_indexes')::int),
           (t->>'page_start')::int, (t->>'page_end')::int, coalesce(t->>'title', ''), t->>'unit',
           coalesce((t->>'scale')::double precision, 1), coalesce(t->>'stub', ''),
           coalesce(t->'columns', '[]'::jsonb), coalesce(t->'rows', '[]'::jsonb)
      from jsonb_array_elements(case when jsonb_typeof(p_tables) = 'array' then p_tables else '[]'::jsonb end)
           with ordinality as tj(t, ti)
      join documents d on d.id = p_document_id
     order by tj.ti;
    return replace_document_facts(p_document_id, p_facts);
end;
$$;

revoke execute on function tables_of_chunks(bigint[]) from public;
revoke execute on function document_tables(bigint) from public;
revoke execute on function replace_document_tables(bigint, jsonb, jsonb) from public;
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function tables_of_chunks(bigint[]) to service_role;
        grant execute on function document_tables(bigint) to service_role;
        grant execute on function replace_document_tables(bigint, jsonb, jsonb) to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant execute on function tables_of_chunks(bigint[]) to rag_app;
        grant execute on function document_tables(bigint) to rag_app;
        grant execute on function replace_document_tables(bigint, jsonb, jsonb) to rag_app;
    end if;
end
$$;
