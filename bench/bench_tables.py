"""What reading the tables costs and gives: the text pass of ingestion (`read_text`: layout, and the grid of tables the
layout broke apart) over the papers and sustainability reports, with the grid reader off (the old path) and on, in
the same run; then the tables and facts read from the chunks of each.

Reported per path: seconds, pages, pages searched for a grid, pages whose rows the grid replaced, tables, facts;
ratios against the old path.

Usage: python bench/bench_tables.py [FILE ...] [--out bench/results/tables.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))

import pymupdf  # noqa: E402

from rag.config import Settings  # noqa: E402
from rag.ingest import facts as factmod  # noqa: E402
from rag.ingest import gridless, pipeline  # noqa: E402


def run(files: list[Path], grid: bool) -> dict:
    s = Settings()
    s.ingest.ocr = False
    s.ingest.grid_tables = grid
    searched = replaced = pages = tables = facts = 0
    inner = gridless.with_grid_tables

    def counted(page, rows, page_no):
        nonlocal searched, replaced
        out = inner(page, rows, page_no)
        searched += len(gridless.orphan_rows(rows)) >= gridless.ORPHANS
        replaced += out is not rows and [r.text for r in out] != [r.text for r in rows]
        return out

    pipeline.gridless.with_grid_tables = counted
    t0 = time.perf_counter()
    try:
        for f in files:
            with pymupdf.open(f) as doc:
                pages += doc.page_count
                read = pipeline.read_text(doc, s)
                chunks = pipeline._chunk_pages(read, s)
            got = factmod.read_tables(factmod.lines_of_units(chunks), factmod.DocContext())
            tables += len(got)
            facts += sum(len(factmod.facts_of_table(t)) for t in got)
    finally:
        pipeline.gridless.with_grid_tables = inner
    return {"seconds": round(time.perf_counter() - t0, 1), "pages": pages, "pages_searched": searched,
            "pages_replaced": replaced, "tables": tables, "facts": facts}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/tables.json")
    a = ap.parse_args()
    files = a.files or sorted((SHARED / "corpus/papers").glob("*.pdf")) + sorted((SHARED / "corpus/esg").glob("*.pdf"))
    if not files:
        print(f"no PDFs: put the corpus at {SHARED}/corpus or pass files", file=sys.stderr)
        return 1
    old, new = run(files, grid=False), run(files, grid=True)
    print(f"{'path':24} {'s':>7} {'pages':>6} {'searched':>9} {'replaced':>9} {'tables':>7} {'facts':>7}")
    for name, r in (("old (layout cells only)", old), ("new (grid where broken)", new)):
        print(f"{name:24} {r['seconds']:>7} {r['pages']:>6} {r['pages_searched']:>9} {r['pages_replaced']:>9} "
              f"{r['tables']:>7} {r['facts']:>7}")
    ratios = {"time": round(new["seconds"] / old["seconds"], 2), "facts": round(new["facts"] / old["facts"], 3),
              "tables": round(new["tables"] / old["tables"], 3)}
    print("new / old:", ratios)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"files": [f.name for f in files], "old": old, "new": new, "ratios": ratios,
                                 "note": "read_text + table reading only (no OCR, no embedding), one process, "
                                         "both paths in the same run"}, indent=1))
    print(f"written {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
