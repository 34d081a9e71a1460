-- Who sees and writes the postings (the inverted index of match_chunks and terms_missing): each row carries its
-- document's workspace ('' for the shared ones), and a caller sees the shared postings and its own workspace's, by
-- equality on that column, which Postgres may use as an index condition under row-level security. rag_app writes only
-- its own workspace's (the triggers of chunk_postings_after_insert.sql and chunk_postings_document_change.sql).

ALTER TABLE public.chunk_postings ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_delete_chunk_postings ON public.chunk_postings;

CREATE POLICY app_delete_chunk_postings ON public.chunk_postings
    FOR DELETE
    TO rag_app
    USING ((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)));

DROP POLICY IF EXISTS app_insert_chunk_postings ON public.chunk_postings;

CREATE POLICY app_insert_chunk_postings ON public.chunk_postings
    FOR INSERT
    TO rag_app
    WITH CHECK (((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)) AND (document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))));

DROP POLICY IF EXISTS app_read_chunk_postings ON public.chunk_postings;

CREATE POLICY app_read_chunk_postings ON public.chunk_postings
    FOR SELECT
    TO rag_app
    USING ((workspace = ANY (ARRAY[''::text, COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)])));

DROP POLICY IF EXISTS app_update_chunk_postings ON public.chunk_postings;

CREATE POLICY app_update_chunk_postings ON public.chunk_postings
    FOR UPDATE
    TO rag_app
    USING ((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))
    WITH CHECK (((workspace = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)) AND (document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text))))));

DROP POLICY IF EXISTS read_chunk_postings ON public.chunk_postings;

CREATE POLICY read_chunk_postings ON public.chunk_postings
    FOR SELECT
    TO anon, authenticated
    USING ((workspace = ANY (ARRAY[''::text, COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)])));
