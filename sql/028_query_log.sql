-- Which documents answers come from, to watch for the old system's failure (the same old PDFs in every answer):
-- log_query() records each question's final chunks; result_share() sets each document's share of the results
-- of the recent questions against its share of the corpus.
create table if not exists query_log (
    id           bigint generated always as identity primary key,
    created_at   timestamptz not null default now(),
    question     text not null,
    document_ids bigint[] not null default '{}',
    chunk_ids    bigint[] not null default '{}',
    similarities double precision[] not null default '{}',
    total_ms     double precision
);

create or replace function log_query(p_question text, p_document_ids bigint[], p_chunk_ids bigint[],
                                     p_similarities double precision[], p_total_ms double precision)
returns bigint
language sql
as $$
    insert into query_log (question, document_ids, chunk_ids, similarities, total_ms)
    values (p_question, coalesce(p_document_ids, '{}'), coalesce(p_chunk_ids, '{}'),
            coalesce(p_similarities, '{}'), p_total_ms)
    returning id;
$$;

create or replace function result_share(p_last int default 100)
returns table (document_id bigint, file_name text, result_share double precision, corpus_share double precision,
               results bigint)
language sql
stable
as $$
    with recent as (select document_ids from query_log order by id desc limit greatest(p_last, 1)),
    hits as (select d as document_id, count(*) as n from recent, unnest(document_ids) d group by d),
    total_hits as (select greatest(sum(n), 1)::double precision as t from hits),
    sizes as (select document_id, count(*)::double precision as n from chunks group by document_id),
    total_size as (select greatest(sum(n), 1) as t from sizes)
    select doc.id, doc.file_name, coalesce(h.n, 0) / th.t, coalesce(s.n, 0) / ts.t, coalesce(h.n, 0)
      from documents doc
      left join hits h on h.document_id = doc.id
      left join sizes s on s.document_id = doc.id
      cross join total_hits th cross join total_size ts
     order by 3 desc, doc.id;
$$;

-- recent_similarities(n): the top similarities of the last n questions, for the histogram.
create or replace function recent_similarities(p_last int default 100)
returns table (similarity double precision)
language sql
stable
as $$
    select s from (select similarities from query_log order by id desc limit greatest(p_last, 1)) q,
                  unnest(q.similarities) s;
$$;
