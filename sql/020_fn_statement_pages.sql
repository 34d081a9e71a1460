-- statement_pages(pattern, document_ids): pages where a financial statement begins, i.e. chunks whose first
-- 300 characters match the (case-insensitive regex) title pattern, e.g. 'statements? of cash flows'.
-- A statement runs over its title page and the next one; retrieval boosts chunks on those pages.
create or replace function statement_pages(p_pattern text, p_document_ids bigint[] default null)
returns table (document_id bigint, page int)
language sql
stable
as $$
    select distinct c.document_id, p
      from chunks c, generate_series(c.page_start, c.page_end + 1) as p
     where (p_document_ids is null or c.document_id = any(p_document_ids))
       and left(c.content, 300) ~* p_pattern
       and c.content ~ '\|';
$$;
