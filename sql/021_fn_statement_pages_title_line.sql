-- statement_pages (replaces 020, same signature): pages where a financial statement begins, i.e. chunks
-- holding the title as a short line of its own (anywhere in the chunk: small sections merge into one chunk),
-- with table rows. A mention inside prose ("see the Consolidated Statement of Cash Flows") sits in a long
-- line and does not count. Returns the chunk's pages and the page after (statements run over two pages).
create or replace function statement_pages(p_pattern text, p_document_ids bigint[] default null)
returns table (document_id bigint, page int)
language sql
stable
as $$
    select distinct c.document_id, p
      from chunks c, generate_series(c.page_start, c.page_end + 1) as p
     where (p_document_ids is null or c.document_id = any(p_document_ids))
       and c.content ~* ('(^|\n)[^\n]{0,80}' || p_pattern || '[^\n]{0,60}(\n|$)')
       and c.content ~ '\|';
$$;
