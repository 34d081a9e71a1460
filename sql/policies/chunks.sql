-- Who sees and writes chunks: exactly whoever sees and writes their document (sql/policies/documents.sql).

ALTER TABLE public.chunks ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_chunks ON public.chunks;

CREATE POLICY app_read_chunks ON public.chunks FOR SELECT TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d)));

DROP POLICY IF EXISTS app_write_chunks ON public.chunks;

CREATE POLICY app_write_chunks ON public.chunks TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))) WITH CHECK ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))));

DROP POLICY IF EXISTS read_chunks ON public.chunks;

CREATE POLICY read_chunks ON public.chunks
    FOR SELECT
    TO anon, authenticated
    USING (public.visible_document(document_id));

DROP POLICY IF EXISTS reader_chunks ON public.chunks;

CREATE POLICY reader_chunks ON public.chunks FOR SELECT TO rag_reader USING ((EXISTS ( SELECT 1
   FROM public.documents d
  WHERE (d.id = chunks.document_id))));
