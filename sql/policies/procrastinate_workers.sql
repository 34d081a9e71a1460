-- The app's role may see which ingestion workers are alive (ingest_workers_alive): every row, but only the
-- columns granted in 002 (id, last_heartbeat). No other role sees the queue.

DROP POLICY IF EXISTS app_read_workers ON public.procrastinate_workers;

CREATE POLICY app_read_workers ON public.procrastinate_workers FOR SELECT TO rag_app USING (true);
