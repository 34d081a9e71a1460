-- term_stats: the policy becomes part of the index condition, so that a lookup of a lexeme reads only the caller's
-- workspace's row and the shared one (found by an independent attack on 070-072).
-- 036 and 041 wrote the read policies as `workspace = '' or workspace = …`, and rag_app's write policy was FOR ALL,
-- so it applied to reads too, in a second OR. Postgres cannot search an index with an OR, so a lookup by lexeme went
-- through term_stats_lexeme_idx (lexeme) and filtered the policy afterwards: it read every workspace's row for the
-- lexeme, and the buffers (EXPLAIN ANALYZE) and time of match_chunks and terms_missing for a word only another team
-- holds differed from those for a word nobody has.
-- Now each read policy is one equality, `workspace = any (array['', <the caller's workspace>])`, the writes have
-- policies per command, and the index by lexeme alone is gone: the only index is the primary key
-- (workspace, lexeme), and the policy is its first condition. Lookups across workspaces (the owner's) read the table.
drop index if exists term_stats_lexeme_idx;
-- and no statistics on the workspace column: a plain EXPLAIN's row estimate for one workspace would show how large
-- another team's vocabulary is. The type "change" drops the statistics an earlier ANALYZE kept (the key's index is
-- rebuilt, a small table); a column in a policy cannot change type, so the policies go first and come back below.
drop policy if exists read_term_stats on term_stats;
drop policy if exists app_read_term_stats on term_stats;
drop policy if exists app_write_term_stats on term_stats;
drop policy if exists app_insert_term_stats on term_stats;
drop policy if exists app_update_term_stats on term_stats;
drop policy if exists app_delete_term_stats on term_stats;
alter table term_stats alter column workspace set statistics 0;
alter table term_stats alter column workspace type text;

do $$
begin
    if exists (select 1 from pg_roles where rolname = 'anon') and exists (select 1 from pg_roles where rolname = 'authenticated') then
        drop policy if exists read_term_stats on term_stats;
        create policy read_term_stats on term_stats for select to anon, authenticated
            using (workspace = any (array['', coalesce((select current_workspace()), '')]));
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        drop policy if exists app_read_term_stats on term_stats;
        create policy app_read_term_stats on term_stats for select to rag_app
            using (workspace = any (array['', coalesce((select current_workspace()), '')]));
        drop policy if exists app_write_term_stats on term_stats;
        drop policy if exists app_insert_term_stats on term_stats;
        create policy app_insert_term_stats on term_stats for insert to rag_app
            with check (workspace = coalesce((select current_workspace()), ''));
        drop policy if exists app_update_term_stats on term_stats;
        create policy app_update_term_stats on term_stats for update to rag_app
            using (workspace = coalesce((select current_workspace()), ''))
            with check (workspace = coalesce((select current_workspace()), ''));
        drop policy if exists app_delete_term_stats on term_stats;
        create policy app_delete_term_stats on term_stats for delete to rag_app
            using (workspace = coalesce((select current_workspace()), ''));
    end if;
end
$$;
