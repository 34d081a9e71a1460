-- Cropping stored figures again (`python -m rag figures --recrop`): the crop shown for a figure is its graphic, its
-- labels and its caption or title, fenced off from prose and neighbouring figures (rag/ingest/crop.py). The region
-- (bbox), text and embedding stay; only the picture changes. Store-wide administration: the owner's only.
-- set_figure_images(items): items = [{id, image_b64, width, height}]; returns rows updated.
create or replace function set_figure_images(items jsonb)
returns int
language plpgsql
set search_path = public, pg_temp
as $$
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

revoke execute on function set_figure_images(jsonb) from public;
