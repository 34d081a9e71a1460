-- A document's authors (research papers: the names under the title, read at ingestion into meta.authors) are
-- listed with it, and its title can be corrected on the Library page like its company, year, period and type.
-- list_documents() returns authors (a new return type: the function is dropped and created again, with the
-- grants 032 and 041 gave it); update_document_metadata() takes p_title (a new signature: the old one is
-- dropped, so a call by parameter names is never ambiguous).
drop function if exists list_documents();
create function list_documents()
returns table (
    document_id bigint, file_name text, title text, company text, company_key text, fiscal_year int, fiscal_period text,
    doc_type text, published_date date, uploaded_at timestamptz, sha256 text, page_count int,
    ocr_pages int, embedding_model text, status text, chunks bigint, figures bigint, year_labels int[], authors text[]
)
language sql
stable
set search_path = public, pg_temp
as $$
    select d.id, d.file_name, d.title, d.company, d.company_key, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date, d.uploaded_at, d.sha256, d.page_count, d.ocr_pages, d.embedding_model, d.status,
           (select count(*) from chunks c where c.document_id = d.id),
           (select count(*) from figures f where f.document_id = d.id),
           coalesce((select array_agg(y::int order by y::int)
                       from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'year_labels') = 'array'
                                                           then d.meta -> 'year_labels' end) y),
                    case when d.fiscal_year is not null then array[d.fiscal_year] end),
           (select array_agg(a) from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'authors') = 'array'
                                                                   then d.meta -> 'authors' end) a)
      from documents d
     order by d.company nulls last, d.fiscal_year nulls last, d.file_name;
$$;

drop function if exists update_document_metadata(bigint, text, text, int, text, text);
create function update_document_metadata(p_document_id bigint, p_company text default null,
                                         p_company_key text default null, p_fiscal_year int default null,
                                         p_fiscal_period text default null, p_doc_type text default null,
                                         p_title text default null)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
declare
    old_key text;
begin
    select company_key into old_key from documents where id = p_document_id;
    if not found then
        return false;
    end if;
    update documents
       set company = coalesce(p_company, company),
           company_key = coalesce(p_company_key, company_key),
           fiscal_year = coalesce(p_fiscal_year, fiscal_year),
           fiscal_period = coalesce(p_fiscal_period, fiscal_period),
           doc_type = coalesce(p_doc_type, doc_type),
           title = coalesce(nullif(btrim(p_title), ''), title),
           meta = case when p_fiscal_year is not null
                       then meta || jsonb_build_object('year_labels', jsonb_build_array(p_fiscal_year))
                       else meta end
     where id = p_document_id;
    perform refresh_relations(old_key);
    if p_company_key is not null and p_company_key is distinct from old_key then
        perform refresh_relations(p_company_key);
    end if;
    return true;
end;
$$;

do $$
declare
    f text;
begin
    foreach f in array array['list_documents()',
                             'update_document_metadata(bigint, text, text, int, text, text, text)'] loop
        execute format('revoke execute on function %s from public', f);
        if exists (select 1 from pg_roles where rolname = 'service_role') then
            execute format('grant execute on function %s to service_role', f);
        end if;
        if exists (select 1 from pg_roles where rolname = 'rag_app') then
            execute format('grant execute on function %s to rag_app', f);
        end if;
    end loop;
    if exists (select 1 from pg_roles where rolname = 'anon') and exists (select 1 from pg_roles where rolname = 'authenticated') then
        grant execute on function list_documents() to anon, authenticated;
    end if;
end
$$;
