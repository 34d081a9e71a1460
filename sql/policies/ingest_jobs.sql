-- A workspace's ingestion jobs are its own (they hold its files): rag_app queues and lists only its workspace's; a new
-- job takes the writer's workspace. Workers (the owner) run every workspace's.

ALTER TABLE public.ingest_jobs ENABLE ROW LEVEL SECURITY;

ALTER TABLE ONLY public.ingest_jobs ALTER COLUMN workspace SET DEFAULT public.current_workspace();

DROP POLICY IF EXISTS app_ingest_jobs ON public.ingest_jobs;

CREATE POLICY app_ingest_jobs ON public.ingest_jobs
    TO rag_app
    USING ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));
