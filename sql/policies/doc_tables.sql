-- Who sees and writes a document's tables: exactly whoever sees and writes the document (sql/policies/documents.sql).

ALTER TABLE public.doc_tables ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_doc_tables ON public.doc_tables;

CREATE POLICY app_read_doc_tables ON public.doc_tables FOR SELECT TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d)));

DROP POLICY IF EXISTS app_write_doc_tables ON public.doc_tables;

CREATE POLICY app_write_doc_tables ON public.doc_tables TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))) WITH CHECK ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))));

DROP POLICY IF EXISTS read_doc_tables ON public.doc_tables;

CREATE POLICY read_doc_tables ON public.doc_tables
    FOR SELECT
    TO anon, authenticated
    USING (public.visible_document(document_id));
