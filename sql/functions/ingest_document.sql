-- ingest_document(doc, chunks, figures): writes one document in one transaction: its row (metadata, authors, issuer
-- aliases), its chunks with their embeddings, its figures with their crops, its table facts and its tables
-- (rag.records.Table.to_json), in reading order (ids follow the document, so that an answer's ties fall the same way
-- however the document was stored), then refreshes its issuer's period links. Returns {document_id, already_ingested,
-- chunks, figures, facts, tables}: a file already in the writer's workspace is not written twice. The document belongs
-- to the writer's workspace (documents_set_workspace). Refuses an embedding model other than the store's.

CREATE OR REPLACE FUNCTION public.ingest_document(doc jsonb, chunks jsonb, figures jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    did bigint;
    store_model text;
    n_chunks int := 0;
    n_figures int := 0;
    n_facts int := 0;
    n_tables int := 0;
begin
    select value into store_model from store_info where key = 'embedding_model';
    if store_model is not null and store_model <> doc->>'embedding_model' then
        raise exception 'store was built with embedding model %, not %; run "python -m rag reindex"',
            store_model, doc->>'embedding_model' using errcode = 'P0001';
    end if;

    insert into documents (file_name, title, company, company_key, fiscal_year, fiscal_period, doc_type,
                           published_date, sha256, page_count, ocr_pages, embedding_model, meta)
    values (doc->>'file_name', doc->>'title', doc->>'company', doc->>'company_key',
            (doc->>'fiscal_year')::int, doc->>'fiscal_period', coalesce(doc->>'doc_type', 'other'),
            (doc->>'published_date')::date, doc->>'sha256', (doc->>'page_count')::int,
            coalesce((doc->>'ocr_pages')::int, 0), doc->>'embedding_model', coalesce(doc->'meta', '{}'::jsonb))
    on conflict do nothing
    returning id into did;

    if did is null then
        select id into did from documents
         where sha256 = doc->>'sha256' and coalesce(workspace, '') = coalesce(current_workspace(), '');
        return jsonb_build_object('document_id', did, 'already_ingested', true, 'chunks', 0, 'figures', 0,
                                  'facts', 0, 'tables', 0);
    end if;

    insert into store_info (key, value) values ('embedding_model', doc->>'embedding_model')
    on conflict (key) do nothing;

    insert into chunks (document_id, chunk_index, page_start, page_end, heading, section_type, context,
                        content, token_count, embedding)
    select did, (c->>'chunk_index')::int, (c->>'page_start')::int, (c->>'page_end')::int,
           coalesce(c->>'heading', ''), coalesce(c->>'section_type', 'other'), coalesce(c->>'context', ''),
           c->>'content', (c->>'token_count')::int, (c->>'embedding')::vector
      from jsonb_array_elements(chunks) as c;
    get diagnostics n_chunks = row_count;

    insert into figures (document_id, chunk_id, page, bbox, kind, caption, context, ocr_text, chart_type,
                         image, sha256, width, height, embedding, figure_kind, kind_why, signals)
    select did, ch.id, (f->>'page')::int,
           array(select jsonb_array_elements_text(f->'bbox')::double precision),
           f->>'kind', coalesce(f->>'caption', ''), coalesce(f->>'context', ''), coalesce(f->>'ocr_text', ''),
           f->>'chart_type', decode(f->>'image_b64', 'base64'), f->>'sha256',
           (f->>'width')::int, (f->>'height')::int, (f->>'embedding')::vector,
           f->>'figure_kind', coalesce(f->>'kind_why', ''), f->'signals'
      from jsonb_array_elements(figures) as f
      left join chunks ch on ch.document_id = did and ch.chunk_index = (f->>'chunk_index')::int;
    get diagnostics n_figures = row_count;

    insert into facts (document_id, chunk_id, page, label, label_path, col_header, period, fiscal_year,
                       fiscal_period, is_change, value, raw, unit, scale, table_title, row_text, col)
    select did, ch.id, coalesce((x->>'page')::int, ch.page_start), x->>'label', coalesce(x->>'label_path', x->>'label'),
           coalesce(x->>'col_header', ''), x->>'period', (x->>'fiscal_year')::int, x->>'fiscal_period',
           coalesce((x->>'is_change')::boolean, false), (x->>'value')::double precision, coalesce(x->>'raw', ''),
           x->>'unit', coalesce((x->>'scale')::double precision, 1), coalesce(x->>'table_title', ''),
           coalesce(x->>'row_text', ''), coalesce((x->>'column')::int, 0)
      from jsonb_array_elements(chunks) with ordinality as cj(c, ci)
      join chunks ch on ch.document_id = did and ch.chunk_index = (cj.c->>'chunk_index')::int
     cross join lateral jsonb_array_elements(case when jsonb_typeof(cj.c->'facts') = 'array' then cj.c->'facts'
                                                  else '[]'::jsonb end) with ordinality as xj(x, xi)
     order by cj.ci, xj.xi;  -- ids in reading order, whatever plan the join takes
    get diagnostics n_facts = row_count;

    insert into doc_tables (document_id, table_no, chunk_indexes, page_start, page_end, title, unit, scale, stub,
                            columns, rows)
    select did, (t->>'table_no')::int,
           array(select jsonb_array_elements_text(t->'chunk_indexes')::int),
           (t->>'page_start')::int, (t->>'page_end')::int, coalesce(t->>'title', ''), t->>'unit',
           coalesce((t->>'scale')::double precision, 1), coalesce(t->>'stub', ''),
           coalesce(t->'columns', '[]'::jsonb), coalesce(t->'rows', '[]'::jsonb)
      from jsonb_array_elements(case when jsonb_typeof(doc->'tables') = 'array' then doc->'tables'
                                     else '[]'::jsonb end) with ordinality as tj(t, ti)
     order by tj.ti;
    get diagnostics n_tables = row_count;

    perform refresh_relations(doc->>'company_key');

    return jsonb_build_object('document_id', did, 'already_ingested', false,
                              'chunks', n_chunks, 'figures', n_figures, 'facts', n_facts,
                              'tables', n_tables);
end;
$$;

REVOKE ALL ON FUNCTION public.ingest_document(jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.ingest_document(jsonb, jsonb, jsonb) TO service_role, rag_app;
