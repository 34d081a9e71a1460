-- list_documents(): every document with its metadata and chunk, figure and OCR-page counts.
create or replace function list_documents()
returns table (
    document_id bigint, file_name text, title text, company text, company_key text, fiscal_year int, fiscal_period text,
    doc_type text, published_date date, uploaded_at timestamptz, sha256 text, page_count int,
    ocr_pages int, embedding_model text, status text, chunks bigint, figures bigint
)
language sql
stable
as $$
    select d.id, d.file_name, d.title, d.company, d.company_key, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date, d.uploaded_at, d.sha256, d.page_count, d.ocr_pages, d.embedding_model, d.status,
           (select count(*) from chunks c where c.document_id = d.id),
           (select count(*) from figures f where f.document_id = d.id)
      from documents d
     order by d.company nulls last, d.fiscal_year nulls last, d.file_name;
$$;

-- document_by_sha256(sha): the id of the document with that content hash, or null.
create or replace function document_by_sha256(p_sha256 text)
returns bigint
language sql
stable
as $$
    select id from documents where sha256 = p_sha256;
$$;

-- delete_document(id): removes a document; chunks, figures and relations cascade. True if it existed.
create or replace function delete_document(p_document_id bigint)
returns boolean
language plpgsql
as $$
declare
    ck text;
begin
    delete from documents where id = p_document_id returning company_key into ck;
    if not found then
        return false;
    end if;
    perform refresh_relations(ck);
    return true;
end;
$$;

-- related_documents(id): documents linked to this one (previous/next period of the same issuer).
create or replace function related_documents(p_document_id bigint)
returns table (document_id bigint, relation text, file_name text, fiscal_year int, fiscal_period text, doc_type text)
language sql
stable
as $$
    select d.id, r.relation, d.file_name, d.fiscal_year, d.fiscal_period, d.doc_type
      from document_relations r join documents d on d.id = r.target_id
     where r.source_id = p_document_id
     order by d.fiscal_year, d.id;
$$;

-- get_store_info(): store-wide facts as one JSON object (embedding model, dimension).
create or replace function get_store_info()
returns jsonb
language sql
stable
as $$
    select coalesce(jsonb_object_agg(key, value), '{}'::jsonb) from store_info;
$$;
