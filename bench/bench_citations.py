"""Citations: is the quote of each citation found on its page, and does the crop shown hold it?

Input: the answers of `python -m rag ask --questions-file Q.jsonl` (one JSON answer per line, each with its
evidence: document id, pages, quote), and the store they were asked on (the PDFs come from it). For every
citation the quote is located with rag/crops.py (`locate`: its words, across line breaks, hyphenation and table
rows) and the crop `region_png` shows is checked to hold every box found. Baseline, in the same run: the crop as it
was before (a `search_for` of the quote's first 80 characters, first six words or first label words; the band or
table around the first hit), checked against the same boxes.

Usage: python bench/bench_citations.py ANSWERS.jsonl --data-dir STORE [--out bench/results/citations.json]"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _old_clip(page, quote: str):
    """The crop region before this change, reproduced for the baseline."""
    import pymupdf

    from rag.crops import table_around

    text = re.sub(r"\s+", " ", quote or "").strip()
    rects = []
    for probe in (text[:80], " ".join(text.split()[:6]), " ".join(text.split("|")[0].split()[:4])):
        if probe and len(probe) >= 8:
            rects = page.search_for(probe)
            if rects:
                break
    if not rects:
        return None
    r = rects[0]
    for x in rects[1:]:
        if abs(x.y0 - r.y1) < 40:
            r |= x
    table = table_around(page, r)
    if table is not None:
        box, room = table
        return (box + (-8, -8, 8, 8)) & room
    return pymupdf.Rect(page.rect.x0, max(page.rect.y0, r.y0 - 54), page.rect.x1, min(page.rect.y1, r.y1 + 72))


def measure(answers: list[dict], store) -> dict:
    import pymupdf

    from rag.crops import _crop, locate

    rows, pdfs = [], {}
    for a in answers:
        for e in a.get("evidence") or []:
            if not e.get("quote"):
                continue
            did = e["document_id"]
            if did not in pdfs:
                pdfs[did] = store.document_file(did)
            if not pdfs[did]:
                continue
            with pymupdf.open(stream=pdfs[did], filetype="pdf") as doc:
                loc = locate(doc, e["pages"], e["quote"])
                page = doc[loc.page - 1]
                clip, _ = _crop(page, loc, 18.0)
                old = _old_clip(doc[e["pages"][0] - 1], e["quote"]) if loc.page == e["pages"][0] else None
                holds = lambda c, boxes=loc.boxes: c is not None and all(
                    c.contains(b) or (b & c).get_area() >= 0.95 * b.get_area() for b in boxes)
                rows.append({"document": e["file_name"], "page": loc.page, "table": "|" in e["quote"],
                             "coverage": round(loc.coverage, 3), "found": loc.found,
                             "now_holds_quote": loc.found and holds(clip),
                             "before_holds_quote": loc.found and holds(old), "before_found": old is not None})
    return {"rows": rows, "summary": summary(rows)}


def summary(rows: list[dict]) -> dict:
    def agg(sel):
        found = [r for r in sel if r["found"]]
        n = len(sel) or 1
        return {"citations": len(sel), "quote_found": round(len(found) / n, 3),
                "mean_words_found": round(sum(r["coverage"] for r in sel) / n, 3),
                "crop_holds_quote_now": round(sum(r["now_holds_quote"] for r in found) / (len(found) or 1), 3),
                "crop_holds_quote_before": round(sum(r["before_holds_quote"] for r in found) / (len(found) or 1), 3)}
    return {"all": agg(rows), "table rows": agg([r for r in rows if r["table"]]),
            "prose": agg([r for r in rows if not r["table"]])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("answers", type=Path)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "citations.json")
    args = ap.parse_args()
    from rag.config import Settings
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = args.data_dir.resolve()
    store = open_store(s)
    answers = [json.loads(x) for x in args.answers.read_text().splitlines() if x.strip()]
    t0 = time.perf_counter()
    out = measure(answers, store)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"{'citations':12} {'n':>4} {'quote found':>12} {'words found':>12} {'crop holds (now)':>17} "
          f"{'crop holds (before)':>20}")
    for k, v in out["summary"].items():
        print(f"{k:12} {v['citations']:>4} {v['quote_found']:>12} {v['mean_words_found']:>12} "
              f"{v['crop_holds_quote_now']:>17} {v['crop_holds_quote_before']:>20}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
