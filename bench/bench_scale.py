"""Search at a million chunks: fill an embedded store, build the HNSW index, measure search.

Fill: the documents and chunks of a real store (--source, e.g. the shared corpus ingested), copied until --chunks
rows: every copy is a new document of a new issuer ("3M (copy 7)", its own company key), with the same texts and
each vector perturbed (gaussian noise, renormalised; --noise sets the cosine to the original, ~0.9), so that the
index meets a million distinct points in realistic clusters and a company filter selects one issuer's filings.
Chunks go in by COPY on two connections (Postgres computes the full-text vectors and term statistics as in
ingestion); the HNSW and GIN indexes are built afterwards and timed.

Reported: fill and index build time, peak RSS of the Postgres processes during the build, index and table sizes;
for each ef_search: recall@10/@50 of the index against the exact scan, p50/p95 of the hybrid SQL function
(match_chunks) and of the full retrieval pipeline (rag.retrieve.pipeline.retrieve), over the dev questions, as the
app's role under row-level security. Baselines in the same run: the match_chunks of sql/056 (as the owner),
sql/063's as the app's role (its full-text match reads chunks.fts) and sql/068's (it reads chunk_lexemes; sql/071
looks the terms up in chunk_postings); sql/071's interleaved with the current one (074: newest documents' postings
first, each fts read once) on every question; the pipeline with its searches one after another interleaved with the
default (at once); and terms_missing of sql/069 against sql/072's on the same term lists.

Usage: python bench/bench_scale.py --source /path/to/store [--chunks 1000000] [--data-dir DIR (kept; reused if
filled)] [--m 16 --ef-construction 64] [--ef 40,100,200] [--out bench/results/scale.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
CHUNK_COLS = ["chunk_index", "page_start", "page_end", "heading", "section_type", "context", "content", "token_count"]


def open_at(data_dir: str):
    from rag.config import Settings
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = Path(data_dir)
    return open_store(s), s


def source_rows(source: str):
    store, _ = open_at(source)
    with store.transport.connection() as conn:
        docs = conn.execute("select id, file_name, title, company, company_key, fiscal_year, fiscal_period, doc_type, "
                            "published_date, page_count, embedding_model from documents order by id").fetchall()
        chunks = conn.execute(f"select document_id, {', '.join(CHUNK_COLS)}, embedding::text from chunks "
                              "order by document_id, chunk_index").fetchall()
    store.close()
    vecs = np.array([json.loads(c[-1]) for c in chunks], dtype=np.float32)
    return docs, [c[:-1] for c in chunks], vecs


def _copy_docs(conn, docs, k: int) -> dict[int, int]:
    """Copy k of every source document; returns source id → new id."""
    ids = {}
    for d in docs:
        (sid, file_name, title, company, key, year, period, dtype, published, pages, model) = d
        suffix = "" if k == 0 else f" (copy {k})"
        row = conn.execute(
            "insert into documents (file_name, title, company, company_key, fiscal_year, fiscal_period, doc_type, "
            "published_date, sha256, page_count, embedding_model) values (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
            "returning id",
            (file_name if k == 0 else f"{file_name}#{k}", title, (company or "") + suffix if company else company,
             key if k == 0 or not key else f"{key}-{k}", year, period, dtype, published, f"scale-{k}-{sid}", pages,
             model)).fetchone()
        ids[sid] = row[0]
    return ids


def _copy_chunks(url: str, docs, chunks, vecs, ks: list[int], noise: float, seed: int, done: list[int]) -> None:
    import psycopg

    rng = np.random.default_rng(seed)
    with psycopg.connect(url, autocommit=True) as conn:
        for k in ks:
            with conn.transaction():
                ids = _copy_docs(conn, docs, k)
                v = vecs if k == 0 else vecs + rng.normal(0, noise / np.sqrt(vecs.shape[1]), vecs.shape)
                v = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
                with conn.cursor().copy(f"copy chunks (document_id, {', '.join(CHUNK_COLS)}, embedding) from stdin"
                                        ) as cp:
                    for row, vec in zip(chunks, v, strict=True):
                        cp.write_row([ids[row[0]], *row[1:], "[" + ",".join(f"{x:.6f}" for x in vec) + "]"])
            done[0] += len(chunks)


def fill(store, docs, chunks, vecs, target: int, noise: float) -> dict:
    copies = int(np.ceil(target / len(chunks)))
    with store.transport.connection() as conn:
        conn.execute("drop index if exists chunks_embedding_hnsw")
        conn.execute("drop index if exists chunks_fts_gin")
    t0 = time.perf_counter()
    done = [0]
    threads = [threading.Thread(target=_copy_chunks, args=(store.transport.url, docs, chunks, vecs,
                                                           list(range(i, copies, 2)), noise, i, done))
               for i in range(2)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        time.sleep(10)
        print(f"  filled {done[0]:,} chunks in {time.perf_counter() - t0:.0f} s", flush=True)
    fill_s = time.perf_counter() - t0
    with store.transport.connection() as conn:
        t = time.perf_counter()
        conn.execute("set statement_timeout = 0")
        conn.execute("set maintenance_work_mem = '2GB'")
        conn.execute("create index chunks_fts_gin on chunks using gin (fts)")
        gin_s = time.perf_counter() - t
        conn.execute("vacuum analyze chunks")
        conn.execute("analyze documents")
    return {"copies": copies, "fill_s": round(fill_s, 1), "gin_build_s": round(gin_s, 1)}


def _pg_rss_mb() -> float:
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() != "postgres":
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def build_hnsw(store, m: int, efc: int) -> dict:
    peak = [0.0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], _pg_rss_mb())
            time.sleep(1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with store.transport.connection() as conn:
        conn.execute("set statement_timeout = 0")
        conn.execute("drop index if exists chunks_embedding_hnsw")
        conn.execute("set maintenance_work_mem = '8GB'")
        conn.execute("set max_parallel_maintenance_workers = 1")
        t = time.perf_counter()
        conn.execute(f"create index chunks_embedding_hnsw on chunks using hnsw (embedding vector_cosine_ops) "
                     f"with (m = {int(m)}, ef_construction = {int(efc)})")
        build_s = time.perf_counter() - t
        sizes = conn.execute("select pg_relation_size('chunks_embedding_hnsw'), pg_total_relation_size('chunks'), "
                             "pg_relation_size('chunks_fts_gin'), (select count(*) from chunks)").fetchone()
    stop.set()
    return {"m": m, "ef_construction": efc, "build_s": round(build_s, 1), "peak_postgres_rss_mb": round(peak[0]),
            "hnsw_mb": round(sizes[0] / 2**20), "chunks_total_mb": round(sizes[1] / 2**20),
            "gin_mb": round(sizes[2] / 2**20), "chunks": sizes[3]}


def questions(n: int) -> list[str]:
    qs = []
    for f in ("dev.jsonl", "financebench_dev.jsonl"):
        p = SHARED / "eval" / f
        if p.exists():
            qs += [json.loads(line)["question"] for line in p.read_text().splitlines() if line.strip()]
    return (qs * (n // max(1, len(qs)) + 1))[:n]


def _pct(xs: list[float]) -> dict:
    xs = sorted(xs)
    return {"p50_ms": round(statistics.median(xs), 1), "p95_ms": round(xs[int(0.95 * (len(xs) - 1))], 1)}


_EXACT: dict[int, list[int]] = {}


def recall(store, qvecs: np.ndarray, ef: int) -> dict:
    """The index's top 50 against the exact scan's (computed once per query, kept across ef_search values)."""
    hits10, hits50, src10 = [], [], []
    with store.transport.connection() as conn:
        conn.execute("set statement_timeout = 0")
        conn.execute(f"set hnsw.ef_search = {int(ef)}")
        for i, q in enumerate(qvecs):
            lit = "[" + ",".join(f"{x:.6f}" for x in q) + "]"
            approx = conn.execute(_TOP.format(order="c.embedding <=> %s::vector"), (lit,)).fetchall()
            if i not in _EXACT:
                _EXACT[i] = conn.execute(_TOP.format(order="(c.embedding <=> %s::vector) + 0"), (lit,)).fetchall()
            exact = _EXACT[i]
            hits10.append(len({r[0] for r in approx[:10]} & {r[0] for r in exact[:10]}) / 10)
            hits50.append(len({r[0] for r in approx} & {r[0] for r in exact}) / 50)
            src10.append(len({r[1] for r in approx[:10]} & {r[1] for r in exact[:10]})
                         / max(1, len({r[1] for r in exact[:10]})))
    return {"recall@10": round(float(np.mean(hits10)), 3), "recall@50": round(float(np.mean(hits50)), 3),
            "source_recall@10": round(float(np.mean(src10)), 3)}


# a chunk's id, and its source (the original document and chunk it was copied from: copies are near-duplicates,
# so which copy the index returns matters less than whether it returns the right passage)
_TOP = ("select c.id, split_part(d.sha256, '-', 3) || ':' || c.chunk_index from chunks c "
        "join documents d on d.id = c.document_id order by {order} limit 50")


def set_ef(store, ef: int) -> None:
    """match_chunks carries its own ef_search (a SET clause): change it there, for this benchmark store."""
    with store.transport.connection() as conn:
        for sig in conn.execute("select p.oid::regprocedure::text from pg_proc p where p.proname in "
                                "('match_chunks', 'match_chunks_cosine')").fetchall():
            conn.execute(f"alter function {sig[0]} set hnsw.ef_search = {int(ef)}")


def latencies(store, settings, qs: list[str], embedder, before_fn: str | None = None) -> dict:
    """match_chunks and the whole pipeline on every question. The pipeline runs twice per question, interleaved:
    its searches at once (the default, candidates.parallel_searches) and one after another (before). With
    before_fn (an earlier migration's match_chunks, see old_function), that function is timed too, interleaved
    with the current one, as the app's role."""
    from rag.retrieve.pipeline import retrieve

    fn: list[float] = []
    old: list[float] = []
    role = store.transport.app_role
    with store.transport.connection() as conn:
        if before_fn:
            conn.execute(f"grant execute on function {before_fn} to {role}")
        for i, q in enumerate(qs):
            lit = "[" + ",".join(f"{x:.6f}" for x in embedder.encode_query(q)) + "]"
            pair = (("match_chunks", fn), (before_fn, old)) if before_fn else (("match_chunks", fn),)
            for name, into in pair if i % 2 == 0 else pair[::-1]:  # either may find the other's pages cached
                with conn.transaction():
                    conn.execute(f"set local role {role}")
                    t = time.perf_counter()
                    conn.execute(f"select * from {name}(%s::vector, %s, 10, 50)", (lit, q)).fetchall()
                    into.append((time.perf_counter() - t) * 1000)
    docs = store.list_documents()
    at_once = settings.retrieval
    in_turn = settings.retrieval.model_copy(deep=True)
    in_turn.candidates.parallel_searches = 1
    pipe: dict[str, list[float]] = {"at_once": [], "in_turn": []}
    for i, q in enumerate(qs):
        order = (("at_once", at_once), ("in_turn", in_turn))
        for key, cfg in order if i % 2 == 0 else order[::-1]:
            embedder._cache.clear()  # the pipeline embeds every question anew
            t = time.perf_counter()
            retrieve(store, embedder, q, cfg, documents=docs)
            pipe[key].append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    store.list_documents()
    row = {"hybrid_fn": _pct(fn), "pipeline": _pct(pipe["at_once"]),
           "pipeline_searches_in_turn": _pct(pipe["in_turn"]),
           "list_documents_ms": round((time.perf_counter() - t) * 1000)}
    if before_fn:
        row["hybrid_fn_before"] = _pct(old)
    return row


SQUASH_BASE = "2d958d9a94175eb75ab7ac14e8461bbbe5be2900"  # sql/ before issue 37 squashed its 89 migrations


def history_sql(name: str, commit: str = SQUASH_BASE) -> str:
    """An earlier migration's text, from git (`git show COMMIT:sql/NAME`): history belongs there."""
    import subprocess

    return subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:sql/{name}"], capture_output=True, text=True,
                          check=True).stdout


