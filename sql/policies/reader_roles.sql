-- A reader login may read its own row only (current_workspace() looks it up by session_user); only the owner writes the
-- table (ensure_workspace_reader).

ALTER TABLE public.reader_roles ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS own_reader_role ON public.reader_roles;

CREATE POLICY own_reader_role ON public.reader_roles FOR SELECT USING ((role_name = (SESSION_USER)::text));
