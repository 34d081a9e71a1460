-- reindex_texts(kind, after_id, batch): the next batch of texts to embed again, by id: a chunk's context and content, a
-- figure's caption, context and a short OCR excerpt (as ingestion embeds them). Owner only.

CREATE OR REPLACE FUNCTION public.reindex_texts(
    p_kind text,
    p_after_id bigint,
    p_batch integer
) RETURNS TABLE (
    id bigint,
    text_to_embed text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    (select c.id, c.context || E'\n' || c.content from chunks c
      where p_kind = 'chunks' and c.id > p_after_id order by c.id limit p_batch)
    union all
    (select f.id, coalesce(nullif(concat_ws(E'\n', nullif(f.caption, ''), nullif(left(f.context, 400), ''),
                                             nullif(left(f.ocr_text, 200), '')), ''), 'figure')
       from figures f
      where p_kind = 'figures' and f.id > p_after_id order by 1 limit p_batch);
$$;

REVOKE ALL ON FUNCTION public.reindex_texts(text, bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.reindex_texts(text, bigint, integer) TO service_role;
