-- A workspace's conversations are its own: rag_app reads and writes only its workspace's; a new one takes the writer's
-- workspace.

ALTER TABLE public.conversations ENABLE ROW LEVEL SECURITY;

ALTER TABLE ONLY public.conversations ALTER COLUMN workspace SET DEFAULT public.current_workspace();

DROP POLICY IF EXISTS app_conversations ON public.conversations;

CREATE POLICY app_conversations ON public.conversations
    TO rag_app
    USING ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));
