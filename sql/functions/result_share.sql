-- result_share(n): each document's share of the chunks returned to the caller's workspace's last n questions against
-- its share of the library, to see whether the same old documents come back for every question (the failure the project
-- started from).

CREATE OR REPLACE FUNCTION public.result_share(
    p_last integer DEFAULT 100
) RETURNS TABLE (
    document_id bigint,
    file_name text,
    result_share double precision,
    corpus_share double precision,
    results bigint
)
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
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

REVOKE ALL ON FUNCTION public.result_share(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.result_share(integer) TO service_role, rag_app;
