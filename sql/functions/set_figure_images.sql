-- set_figure_images(items): figures cropped again (`python -m rag figures --recrop`), items = [{id, image_b64, width,
-- height}]; the region, text and embedding stay. Returns the rows updated. Owner only.

CREATE OR REPLACE FUNCTION public.set_figure_images(items jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    n int;
begin
    update figures f
       set image = decode(i->>'image_b64', 'base64'), width = (i->>'width')::int, height = (i->>'height')::int
      from jsonb_array_elements(items) i
     where f.id = (i->>'id')::bigint and coalesce(i->>'image_b64', '') <> '';
    get diagnostics n = row_count;
    return n;
end;
$$;

REVOKE ALL ON FUNCTION public.set_figure_images(jsonb) FROM PUBLIC;
