-- Trigger on documents (before delete, after an update of workspace): a deleted document's postings go; one moved to
-- another workspace has its postings rewritten under the new one (only the owner and service_role can move one). A
-- document whose workspace is '' is visible to no caller under row-level security and has no postings.

CREATE OR REPLACE FUNCTION public.chunk_postings_document_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if tg_op = 'DELETE' then
        delete from chunk_postings where workspace = coalesce(old.workspace, '') and document_id = old.id;
        return old;
    end if;
    -- the postings are rewritten from the chunks committed when the move runs (a chunk insert in progress holds the
    -- document, so the move waits for it); a transaction that reads an older snapshot would miss its chunks
    if current_setting('transaction_isolation') <> 'read committed' then
        raise exception 'move a document to another workspace in a READ COMMITTED transaction (its full-text '
                        'postings are rewritten from the chunks committed when it moves)' using errcode = '25001';
    end if;
    delete from chunk_postings where workspace = coalesce(old.workspace, '') and document_id = new.id;
    if new.workspace is null or new.workspace <> '' then
        insert into chunk_postings (workspace, lexeme, document_id, chunk_ids)
        select coalesce(new.workspace, ''), l.lexeme, c.document_id, array_agg(c.id order by c.id)
          from chunks c
         cross join lateral unnest(tsvector_to_array(c.fts)) l(lexeme)
         where c.document_id = new.id
         group by 1, 2, 3;
    end if;
    return null;
end;
$$;

CREATE OR REPLACE TRIGGER documents_postings_delete
    BEFORE DELETE ON public.documents
    FOR EACH ROW
    EXECUTE FUNCTION public.chunk_postings_document_change();

CREATE OR REPLACE TRIGGER documents_postings_move
    AFTER UPDATE OF workspace ON public.documents
    FOR EACH ROW
    WHEN ((old.workspace IS DISTINCT FROM new.workspace))
    EXECUTE FUNCTION public.chunk_postings_document_change();

REVOKE ALL ON FUNCTION public.chunk_postings_document_change() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.chunk_postings_document_change() TO service_role, rag_app;
