-- terms_missing(terms, document_ids): the terms (words or short phrases, matched as phrases with the
-- english configuration) that no chunk of the given documents (null = all) contains. Retrieval uses it
-- to answer "insufficient data" when a question's specific term never occurs in the documents searched.
create or replace function terms_missing(p_terms text[], p_document_ids bigint[] default null)
returns table (term text)
language sql
stable
as $$
    select t from unnest(p_terms) as t
     where numnode(phraseto_tsquery('english', t)) > 0
       and not exists (
           select 1 from chunks c
            where (p_document_ids is null or c.document_id = any(p_document_ids))
              and c.fts @@ phraseto_tsquery('english', t));
$$;
