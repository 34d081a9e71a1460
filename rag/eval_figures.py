"""Figure kinds measured against labels (tests/fixtures/figure_labels.tsv): each labelled region is read exactly as
ingestion reads it — its page's text rows and drawings, the crop at the ingestion resolution, OCR for an image
without a text layer — and classified (rag/ingest/figkind.py). Used by bench/bench_figure_kinds.py and the corpus
tests."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

LABELS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "figure_labels.tsv"
SHOWABLE = {"chart", "diagram", "map"}


class FigureLabel(TypedDict):
    """A row of figure_labels.tsv, as text: the figure's file, page and region, how ingestion found it (vector or
    raster), its kind and chart type, how its crop was judged and whether it is legible."""
    path: str
    page: str
    x0: str
    y0: str
    x1: str
    y1: str
    source: str
    kind: str
    chart_type: str
    crop: str
    legible: str
    notes: str


class Classified(FigureLabel, total=False):
    """A label with the classifier's kind, chart type and reasons."""
    pred: str
    pred_chart_type: str
    why: str


class CropRow(TypedDict):
    """A labelled figure's crop before (region plus margin) and now: lines sliced, other figures taken in, box."""
    path: str
    page: str
    kind: str
    label_crop: str
    before_sliced: int
    now_sliced: int
    before_foreign: int
    now_foreign: int
    before_box: list[float]
    now_box: list[float]


class HeldoutRow(TypedDict, total=False):
    """A held-out label matched to the figure ingestion extracts (or a figure no label names: kind "(no figure)"),
    with the kind found and the crop's scores now and before."""
    path: str
    page: str
    kind: str
    chart_type: str
    notes: str
    found: bool
    pred: str | None
    pred_chart_type: str
    now: dict[str, Any]
    before: dict[str, Any]


def read_labels(path: Path = LABELS) -> list[FigureLabel]:
    with open(path) as f:
        return list(csv.DictReader((ln for ln in f if not ln.startswith("#")), delimiter="\t"))


def classify_labelled(labels: list[FigureLabel], corpus: Path) -> list[Classified]:
    """Each label with the classifier's kind and chart type, read from the real PDF."""
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures as figmod
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
        png = figmod.region_pixmap(page, rect, lab["source"], settings.ingest).tobytes("png")
        caption, _ = figmod.caption_for(rect, rows_of[key])
        k = classify_region(page, rect, lab["source"], png, caption, rows_of[key], settings)
        out.append({**lab, "pred": k.kind, "pred_chart_type": k.chart_type or "", "why": "; ".join(k.why)})
    return out


def summary(rows: list[Classified]) -> dict:
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


def _sliced(crop, lines) -> int:
    """Text lines the crop cuts through: partly inside, partly outside."""
    n = 0
    for ln in lines:
        area = ln.rect.get_area()
        inside = (ln.rect & crop).get_area() if area > 0 and ln.rect.intersects(crop) else 0.0
        n += 0.05 * area < inside < 0.95 * area
    return n


def crop_quality(labels: list[FigureLabel], corpus: Path) -> list[CropRow]:
    """Each labelled figure's crop now (rag/ingest/crop.py) and as before (the region with a 6-pt margin): the
    lines of text it slices, whether it takes part of another figure of the page, its area."""
    import pymupdf

    from rag.ingest import crop as cropmod
    from rag.ingest import figures as figmod

    pages: dict[tuple[str, str], list[FigureLabel]] = {}
    for lab in labels:
        pages.setdefault((lab["path"], lab["page"]), []).append(lab)
    out, docs = [], {}
    for (path, pg), labs in pages.items():
        page = docs.setdefault(path, pymupdf.open(corpus / path)).load_page(int(pg) - 1)
        lines, drawings = cropmod.text_lines(page), figmod.page_drawings(page)
        rects = [pymupdf.Rect(*(float(lab[k]) for k in ("x0", "y0", "x1", "y1"))) for lab in labs]
        for lab, rect in zip(labs, rects):
            others = [o for o in rects if o != rect and not o.intersects(rect)]
            crops = {"before": figmod.crop_of(page, rect),
                     "now": cropmod.display_crop(page, rect, lab["source"] == "raster", lines, drawings, others)}
            row = {"path": path, "page": pg, "kind": lab["kind"], "label_crop": lab["crop"]}
            for tag, c in crops.items():
                row[f"{tag}_sliced"] = _sliced(c, lines)
                row[f"{tag}_foreign"] = sum((o & c).get_area() > 0.02 * o.get_area() for o in others)
                row[f"{tag}_box"] = [round(v, 1) for v in c]
            out.append(row)
    return out


def crop_summary(rows: list[CropRow]) -> dict:
    def agg(sel: list[CropRow], tag: str) -> dict:
        return {"figures": len(sel), "crops_slicing_text": sum(r[f"{tag}_sliced"] > 0 for r in sel),
                "lines_sliced": sum(r[f"{tag}_sliced"] for r in sel),
                "crops_with_part_of_another_figure": sum(r[f"{tag}_foreign"] > 0 for r in sel)}
    shown = [r for r in rows if r["kind"] in SHOWABLE]
    return {"all": {t: agg(rows, t) for t in ("before", "now")},
            "chart_diagram_map": {t: agg(shown, t) for t in ("before", "now")}}


