-- A workspace's feedback is its own (it holds its questions): rag_app reads and writes only its workspace's; new
-- feedback takes the writer's workspace.

ALTER TABLE public.feedback ENABLE ROW LEVEL SECURITY;

ALTER TABLE ONLY public.feedback ALTER COLUMN workspace SET DEFAULT public.current_workspace();

DROP POLICY IF EXISTS app_feedback ON public.feedback;

CREATE POLICY app_feedback ON public.feedback
    TO rag_app
    USING ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));
