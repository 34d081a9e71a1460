-- Trigger on documents (before delete, after an update of workspace): a deleted document's chunks are counted out while
-- the document still says its workspace; a moved document's counts move with it. A lexeme that no chunk of a workspace
-- holds any more leaves no row behind (a zero would still name it).

CREATE OR REPLACE FUNCTION public.term_stats_documents_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if tg_op = 'DELETE' then
        update term_stats t set ndoc = greatest(0, t.ndoc - d.n)
          from (select l, count(*) as n from chunks c, unnest(tsvector_to_array(c.fts)) as l
                 where c.document_id = old.id group by l) d
         where t.workspace = coalesce(old.workspace, '') and t.lexeme = d.l;
        delete from term_stats where workspace = coalesce(old.workspace, '') and ndoc <= 0;
        return old;
    end if;
    if coalesce(new.workspace, '') <> coalesce(old.workspace, '') then
        update term_stats t set ndoc = greatest(0, t.ndoc - d.n)
          from (select l, count(*) as n from chunks c, unnest(tsvector_to_array(c.fts)) as l
                 where c.document_id = old.id group by l) d
         where t.workspace = coalesce(old.workspace, '') and t.lexeme = d.l;
        delete from term_stats where workspace = coalesce(old.workspace, '') and ndoc <= 0;
        insert into term_stats (workspace, lexeme, ndoc)
        select coalesce(new.workspace, ''), l, count(*)
          from chunks c, unnest(tsvector_to_array(c.fts)) as l where c.document_id = new.id
         group by 1, 2 order by 1, 2
        on conflict (workspace, lexeme) do update set ndoc = term_stats.ndoc + excluded.ndoc;
    end if;
    return new;
end;
$$;

CREATE OR REPLACE TRIGGER documents_term_stats_delete
    BEFORE DELETE ON public.documents
    FOR EACH ROW
    EXECUTE FUNCTION public.term_stats_documents_change();

CREATE OR REPLACE TRIGGER documents_term_stats_workspace
    AFTER UPDATE OF workspace ON public.documents
    FOR EACH ROW
    EXECUTE FUNCTION public.term_stats_documents_change();

REVOKE ALL ON FUNCTION public.term_stats_documents_change() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.term_stats_documents_change() TO service_role, rag_app;
