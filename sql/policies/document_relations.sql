-- Who sees and writes the period links between documents: a link is seen when both its documents are, and rag_app
-- writes only links from its own workspace's documents (refresh_relations).

ALTER TABLE public.document_relations ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_relations ON public.document_relations;

CREATE POLICY app_read_relations ON public.document_relations
    FOR SELECT
    TO rag_app
    USING (((source_id IN ( SELECT d.id
   FROM public.documents d)) AND (target_id IN ( SELECT d.id
   FROM public.documents d))));

DROP POLICY IF EXISTS app_write_relations ON public.document_relations;

CREATE POLICY app_write_relations ON public.document_relations TO rag_app USING ((source_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))) WITH CHECK (((source_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))) AND (target_id IN ( SELECT d.id
   FROM public.documents d))));

DROP POLICY IF EXISTS read_relations ON public.document_relations;

CREATE POLICY read_relations ON public.document_relations
    FOR SELECT
    TO anon, authenticated
    USING ((public.visible_document(source_id) AND public.visible_document(target_id)));
