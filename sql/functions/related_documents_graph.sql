-- related_documents_graph(id, depth): the documents reachable from this one over the period links in both directions,
-- up to `depth` hops (at most 3), nearest first, that the caller may see.

CREATE OR REPLACE FUNCTION public.related_documents_graph(
    p_document_id bigint,
    p_max_depth integer DEFAULT 3
) RETURNS TABLE (
    document_id bigint,
    relation text,
    depth integer,
    file_name text,
    company text,
    fiscal_year integer,
    fiscal_period text,
    doc_type text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.related_documents_graph(bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.related_documents_graph(bigint, integer)
    TO service_role, anon, authenticated, rag_app;
