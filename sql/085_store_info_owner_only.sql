-- Store-wide state is the owner's. store_info holds what every workspace's vectors depend on (the embedding model
-- the store was built with). rag_app, which runs every data call of a team's app (041), may read it and insert the
-- model of the store's very first document (ingest_document's insert … on conflict do nothing): the key
-- 'embedding_model' only, once, since the primary key refuses a second row and rag_app may neither update nor
-- delete. (041 gave it every right under a policy of `true`: one team's UPDATE of the model name broke every other
-- team's search.) Changing the model stays with the owner's re-index (013). No function is SECURITY DEFINER.
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        revoke update, delete, truncate, references, trigger on store_info from rag_app;
        grant select, insert on store_info to rag_app;
        drop policy if exists app_store_info on store_info;
        drop policy if exists app_read_store_info on store_info;
        drop policy if exists app_record_store_model on store_info;
        create policy app_read_store_info on store_info for select to rag_app using (true);
        create policy app_record_store_model on store_info for insert to rag_app
            with check (key = 'embedding_model');
    end if;
end
$$;
