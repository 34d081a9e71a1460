-- Reading a stored document's figures again (`python -m rag figures --reread`): after the figure finder changed
-- (rag/ingest/regions.py, drawn.py, chartread.py), a document's figures are found, cropped, classified and read
-- again from its stored PDF and replace the ones stored, in one transaction: the document keeps its id, chunks,
-- facts and tables. Each figure is linked to its chunk by chunk_index, as at ingestion. Returns the figures written.
-- Store-wide administration: the owner's only, like reindex.
create or replace function replace_figures(p_document_id bigint, figures jsonb)
returns int
language plpgsql
set search_path = public, pg_temp
as $$
declare
    n int;
begin
    if not exists (select 1 from documents where id = p_document_id) then
        raise exception 'no document %', p_document_id using errcode = 'P0002';
    end if;
    delete from figures where document_id = p_document_id;
    insert into figures (document_id, chunk_id, page, bbox, kind, caption, context, ocr_text, chart_type,
                         image, sha256, width, height, embedding, figure_kind, kind_why, signals)
    select p_document_id, ch.id, (f->>'page')::int,
           array(select jsonb_array_elements_text(f->'bbox')::double precision),
           f->>'kind', coalesce(f->>'caption', ''), coalesce(f->>'context', ''), coalesce(f->>'ocr_text', ''),
           f->>'chart_type', decode(f->>'image_b64', 'base64'), f->>'sha256',
           (f->>'width')::int, (f->>'height')::int, (f->>'embedding')::vector,
           f->>'figure_kind', coalesce(f->>'kind_why', ''), f->'signals'
      from jsonb_array_elements(figures) as f
      left join chunks ch on ch.document_id = p_document_id and ch.chunk_index = (f->>'chunk_index')::int;
    get diagnostics n = row_count;
    return n;
end;
$$;

revoke execute on function replace_figures(bigint, jsonb) from public;
