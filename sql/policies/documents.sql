-- Who sees and writes documents. Every role below sees the shared documents (workspace null) and those of its own
-- workspace (current_workspace()); rag_app (the app) writes only its own workspace's, so a team's upload, edit or
-- delete never reaches another team's documents or the shared ones; anon and authenticated (Supabase's API) only read;
-- rag_reader (SQL written by users and models, through the reader views) only reads. The owner and service_role bypass
-- row-level security (administration, ingestion workers).

ALTER TABLE public.documents ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_documents ON public.documents;

CREATE POLICY app_read_documents ON public.documents
    FOR SELECT
    TO rag_app
    USING (((workspace IS NULL) OR (workspace = ( SELECT public.current_workspace() AS current_workspace))));

DROP POLICY IF EXISTS app_write_documents ON public.documents;

CREATE POLICY app_write_documents ON public.documents
    TO rag_app
    USING ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK ((COALESCE(workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));

DROP POLICY IF EXISTS read_documents ON public.documents;

CREATE POLICY read_documents ON public.documents
    FOR SELECT
    TO anon, authenticated
    USING (((workspace IS NULL) OR (workspace = public.current_workspace())));

DROP POLICY IF EXISTS reader_documents ON public.documents;

CREATE POLICY reader_documents ON public.documents
    FOR SELECT
    TO rag_reader
    USING (((workspace IS NULL) OR (workspace = ( SELECT public.current_workspace() AS current_workspace))));
