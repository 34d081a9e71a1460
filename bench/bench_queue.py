"""Background ingestion, measured: worker processes drain a queue of real filings on a fresh embedded store.

Two workers (`python -m rag worker`, one core each) drain the queue; with --kill, worker 1 is killed with SIGKILL
once a third of the pages are done and a replacement starts at once (what a supervisor does), so two workers keep
running. At the end it checks that nothing was lost or doubled: every job done, one document per file, the
stored chunks equal to the sum of the jobs' chunks, and the killed job retried. Baseline in the same run: the
old path (`rag ingest`, torch fp32, stages in turn, one process) on the first --baseline files.

Usage: python bench/bench_queue.py [--files 20] [--kill] [--baseline 3] [--out bench/results/queue.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import bench_ingest  # noqa: E402  (its cpu_name)

SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
FOLDER = SHARED / "corpus/financebench-dev"


def filings(n: int) -> list[Path]:
    """n filings of the six companies, round robin over companies and years (10-Ks, 10-Qs, 8-Ks, releases)."""
    files = sorted(FOLDER.glob("*.pdf"))
    by: dict[str, list[Path]] = {}
    for f in files:
        by.setdefault(f.name.split("_")[0], []).append(f)
    out: list[Path] = []
    while len(out) < min(n, len(files)):
        for group in by.values():
            if group and len(out) < n:
                out.append(group.pop())
    return out


def _worker(data: Path, name: str, env: dict) -> subprocess.Popen:
    log = open(data.parent / f"{name}.log", "w")
    return subprocess.Popen([sys.executable, "-m", "rag", "--data-dir", str(data), "worker"], cwd=ROOT,
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _pages(files: list[Path]) -> int:
    import pymupdf

    return sum(pymupdf.open(f).page_count for f in files)


def drain(files: list[Path], kill: bool, workers: int) -> dict:
    from rag import jobs
    from rag.config import Settings
    from rag.store import open_store

    tmp = Path(tempfile.mkdtemp(prefix="bench-queue-"))
    s = Settings()
    s.db.data_dir = tmp / "store"
    store = open_store(s)
    for f in files:  # every file, copies too: a copy queued again is the same job
        jobs.enqueue(store, f.read_bytes(), f.name, s)
    distinct = list({hashlib.sha256(f.read_bytes()).hexdigest(): f for f in files}.values())
    total_pages = _pages(distinct)
    threads = max(1, (os.cpu_count() or 1) // workers)  # each worker its share of the cores
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAG_EMBEDDING__THREADS": str(threads),
           "RAG_JOBS__HEARTBEAT_S": "2", "RAG_JOBS__STALLED_AFTER_S": "10"}  # embedding: the default settings
    t0 = time.perf_counter()
    procs = [_worker(s.db.data_dir, f"w{i + 1}", env) for i in range(workers)]
    killed_at = None
    while True:
        rows = jobs.list_jobs(store, 1000)
        ended = [r for r in rows if r["status"] in ("done", "failed")]
        pages_done = sum((r["summary"] or {}).get("pages", 0) for r in ended)
        if kill and killed_at is None and pages_done >= total_pages / 3:
            running = [r for r in rows if r["status"] == "running" and r["done"] > 0]
            if running:
                os.killpg(procs[0].pid, signal.SIGKILL)
                killed_at = {"seconds": round(time.perf_counter() - t0, 1), "jobs_running": len(running)}
                procs[0].wait()
                procs[0] = _worker(s.db.data_dir, "w1-replacement", env)
        if len(ended) == len(distinct):
            break
        time.sleep(1)
    seconds = time.perf_counter() - t0
    for p in procs:
        os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        p.wait(timeout=120)
    rows = jobs.list_jobs(store, 1000)
    with store.transport.connection() as conn:
        stored_chunks = conn.execute("select count(*) from chunks").fetchone()[0]
        docs = conn.execute("select count(*), count(distinct sha256) from documents").fetchone()
        labels = ", ".join(r[0] or "?" for r in conn.execute(  # as each worker recorded it on its documents
            "select distinct meta->>'embedding_backend' from documents order by 1"))
    out = {"files": len(files), "distinct_files": len(distinct), "pages": total_pages, "workers": workers,
           "threads_each": threads, "embedding": labels, "seconds": round(seconds, 1),
           "pages_per_s": round(total_pages / seconds, 1), "killed": killed_at,
           "done": sum(r["status"] == "done" for r in rows), "failed": [r["error"] for r in rows if r["error"]],
           "retried": sum(r["attempts"] > 1 for r in rows), "documents": docs[0], "distinct_sha256": docs[1],
           "stored_chunks": stored_chunks,
           "jobs_chunks": sum((r["summary"] or {}).get("chunks", 0) for r in rows)}
    store.close()
    return out


def baseline(files: list[Path]) -> dict:
    """The old path on the same kind of files: one `rag ingest` process, torch fp32, stages in turn."""
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RAG_EMBEDDING__BACKEND": "torch",
               "RAG_EMBEDDING__PRECISION": "fp32", "RAG_INGEST__OVERLAP": "false"}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rag", "--data-dir", d, "ingest", *map(str, files)], cwd=ROOT, env=env,
                       capture_output=True, check=True)
        seconds = time.perf_counter() - t0
    pages = _pages(files)
    return {"files": len(files), "pages": pages, "seconds": round(seconds, 1), "pages_per_s": round(pages / seconds, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kill", action="store_true")
    ap.add_argument("--baseline", type=int, default=3, help="files for the old path's rate (0: none)")
    ap.add_argument("--out", default=str(ROOT / "bench/results/queue.json"))
    args = ap.parse_args()
    files = filings(args.files)
    new = drain(files, args.kill, args.workers)
    old = baseline(files[: args.baseline]) if args.baseline else None
    print(f"{'path':<34} {'files':>5} {'pages':>6} {'seconds':>8} {'pages/s':>8}")
    if old:
        print(f"{'old: rag ingest (fp32, in turn)':<34} {old['files']:>5} {old['pages']:>6} {old['seconds']:>8} "
              f"{old['pages_per_s']:>8}")
    print(f"{f'new: {args.workers} workers, queue':<34} {new['files']:>5} {new['pages']:>6} {new['seconds']:>8} "
          f"{new['pages_per_s']:>8}")
    if old:
        print(f"ratio (pages/s): {new['pages_per_s'] / old['pages_per_s']:.2f}x")
    print(f"100 FinanceBench filings (18,001 pages) at this rate: {18001 / new['pages_per_s'] / 60:.1f} min")
    print(f"embedding: {new['embedding']}, {new['threads_each']} thread(s) per worker; {bench_ingest.cpu_name()}")
    print(f"{new['files']} files queued, {new['distinct_files']} distinct (a byte-identical copy is one job)")
    print(f"killed: {new['killed']}; done {new['done']}/{new['distinct_files']}, retried {new['retried']}, documents "
          f"{new['documents']} ({new['distinct_sha256']} distinct), chunks stored {new['stored_chunks']} = "
          f"jobs' {new['jobs_chunks']}, failures {new['failed']}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"new": new, "old": old, "cpu": bench_ingest.cpu_name(), "args": vars(args)},
                                         indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
