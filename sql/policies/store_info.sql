-- Store-wide facts (the embedding model): everyone reads them; rag_app may add the embedding model's row (ingest_document
-- records it with a store's first document); only the owner changes them afterwards (reindex_begin).

ALTER TABLE public.store_info ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS app_read_store_info ON public.store_info;

CREATE POLICY app_read_store_info ON public.store_info FOR SELECT TO rag_app USING (true);

DROP POLICY IF EXISTS app_record_store_model ON public.store_info;

CREATE POLICY app_record_store_model ON public.store_info
    FOR INSERT
    TO rag_app
    WITH CHECK ((key = 'embedding_model'::text));

DROP POLICY IF EXISTS read_store_info ON public.store_info;

CREATE POLICY read_store_info ON public.store_info FOR SELECT TO anon, authenticated USING (true);
