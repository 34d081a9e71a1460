-- chunk_lexemes: each chunk's lexemes without positions (strip(fts)), in a narrow table of its own, for the
-- full-text match of callers under row-level security.
-- Under row-level security Postgres may not use the GIN index for `@@` (not LEAKPROOF, and 065 keeps it so: a
-- shared index lets one team time another's words), so the match reads every visible chunk. On chunks that costs a
-- TOAST fetch per row (fts is ~1.6 kB, stored out of line): 4.2 s at a million chunks. Here the same match reads
-- ~1 kB rows with nothing out of line: about a tenth of that (bench/bench_scale.py). Nothing about another team is
-- evaluated that was not before: the table's policies are the chunks' (the row's document must be visible), and
-- match_chunks (068) still applies its match only after them.
-- Kept by a statement trigger on chunks (chunks' content never changes after insert; a document's delete cascades).
create table if not exists chunk_lexemes (
    chunk_id    bigint primary key references chunks (id) on delete cascade,
    document_id bigint not null,
    lexemes     tsvector not null
);
create index if not exists chunk_lexemes_document on chunk_lexemes (document_id);

insert into chunk_lexemes (chunk_id, document_id, lexemes)
select c.id, c.document_id, strip(c.fts) from chunks c
    on conflict (chunk_id) do nothing;

create or replace function chunk_lexemes_after_insert()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    insert into chunk_lexemes (chunk_id, document_id, lexemes)
    select n.id, n.document_id, strip(n.fts) from new_rows n;
    return null;
end;
$$;
revoke execute on function chunk_lexemes_after_insert() from public;

drop trigger if exists chunks_lexemes_insert on chunks;
create trigger chunks_lexemes_insert after insert on chunks
    referencing new table as new_rows for each statement execute function chunk_lexemes_after_insert();

alter table chunk_lexemes enable row level security;
revoke all on chunk_lexemes from public;

do $$
begin
    -- the owner and service_role (Supabase's writer, BYPASSRLS) see all; nobody else reads it directly but through
    -- match_chunks, under the same policies as chunks
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant all on chunk_lexemes to service_role;
        grant execute on function chunk_lexemes_after_insert() to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'anon') then
        revoke all on chunk_lexemes from anon, authenticated;
        grant select on chunk_lexemes to anon, authenticated;
        drop policy if exists read_chunk_lexemes on chunk_lexemes;
        create policy read_chunk_lexemes on chunk_lexemes for select to anon, authenticated
            using (visible_document(document_id));
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select, insert on chunk_lexemes to rag_app;
        grant execute on function chunk_lexemes_after_insert() to rag_app;
        drop policy if exists app_read_chunk_lexemes on chunk_lexemes;
        create policy app_read_chunk_lexemes on chunk_lexemes for select to rag_app
            using (document_id in (select d.id from documents d));
        drop policy if exists app_write_chunk_lexemes on chunk_lexemes;
        create policy app_write_chunk_lexemes on chunk_lexemes for insert to rag_app
            with check (document_id in (select d.id from documents d
                                         where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')));
    end if;
end
$$;
