"""Ingestion throughput of one text 10-K, end to end (open → parse → embed → one ingest_document() call), for the
old path and the new one in the same run, each in a fresh process on a fresh embedded store.

Paths: old = torch fp32 embedding, stages one after the other; torch fp32 with the figure pass overlapped with
embedding; int8 ONNX, overlapped; new = the default: torch in bf16 where the CPU multiplies bf16 natively (fp32
elsewhere; the precision used is reported), overlapped. Reported: pages/s, seconds, chunks,
peak RSS; ratios against the old path.

Usage: python bench/bench_ingest.py [FILE ...] [--repeats 1] [--out bench/results/ingest.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
DEFAULT = [SHARED / "corpus/financebench-dev/3M_2022_10K.pdf", SHARED / "corpus/financebench-dev/BOEING_2021_10K.pdf"]
PATHS = {
    "old (torch fp32, in turn)": {"RAG_EMBEDDING__BACKEND": "torch", "RAG_EMBEDDING__PRECISION": "fp32",
                                  "RAG_INGEST__OVERLAP": "false"},
    "torch fp32, overlapped": {"RAG_EMBEDDING__BACKEND": "torch", "RAG_EMBEDDING__PRECISION": "fp32",
                               "RAG_INGEST__OVERLAP": "true"},
    "int8 ONNX, overlapped": {"RAG_EMBEDDING__BACKEND": "onnx-int8", "RAG_INGEST__OVERLAP": "true"},
    "new (default: torch auto, overlapped)": {"RAG_EMBEDDING__BACKEND": "torch", "RAG_EMBEDDING__PRECISION": "auto",
                                              "RAG_INGEST__OVERLAP": "true"},
}

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from rag.config import settings_from_env
from rag.embed import Embedder
from rag.store import open_store
from rag.ingest.pipeline import ingest_file
s = settings_from_env(); s.db.data_dir = sys.argv[3]
store = open_store(s); emb = Embedder(s.embedding).load()
t = time.perf_counter(); res = ingest_file(sys.argv[2], store, emb, s); total = time.perf_counter() - t
print(json.dumps({"precision": emb.label, "pages": res.pages, "chunks": res.chunks, "figures": res.figures,
                  "seconds": round(total, 2), "error": res.error,
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def cpu_name() -> str:
    """The CPU model and its bf16 / int8 matrix features, so that results from different machines are told apart."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    name = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")), "unknown")
    flags = next((set(ln.split(":", 1)[1].split()) for ln in info.splitlines() if ln.startswith("flags")), set())
    return " ".join([name, *sorted(flags & {"avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8"})])


def run(path: Path, env: dict) -> dict:
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path), d], capture_output=True, text=True,
                             env={**os.environ, **env}, timeout=1800)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"{path.name}: {out.stderr[-500:]}")
    return json.loads(lines[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "bench/results/ingest.json"))
    args = ap.parse_args()
    files = [f for f in (args.files or DEFAULT) if f.exists()]
    rows = []
    for f in files:
        runs: dict[str, list[dict]] = {name: [] for name in PATHS}
        for _ in range(args.repeats):  # interleaved: load on the machine falls on every path alike
            for name, env in PATHS.items():
                runs[name].append(run(f, env))
        old = statistics.median(r["seconds"] for r in runs[next(iter(PATHS))])
        for name, rs in runs.items():
            sec = statistics.median(r["seconds"] for r in rs)
            rows.append({"file": f.name, "path": name, "embedding": rs[0]["precision"], "pages": rs[0]["pages"],
                         "chunks": rs[0]["chunks"],
                         "seconds": sec, "pages_per_s": round(rs[0]["pages"] / sec, 1),
                         "speedup": round(old / sec, 2), "peak_rss_mb": max(r["peak_rss_mb"] for r in rs),
                         "error": rs[0]["error"]})
    print(f"{'file':<22} {'path':<38} {'embedding':<11} {'pages':>5} {'chunks':>6} {'s':>6} {'pages/s':>7} "
          f"{'x old':>6} {'RSS MB':>6}")
    for r in rows:
        print(f"{r['file']:<22} {r['path']:<38} {r['embedding']:<11} {r['pages']:>5} {r['chunks']:>6} "
              f"{r['seconds']:>6.1f} {r['pages_per_s']:>7} {r['speedup']:>6} {r['peak_rss_mb']:>6}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"cores": os.cpu_count(), "cpu": cpu_name(), "repeats": args.repeats,
                                          "rows": rows}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
