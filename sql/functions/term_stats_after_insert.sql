-- Trigger on chunks (after insert, per statement): counts each new chunk's lexemes into term_stats, per workspace ('' =
-- shared): for each lexeme, how many chunks of that workspace's documents hold it. match_chunks sums the rows the
-- caller can see (row-level security shows the shared rows and its own workspace's), so the vocabulary of one team's
-- documents is never another team's to read.

CREATE OR REPLACE FUNCTION public.term_stats_after_insert() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    insert into term_stats (workspace, lexeme, ndoc)
    select coalesce(d.workspace, ''), l, count(*)
      from new_rows join documents d on d.id = new_rows.document_id, unnest(tsvector_to_array(new_rows.fts)) as l
     group by 1, 2 order by 1, 2
    on conflict (workspace, lexeme) do update set ndoc = term_stats.ndoc + excluded.ndoc;
    return null;
end;
$$;

CREATE OR REPLACE TRIGGER chunks_term_stats_insert
    AFTER INSERT ON public.chunks
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.term_stats_after_insert();

REVOKE ALL ON FUNCTION public.term_stats_after_insert() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.term_stats_after_insert() TO service_role, rag_app;
