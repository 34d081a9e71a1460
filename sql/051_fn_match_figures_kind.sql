-- match_figures (replaces 010; one more column, so dropped and created again with the same privileges): each
-- figure also says what it is (figure_kind, null for a figure stored before 049 and not yet reclassified) and why.
drop function if exists match_figures(vector, int, bigint[], bigint[]);
create function match_figures(
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
    linked      boolean,
    figure_kind text,
    kind_why    text,
    context     text
)
language sql
stable
set search_path = public, pg_temp
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
           coalesce(f.chunk_id = any(filter_chunk_ids), false), f.figure_kind, f.kind_why, f.context
      from ids join figures f on f.id = ids.id join documents d on d.id = f.document_id
     order by 11 desc, f.id;
$$;

revoke execute on function match_figures(vector, int, bigint[], bigint[]) from public;
do $$
begin
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant execute on function match_figures(vector, int, bigint[], bigint[]) to service_role, anon, authenticated;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant execute on function match_figures(vector, int, bigint[], bigint[]) to rag_app;
    end if;
end
$$;
