-- v_documents: what a reader login (rag_reader) may read of documents: id, file name, title, issuer, period, type,
-- dates and sizes. security_invoker: row-level security applies to the reader (its workspace's and the shared ones).

CREATE OR REPLACE VIEW public.v_documents WITH (security_invoker='true') AS
 SELECT id AS document_id,
    file_name,
    title,
    company,
    fiscal_year,
    fiscal_period,
    doc_type,
    published_date,
    uploaded_at,
    page_count,
    ocr_pages,
    ( SELECT count(*) AS count
           FROM public.chunks c
          WHERE (c.document_id = d.id)) AS chunk_count,
    ( SELECT count(*) AS count
           FROM public.figures f
          WHERE (f.document_id = d.id)) AS figure_count
   FROM public.documents d;

GRANT SELECT ON TABLE public.v_documents TO rag_reader;
GRANT ALL ON TABLE public.v_documents TO service_role;
