-- Who sees and writes a document's original PDF: exactly whoever sees and writes the document
-- (sql/policies/documents.sql).

ALTER TABLE public.document_files ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_document_files ON public.document_files;

CREATE POLICY app_read_document_files ON public.document_files
    FOR SELECT
    TO rag_app
    USING ((document_id IN ( SELECT d.id
   FROM public.documents d)));

DROP POLICY IF EXISTS app_write_document_files ON public.document_files;

CREATE POLICY app_write_document_files ON public.document_files TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))) WITH CHECK ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))));

DROP POLICY IF EXISTS read_document_files ON public.document_files;

CREATE POLICY read_document_files ON public.document_files
    FOR SELECT
    TO anon, authenticated
    USING (public.visible_document(document_id));
