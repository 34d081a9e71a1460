-- Reading the kind of figures stored before 049 (`python -m rag figures --reclassify`): a document's figures with
-- their crops, and the kinds written back. Store-wide administration: the owner's only, like reindex.
create or replace function figures_of_document(p_document_id bigint)
returns table (id bigint, page int, bbox double precision[], kind text, caption text, ocr_text text, image_b64 text)
language sql
stable
set search_path = public, pg_temp
as $$
    select f.id, f.page, f.bbox, f.kind, f.caption, f.ocr_text, encode(f.image, 'base64')
      from figures f where f.document_id = p_document_id order by f.id;
$$;

-- set_figure_kinds(items): items = [{id, figure_kind, chart_type, kind_why, signals}]; returns rows updated.
create or replace function set_figure_kinds(items jsonb)
returns int
language plpgsql
set search_path = public, pg_temp
as $$
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

revoke execute on function figures_of_document(bigint) from public;
revoke execute on function set_figure_kinds(jsonb) from public;
