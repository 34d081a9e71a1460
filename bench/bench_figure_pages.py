"""Every figure of a labelled page found, cut, named and read (issue 35): ingestion's figure extraction run on each
page of the labelled set (bench/questions/figures35/figures.jsonl, made by helpers who never saw the code: every
figure of each chosen page, with its ideal crop, graphic, kind, chart type and printed values), against the labels.

Each labelled page is read as ingestion reads it: its text rows, the document's repeated images (logos), its
drawings, OCR for an image without a text layer. Each label is matched to at most one extracted figure: the one
whose graphic overlaps the labelled graphic most. Reported, for the tuning and the held-back part apart:
- found: labelled figures matched (charts apart); extra: extracted figures matching no label;
- kind right and chart type right, of the matched;
- crops: IoU with the ideal crop; crops that take in another labelled figure's graphic; crops that take in a line of
  page text outside the ideal crop (body text, page furniture);
- titles: of the labelled charts, diagrams and maps with a title, how many the figure's caption names (ninth
  round: four fifths of the title's words at the caption's start; a legend's label is not the title);
- values: of the values printed on a labelled chart, how many the figure's reading holds with their label
  (`tied`) and as a number anywhere in its text (`number`);
- seconds spent in figure extraction.

--rasterize makes each chart whose values are in the text layer an image of itself, read by OCR: labelled sets hold
few image charts, and this measures the image path (kind, type, values) on charts whose values are known.

--code DIR runs another checkout's code (a baseline in the same run). Usage:
    python bench/bench_figure_pages.py [--code DIR] [--out FILE.json] [--labels FILE] [--rasterize]"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
LABELS = ROOT / "bench" / "questions" / "figures35" / "figures.jsonl"
NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
SHOWABLE = {"chart", "diagram", "map"}


def _iou(a, b) -> float:
    inter = (a & b).get_area() if a.intersects(b) else 0.0
    union = a.get_area() + b.get_area() - inter
    return inter / union if union else 0.0


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "").lstrip("0") or "0" for n in NUM.findall(text or "")}


def _value_scores(values: list[str], fig) -> tuple[int, int]:
    """(tied, number): values whose number the figure's reading gives with a word of their label; values whose
    number appears anywhere in the figure's text. A value printed as a word or a grade ("BBB", "Gold") counts as
    its token, the same way (since the eighth round; before, it could never count)."""
    reading = (getattr(fig, "signals", None) or {}).get("reading") or {}
    pairs = [(str(v.get("label", "")), str(v.get("value", ""))) for v in reading.get("values", [])]
    text = " ".join([fig.ocr_text or "", fig.caption or ""])
    tied = number = 0
    for v in values:
        label, _, val = v.rpartition(":")
        nums = _numbers(val)
        words = {w for w in re.findall(r"[a-z0-9]+", label.lower()) if len(w) > 1 or w.isdigit()}
        labelled = [pv for pl, pv in pairs if not words or words & set(re.findall(r"[a-z0-9]+", pl.lower()))]
        if not nums:  # a value that is a word or a grade ("BBB", "B-", "Gold"): the same token
            token = val.strip()
            if re.search(r"[A-Za-z]", token):
                number += token in text.split()
                tied += any(pv.strip() == token for pv in labelled)
            continue
        number += nums <= _numbers(text)
        tied += any(nums <= _numbers(pv) for pv in labelled)
    return tied, number


def _title_score(title: str, caption: str) -> int:
    """1 when the caption names the title: four fifths of the title's words are among the caption's first words (as
    many as the title's, and three more: a title read with its units line counts, and a paper's caption that goes on
    after its title; a legend label does not)."""
    t = re.findall(r"[a-z0-9]+", (title or "").lower())
    c = re.findall(r"[a-z0-9]+", (caption or "").lower())
    return int(bool(t) and len(set(t) & set(c[: len(t) + 3])) >= 0.8 * len(set(t)))


def _page_lines(page, pymupdf):
    out = []
    for b in page.get_text("dict")["blocks"]:
        for ln in b.get("lines", []):
            if "".join(s["text"] for s in ln["spans"]).strip():
                out.append(pymupdf.Rect(ln["bbox"]))
    return out


def _match(labels: list[dict], figs: list, pymupdf) -> dict[int, int]:
    """label index → figure index, greedily by the overlap of the figure's region with the labelled graphic."""
    pairs = []
    for i, lab in enumerate(labels):
        g = pymupdf.Rect(lab["graphic"])
        for j, f in enumerate(figs):
            region = pymupdf.Rect(f.crop or f.bbox)
            inter = (region & g).get_area() if region.intersects(g) else 0.0
            if inter >= 0.3 * g.get_area():
                pairs.append((_iou(region, pymupdf.Rect(lab["box"])) + inter / g.get_area(), i, j))
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in sorted(pairs, reverse=True):
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


