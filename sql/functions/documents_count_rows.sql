-- Triggers on chunks and figures (after insert or delete, per statement): keep documents.chunk_count and figure_count,
-- which list_documents reads instead of counting. An insert that could not count every document it wrote to (one moved
-- to another workspace meanwhile, so the team's write policy no longer passes it) fails with a serialization error
-- (40001, "try again"; the transport retries) rather than leave a stale count. A document's own delete cascades to its
-- rows; their triggers then find nothing to count.

CREATE OR REPLACE FUNCTION public.documents_count_rows() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    touched int;
    counted int;
begin
    if tg_table_name = 'chunks' and tg_op = 'INSERT' then
        update documents d set chunk_count = d.chunk_count + n.n
          from (select document_id, count(*)::int as n from new_rows group by document_id) n
         where d.id = n.document_id;
        get diagnostics counted = row_count;
        select count(distinct document_id) into touched from new_rows;
    elsif tg_table_name = 'chunks' then
        update documents d set chunk_count = greatest(0, d.chunk_count - n.n)
          from (select document_id, count(*)::int as n from old_rows group by document_id) n
         where d.id = n.document_id;
    elsif tg_op = 'INSERT' then
        update documents d set figure_count = d.figure_count + n.n
          from (select document_id, count(*)::int as n from new_rows group by document_id) n
         where d.id = n.document_id;
        get diagnostics counted = row_count;
        select count(distinct document_id) into touched from new_rows;
    else
        update documents d set figure_count = greatest(0, d.figure_count - n.n)
          from (select document_id, count(*)::int as n from old_rows group by document_id) n
         where d.id = n.document_id;
    end if;
    if tg_op = 'INSERT' and counted < touched then
        raise exception 'a document changed hands while its % were written; try again', tg_table_name
            using errcode = '40001';
    end if;
    return null;
end;
$$;

CREATE OR REPLACE TRIGGER chunks_count_delete
    AFTER DELETE ON public.chunks
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.documents_count_rows();

CREATE OR REPLACE TRIGGER chunks_count_insert
    AFTER INSERT ON public.chunks
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.documents_count_rows();

CREATE OR REPLACE TRIGGER figures_count_delete
    AFTER DELETE ON public.figures
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.documents_count_rows();

CREATE OR REPLACE TRIGGER figures_count_insert
    AFTER INSERT ON public.figures
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT
    EXECUTE FUNCTION public.documents_count_rows();

REVOKE ALL ON FUNCTION public.documents_count_rows() FROM PUBLIC;
