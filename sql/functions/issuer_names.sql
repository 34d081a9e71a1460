-- issuer_names(): every issuer with every name its documents give it (legal names, the short names a filing defines for
-- itself, trading symbols; meta.company_aliases, written at ingestion) and its display name, so a question can name it
-- as analysts write it. Runs as the caller: row-level security leaves each workspace its own documents' names.

CREATE OR REPLACE FUNCTION public.issuer_names() RETURNS TABLE(company_key text, company text, names text[])
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select d.company_key,
           (array_agg(d.company order by d.fiscal_year desc nulls last, d.id desc))[1],
           coalesce(array_agg(distinct a.name) filter (where a.name is not null), '{}')
      from documents d
      left join lateral jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'company_aliases') = 'array'
                                                       then d.meta -> 'company_aliases' end) as a(name) on true
     where d.company_key is not null
     group by d.company_key
     order by d.company_key;
$$;

REVOKE ALL ON FUNCTION public.issuer_names() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.issuer_names() TO service_role, anon, authenticated, rag_app;