def _takes_furniture(figmod) -> bool:
    import inspect

    return "furniture" in inspect.signature(figmod.extract_figures).parameters


def run(labels: list[dict], corpus: Path) -> list[dict]:
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures as figmod
    from rag.ingest.pipeline import _figure_ocr
    from rag.ingest import refigure
    from rag.ingest.refigure import page_rows

    settings = Settings()
    cfg = settings.ingest
    rows_out: list[dict] = []
    by_page: dict[tuple[str, int], list[dict]] = {}
    for lab in labels:
        by_page.setdefault((lab["doc"], int(lab["page"])), []).append(lab)
    docs: dict[str, tuple] = {}
    for (path, page_no), labs in sorted(by_page.items()):
        if path not in docs:
            d = pymupdf.open(corpus / path)
            # OCR's budget is a document's, as at ingestion: one budget for the whole run would run out part-way,
            # sooner on a busy machine, and make the figures depend on the machine's load
            docs[path] = (d, figmod.repeated_image_digests(d), _figure_ocr(cfg) if cfg.ocr else None,
                          refigure.document_furniture(d) if _takes_furniture(figmod) else None)
        doc, skip, ocr_fn, furniture = docs[path]
        page = doc.load_page(page_no - 1)
        t0 = time.perf_counter()
        more = {} if furniture is None else {"furniture": furniture}  # a baseline's code may not take it
        figs = figmod.extract_figures(page, page_no, page_rows(page), skip, cfg, set(), ocr_fn, **more)
        secs = time.perf_counter() - t0
        lines = _page_lines(page, pymupdf)
        m = _match(labs, figs, pymupdf)
        for i, lab in enumerate(labs):
            row = {"id": lab["id"], "doc": path, "page": page_no, "split": lab["split"], "kind": lab["kind"],
                   "chart_type": lab.get("chart_type") or "", "values": len(lab.get("values") or []),
                   "found": i in m, "seconds": secs / len(labs),
                   "title": (lab.get("title") or "") if lab["kind"] in SHOWABLE else ""}
            if i in m:
                f = figs[m[i]]
                crop, box = pymupdf.Rect(f.crop or f.bbox), pymupdf.Rect(lab["box"])
                others = [pymupdf.Rect(o["graphic"]) for o in labs if o is not lab]
                slack = box + (-3, -3, 3, 3)
                row.update(pred=f.figure_kind, pred_chart_type=f.chart_type or "", iou=round(_iou(crop, box), 3),
                           takes_other=any((crop & o).get_area() > 0.1 * o.get_area() for o in others
                                           if crop.intersects(o)),
                           text_lines_outside=sum(1 for ln in lines if crop.contains(ln.tl + (ln.br - ln.tl) * 0.5)
                                                  and not slack.contains(ln) and not any(
                                                      (o + (-3, -3, 3, 3)).contains(ln) for o in others)))
                row["tied"], row["number"] = _value_scores(lab.get("values") or [], f)
                row["caption"] = (f.caption or "")[:200]
                if row["title"]:
                    row["title_right"] = _title_score(row["title"], f.caption)
            rows_out.append(row)
        for j, f in enumerate(figs):
            if j not in m.values():
                rows_out.append({"id": None, "doc": path, "page": page_no, "split": labs[0]["split"],
                                 "kind": "(no figure)", "pred": f.figure_kind, "found": True, "seconds": 0.0})
    return rows_out


def run_rasterized(labels: list[dict], corpus: Path, dpi: int = 150) -> list[dict]:
    """Each labelled chart whose values are in the text layer, made an image: on its page (in memory), its ideal
    crop's text and drawings are taken out and an image of it at `dpi` put in their place, as an exporter pastes a
    chart into a report or a slide; the page is then read as ingestion reads it (OCR included). The charts of the
    tuning part, so made, stand for the image charts a labelled set holds few of."""
    import pymupdf

    from rag.config import Settings
    from rag.ingest import figures as figmod
    from rag.ingest.pipeline import _figure_ocr
    from rag.ingest.refigure import page_rows

    cfg = Settings().ingest
    rows_out = []
    for lab in labels:
        if lab["kind"] != "chart" or lab.get("value_source") != "text" or not lab.get("values"):
            continue
        doc = pymupdf.open(corpus / lab["doc"])
        page, box = doc[int(lab["page"]) - 1], pymupdf.Rect(lab["box"])
        pix = page.get_pixmap(dpi=dpi, clip=box)
        page.add_redact_annot(box)
        page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_PIXELS,
                              graphics=pymupdf.PDF_REDACT_LINE_ART_REMOVE_IF_TOUCHED)
        page.insert_image(box, pixmap=pix)
        t0 = time.perf_counter()
        figs = figmod.extract_figures(page, page.number + 1, page_rows(page), set(), cfg, set(),
                                      _figure_ocr(cfg) if cfg.ocr else None)
        m = _match([lab], figs, pymupdf)
        row = {"id": lab["id"], "doc": lab["doc"], "page": lab["page"], "split": lab["split"], "kind": "chart",
               "chart_type": lab.get("chart_type") or "", "values": len(lab["values"]), "found": 0 in m,
               "seconds": time.perf_counter() - t0}
        if 0 in m:
            f = figs[m[0]]
            row.update(pred=f.figure_kind, pred_chart_type=f.chart_type or "", iou=0.0, takes_other=False,
                       text_lines_outside=0)
            row["tied"], row["number"] = _value_scores(lab["values"], f)
        rows_out.append(row)
    return rows_out


