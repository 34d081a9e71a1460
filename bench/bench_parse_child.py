"""Reading PDFs in a child process (rag/ingest/child.py): what it costs on a normal 10-K, and what it stops.

For each code tree (this one, and with --baseline a checkout of the code before the child process, e.g.
`git worktree add /tmp/base <commit>`), alternately, each run in a fresh process and a fresh embedded store:
`ingest_file` of a real 10-K, its seconds and the peak resident memory of the ingesting process. Then Form XObject
bombs (tests/fixtures/make_pdfs.make_xobject_bomb) of several depths with this tree's defaults, and with the
baseline under a hard timeout: outcome, seconds, peak memory (the child's, as the watchdog saw it, or the
in-process reader's). Prints a table and writes JSON; quote ratios, the machine is shared.

Usage: python bench/bench_parse_child.py [--baseline DIR] [--runs 2] [--pdf PATH] [--out FILE]
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
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
DEFAULT_PDF = SHARED / "corpus" / "financebench-dev" / "BESTBUY_2023_10K.pdf"

# Run in a fresh interpreter with the code tree first on sys.path: one ingest, then one JSON line.
_RUN = """
import json, os, sys, time, threading
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests/fixtures"]
def main():
    from pathlib import Path
    from rag.config import Settings
    from rag.embed import Embedder
    from rag.store import open_store
    from rag.ingest.pipeline import ingest_file
    s = Settings(); s.db.data_dir = Path(sys.argv[3])
    store = open_store(s); emb = Embedder(s.embedding); emb.load()
    peak = [0]
    def tree(pid):
        kids = [int(p) for p in os.popen(f"pgrep -P {pid}").read().split()]
        return [pid] + [d for k in kids for d in tree(k)]
    def watch():  # the largest of this process and its descendants (the reading child is the fork server's)
        while True:
            total = 0
            for pid in tree(os.getpid()):
                try:
                    total = max(total, int(next(l.split()[1] for l in open(f"/proc/{pid}/status")
                                                 if l.startswith("VmRSS"))))
                except Exception:
                    pass
            peak[0] = max(peak[0], total)
            time.sleep(0.05)
    threading.Thread(target=watch, daemon=True).start()
    try:  # a running app or worker has its fork server already: started here, timed apart
        from rag.ingest.child import warm_up
        start = round(warm_up(), 2)
    except ImportError:  # the code before the child process
        start = None
    t = time.perf_counter()
    r = ingest_file(Path(sys.argv[2]), store, emb, s)
    print(json.dumps({"seconds": round(time.perf_counter() - t, 2), "ok": r.ok, "error": r.error,
                      "chunks": r.chunks, "figures": r.figures, "peak_mb": round(peak[0] / 1024),
                      "fork_server_start_s": start}))
    store.close()
if __name__ == "__main__":
    main()
"""


def _run(code: Path, pdf: Path, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "run_one.py"
        script.write_text(_RUN)
        t = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, str(script), str(code), str(pdf), str(Path(tmp) / "store")],
                               capture_output=True, text=True, timeout=timeout,
                               env=dict(os.environ, XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp")))
        except subprocess.TimeoutExpired:
            subprocess.run(["pkill", "-f", str(script)], check=False)
            return {"seconds": round(time.perf_counter() - t, 1), "ok": False, "error": f"still running after "
                    f"{timeout:.0f} s (killed by the benchmark)", "peak_mb": None}
        lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {"ok": False, "error": p.stderr.strip().splitlines()[-1:],
                                                    "seconds": round(time.perf_counter() - t, 1), "peak_mb": None}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", type=Path, help="a checkout of the code before the child process")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    ap.add_argument("--bomb-timeout", type=float, default=90.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "parse_child.json")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    import make_pdfs

    trees = {"child process (now)": ROOT}
    if a.baseline:
        trees["in process (baseline)"] = a.baseline
    normal: dict[str, list[dict]] = {k: [] for k in trees}
    for _ in range(a.runs):  # alternate, so that a busy minute hurts both
        for name, code in trees.items():
            normal[name].append(_run(code, a.pdf, 1800))
    bombs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for depth in (16, 22, 30):
            bomb = make_pdfs.make_xobject_bomb(Path(tmp) / f"bomb{depth}.pdf", depth)
            for name, code in trees.items():
                if name.startswith("in process") and depth > 22:
                    continue  # the baseline's 22 already runs past the timeout
                r = _run(code, bomb, a.bomb_timeout)
                bombs[f"depth {depth} ({bomb.stat().st_size / 1024:.1f} KB), {name}"] = r
    out = {"pdf": a.pdf.name, "normal": normal, "bombs": bombs}
    print(f"{a.pdf.name}: ingest seconds (median of {a.runs}) and peak MB (the largest of the ingesting process and "
          "its descendants: the reading child, the fork server)")
    med = {}
    for name, runs in normal.items():
        med[name] = statistics.median(r["seconds"] for r in runs)
        starts = [r["fork_server_start_s"] for r in runs if r.get("fork_server_start_s") is not None]
        print(f"  {name:28} {med[name]:8.1f} s  peak {max((r['peak_mb'] or 0) for r in runs):6} MB  "
              f"ok={all(r['ok'] for r in runs)}  chunks {runs[0].get('chunks')} figures {runs[0].get('figures')}"
              + (f"  (fork server started once before: {statistics.median(starts):.1f} s)" if starts else ""))
    if len(med) == 2:
        ratio = med["child process (now)"] / med["in process (baseline)"]
        out["ratio_now_to_baseline"] = round(ratio, 3)
        print(f"  now / baseline: {ratio:.3f}")
    print("Form XObject bombs:")
    for name, r in bombs.items():
        print(f"  {name:58} {r['seconds']:7.1f} s  peak {r.get('peak_mb')} MB  "
              f"{'ingested' if r['ok'] else (r.get('error') or '')[:90]}")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=1))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
