-- The app's own calls run under row-level security too. Every data call of the app (ingest, search, lists, files,
-- feedback, the query log) runs as rag_app: SET LOCAL ROLE rag_app inside the call's transaction
-- (rag/store/transports.py), so a team's app sees the shared documents and its own workspace's, and writes only its
-- own. Its workspace is the app's own setting rag.workspace (RAG_DB__WORKSPACE, set when the connection opens; see
-- current_workspace() in 034): the app's connections never run SQL text from users or models (those run on a
-- reader login, 033).
-- Store-wide administration (migrations, re-indexing, reader roles) stays with the owner.
do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'rag_app') then
        create role rag_app nologin nobypassrls noinherit;
    end if;
    execute format('grant rag_app to %I', current_user);
exception when insufficient_privilege then
    raise notice 'cannot create rag_app here (%): the app runs as the owner', sqlerrm;
end
$$;

-- the question log and feedback belong to a workspace too (they hold a team's questions)
alter table feedback add column if not exists workspace text default current_workspace();
alter table query_log add column if not exists workspace text default current_workspace();

do $$
declare
    f record;
    t text;
begin
    if not exists (select 1 from pg_roles where rolname = 'rag_app') then
        return;
    end if;
    grant usage on schema public to rag_app;
    grant select, insert, update, delete on documents, chunks, figures, document_relations, term_stats, store_info,
        feedback, query_log, document_files to rag_app;
    grant select on reader_roles to rag_app;
    grant usage, select on all sequences in schema public to rag_app;
    for f in select p.oid::regprocedure as sig, p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'public' and p.prokind = 'f'
                and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
                and p.proname not in ('configure_reader_role', 'ensure_workspace_reader', 'set_reader_password',
                                      'reindex_begin', 'reindex_texts', 'reindex_write') loop
        execute format('grant execute on function %s to rag_app', f.sig);
    end loop;

    -- documents: see the shared ones and your own; write only your own
    drop policy if exists app_read_documents on documents;
    create policy app_read_documents on documents for select to rag_app
        using (workspace is null or workspace = (select current_workspace()));
    drop policy if exists app_write_documents on documents;
    create policy app_write_documents on documents for all to rag_app
        using (coalesce(workspace, '') = coalesce((select current_workspace()), ''))
        with check (coalesce(workspace, '') = coalesce((select current_workspace()), ''));
    -- what hangs off a document follows it (the subquery is itself filtered by the documents policies)
    foreach t in array array['chunks', 'figures', 'document_files'] loop
        execute format('drop policy if exists app_read_%1$s on %1$I', t);
        execute format('create policy app_read_%1$s on %1$I for select to rag_app
                        using (document_id in (select d.id from documents d))', t);
        execute format('drop policy if exists app_write_%1$s on %1$I', t);
        execute format('create policy app_write_%1$s on %1$I for all to rag_app
                        using (document_id in (select d.id from documents d
                                                where coalesce(d.workspace, %2$L) = coalesce((select current_workspace()), %2$L)))
                        with check (document_id in (select d.id from documents d
                                                     where coalesce(d.workspace, %2$L) = coalesce((select current_workspace()), %2$L)))',
                       t, '');
    end loop;
    drop policy if exists app_relations on document_relations;
    create policy app_relations on document_relations for all to rag_app
        using (source_id in (select d.id from documents d) and target_id in (select d.id from documents d))
        with check (source_id in (select d.id from documents d) and target_id in (select d.id from documents d));
    drop policy if exists app_read_term_stats on term_stats;
    create policy app_read_term_stats on term_stats for select to rag_app
        using (workspace = '' or workspace = coalesce((select current_workspace()), ''));
    drop policy if exists app_write_term_stats on term_stats;
    create policy app_write_term_stats on term_stats for all to rag_app
        using (workspace = coalesce((select current_workspace()), ''))
        with check (workspace = coalesce((select current_workspace()), ''));
    drop policy if exists app_store_info on store_info;
    create policy app_store_info on store_info for all to rag_app using (true) with check (true);
    foreach t in array array['feedback', 'query_log'] loop
        execute format('drop policy if exists app_%1$s on %1$I', t);
        execute format('create policy app_%1$s on %1$I for all to rag_app
                        using (coalesce(workspace, %2$L) = coalesce((select current_workspace()), %2$L))
                        with check (coalesce(workspace, %2$L) = coalesce((select current_workspace()), %2$L))', t, '');
    end loop;
end
$$;
