-- What a figure is (rag/ingest/figkind.py): chart, diagram, table, photo, logo, decoration, map or cover, with the
-- signals that decided it. Figures stored before this migration have no kind until `python -m rag figures
-- --reclassify` reads it from their stored PDF; until then they are treated as diagrams.
alter table figures add column if not exists figure_kind text;
alter table figures add column if not exists kind_why text not null default '';
alter table figures add column if not exists signals jsonb;
do $$
begin
    if not exists (select 1 from pg_constraint where conname = 'figures_figure_kind_check') then
        alter table figures add constraint figures_figure_kind_check check (figure_kind is null or figure_kind in
            ('chart', 'diagram', 'table', 'photo', 'logo', 'decoration', 'map', 'cover'));
    end if;
end $$;
