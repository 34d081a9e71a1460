-- Every function granted to anon / authenticated works for them (032 granted three that failed on tables they
-- cannot read):
--   get_document_file: readers may fetch the original PDF of a document they can see (the cited page);
--   feedback_stats, result_share, recent_similarities: they summarise every team's questions and votes, so they
--   are for service_role (the app's debug dashboard), not for readers.
do $$
begin
    if not (exists (select 1 from pg_roles where rolname = 'anon')
            and exists (select 1 from pg_roles where rolname = 'authenticated')) then
        return;
    end if;
    grant select on document_files to anon, authenticated;
    drop policy if exists read_document_files on document_files;
    create policy read_document_files on document_files for select to anon, authenticated
        using (visible_document(document_id));
    revoke execute on function feedback_stats() from anon, authenticated;
    revoke execute on function result_share(int) from anon, authenticated;
    revoke execute on function recent_similarities(int) from anon, authenticated;
end
$$;
