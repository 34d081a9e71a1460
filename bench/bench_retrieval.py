"""Retrieval quality and latency: `rag eval` on ../shared/eval for both question sets, the plain cosine top-k
baseline in the same run, printed side by side with ratios and written as JSON.

Usage: python bench/bench_retrieval.py --fb-store DIR --dev-store DIR [--out bench/results/retrieval.json]
(the stores must hold ../shared/corpus/financebench-dev and papers + esg + financebench respectively:
`python -m rag --data-dir DIR ingest …`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))


def main() -> int:
    from rag.config import Settings
    from rag.embed import Embedder
    from rag.eval import run_eval
    from rag.store import open_store

    ap = argparse.ArgumentParser()
    ap.add_argument("--fb-store", required=True)
    ap.add_argument("--dev-store", required=True)
    ap.add_argument("--out", default=str(ROOT / "bench/results/retrieval.json"))
    ap.add_argument("--as-owner", action="store_true", help="also run the system as the owner (no row-level "
                    "security, the path before sql/041) in the same run, to compare quality and latency")
    a = ap.parse_args()
    emb = Embedder()
    out = {}
    for name, store_dir, qfile in (("financebench_dev", a.fb_store, "financebench_dev.jsonl"),
                                   ("dev", a.dev_store, "dev.jsonl")):
        s = Settings()
        s.db.data_dir = Path(store_dir)
        store = open_store(s)
        rep = run_eval(store, emb, SHARED / "eval" / qfile, k=5, baseline=True, cfg=s.retrieval)
        out[name] = {"system": rep["system"], "baseline": rep["baseline"]}
        if a.as_owner:
            role, store.transport.app_role = store.transport.app_role, None
            owner = run_eval(store, emb, SHARED / "eval" / qfile, k=5, baseline=False, cfg=s.retrieval)
            store.transport.app_role = role
            out[name]["system_as_owner"] = owner["system"]
            print(f"\n{name}: as {role or 'the login'} vs as the owner (same store, same run)")
            for key, v in rep["system"].items():
                print(f"  {key:24} {v!s:>10} {owner['system'].get(key)!s:>10}")
        print(f"\n{name} (k=5)")
        print(f"{'metric':24} {'system':>8} {'baseline':>9} {'ratio':>6}")
        for key, v in rep["system"].items():
            b = rep["baseline"].get(key)
            ratio = f"{v / b:.2f}" if isinstance(v, (int, float)) and isinstance(b, (int, float)) and b else ""
            fmt = lambda x: "—" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))
            print(f"{key:24} {fmt(v):>8} {fmt(b):>9} {ratio:>6}")
    Path(a.out).write_text(json.dumps(out, indent=2))
    print(f"\nwrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