def old_function(store, migration: str, name: str = "match_chunks_before", fn: str = "match_chunks") -> str:
    """The function `fn` of an earlier migration (its file name before the squash, read from git), created beside the
    current one as `name`, so that both are timed in the same run on the same store."""
    import re

    text = history_sql(migration)
    body = text[text.index(f"create or replace function {fn}("):text.index("$$;") + 3]
    body = re.sub(rf"function {fn}\(", f"function {name}(", body, count=1)
    with store.transport.connection() as conn:
        conn.execute(body)
    return name


def time_old(store, qs: list[str], embedder, name: str, limit_s: int = 30) -> dict:
    """The old function on the first questions; a call stopped at `limit_s` counts as that long (a lower bound)."""
    import psycopg

    ms, stopped = [], 0
    with store.transport.connection() as conn:
        conn.execute(f"set statement_timeout = {limit_s * 1000}")
        for q in qs:
            lit = "[" + ",".join(f"{x:.6f}" for x in embedder.encode_query(q)) + "]"
            t = time.perf_counter()
            try:
                conn.execute(f"select * from {name}(%s::vector, %s, 10, 50)", (lit, q)).fetchall()
            except psycopg.errors.QueryCanceled:
                stopped += 1
            ms.append((time.perf_counter() - t) * 1000)
    return {**_pct(ms), "queries": len(qs), "stopped_at_limit": stopped, "limit_s": limit_s}


