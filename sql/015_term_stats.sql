-- term_stats: in how many chunks each lexeme occurs (document frequency), kept current by statement-level
-- triggers on chunks. match_chunks uses it to fetch full-text candidates by the selective terms of a question
-- (an OR over every term matched most of a filing store and made ranking scan thousands of rows).
create table if not exists term_stats (
    lexeme text primary key,
    ndoc   int not null
);

insert into term_stats (lexeme, ndoc)
select word, ndoc from ts_stat('select fts from chunks')
on conflict (lexeme) do update set ndoc = excluded.ndoc;

create or replace function term_stats_after_insert()
returns trigger
language plpgsql
as $$
begin
    insert into term_stats (lexeme, ndoc)
    select l, count(*) from new_rows, unnest(tsvector_to_array(new_rows.fts)) as l group by l order by l
    on conflict (lexeme) do update set ndoc = term_stats.ndoc + excluded.ndoc;
    return null;
end;
$$;

create or replace function term_stats_after_delete()
returns trigger
language plpgsql
as $$
begin
    update term_stats t set ndoc = greatest(0, t.ndoc - d.n)
      from (select l, count(*) as n from old_rows, unnest(tsvector_to_array(old_rows.fts)) as l group by l order by l) d
     where t.lexeme = d.l;
    return null;
end;
$$;

drop trigger if exists chunks_term_stats_insert on chunks;
create trigger chunks_term_stats_insert after insert on chunks
    referencing new table as new_rows for each statement execute function term_stats_after_insert();
drop trigger if exists chunks_term_stats_delete on chunks;
create trigger chunks_term_stats_delete after delete on chunks
    referencing old table as old_rows for each statement execute function term_stats_after_delete();
