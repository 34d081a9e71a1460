-- statement_pages(pattern, query, document_ids) (replaces 021): as before, but only chunks matching the
-- full-text `query` (websearch syntax, e.g. '"cash flows"') are tested against the title-line regex, so the
-- GIN index does the scanning instead of a regex over every chunk of the documents.
drop function if exists statement_pages(text, bigint[]);
create or replace function statement_pages(p_pattern text, p_query text, p_document_ids bigint[] default null)
returns table (document_id bigint, page int)
language sql
stable
as $$
    select distinct c.document_id, p
      from chunks c, generate_series(c.page_start, c.page_end + 1) as p
     where c.fts @@ websearch_to_tsquery('english', p_query)
       and (p_document_ids is null or c.document_id = any(p_document_ids))
       and c.content ~* ('(^|\n)[^\n]{0,80}' || p_pattern || '[^\n]{0,60}(\n|$)')
       and c.content ~ '\|';
$$;