def time_as_app(store, qs: list[str], embedder, name: str) -> dict:
    """A function named `name` (an earlier migration's match_chunks, see old_function) as the app's role, under
    row-level security, on the same questions."""
    ms = []
    role = store.transport.app_role
    with store.transport.connection() as conn:
        conn.execute(f"grant execute on function {name} to {role}")
        for q in qs:
            lit = "[" + ",".join(f"{x:.6f}" for x in embedder.encode_query(q)) + "]"
            with conn.transaction():
                conn.execute(f"set local role {role}")
                t = time.perf_counter()
                conn.execute(f"select * from {name}(%s::vector, %s, 10, 50)", (lit, q)).fetchall()
                ms.append((time.perf_counter() - t) * 1000)
    return {**_pct(ms), "queries": len(qs), "role": role}


# terms that the pipeline's coverage check (terms_missing) is given: names and phrases the library holds, and
# some it does not (a missing term is the slow case: no chunk stops the search)
TERMS = [["XYLayoutLM"], ["DocVQA"], ["order backlog"], ["Scope 1"], ["data center"], ["gauge factor"],
         ["zqxwv"], ["quantum annealing"], ["Vonovia", "KION"], ["net income", "free cash flow"]]


def time_terms_missing(store, fns: list[str], rounds: int = 3) -> dict:
    """Each function (same signature as terms_missing) on the same term lists as the app's role, interleaved."""
    role = store.transport.app_role
    ms: dict[str, list[float]] = {f: [] for f in fns}
    same = True
    with store.transport.connection() as conn:
        for f in fns:
            conn.execute(f"grant execute on function {f}(text[], bigint[]) to {role}")
        for _ in range(rounds):
            for terms in TERMS:
                got = []
                for f in fns:
                    with conn.transaction():
                        conn.execute(f"set local role {role}")
                        t = time.perf_counter()
                        got.append(conn.execute(f"select * from {f}(%s, null)", (terms,)).fetchall())
                        ms[f].append((time.perf_counter() - t) * 1000)
                same = same and all(g == got[0] for g in got)
    return {"role": role, "calls_each": len(TERMS) * rounds, "same_results": same,
            **{f: {**_pct(v), "max_ms": round(max(v), 1)} for f, v in ms.items()}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=False)
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--data-dir", default="/tmp/rag-scale")
    ap.add_argument("--noise", type=float, default=0.45)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=64)
    ap.add_argument("--ef", default="40,100,200")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--recall-queries", type=int, default=20)
    ap.add_argument("--before-queries", type=int, default=10)
    ap.add_argument("--skip-build", action="store_true", help="keep the HNSW index already built")
    ap.add_argument("--before", default="056_fn_match_chunks_exact_small.sql",
                    help="the migration (before the squash, read from git) whose match_chunks is the baseline")
    ap.add_argument("--out", default=str(ROOT / "bench/results/scale.json"))
    args = ap.parse_args()
    from rag.embed import Embedder

    store, settings = open_at(args.data_dir)
    out: dict = {"args": vars(args)}
    with store.transport.connection() as conn:
        have = conn.execute("select count(*) from chunks").fetchone()[0]
        if not conn.execute("select 1 from pg_indexes where indexname = 'chunks_fts_gin'").fetchone():
            have = 0  # a fill that did not finish: start again
    if have < args.chunks * 0.95:
        docs, chunks, vecs = source_rows(args.source)
        print(f"filling {args.data_dir} with {args.chunks:,} chunks from {len(chunks):,} of {args.source}", flush=True)
        out["fill"] = fill(store, docs, chunks, vecs, args.chunks, args.noise)
        print(out["fill"], flush=True)
    if not args.skip_build:
        out["hnsw"] = build_hnsw(store, args.m, args.ef_construction)
        print(out["hnsw"], flush=True)
    earlier = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {}
    for key in ("fill", "hnsw"):  # a reused store: its fill and build as the run that made them measured
        if key not in out and key in earlier:
            out[key] = {**earlier[key], "measured_by_an_earlier_run": True}
    embedder = Embedder(settings.embedding).load()
    qs = questions(args.queries)
    qvecs = np.stack([embedder.encode_query(q) for q in qs[:args.recall_queries]])
    set_ef(store, 200)
    out["before"] = {"function": args.before, "ef_search": 200,
                     **time_old(store, qs[:args.before_queries], embedder, old_function(store, args.before))}
    print("before:", out["before"], flush=True)
    out["before_068"] = {"function": "063_fn_match_chunks_pool_by_id.sql", "ef_search": 200,
                         **time_as_app(store, qs[:args.before_queries], embedder,
                                       old_function(store, "063_fn_match_chunks_pool_by_id.sql",
                                                    "match_chunks_063"))}
    print("as the app's role, the full-text match on chunks.fts (063, before sql/068):", out["before_068"], flush=True)
    out["before_071"] = {"function": "068_fn_match_chunks_lexemes.sql", "ef_search": 200,
                         **time_as_app(store, qs[:args.before_queries * 3], embedder,
                                       old_function(store, "068_fn_match_chunks_lexemes.sql",
                                                    "match_chunks_068"))}
    print("as the app's role, the full-text match on chunk_lexemes (068, before sql/071):", out["before_071"],
          flush=True)
    out["terms_missing"] = time_terms_missing(store, [
        old_function(store, "069_fn_terms_missing_lexemes.sql", "terms_missing_069", "terms_missing"),
        "terms_missing"])
    print("terms_missing as the app's role, 069 (chunk_lexemes) against 072 (chunk_postings):",
          out["terms_missing"], flush=True)
    out["runs"] = []
    before_074 = old_function(store, "071_fn_match_chunks_postings.sql", "match_chunks_071")
    for ef in [int(x) for x in args.ef.split(",")]:
        set_ef(store, ef)
        with store.transport.connection() as conn:  # the earlier function at the same ef_search
            conn.execute(f"alter function {before_074}(vector, text, int, int, bigint[], text[], int, int, text[], "
                         f"text[], int, double precision, double precision) set hnsw.ef_search = {ef}")
        row = {"ef_search": ef, **recall(store, qvecs, ef),
               **latencies(store, settings, qs, embedder, before_fn=before_074)}
        out["runs"].append(row)
        print(row, flush=True)
    print(f"\n{'ef_search':>9} {'recall@10':>9} {'recall@50':>9} {'fn p50':>7} {'fn p95':>7} {'071 p50':>7} "
          f"{'071 p95':>7} {'pipe p50':>8} {'pipe p95':>8} {'in turn p50':>11} {'in turn p95':>11}")
    for r in out["runs"]:
        print(f"{r['ef_search']:>9} {r['recall@10']:>9} {r['recall@50']:>9} {r['hybrid_fn']['p50_ms']:>7} "
              f"{r['hybrid_fn']['p95_ms']:>7} {r['hybrid_fn_before']['p50_ms']:>7} "
              f"{r['hybrid_fn_before']['p95_ms']:>7} {r['pipeline']['p50_ms']:>8} {r['pipeline']['p95_ms']:>8} "
              f"{r['pipeline_searches_in_turn']['p50_ms']:>11} {r['pipeline_searches_in_turn']['p95_ms']:>11}")
    b = out["before"]
    print(f"before ({b['function']}, ef_search 200): function p50 {b['p50_ms']} ms, p95 {b['p95_ms']} ms")
    b = out["before_068"]
    print(f"before sql/068 ({b['function']} as {b['role']}, ef_search 200): function p50 {b['p50_ms']} ms, "
          f"p95 {b['p95_ms']} ms")
    b = out["before_071"]
    print(f"before sql/071 ({b['function']} as {b['role']}, ef_search 200): function p50 {b['p50_ms']} ms, "
          f"p95 {b['p95_ms']} ms")
    tm = out["terms_missing"]
    print("terms_missing as the app's role: " + ", ".join(
        f"{k} p50 {v['p50_ms']} / p95 {v['p95_ms']} ms" for k, v in tm.items() if isinstance(v, dict))
        + f"; same results: {tm['same_results']}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1, default=str))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
