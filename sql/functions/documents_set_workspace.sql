-- Trigger on documents (before insert): a new document belongs to the writer's workspace (current_workspace(); null =
-- shared with everyone) unless the row names one (the app's role may name only its own: its write policy).

CREATE OR REPLACE FUNCTION public.documents_set_workspace() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    new.workspace := coalesce(new.workspace, current_workspace());
    return new;
end;
$$;

CREATE OR REPLACE TRIGGER documents_workspace
    BEFORE INSERT ON public.documents
    FOR EACH ROW
    EXECUTE FUNCTION public.documents_set_workspace();

REVOKE ALL ON FUNCTION public.documents_set_workspace() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.documents_set_workspace() TO service_role, rag_app;
