-- Who sees and writes table facts: exactly whoever sees and writes their document (sql/policies/documents.sql).

ALTER TABLE public.facts ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_facts ON public.facts;

CREATE POLICY app_read_facts ON public.facts FOR SELECT TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d)));

DROP POLICY IF EXISTS app_write_facts ON public.facts;

CREATE POLICY app_write_facts ON public.facts TO rag_app USING ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))) WITH CHECK ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))));

DROP POLICY IF EXISTS read_facts ON public.facts;

CREATE POLICY read_facts ON public.facts
    FOR SELECT
    TO anon, authenticated
    USING (public.visible_document(document_id));
