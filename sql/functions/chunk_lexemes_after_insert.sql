-- Trigger on chunks (after insert, per statement): copies each new chunk's lexemes without positions (strip(fts)) into
-- chunk_lexemes, a narrow table the full-text match of callers under row-level security reads instead of chunks.fts (a
-- TOAST fetch per row: ten times slower at a million chunks; bench/bench_scale.py). Its rows follow their chunk's
-- visibility (the table's policies are the chunks'), and a document's delete cascades to them.

CREATE OR REPLACE FUNCTION public.chunk_lexemes_after_insert() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    insert into chunk_lexemes (chunk_id, document_id, lexemes)
    select n.id, n.document_id, strip(n.fts) from new_rows n;
    return null;
end;
$$;

CREATE OR REPLACE TRIGGER chunks_lexemes_insert
    AFTER INSERT ON public.chunks
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.chunk_lexemes_after_insert();

REVOKE ALL ON FUNCTION public.chunk_lexemes_after_insert() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.chunk_lexemes_after_insert() TO service_role, rag_app;
