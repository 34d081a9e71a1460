-- Who sees a chunk's lexemes (the narrow full-text table): whoever sees the chunk's document; rag_app inserts them for
-- its own workspace's documents (chunk_lexemes_after_insert).

ALTER TABLE public.chunk_lexemes ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_chunk_lexemes ON public.chunk_lexemes;

CREATE POLICY app_read_chunk_lexemes ON public.chunk_lexemes
    FOR SELECT
    TO rag_app
    USING ((document_id IN ( SELECT d.id
   FROM public.documents d)));

DROP POLICY IF EXISTS app_write_chunk_lexemes ON public.chunk_lexemes;

CREATE POLICY app_write_chunk_lexemes ON public.chunk_lexemes
    FOR INSERT
    TO rag_app
    WITH CHECK ((document_id IN ( SELECT d.id
   FROM public.documents d
  WHERE (COALESCE(d.workspace, ''::text) = COALESCE(( SELECT public.current_workspace() AS current_workspace), ''::text)))));

DROP POLICY IF EXISTS read_chunk_lexemes ON public.chunk_lexemes;

CREATE POLICY read_chunk_lexemes ON public.chunk_lexemes
    FOR SELECT
    TO anon, authenticated
    USING (public.visible_document(document_id));
