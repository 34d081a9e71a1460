"""Figure kinds: the classifier (rag/ingest/figkind.py) against the figures of tests/fixtures/figure_labels.tsv,
which two helpers labelled by looking at each crop ingestion made (and its page).

Each labelled region is read exactly as ingestion reads it: its page's text rows and drawings, the crop rendered
at the ingestion resolution, OCR for an image without a text layer. Reported: accuracy over all kinds, per kind
(recall and precision), the chart type of the charts found, and — what matters most for the answer — how many
figures that must never be shown (photos, logos, covers, decoration, tables) are classified as showable (chart,
diagram, map), and how many charts are hidden. The rules were written looking at these labels: the figure is a
tuning figure, not a held-out one.

Crops: for each labelled figure, the crop ingestion makes now (rag/ingest/crop.py) and the crop it made before
(the region with a 6-pt margin), in the same run: how many crops slice a line of text, how many lines, and how many
take part of another figure of the page.

Held out (--heldout DIR): documents the rules were not written on, with labels made by construction (each
figure's graphic, its ideal crop — graphic, labels, legend and caption or title, nothing else — and its kind). Each
label is matched to the figure ingestion extracts; reported: kinds, and the crops now and before against the ideal
crop (IoU, whole graphic held, caption and labels held, share outside the ideal crop).

Usage: python bench/bench_figure_kinds.py [--out bench/results/figure_kinds.json] [--heldout DIR]"""

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
def _heldout(d: Path) -> dict:
    from rag.eval_figures import heldout_figures, heldout_summary

    h = heldout_summary(heldout_figures(d / "labels.tsv", d / "docs"))
    print(f"\nheld out ({d}): {h['labelled']} labelled, {h['extracted']} extracted as figures; kind right on "
          f"{h['kind_accuracy_of_extracted']} of those; charts showable {h['charts_shown_as_showable']} of "
          f"{h['charts']}; never-shown kinds classified showable {h['showable_that_are_not_chart_diagram_map']} "
          f"{h['wrongly_showable']}; chart type {h['chart_type_accuracy']}")
    print(f"{'crop':7} {'n':>3} {'mean IoU':>9} {'IoU>=0.8':>9} {'whole graphic':>14} {'caption+labels':>15} "
          f"{'outside ideal':>14}")
    for tag, v in h["crops"].items():
        print(f"{tag:7} {v['figures']:>3} {v['mean_iou']:>9} {v['iou_at_least_0.8']:>9} {v['holds_graphic']:>14} "
              f"{v['holds_caption_and_labels']:>15} {v['mean_outside_share']:>14}")
    return h


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=SHARED / "corpus")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "figure_kinds.json")
    ap.add_argument("--heldout", type=Path, help="a held-out set: DIR/labels.tsv (graphic, ideal crop, kind) and DIR/docs")
    a = ap.parse_args()
    if not a.corpus.exists():
        print(f"no corpus at {a.corpus}", file=sys.stderr)
        return 2
    from rag.eval_figures import classify_labelled, read_labels, summary

    t = time.perf_counter()
    rows = classify_labelled(read_labels(), a.corpus)
    s = summary(rows)
    s["seconds"] = round(time.perf_counter() - t, 1)
    print(f"{s['figures']} labelled figures, accuracy {s['accuracy']:.2f} ({s['seconds']} s)")
    print(f"{'kind':12} {'labelled':>8} {'recall':>7} {'precision':>9}")
    for k, v in s["per_kind"].items():
        print(f"{k:12} {v['labelled']:>8} {v['recall'] if v['recall'] is not None else '—':>7} "
              f"{v['precision'] if v['precision'] is not None else '—':>9}")
    print(f"chart type right on charts found: {s['chart_type_accuracy']}")
    print(f"never-shown kinds (photo, logo, cover, decoration, table) classified showable: "
          f"{s['never_shown_kinds_classified_showable']} of {s['never_shown_kinds_labelled']} "
          f"{dict(s['wrongly_showable'])}")
    print(f"charts hidden: {s['charts_hidden']}")
    from rag.eval_figures import crop_quality, crop_summary

    crops = crop_quality(read_labels(), a.corpus)
    cs = crop_summary(crops)
    print(f"\ncrops (baseline: the region with a 6-pt margin, as before)\n{'figures':22} {'crop':7} {'n':>4} "
          f"{'slicing text':>13} {'lines sliced':>13} {'part of another':>16}")
    for group, by in cs.items():
        for tag, v in by.items():
            print(f"{group:22} {tag:7} {v['figures']:>4} {v['crops_slicing_text']:>13} {v['lines_sliced']:>13} "
                  f"{v['crops_with_part_of_another_figure']:>16}")
    held = _heldout(a.heldout) if a.heldout else None
    a.out.write_text(json.dumps({"summary": s, "crops": cs, "heldout": held, "rows": [{k: r[k] for k in ("path", "page", "kind", "pred",
                                                                           "chart_type", "pred_chart_type", "why")}
                                                        for r in rows]}, indent=1))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
