-- The migration log: row-level security on and no policy, so only the owner (who migrates) and service_role see it.

ALTER TABLE public.schema_migrations ENABLE ROW LEVEL SECURITY;
