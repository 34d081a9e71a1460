"""The chart an analyst asks for, at the answer (issue 35): the 40 chart questions of bench/questions/figures35
(written by the helpers who labelled the figures, each naming the labelled figure to show), asked of a store, and
the figures the answer shows judged against the labelled figure itself, not only its page:
- shown: the asked-for chart is among the figures shown (a shown figure on its page whose region overlaps its
  labelled graphic by at least 30%), or one of the figures the label also accepts;
- precision: of the figures shown for chart questions, the share that is the asked-for chart;
- figures per question that asks for none: the figures shown for the questions of a labelled set that ask for no
  chart (by default every third fact or narrative question of bench/questions/broad_reports.jsonl).
The tuning and the held-back part are reported apart. --code DIR runs another checkout's answer code.

A question whose labelled figure is a table or a logo (a set of filings without charts) is reported apart: the app
shows a table as its citation's crop, never as a figure. Questions asking for no chart are taken only about the
store's documents.

Usage: python bench/bench_chart_questions.py --data-dir STORE [--set DIR] [--code DIR] [--out FILE.json]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "bench" / "questions" / "figures35"
OTHERS = ROOT / "bench" / "questions" / "broad_reports.jsonl"


def _load(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def _regions(store, doc_id: int, cache: dict) -> dict[int, list[float]]:
    if doc_id not in cache:
        cache[doc_id] = {r["id"]: r["bbox"] for r in store.admin_rpc("figures_of_document", {"p_document_id": doc_id})}
    return cache[doc_id]


def _is(fig, lab: dict, doc_ids: dict[str, int], regions: dict[int, list[float]]) -> bool:
    import pymupdf

    if doc_ids.get(Path(lab["doc"]).stem) != fig.document_id or fig.page != lab["page"]:
        return False
    bbox = regions.get(fig.figure_id)
    if bbox is None:
        return False
    g, r = pymupdf.Rect(lab["graphic"]), pymupdf.Rect(bbox)
    return r.intersects(g) and (r & g).get_area() >= 0.3 * g.get_area()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--code", type=Path, default=ROOT)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--others", type=Path, default=OTHERS, help="questions asking for no chart (every third)")
    ap.add_argument("--set", type=Path, default=SET, help="the labelled set (figures.jsonl, questions.jsonl)")
    a = ap.parse_args()
    sys.path.insert(0, str(a.code.resolve()))
    from rag.assistant import answer as answer_fn
    from rag.config import settings_from_env
    from rag.embed import Embedder
    from rag.store import open_store

    settings = settings_from_env()
    settings.db.data_dir = a.data_dir
    settings.llm.base_url = None
    store = open_store(settings, migrate=None)
    emb = Embedder(settings.embedding)
    emb.load()
    docs = store.list_documents()
    doc_ids = {Path(d.file_name).stem: d.document_id for d in docs}
    figs = {f["id"]: f for f in _load(a.set / "figures.jsonl")}
    questions = _load(a.set / "questions.jsonl")
    others = [q for q in _load(a.others) if q.get("kind") in ("fact", "narrative") and not q.get("figure")
              and q.get("docs") and all(d in doc_ids for d in q["docs"])][::3]
    cache: dict = {}
    rows = []
    for q in questions:
        ans = answer_fn(store, emb, q["question"], settings, documents=docs)
        accept = [figs[i] for i in [q["figure"], *q.get("also_acceptable", [])] if i in figs]
        right = [f for f in ans.figures if any(_is(f, lab, doc_ids, _regions(store, f.document_id, cache))
                                               for lab in accept)]
        on_page = [f for f in ans.figures if any(doc_ids.get(Path(lab["doc"]).stem) == f.document_id
                                                 and f.page == lab["page"] for lab in accept)]
        rows.append({"id": q["id"], "split": q["split"], "shown": len(ans.figures), "hit": bool(right),
                     "asks_for": figs[q["figure"]]["kind"],
                     "right": len(right), "page_hit": bool(on_page), "figures": [(f.page, f.kind, f.chart_type)
                                                                                   for f in ans.figures]})
    for q in others:
        ans = answer_fn(store, emb, q["question"], settings, documents=docs)
        rows.append({"id": q["id"], "split": q.get("split", "tune"), "shown": len(ans.figures), "other": True})
    out = {}
    for part in ("tune", "held"):
        cq = [r for r in rows if r["split"] == part and not r.get("other")
              and r["asks_for"] not in ("table", "logo")]
        tq = [r for r in rows if r["split"] == part and r.get("asks_for") in ("table", "logo")]
        oq = [r for r in rows if r["split"] == part and r.get("other")]
        shown = sum(r["shown"] for r in cq)
        out[part] = {"chart_questions": len(cq), "shown": round(sum(r["hit"] for r in cq) / max(1, len(cq)), 3),
                     "page_shown": round(sum(r["page_hit"] for r in cq) / max(1, len(cq)), 3),
                     "precision": round(sum(r["right"] for r in cq) / shown, 3) if shown else None,
                     "other_questions": len(oq),
                     "figures_per_other": round(sum(r["shown"] for r in oq) / max(1, len(oq)), 2),
                     "table_or_logo_questions": len(tq),
                     "figures_per_table_question": round(sum(r["shown"] for r in tq) / max(1, len(tq)), 2)}
    print(f"{'':22} {'tune':>8} {'held':>8}")
    for k in out["tune"]:
        print(f"{k:22} {str(out['tune'][k]):>8} {str(out['held'][k]):>8}")
    if a.out:
        a.out.write_text(json.dumps({"store": str(a.data_dir), "code": str(a.code), "summary": out, "rows": rows},
                                    indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
