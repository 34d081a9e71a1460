-- Who sees and writes figures: exactly whoever sees and writes their document (sql/policies/documents.sql).

ALTER TABLE public.figures ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_figures ON public.figures;

CREATE POLICY app_read_figures ON public.figures FOR SELECT TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d)));

DROP POLICY IF EXISTS app_write_figures ON public.figures;

CREATE POLICY app_write_figures ON public.figures TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))) WITH CHECK ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))));

DROP POLICY IF EXISTS read_figures ON public.figures;

CREATE POLICY read_figures ON public.figures
    FOR SELECT
    TO anon, authenticated
    USING (public.visible_document(document_id));

DROP POLICY IF EXISTS reader_figures ON public.figures;

CREATE POLICY reader_figures ON public.figures FOR SELECT TO rag_reader USING ((EXISTS ( SELECT 1
   FROM public.documents d
  WHERE (d.id = figures.document_id))));
