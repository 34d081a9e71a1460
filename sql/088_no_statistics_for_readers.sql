-- Nothing about another workspace can be inferred from the planner or the statistics views (issue 34.4).
-- * The planner's estimates read each column's statistics, gathered over every workspace's rows: after ANALYZE,
--   `EXPLAIN … WHERE heading = '<another team's heading>'` estimated 4 rows and a made-up heading 1, so headings,
--   captions, titles and section types could be found by binary search. The columns the reader views show (sql/026)
--   are no longer sampled (statistics target 0) and what was sampled before is deleted: every value then gets the
--   same default estimate, whether it exists elsewhere or nowhere. The ids that join them keep their statistics
--   (they say how many rows the store holds, as pg_class.reltuples does; see README, "What a reader login can do").
-- * pg_stats shows a column's sampled values to whoever may read the column (the readers may: the views run with
--   their rights), and pg_stat_user_tables and its kin show each table's row counts and insert counters (the
--   question log, feedback, conversations, the job queue). They are taken away from PUBLIC and given back to the
--   roles that administer the database, as pg_stat_activity was in 039. On a managed Postgres where the migrating
--   role does not own the catalog (Supabase), the revokes are skipped with a notice.
do $$
declare
    t text;
    c text;
begin
    foreach t in array array['documents:file_name,title,company,fiscal_year,fiscal_period,doc_type,published_date,uploaded_at,page_count,ocr_pages',
                             'chunks:chunk_index,page_start,page_end,heading,section_type,token_count',
                             'figures:page,kind,caption,chart_type,width,height'] loop
        foreach c in array string_to_array(split_part(t, ':', 2), ',') loop
            execute format('alter table %I alter column %I set statistics 0', split_part(t, ':', 1), c);
        end loop;
    end loop;
    begin
        delete from pg_statistic s
         using pg_attribute a
         where a.attrelid = s.starelid and a.attnum = s.staattnum and a.attstattarget = 0
           and s.starelid in ('documents'::regclass, 'chunks'::regclass, 'figures'::regclass);
    exception when insufficient_privilege then
        raise notice 'cannot delete sampled statistics here (%): they go at the next ANALYZE of a new store', sqlerrm;
    end;
end
$$;

do $$
declare
    v text;
    f regprocedure;
    r text;
begin
    for v in select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'pg_catalog' and c.relkind = 'v'
                and (c.relname in ('pg_stats', 'pg_stats_ext', 'pg_stats_ext_exprs')
                     or c.relname ~ '^pg_stat(io)?_(all|sys|user|xact_all|xact_sys|xact_user)_(tables|indexes|sequences|functions)$'
                     or c.relname in ('pg_stat_user_functions', 'pg_stat_xact_user_functions',
                                      'pg_statio_all_sequences', 'pg_statio_sys_sequences',
                                      'pg_statio_user_sequences')) loop
        begin
            execute format('revoke select on pg_catalog.%I from public', v);
            execute format('grant select on pg_catalog.%I to %I', v, current_user);
            foreach r in array array['service_role', 'supabase_admin', 'postgres', 'pg_monitor', 'pg_read_all_stats'] loop
                if exists (select 1 from pg_roles where rolname = r) then
                    execute format('grant select on pg_catalog.%I to %I', v, r);
                end if;
            end loop;
        exception when insufficient_privilege then
            raise notice 'cannot revoke % from public here (%)', v, sqlerrm;
        end;
    end loop;
    -- the functions behind those views count a table's rows and scans by its oid
    for f in select p.oid::regprocedure from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'pg_catalog' and p.proname ~ '^pg_stat_get_(xact_)?(numscans|lastscan|tuples_|live_tuples|dead_tuples|ins_since_vacuum|mod_since_analyze|blocks_|last_|vacuum_count|autovacuum_count|analyze_count|autoanalyze_count|function_)' loop
        begin
            execute format('revoke execute on function %s from public', f);
            execute format('grant execute on function %s to %I', f, current_user);
            foreach r in array array['service_role', 'supabase_admin', 'postgres', 'pg_monitor', 'pg_read_all_stats'] loop
                if exists (select 1 from pg_roles where rolname = r) then
                    execute format('grant execute on function %s to %I', f, r);
                end if;
            end loop;
        exception when insufficient_privilege then
            raise notice 'cannot revoke % from public here (%)', f, sqlerrm;
        end;
    end loop;
end
$$;
