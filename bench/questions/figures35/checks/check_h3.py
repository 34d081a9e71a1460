"""Check h3 labels. PyMuPDF is not installed on this machine (/work/main/.venv is absent), so this script
uses pdfplumber (words, page size) and pypdfium2 (rendering) unpacked from local wheels into tmp/lib.
Coordinates: PDF points, top-left origin (same convention as PyMuPDF; all pages here have mediabox=cropbox at 0,0)."""
import json, re, sys, os
sys.path.insert(0, "/work/labels35/h3/tmp/lib")
try:
    import pymupdf  # preferred if present
except ImportError:
    pymupdf = None
import pdfplumber, pypdfium2 as pdfium

H = "/work/labels35/h3/"
C = "/work/shared/corpus/"
figs = [json.loads(l) for l in open(H + "figures.jsonl")]
qs = [json.loads(l) for l in open(H + "questions.jsonl")]
errs = []
def err(*a):
    errs.append(" ".join(map(str, a))); print("ERROR", *a)

ids = [f["id"] for f in figs]
for i in set(ids):
    if ids.count(i) > 1: err("duplicate id", i)
KINDS = {"chart", "diagram", "table", "photo", "logo", "decoration", "map", "cover"}
CT = {"bar", "stacked_bar", "line", "area", "pie", "donut", "scatter", "waterfall", "other"}
num_re = re.compile(r"[-+]?\d[\d,.]*")
def nums(s):
    return [m.strip(".,") for m in num_re.findall(s) if m.strip(".,")]
def norm(w):
    return w.strip("()%:;*[]").strip(".,")

pls, pfs = {}, {}
os.makedirs(H + "crops", exist_ok=True)
for f in figs:
    d = f["doc"]
    if d not in pls:
        pls[d] = pdfplumber.open(C + d); pfs[d] = pdfium.PdfDocument(C + d)
    doc = pls[d]
    if not (1 <= f["page"] <= len(doc.pages)):
        err(f["id"], "page out of range"); continue
    p = doc.pages[f["page"] - 1]
    W, Hh = float(p.width), float(p.height)
    b, g = f["box"], f["graphic"]
    for name, r in (("box", b), ("graphic", g)):
        if not (len(r) == 4 and r[0] < r[2] and r[1] < r[3]): err(f["id"], name, "malformed", r)
        if r[0] < -0.01 or r[1] < -0.01 or r[2] > W + 0.01 or r[3] > Hh + 0.01: err(f["id"], name, "outside page", r, (W, Hh))
    if not (g[0] >= b[0] - 0.01 and g[1] >= b[1] - 0.01 and g[2] <= b[2] + 0.01 and g[3] <= b[3] + 0.01):
        err(f["id"], "graphic not inside box", g, b)
    if f["kind"] not in KINDS: err(f["id"], "bad kind", f["kind"])
    if f["kind"] == "chart" and f["chart_type"] not in CT: err(f["id"], "bad chart_type", f["chart_type"])
    if f["kind"] != "chart" and f["chart_type"] is not None: err(f["id"], "chart_type on non-chart")
    if f["value_source"] not in ("text", "image"): err(f["id"], "bad value_source")
    for s in f["separate_from"]:
        if s not in ids: err(f["id"], "separate_from unknown", s)
    if len(f["values"]) > 10: err(f["id"], "more than 10 values")
    if f["value_source"] == "text" and f["values"]:
        words = [w["text"] for w in p.extract_words()
                 if (w["x0"] + w["x1"]) / 2 >= b[0] and (w["x0"] + w["x1"]) / 2 <= b[2]
                 and (w["top"] + w["bottom"]) / 2 >= b[1] and (w["top"] + w["bottom"]) / 2 <= b[3]]
        nw = [norm(w) for w in words]
        for v in f["values"]:
            for n in nums(v):
                cands = {n, n.lstrip("+")}
                if not any(c == w or c in w for c in cands for w in nw):
                    err(f["id"], "value number not in box words:", n, "|", v)
    # crop render
    scale = 110 / 72
    img = pfs[d][f["page"] - 1].render(scale=scale).to_pil()
    img.crop(tuple(int(round(v * scale)) for v in b)).save(H + f"crops/{f['id']}.png")
for q in qs:
    if q["figure"] not in ids: err(q["id"], "unknown figure", q["figure"])
    else:
        f = figs[ids.index(q["figure"])]
        if f["doc"] != q["doc"] or f["page"] != q["page"]: err(q["id"], "doc/page mismatch with figure")
    for a in q["also_acceptable"]:
        if a not in ids: err(q["id"], "unknown also_acceptable", a)
qids = [q["id"] for q in qs]
if len(set(qids)) != len(qids): err("duplicate question ids")
print(f"{len(figs)} figures, {len(qs)} questions, {len(errs)} errors")
