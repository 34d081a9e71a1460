-- The count triggers (075) and a document that an owner moves to another workspace while the app role writes its
-- chunks or figures. Under row-level security the trigger's UPDATE of the document re-checks the row after waiting
-- for it; once the move has committed the row no longer passes the team's write policy and the UPDATE silently
-- skipped it, leaving a stale count (found by an independent attack, with a team's direct delete of chunks).
-- * An insert that could not count every document it wrote to now fails with a serialization error (40001, "try
--   again"; the transport makes the call again). Inserts only: a document's own delete cascades to its chunks and
--   figures, and their AFTER triggers run when that statement ends, with the document gone and nothing to count.
-- * The app role no longer deletes chunks or figures directly (it never did: they go with their document, whose
--   cascade runs with the table owner's rights), so no delete can race a move.
create or replace function documents_count_rows()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
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
revoke execute on function documents_count_rows() from public;

do $$
begin
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        revoke delete on chunks, figures from rag_app;
    end if;
end
$$;
