-- related_documents(id): the documents linked to this one (the previous and next period of the same issuer) that the
-- caller may see.

CREATE OR REPLACE FUNCTION public.related_documents(
    p_document_id bigint
) RETURNS TABLE (
    document_id bigint,
    relation text,
    file_name text,
    fiscal_year integer,
    fiscal_period text,
    doc_type text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select d.id, r.relation, d.file_name, d.fiscal_year, d.fiscal_period, d.doc_type
      from document_relations r join documents d on d.id = r.target_id
     where r.source_id = p_document_id
     order by d.fiscal_year, d.id;
$$;

REVOKE ALL ON FUNCTION public.related_documents(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.related_documents(bigint) TO service_role, anon, authenticated, rag_app;
