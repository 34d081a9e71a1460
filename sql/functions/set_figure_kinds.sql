-- set_figure_kinds(items): figures classified again (`python -m rag figures --reclassify`), items = [{id, figure_kind,
-- chart_type, kind_why, signals}]. Returns the rows updated. Owner only.

CREATE OR REPLACE FUNCTION public.set_figure_kinds(items jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    n int;
begin
    update figures f
       set figure_kind = i->>'figure_kind', chart_type = i->>'chart_type', kind_why = coalesce(i->>'kind_why', ''),
           signals = i->'signals'
      from jsonb_array_elements(items) i
     where f.id = (i->>'id')::bigint;
    get diagnostics n = row_count;
    return n;
end;
$$;

REVOKE ALL ON FUNCTION public.set_figure_kinds(jsonb) FROM PUBLIC;
