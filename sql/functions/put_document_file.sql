-- put_document_file(id, pdf_b64): keeps a document's original PDF (after ingestion), so the app can show the cited
-- page; true when written. Deleted with its document.

CREATE OR REPLACE FUNCTION public.put_document_file(p_document_id bigint, p_pdf_b64 text) RETURNS boolean
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    insert into document_files (document_id, pdf) values (p_document_id, decode(p_pdf_b64, 'base64'))
    on conflict (document_id) do update set pdf = excluded.pdf
    returning true;
$$;

REVOKE ALL ON FUNCTION public.put_document_file(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.put_document_file(bigint, text) TO service_role, rag_app;
