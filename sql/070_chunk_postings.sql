-- chunk_postings: for each workspace, lexeme and document, the ids of the document's chunks that hold the lexeme;
-- an inverted index that callers under row-level security can use, so that at a million chunks their full-text
-- match reads only the postings of its terms instead of every visible row (067/068 read ~1 GB of lexemes per
-- question: 0.5-0.6 s as rag_app, bench/bench_scale.py).
-- Why this can use an index where chunks.fts cannot (065): Postgres may put a qual into an index scan under
-- row-level security only when its operator is LEAKPROOF. `@@` is not (and 065 keeps it so), but text equality
-- is, so `lexeme = any(terms)` may be an index condition. The policy is on the row's own workspace column, also an
-- equality, so it is an index condition too, and the key starts with it: a caller's lookup descends into its own
-- workspace's part of the index and the shared part ('') and never reads another team's postings. What one team
-- asks for takes the same path whatever another team's documents hold. No SECURITY DEFINER, no LEAKPROOF change.
-- workspace is the document's (null, the shared documents -> ''), copied when the postings are written and rewritten
-- when a document moves (only the owner and service_role can move one: rag_app's policy keeps a document in its
-- workspace). A document whose workspace is '' is visible to no caller under row-level security; it has no postings.
-- Kept by a statement trigger on chunks (chunks' content never changes after insert) and by triggers on documents
-- (delete, move, truncate). No foreign key: its cascade would need an index on document_id alone, and a lookup by
-- document through such an index reads another team's postings before the policy filters them (their number tells
-- the size of the team's documents); the second index starts with the workspace too.
create table if not exists chunk_postings (
    workspace   text collate "C" not null,
    lexeme      text collate "C" not null,
    document_id bigint not null,
    chunk_ids   bigint[] not null,
    primary key (workspace, lexeme, document_id)
);
create index if not exists chunk_postings_document on chunk_postings (workspace, document_id);
-- no statistics on either key column: the planner's row estimates (plain EXPLAIN, which any role may run) would
-- show how many postings another workspace has, or how common a word is across all workspaces; every lookup here
-- is an equality on the primary key's leading columns, and needs no estimate to be planned well
alter table chunk_postings alter column workspace set statistics 0;
alter table chunk_postings alter column lexeme set statistics 0;

insert into chunk_postings (workspace, lexeme, document_id, chunk_ids)
select coalesce(d.workspace, ''), l.lexeme, c.document_id, array_agg(c.id order by c.id)
  from chunks c
  join documents d on d.id = c.document_id
 cross join lateral unnest(tsvector_to_array(c.fts)) l(lexeme)
 where d.workspace is null or d.workspace <> ''
 group by 1, 2, 3
    on conflict do nothing;

create or replace function chunk_postings_after_insert()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    n_docs int;
    n_held int;
begin
    -- hold the documents until this transaction ends: the owner's move of one waits, and its trigger then rewrites
    -- the postings from every committed chunk; a document this caller may not write (moved away meanwhile) fails
    select count(distinct n.document_id) into n_docs from new_rows n;
    select count(*) into n_held
      from (select d.id from documents d where d.id in (select n.document_id from new_rows n) for share of d) x;
    if n_held < n_docs then
        raise exception 'a document changed workspace while its chunks were written: ingest it again'
            using errcode = '40001';
    end if;
    insert into chunk_postings as p (workspace, lexeme, document_id, chunk_ids)
    select coalesce(d.workspace, ''), l.lexeme, n.document_id, array_agg(n.id order by n.id)
      from new_rows n
      join documents d on d.id = n.document_id
     cross join lateral unnest(tsvector_to_array(n.fts)) l(lexeme)
     where d.workspace is null or d.workspace <> ''
     group by 1, 2, 3
        on conflict (workspace, lexeme, document_id) do update set chunk_ids = p.chunk_ids || excluded.chunk_ids;
    return null;
end;
$$;
revoke execute on function chunk_postings_after_insert() from public;

drop trigger if exists chunks_postings_insert on chunks;
create trigger chunks_postings_insert after insert on chunks
    referencing new table as new_rows for each statement execute function chunk_postings_after_insert();

create or replace function chunk_postings_document_change()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
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
revoke execute on function chunk_postings_document_change() from public;

drop trigger if exists documents_postings_move on documents;
create trigger documents_postings_move after update of workspace on documents
    for each row when (old.workspace is distinct from new.workspace) execute function chunk_postings_document_change();
drop trigger if exists documents_postings_delete on documents;
create trigger documents_postings_delete before delete on documents
    for each row execute function chunk_postings_document_change();

create or replace function chunk_postings_after_truncate()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    truncate chunk_postings;
    return null;
end;
$$;
revoke execute on function chunk_postings_after_truncate() from public;
drop trigger if exists documents_postings_truncate on documents;
create trigger documents_postings_truncate after truncate on documents
    for each statement execute function chunk_postings_after_truncate();

alter table chunk_postings enable row level security;
revoke all on chunk_postings from public;

do $$
begin
    -- the owner and service_role (Supabase's writer, BYPASSRLS) see all; the app's and Supabase's API roles see
    -- the shared postings and their own workspace's, by the row's workspace (an index condition, see above)
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant all on chunk_postings to service_role;
        grant execute on function chunk_postings_after_insert(), chunk_postings_document_change() to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'anon') then
        revoke all on chunk_postings from anon, authenticated;
        grant select on chunk_postings to anon, authenticated;
        drop policy if exists read_chunk_postings on chunk_postings;
        create policy read_chunk_postings on chunk_postings for select to anon, authenticated
            using (workspace = any (array['', coalesce((select current_workspace()), '')]));
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select, insert, update, delete on chunk_postings to rag_app;
        grant execute on function chunk_postings_after_insert(), chunk_postings_document_change() to rag_app;
        drop policy if exists app_read_chunk_postings on chunk_postings;
        create policy app_read_chunk_postings on chunk_postings for select to rag_app
            using (workspace = any (array['', coalesce((select current_workspace()), '')]));
        -- writes (the insert trigger, a later batch of the same document's chunks) only to the caller's own
        -- workspace and its own documents
        drop policy if exists app_insert_chunk_postings on chunk_postings;
        create policy app_insert_chunk_postings on chunk_postings for insert to rag_app
            with check (workspace = coalesce((select current_workspace()), '')
                        and document_id in (select d.id from documents d
                                             where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')));
        drop policy if exists app_delete_chunk_postings on chunk_postings;
        create policy app_delete_chunk_postings on chunk_postings for delete to rag_app
            using (workspace = coalesce((select current_workspace()), ''));
        drop policy if exists app_update_chunk_postings on chunk_postings;
        create policy app_update_chunk_postings on chunk_postings for update to rag_app
            using (workspace = coalesce((select current_workspace()), ''))
            with check (workspace = coalesce((select current_workspace()), '')
                        and document_id in (select d.id from documents d
                                             where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')));
    end if;
end
$$;

analyze chunk_postings;
