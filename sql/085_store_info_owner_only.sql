-- Store-wide state is the owner's. store_info holds what every workspace's vectors depend on (the embedding model
-- the store was built with): rag_app, which runs every data call of a team's app (041), may read it and record the
-- model of the store's very first document once, through record_store_model(); it can never change or remove it.
-- (041 gave rag_app every right on it under a policy of `true`: one team's UPDATE of the model name broke every
-- other team's search.) Changing the model stays with the owner's re-index (013).
create or replace function record_store_model(p_model text)
returns void
language sql
security definer
set search_path = public, pg_temp
as $$
    insert into store_info (key, value) values ('embedding_model', p_model) on conflict (key) do nothing;
$$;

revoke execute on function record_store_model(text) from public;

do $$
begin
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        revoke insert, update, delete, truncate, references, trigger on store_info from rag_app;
        drop policy if exists app_store_info on store_info;
        drop policy if exists app_read_store_info on store_info;
        create policy app_read_store_info on store_info for select to rag_app using (true);
        grant execute on function record_store_model(text) to rag_app;
    end if;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function record_store_model(text) to service_role;
    end if;
end
$$;