def summarize(rows: list[dict]) -> dict:
    lab = [r for r in rows if r["kind"] != "(no figure)"]
    found = [r for r in lab if r["found"]]
    charts = [r for r in lab if r["kind"] == "chart"]
    charts_found = [r for r in charts if r["found"]]
    typed = [r for r in charts_found if r.get("pred") == "chart"]
    shown = [r for r in found if r["kind"] in SHOWABLE]
    extra = [r for r in rows if r["kind"] == "(no figure)"]
    vals = sum(r["values"] for r in charts_found)
    titled = [r for r in lab if r["kind"] in SHOWABLE and r.get("title")]
    vals_all = sum(r["values"] for r in charts)

    def share(n, d):
        return round(n / d, 3) if d else None
    return {
        "labelled": len(lab), "charts": len(charts), "pages": len({(r["doc"], r["page"]) for r in rows}),
        "found": share(len(found), len(lab)), "charts_found": share(len(charts_found), len(charts)),
        "extra": len(extra), "extra_showable": sum(r.get("pred") in SHOWABLE for r in extra),
        "kind_right": share(sum(r["kind"] == r["pred"] for r in found), len(found)),
        "chart_type_right": share(sum(r["chart_type"] == r["pred_chart_type"] for r in typed), len(typed)),
        "chart_type_right_of_all_charts": share(sum(r.get("pred_chart_type") == r["chart_type"] for r in charts_found),
                                                len(charts)),
        "crop_mean_iou": share(sum(r["iou"] for r in shown), len(shown)),
        "crop_iou_at_least_0.8": share(sum(r["iou"] >= 0.8 for r in shown), len(shown)),
        "crops_taking_another_figure": sum(r["takes_other"] for r in shown),
        "crops_taking_text_lines": sum(r["text_lines_outside"] > 0 for r in shown),
        "text_lines_taken": sum(r["text_lines_outside"] for r in shown),
        "titles_labelled": len(titled), "title_right": share(sum(r.get("title_right", 0) for r in titled), len(titled)),
        "values_labelled": vals_all,
        "values_tied": share(sum(r["tied"] for r in charts_found), vals_all),
        "values_number_in_text": share(sum(r["number"] for r in charts_found), vals_all),
        "values_of_found_charts": vals,
        "seconds": round(sum(r["seconds"] for r in rows), 1),
        "kind_confusion": dict(Counter(f"{r['kind']} → {r['pred']}" for r in found if r["kind"] != r["pred"])),
        "type_confusion": dict(Counter(f"{r['chart_type']} → {r['pred_chart_type']}" for r in typed
                                       if r["chart_type"] != r["pred_chart_type"])),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose rag/ is measured")
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--split", choices=("tune", "held"), help="only this part (while tuning: the tuning part)")
    ap.add_argument("--rasterize", action="store_true",
                    help="each chart with text-layer values made an image of itself, read by OCR (only kind, type "
                         "and values are measured then)")
    a = ap.parse_args()
    sys.path.insert(0, str(a.code.resolve()))
    labels = [json.loads(ln) for ln in a.labels.read_text().splitlines() if ln.strip()]
    labels = [lab for lab in labels if a.split in (None, lab["split"])]
    rows = run_rasterized(labels, a.corpus) if a.rasterize else run(labels, a.corpus)
    parts = [s for s in ("tune", "held") if a.split in (None, s)]
    res = {"code": str(a.code), "summary": {s: summarize([r for r in rows if r["split"] == s]) for s in parts},
           "rows": rows}
    print(f"{'':32} " + " ".join(f"{s:>10}" for s in parts))
    for k in [k for k in res["summary"][parts[0]] if not k.endswith("confusion")]:
        print(f"{k:32} " + " ".join(f"{str(res['summary'][s][k]):>10}" for s in parts))
    if a.out:
        a.out.write_text(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
