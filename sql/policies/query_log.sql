-- A workspace's question log is its own: rag_app reads and writes only its workspace's; a new row takes the writer's
-- workspace.

ALTER TABLE public.query_log ENABLE ROW LEVEL SECURITY;

ALTER TABLE ONLY public.query_log ALTER COLUMN workspace SET DEFAULT public.current_workspace();

DROP POLICY IF EXISTS app_query_log ON public.query_log;

CREATE POLICY app_query_log ON public.query_log
    TO rag_app
    USING ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));
