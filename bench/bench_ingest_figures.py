"""Reading time of the shared corpus with this checkout's figure finder against a baseline checkout's, in the same
run (issue 35: ingestion may grow by at most 25%). Each document is read whole (text, chunks, figures: parse_pdf,
embedding left out: it does not change) by each checkout in turn, in its own process, best of --repeats.

Usage: python bench/bench_ingest_figures.py --baseline DIR [--out FILE.json] [FOLDERS_OR_PDFS...]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
DEFAULT = [SHARED / "corpus" / d for d in ("esg", "papers", "financebench")]
CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import pymupdf
from rag.config import Settings
from rag.ingest.pipeline import parse_pdf
t0 = time.perf_counter()
with pymupdf.open(sys.argv[2]) as doc:
    chunks, figs, ocr, _ = parse_pdf(doc, Settings())
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "figures": len(figs), "charts": sum(f.figure_kind == "chart" for f in figs)}))
"""


def _run(code: Path, pdf: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(code), str(pdf)], capture_output=True, text=True,
                         timeout=900, env={**os.environ, "TQDM_DISABLE": "1"})
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--baseline", type=Path, required=True, help="a checkout of the code to compare with")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ingest_figures.json")
    a = ap.parse_args()
    pdfs = sorted(p for d in (a.paths or DEFAULT) for p in ([d] if d.is_file() else d.glob("*.pdf")) if p.stat().st_size)
    rows = []
    print(f"{'document':44} {'base s':>7} {'new s':>7} {'ratio':>6} {'figs':>9} {'charts':>9}")
    for pdf in pdfs:
        best: dict[str, dict] = {}
        for _ in range(a.repeats):
            for tag, code in (("base", a.baseline), ("new", ROOT)):
                r = _run(code.resolve(), pdf)
                if "error" not in r and (tag not in best or r["seconds"] < best[tag]["seconds"]):
                    best[tag] = r
        if len(best) < 2:
            continue
        b, n = best["base"], best["new"]
        rows.append({"document": pdf.name, "base": b, "new": n, "ratio": round(n["seconds"] / b["seconds"], 3)})
        print(f"{pdf.name[:44]:44} {b['seconds']:7.1f} {n['seconds']:7.1f} {rows[-1]['ratio']:6.2f} "
              f"{b['figures']:>4}→{n['figures']:<4} {b['charts']:>4}→{n['charts']:<4}")
    tb, tn = sum(r["base"]["seconds"] for r in rows), sum(r["new"]["seconds"] for r in rows)
    print(f"{'total':44} {tb:7.1f} {tn:7.1f} {tn / tb:6.2f}")
    a.out.write_text(json.dumps({"documents": len(rows), "base_seconds": round(tb, 1), "new_seconds": round(tn, 1),
                                 "ratio": round(tn / tb, 3), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
