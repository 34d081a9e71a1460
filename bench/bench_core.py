"""Core benchmark: ingestion throughput (10-K, paper, sustainability report) with peak memory, and search
latency p50/p95 over 100 queries on the financebench-dev shared store.

Baselines measured in the same run, so ratios survive a noisy machine:
- ingestion: the embedding step alone on the same chunk texts (the floor ingestion cannot beat);
- search: plain cosine top-5 (one SQL ORDER BY <=> LIMIT 5, the old system's retriever) with the same embedding.

Usage: python bench/bench_core.py [--store DIR] [--out bench/results/core.json] [--skip-ingest]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
DOCS = {
    "10-K (3M 2022, text)": SHARED / "corpus/financebench-dev/3M_2022_10K.pdf",
    "10-K (Boeing 2022, text)": SHARED / "corpus/financebench-dev/BOEING_2022_10K.pdf",
    "paper (S2ORC, ACL 2020)": SHARED / "corpus/papers/acl2020_s2orc.pdf",
    "sustainability report (KION 2023)": SHARED / "corpus/esg/kion_nonfinancial_report_2023.pdf",
}

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from rag.config import Settings
from rag.embed import Embedder
from rag.store import open_store
from rag.ingest.pipeline import ingest_file, parse_pdf
from rag.ingest.pdf import open_pdf
s = Settings(); s.db.data_dir = sys.argv[3]
store = open_store(s); emb = Embedder(s.embedding); emb.model
t = time.perf_counter(); res = ingest_file(sys.argv[2], store, emb, s); total = time.perf_counter() - t
doc = open_pdf(sys.argv[2]); chunks, figs, _, _ = parse_pdf(doc, s)
texts = [c.text for c in chunks]
t = time.perf_counter(); emb.encode(texts); embed_only = time.perf_counter() - t
print(json.dumps({"pages": res.pages, "chunks": res.chunks, "figures": res.figures, "ocr_pages": res.ocr_pages,
                  "seconds": total, "embed_only_s": embed_only, "error": res.error,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def bench_ingest() -> list[dict]:
    rows = []
    for name, path in DOCS.items():
        if not path.exists():
            print(f"skip {name}: {path} missing")
            continue
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path), d], capture_output=True,
                                 text=True, timeout=1800)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        r.update(name=name, pages_per_s=r["pages"] / r["seconds"], chunks_per_s=r["chunks"] / r["seconds"],
                 ratio_to_embed_only=r["seconds"] / r["embed_only_s"])
        rows.append(r)
    return rows


def queries() -> list[str]:
    """100 distinct questions: financebench_dev, their last sentences, dev.jsonl, then keyword forms."""
    qs = [json.loads(l)["question"] for l in (SHARED / "eval/financebench_dev.jsonl").read_text().splitlines() if l]
    dev = [json.loads(l)["question"] for l in (SHARED / "eval/dev.jsonl").read_text().splitlines() if l]
    short = [q.split(". ")[-1] if ". " in q else q for q in qs]
    kw = [" ".join(w for w in q.replace("?", "").split() if len(w) > 3)[:80] for q in qs]
    out, seen = [], set()
    for q in qs + short + dev + kw:
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out[:100]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def bench_search(store_dir: Path, skip_ingest: bool) -> dict:
    from rag.config import Settings
    from rag.embed import Embedder
    from rag.ingest.pipeline import ingest_file
    from rag.retrieve.search import hybrid_search
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = store_dir
    store = open_store(s)
    emb = Embedder(s.embedding)
    emb.load()
    if not skip_ingest:
        for p in sorted((SHARED / "corpus/financebench-dev").glob("*.pdf")):
            r = ingest_file(p, store, emb, s)
            print(("ok   " if r.ok else "ERR  ") + p.name, r.error or "", flush=True)
    docs = store.list_documents()
    qs = queries()
    hybrid, cosine = [], []
    for q in qs:
        emb._cache.clear()  # every query pays for its embedding
        t = time.perf_counter()
        hybrid_search(store, emb, q, k=5)
        hybrid.append((time.perf_counter() - t) * 1000)
        emb._cache.clear()
        t = time.perf_counter()
        vec = emb.encode_query(q)
        lit = "[" + ",".join(f"{x:.7g}" for x in vec) + "]"
        with store.transport.connection() as conn:
            conn.execute("select id from chunks order by embedding <=> %s::vector limit 5", (lit,)).fetchall()
        cosine.append((time.perf_counter() - t) * 1000)
    return {"documents": len(docs), "chunks": sum(d.chunks for d in docs), "queries": len(qs),
            "hybrid_p50_ms": statistics.median(hybrid), "hybrid_p95_ms": pct(hybrid, 95),
            "cosine_p50_ms": statistics.median(cosine), "cosine_p95_ms": pct(cosine, 95),
            "ratio_p50_hybrid_to_cosine": statistics.median(hybrid) / statistics.median(cosine)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=str(Path(tempfile.gettempdir()) / "rag-bench-fbdev"))
    ap.add_argument("--out", default=str(ROOT / "bench/results/core.json"))
    ap.add_argument("--skip-ingest", action="store_true", help="reuse an already filled --store")
    ap.add_argument("--only", choices=["ingest", "search"])
    a = ap.parse_args()
    result = {"machine": {"cpus": os.cpu_count()}, "when": time.strftime("%Y-%m-%d %H:%M:%S")}
    if a.only != "search":
        result["ingest"] = bench_ingest()
        print(f"\n{'document':36} {'pages':>5} {'chunks':>6} {'figs':>4} {'sec':>6} {'pages/s':>7} {'chunks/s':>8} "
              f"{'embed-only s':>12} {'ratio':>5} {'peak MB':>7}")
        for r in result["ingest"]:
            print(f"{r['name'][:36]:36} {r['pages']:>5} {r['chunks']:>6} {r['figures']:>4} {r['seconds']:>6.1f} "
                  f"{r['pages_per_s']:>7.2f} {r['chunks_per_s']:>8.2f} {r['embed_only_s']:>12.1f} "
                  f"{r['ratio_to_embed_only']:>5.2f} {r['peak_rss_mb']:>7.0f}")
    if a.only != "ingest":
        sr = bench_search(Path(a.store), a.skip_ingest)
        result["search"] = sr
        print(f"\nsearch over {sr['documents']} filings / {sr['chunks']} chunks, {sr['queries']} queries, incl. query embedding")
        print(f"{'retriever':28} {'p50 ms':>8} {'p95 ms':>8}")
        print(f"{'hybrid (match_chunks+figs)':28} {sr['hybrid_p50_ms']:>8.1f} {sr['hybrid_p95_ms']:>8.1f}")
        print(f"{'plain cosine top-5':28} {sr['cosine_p50_ms']:>8.1f} {sr['cosine_p95_ms']:>8.1f}")
        print(f"ratio p50 hybrid / cosine: {sr['ratio_p50_hybrid_to_cosine']:.2f}")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2))
    print(f"\nwrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
