-- figures_of_document(id): a document's figures with their region, kind, caption, OCR text and crop, to classify them
-- again (`python -m rag figures --reclassify`). Owner only, like every re-reading of the store.

CREATE OR REPLACE FUNCTION public.figures_of_document(
    p_document_id bigint
) RETURNS TABLE (
    id bigint,
    page integer,
    bbox double precision[],
    kind text,
    caption text,
    ocr_text text,
    image_b64 text
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select f.id, f.page, f.bbox, f.kind, f.caption, f.ocr_text, encode(f.image, 'base64')
      from figures f where f.document_id = p_document_id order by f.id;
$$;

REVOKE ALL ON FUNCTION public.figures_of_document(bigint) FROM PUBLIC;
