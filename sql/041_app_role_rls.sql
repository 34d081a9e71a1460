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
    -- links: read those between documents you can see; write only those that start at a document of your own
    drop policy if exists app_relations on document_relations;
    drop policy if exists app_read_relations on document_relations;
    create policy app_read_relations on document_relations for select to rag_app
        using (source_id in (select d.id from documents d) and target_id in (select d.id from documents d));
    drop policy if exists app_write_relations on document_relations;
    create policy app_write_relations on document_relations for all to rag_app
        using (source_id in (select d.id from documents d
                              where coalesce(d.workspace, '') = coalesce((select current_workspace()), '')))
        with check (source_id in (select d.id from documents d
                                   where coalesce(d.workspace, '') = coalesce((select current_workspace()), ''))
                    and target_id in (select d.id from documents d));
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

-- refresh_relations (replaces 007, same signature and result): the issuer's periods as the caller sees them (the
-- shared documents and its own workspace's), linked only from the caller's own documents: one team's upload
-- never rewrites the links among shared documents or another team's.
create or replace function refresh_relations(p_company_key text)
returns int
language plpgsql
set search_path = public, pg_temp
as $$
declare
    n int;
    v_ws text := coalesce(current_workspace(), '');
begin
    if p_company_key is null or p_company_key = '' then
        return 0;
    end if;
    delete from document_relations r
     using documents d
     where d.id = r.source_id and d.company_key = p_company_key and coalesce(d.workspace, '') = v_ws
       and r.relation in ('previous_period', 'next_period');
    with ordered as (
        select id, doc_type, coalesce(workspace, '') as ws,
               lag(id) over w as prev_id, lead(id) over w as next_id
          from documents
         where company_key = p_company_key and fiscal_year is not null
           and (workspace is null or workspace = nullif(v_ws, ''))
        window w as (partition by doc_type
                     order by fiscal_year nulls last,
                              case fiscal_period when 'Q1' then 1 when 'Q2' then 2 when 'Q3' then 3
                                                 when 'Q4' then 4 else 5 end,
                              published_date nulls last, id)
    ), pairs as (
        select id as source_id, prev_id as target_id, 'previous_period' as relation
          from ordered where prev_id is not null and ordered.ws = v_ws
        union all
        select id, next_id, 'next_period' from ordered where next_id is not null and ordered.ws = v_ws
    )
    insert into document_relations (source_id, target_id, relation)
    select source_id, target_id, relation from pairs
    on conflict do nothing;
    get diagnostics n = row_count;
    return n;
end;
$$;
