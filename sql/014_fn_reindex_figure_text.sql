-- reindex_texts(kind, after_id, batch): as in 013, but a figure is embedded from caption, context and
-- a short OCR excerpt without the document label (the label outweighed short captions), matching ingestion.
create or replace function reindex_texts(p_kind text, p_after_id bigint, p_batch int)
returns table (id bigint, text_to_embed text)
language sql
stable
as $$
    (select c.id, c.context || E'\n' || c.content from chunks c
      where p_kind = 'chunks' and c.id > p_after_id order by c.id limit p_batch)
    union all
    (select f.id, coalesce(nullif(concat_ws(E'\n', nullif(f.caption, ''), nullif(left(f.context, 400), ''),
                                             nullif(left(f.ocr_text, 200), '')), ''), 'figure')
       from figures f
      where p_kind = 'figures' and f.id > p_after_id order by 1 limit p_batch);
$$;
