-- Trigger on documents (after truncate): empties chunk_postings with them (a truncate fires no row triggers).

CREATE OR REPLACE FUNCTION public.chunk_postings_after_truncate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    truncate chunk_postings;
    return null;
end;
$$;

CREATE OR REPLACE TRIGGER documents_postings_truncate
    AFTER TRUNCATE ON public.documents
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.chunk_postings_after_truncate();

REVOKE ALL ON FUNCTION public.chunk_postings_after_truncate() FROM PUBLIC;
