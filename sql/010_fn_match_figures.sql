-- match_figures: figures for a question. Returns the figures linked to the given chunk ids
-- (linked = true) and the figures whose caption/context/OCR embedding is closest to the query,
-- each with its cosine similarity; optional document filter. Ordered by similarity.
create or replace function match_figures(
    query_embedding     vector,
    match_count         int default 5,
    filter_chunk_ids    bigint[] default null,
    filter_document_ids bigint[] default null
)
returns table (
    figure_id   bigint,
    document_id bigint,
    chunk_id    bigint,
    page        int,
    kind        text,
    caption     text,
    ocr_text    text,
    chart_type  text,
    bbox        double precision[],
    file_name   text,
    similarity  double precision,
    linked      boolean
)
language sql
stable
as $$
    with nearest as (
        select f.id
          from figures f
         where f.embedding is not null
           and (filter_document_ids is null or f.document_id = any(filter_document_ids))
         order by (f.embedding <=> query_embedding) + 0
         limit match_count
    ), linked as (
        select f.id from figures f where filter_chunk_ids is not null and f.chunk_id = any(filter_chunk_ids)
    ), ids as (
        select id from nearest union select id from linked
    )
    select f.id, f.document_id, f.chunk_id, f.page, f.kind, f.caption, f.ocr_text, f.chart_type, f.bbox,
           d.file_name, 1 - (f.embedding <=> query_embedding),
           coalesce(f.chunk_id = any(filter_chunk_ids), false)
      from ids join figures f on f.id = ids.id join documents d on d.id = f.document_id
     order by 11 desc, f.id;
$$;

-- get_figure_image(figure_id): the PNG as base64 text (JSON-safe for every transport).
create or replace function get_figure_image(p_figure_id bigint)
returns text
language sql
stable
as $$
    select encode(image, 'base64') from figures where id = p_figure_id;
$$;
