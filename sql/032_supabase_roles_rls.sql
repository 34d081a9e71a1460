-- Supabase deployment: row-level security on every table; anon / authenticated may only read (through the read
-- functions and SELECT under the workspace policies); every write needs service_role. Supabase's roles are
-- created when absent (embedded or plain Postgres), so the same grants mean the same thing everywhere and can
-- be tested. No function is SECURITY DEFINER: each runs with its caller's rights, and every function has a fixed
-- search_path.
do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'anon') then
        create role anon nologin noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'authenticated') then
        create role authenticated nologin noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'service_role') then
        create role service_role nologin noinherit bypassrls;
    end if;
exception when insufficient_privilege then
    raise notice 'cannot create the Supabase roles here (%); grants to them are skipped', sqlerrm;
end
$$;

do $$
declare
    t text;
    f record;
    readers text := 'anon, authenticated';
    read_tables text[] := array['documents', 'chunks', 'figures', 'document_relations', 'term_stats', 'store_info'];
    all_tables text[] := array['documents', 'chunks', 'figures', 'document_relations', 'term_stats', 'store_info',
                               'feedback', 'query_log', 'document_files', 'schema_migrations'];
    read_functions text[] := array['list_documents', 'document_by_sha256', 'related_documents',
        'related_documents_graph', 'get_store_info', 'doctor', 'match_chunks', 'match_chunks_cosine', 'match_figures',
        'get_figure_image', 'chunk_embeddings', 'terms_missing', 'feedback_stats', 'result_share',
        'recent_similarities', 'get_document_file', 'current_workspace', 'visible_document'];
    have_roles boolean := exists (select 1 from pg_roles where rolname = 'anon')
                          and exists (select 1 from pg_roles where rolname = 'authenticated')
                          and exists (select 1 from pg_roles where rolname = 'service_role');
begin
    -- every table: RLS on
    foreach t in array all_tables loop
        if to_regclass('public.' || t) is not null then
            execute format('alter table public.%I enable row level security', t);
        end if;
    end loop;
    -- every function of ours: a fixed search_path
    -- (ours only: an extension's functions, pgvector's among them, are left as they are)
    for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'public' and p.prokind = 'f'
                and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e') loop
        execute format('alter function %s set search_path = public, pg_temp', f.sig);
        -- not executable by everyone (PostgreSQL's default): grants below say who may
        execute format('revoke execute on function %s from public', f.sig);
    end loop;
    execute 'alter default privileges in schema public revoke execute on functions from public';
    if not have_roles then
        return;
    end if;
    execute 'grant usage on schema public to anon, authenticated, service_role';
    execute 'revoke all on all tables in schema public from anon, authenticated';
    execute 'revoke all on all sequences in schema public from anon, authenticated';
    execute 'grant all on all tables in schema public to service_role';
    execute 'grant all on all sequences in schema public to service_role';
    for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'public' and p.prokind = 'f'
                and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e') loop
        execute format('grant execute on function %s to service_role', f.sig);
    end loop;
    foreach t in array read_tables loop
        execute format('grant select on public.%I to %s', t, readers);
    end loop;
    for f in select p.oid::regprocedure as sig, p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'public' and p.prokind = 'f' and p.proname = any(read_functions) loop
        execute format('grant execute on function %s to %s', f.sig, readers);
    end loop;
    -- policies: readers see shared documents and their workspace's, and what hangs off them
    execute 'drop policy if exists read_documents on documents';
    execute format('create policy read_documents on documents for select to %s
                    using (workspace is null or workspace = current_workspace())', readers);
    foreach t in array array['chunks', 'figures'] loop
        execute format('drop policy if exists read_%s on %I', t, t);
        execute format('create policy read_%s on %I for select to %s using (visible_document(document_id))',
                       t, t, readers);
    end loop;
    execute 'drop policy if exists read_relations on document_relations';
    execute format('create policy read_relations on document_relations for select to %s
                    using (visible_document(source_id) and visible_document(target_id))', readers);
    foreach t in array array['term_stats', 'store_info'] loop
        execute format('drop policy if exists read_%s on %I', t, t);
        execute format('create policy read_%s on %I for select to %s using (true)', t, t, readers);
    end loop;
end
$$;
