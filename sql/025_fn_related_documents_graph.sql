-- related_documents_graph(id, depth): documents reachable from this one over document_relations in both
-- directions (previous / next period of the same issuer), up to p_max_depth hops (at most 3), nearest first.
create or replace function related_documents_graph(p_document_id bigint, p_max_depth int default 3)
returns table (document_id bigint, relation text, depth int, file_name text, company text, fiscal_year int,
               fiscal_period text, doc_type text)
language sql
stable
as $$
    with recursive walk(id, relation, depth, path) as (
        select r.target_id, r.relation, 1, array[p_document_id, r.target_id]
          from document_relations r
         where r.source_id = p_document_id
        union all
        select r.target_id, w.relation, w.depth + 1, w.path || r.target_id
          from walk w
          join document_relations r on r.source_id = w.id and r.relation = w.relation
         where w.depth < least(greatest(p_max_depth, 1), 3)
           and not r.target_id = any(w.path)
    )
    select distinct on (d.id) d.id, w.relation, w.depth, d.file_name, d.company, d.fiscal_year, d.fiscal_period,
           d.doc_type
      from walk w join documents d on d.id = w.id
     order by d.id, w.depth;
$$;
