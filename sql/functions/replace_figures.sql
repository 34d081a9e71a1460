-- replace_figures(id, figures): a stored document's figures found, cropped, classified and read again from its PDF
-- (`python -m rag figures --reread`) replace the stored ones in one transaction; the document keeps its id, chunks,
-- facts and tables. Each figure is linked to its chunk by chunk_index, as at ingestion. Returns the figures written.
-- Owner only.

CREATE OR REPLACE FUNCTION public.replace_figures(p_document_id bigint, figures jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.replace_figures(bigint, jsonb) FROM PUBLIC;
