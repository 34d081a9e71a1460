-- Who sees and writes the term counts (per workspace, '' = shared): a caller sees the shared counts and its own
-- workspace's, never another team's vocabulary; rag_app writes only its own workspace's (term_stats_after_insert.sql).

ALTER TABLE public.term_stats ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_delete_term_stats ON public.term_stats;

CREATE POLICY app_delete_term_stats ON public.term_stats
    FOR DELETE
    TO rag_app
    USING ((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));

DROP POLICY IF EXISTS app_insert_term_stats ON public.term_stats;

CREATE POLICY app_insert_term_stats ON public.term_stats
    FOR INSERT
    TO rag_app
    WITH CHECK ((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));

DROP POLICY IF EXISTS app_read_term_stats ON public.term_stats;

CREATE POLICY app_read_term_stats ON public.term_stats
    FOR SELECT
    TO rag_app
    USING ((workspace = ANY (ARRAY[''::text, COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)])));

DROP POLICY IF EXISTS app_update_term_stats ON public.term_stats;

CREATE POLICY app_update_term_stats ON public.term_stats
    FOR UPDATE
    TO rag_app
    USING ((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK ((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));

DROP POLICY IF EXISTS read_term_stats ON public.term_stats;

CREATE POLICY read_term_stats ON public.term_stats
    FOR SELECT
    TO anon, authenticated
    USING ((workspace = ANY (ARRAY[''::text, COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)])));