def _iou(a, b) -> float:
    inter = (a & b).get_area() if a.intersects(b) else 0.0
    union = a.get_area() + b.get_area() - inter
    return inter / union if union > 0 else 0.0


def _crop_scores(crop, ideal, graphic) -> dict:
    """A crop against the ideal one: overlap, whether it holds the whole graphic and the whole ideal crop, and the
    share of it that lies outside the ideal crop (prose, neighbours, page)."""
    inter = (crop & ideal).get_area() if crop.intersects(ideal) else 0.0
    return {"iou": round(_iou(crop, ideal), 3),
            "holds_graphic": (crop & graphic).get_area() >= 0.97 * graphic.get_area(),
            "holds_ideal": inter >= 0.95 * ideal.get_area(),
            "outside_share": round(1 - inter / crop.get_area(), 3) if crop.get_area() else 1.0}


def heldout_figures(labels_path: Path, docs_dir: Path) -> list[HeldoutRow]:
    """Figures of documents the rules were not written on (labels made by construction: each figure's graphic and
    its ideal crop, its kind): each label matched to the figure ingestion extracts on its page (the graphic that
    overlaps most), with the kind found and the crop now and before (the region with a 6-pt margin)."""
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures as figmod
    from rag.ingest.pipeline import parse_pdf

    with open(labels_path) as f:
        labels = list(csv.DictReader((ln for ln in f if not ln.startswith("#")), delimiter="\t"))
    settings, out = Settings(), []
    for path in sorted({lab["path"] for lab in labels}):
        with pymupdf.open(docs_dir / path) as doc:
            _, figs, _, _ = parse_pdf(doc, settings)
            used: set[int] = set()
            for lab in (lab for lab in labels if lab["path"] == path):
                ideal = pymupdf.Rect(*(float(lab[k]) for k in ("x0", "y0", "x1", "y1")))
                graphic = pymupdf.Rect(*(float(lab[k]) for k in ("gx0", "gy0", "gx1", "gy1")))
                cands = [(i, f) for i, f in enumerate(figs) if f.page == int(lab["page"]) and i not in used
                         and pymupdf.Rect(f.bbox).intersects(graphic)]
                best = max(cands, key=lambda c: _iou(pymupdf.Rect(c[1].bbox), graphic), default=None)
                row = {**{k: lab[k] for k in ("path", "page", "kind", "chart_type", "notes")}, "found": best is not None}
                if best is not None and _iou(pymupdf.Rect(best[1].bbox), graphic) >= 0.2:
                    i, fig = best
                    used.add(i)
                    page = doc[fig.page - 1]
                    row.update(pred=fig.figure_kind, pred_chart_type=fig.chart_type or "",
                               now=_crop_scores(pymupdf.Rect(fig.crop), ideal, graphic),
                               before=_crop_scores(figmod.crop_of(page, pymupdf.Rect(fig.bbox)), ideal, graphic))
                else:
                    row.update(found=False, pred="(not extracted)", pred_chart_type="")
                out.append(row)
            for i, fig in enumerate(figs):
                if i not in used:
                    out.append({"path": path, "page": str(fig.page), "kind": "(no figure)", "chart_type": "",
                                "notes": "", "found": True, "pred": fig.figure_kind, "pred_chart_type": ""})
    return out


def heldout_summary(rows: list[HeldoutRow]) -> dict:
    labelled = [r for r in rows if r["kind"] != "(no figure)"]
    found = [r for r in labelled if r["found"]]
    shown = [r for r in rows if r.get("pred") in SHOWABLE]
    charts = [r for r in labelled if r["kind"] == "chart"]
    crops = [r for r in found if r["kind"] in SHOWABLE]

    def crop_agg(tag: str) -> dict:
        n = len(crops) or 1
        return {"figures": len(crops),
                "mean_iou": round(sum(r[tag]["iou"] for r in crops) / n, 3),
                "iou_at_least_0.8": round(sum(r[tag]["iou"] >= 0.8 for r in crops) / n, 3),
                "holds_graphic": round(sum(r[tag]["holds_graphic"] for r in crops) / n, 3),
                "holds_caption_and_labels": round(sum(r[tag]["holds_ideal"] for r in crops) / n, 3),
                "mean_outside_share": round(sum(r[tag]["outside_share"] for r in crops) / n, 3)}
    return {
        "labelled": len(labelled), "extracted": len(found),
        "kind_accuracy_of_extracted": round(sum(r["kind"] == r["pred"] for r in found) / len(found), 3) if found else None,
        "charts": len(charts), "charts_shown_as_showable": sum(r.get("pred") in SHOWABLE for r in charts),
        "showable_that_are_not_chart_diagram_map": sum(r["kind"] not in SHOWABLE for r in shown),
        "never_shown_labelled": sum(r["kind"] not in SHOWABLE for r in labelled),
        "wrongly_showable": dict(Counter(r["kind"] for r in shown if r["kind"] not in SHOWABLE)),
        "chart_type_accuracy": round(sum(r["chart_type"] == r["pred_chart_type"] for r in charts if r.get("pred") == "chart")
                                     / max(1, sum(r.get("pred") == "chart" for r in charts)), 3),
        "confusion": {f"{a} → {b}": n for (a, b), n in
                      Counter((r["kind"], r["pred"]) for r in rows if r["kind"] != r["pred"]).most_common()},
        "crops": {"before": crop_agg("before"), "now": crop_agg("now")},
    }
