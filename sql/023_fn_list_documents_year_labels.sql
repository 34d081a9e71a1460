-- list_documents() also returns year_labels: every fiscal year a reader may call the document by
-- (the issuer's own label, the year its fiscal year ends, the year its period ends), from meta.year_labels,
-- else the fiscal year alone. The return type changes, so the function is dropped and created again.
drop function if exists list_documents();
create function list_documents()
returns table (
    document_id bigint, file_name text, title text, company text, company_key text, fiscal_year int, fiscal_period text,
    doc_type text, published_date date, uploaded_at timestamptz, sha256 text, page_count int,
    ocr_pages int, embedding_model text, status text, chunks bigint, figures bigint, year_labels int[]
)
language sql
stable
as $$
    select d.id, d.file_name, d.title, d.company, d.company_key, d.fiscal_year, d.fiscal_period, d.doc_type,
           d.published_date, d.uploaded_at, d.sha256, d.page_count, d.ocr_pages, d.embedding_model, d.status,
           (select count(*) from chunks c where c.document_id = d.id),
           (select count(*) from figures f where f.document_id = d.id),
           coalesce((select array_agg(y::int order by y::int)
                       from jsonb_array_elements_text(case when jsonb_typeof(d.meta -> 'year_labels') = 'array'
                                                           then d.meta -> 'year_labels' end) y),
                    case when d.fiscal_year is not null then array[d.fiscal_year] end)
      from documents d
     order by d.company nulls last, d.fiscal_year nulls last, d.file_name;
$$;
