"""Figure kinds measured against labels (tests/fixtures/figure_labels.tsv): each labelled region is read exactly as
ingestion reads it — its page's text rows and drawings, the crop at the ingestion resolution, OCR for an image
without a text layer — and classified (rag/ingest/figkind.py). Used by bench/bench_figure_kinds.py and the corpus
tests."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

LABELS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "figure_labels.tsv"
SHOWABLE = {"chart", "diagram", "map"}


def read_labels(path: Path = LABELS) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader((ln for ln in f if not ln.startswith("#")), delimiter="\t"))


def classify_labelled(labels: list[dict], corpus: Path) -> list[dict]:
    """Each label with the classifier's kind and chart type, read from the real PDF."""
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures as figmod
    from rag.ingest.pdf import render
    from rag.ingest.refigure import classify_region, page_rows

    settings = Settings()
    out, docs, rows_of = [], {}, {}
    for lab in labels:
        doc = docs.setdefault(lab["path"], pymupdf.open(corpus / lab["path"]))
        page = doc.load_page(int(lab["page"]) - 1)
        key = (lab["path"], lab["page"])
        if key not in rows_of:
            rows_of[key] = page_rows(page)
        rect = pymupdf.Rect(*(float(lab[k]) for k in ("x0", "y0", "x1", "y1")))
        clip = figmod.crop_of(page, rect)
        png = render(page, figmod.crop_zoom(clip, settings.ingest), clip=clip).tobytes("png")
        caption, _ = figmod._caption_for(rect, rows_of[key])
        k = classify_region(page, rect, lab["source"], png, caption, rows_of[key], settings)
        out.append({**lab, "pred": k.kind, "pred_chart_type": k.chart_type or "", "why": "; ".join(k.why)})
    return out


def summary(rows: list[dict]) -> dict:
    kinds = sorted({r["kind"] for r in rows} | {r["pred"] for r in rows})
    per = {}
    for k in kinds:
        truth = [r for r in rows if r["kind"] == k]
        said = [r for r in rows if r["pred"] == k]
        per[k] = {"labelled": len(truth), "recall": round(sum(r["pred"] == k for r in truth) / len(truth), 3)
                  if truth else None,
                  "precision": round(sum(r["kind"] == k for r in said) / len(said), 3) if said else None}
    charts = [r for r in rows if r["kind"] == "chart" and r["pred"] == "chart"]
    wrong_shown = [r for r in rows if r["pred"] in SHOWABLE and r["kind"] not in SHOWABLE]
    return {
        "figures": len(rows), "accuracy": round(sum(r["kind"] == r["pred"] for r in rows) / len(rows), 3),
        "per_kind": per,
        "chart_type_accuracy": round(sum(r["chart_type"] == r["pred_chart_type"] for r in charts) / len(charts), 3)
        if charts else None,
        "never_shown_kinds_classified_showable": len(wrong_shown),
        "never_shown_kinds_labelled": sum(r["kind"] not in SHOWABLE for r in rows),
        "wrongly_showable": Counter(r["kind"] for r in wrong_shown),
        "charts_hidden": sum(r["kind"] == "chart" and r["pred"] not in SHOWABLE for r in rows),
        "confusion": {f"{a} → {b}": n for (a, b), n in
                      Counter((r["kind"], r["pred"]) for r in rows if r["kind"] != r["pred"]).most_common()},
    }
