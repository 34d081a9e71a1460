import json, re, os, pymupdf
C = "/work/shared/corpus/"
HERE = os.path.dirname(os.path.abspath(__file__))
NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")
def nums(s): return [m.group(0).rstrip(",") for m in NUM.finditer(s)]
errs = []
F = [json.loads(l) for l in open(os.path.join(HERE, "figures.jsonl")) if l.strip()]
Q = [json.loads(l) for l in open(os.path.join(HERE, "questions.jsonl")) if l.strip()]
ids = [f["id"] for f in F]
if len(ids) != len(set(ids)): errs.append("duplicate figure ids")
qids = [q["id"] for q in Q]
if len(qids) != len(set(qids)): errs.append("duplicate question ids")
KINDS = {"chart","diagram","table","photo","logo","decoration","map","cover"}
CT = {"bar","stacked_bar","line","area","pie","donut","scatter","waterfall","other"}
os.makedirs(os.path.join(HERE, "crops"), exist_ok=True)
docs = {}
for f in F:
    fid = f["id"]
    if not fid.startswith("g2-"): errs.append(f"{fid}: bad prefix")
    if f.get("split") != "held": errs.append(f"{fid}: split")
    if f["kind"] not in KINDS: errs.append(f"{fid}: kind {f['kind']}")
    if f["kind"] == "chart" and f["chart_type"] not in CT: errs.append(f"{fid}: chart_type")
    if f["kind"] != "chart" and f["chart_type"] is not None: errs.append(f"{fid}: chart_type should be null")
    doc = docs.setdefault(f["doc"], pymupdf.open(C + f["doc"]))
    if not (1 <= f["page"] <= len(doc)): errs.append(f"{fid}: page {f['page']} missing"); continue
    pg = doc[f["page"] - 1]; PR = pg.rect
    box = pymupdf.Rect(f["box"]); g = pymupdf.Rect(f["graphic"])
    if box.is_empty or g.is_empty: errs.append(f"{fid}: empty box/graphic")
    if not (box in PR): errs.append(f"{fid}: box outside page {PR}")
    if not (g in PR): errs.append(f"{fid}: graphic outside page")
    if not (g in box): errs.append(f"{fid}: graphic not inside box")
    for o in f["separate_from"]:
        if o not in ids: errs.append(f"{fid}: separate_from {o} unknown")
    if f["value_source"] not in ("text", "image"): errs.append(f"{fid}: value_source")
    if len(f["values"]) > 10: errs.append(f"{fid}: >10 values")
    if f["value_source"] == "text":
        words = [w[4] for w in pg.get_text("words", clip=box)]
        have = set()
        for w in words: have.update(nums(w))
        for v in f["values"]:
            for n in nums(v):
                if n not in have: errs.append(f"{fid}: number {n} of '{v}' not in box words")
    pg.get_pixmap(dpi=110, clip=box).save(os.path.join(HERE, "crops", fid + ".png"))
for q in Q:
    if q["figure"] not in ids: errs.append(f"{q['id']}: figure {q['figure']} unknown")
    for a in q["also_acceptable"]:
        if a not in ids: errs.append(f"{q['id']}: also_acceptable {a} unknown")
    if q.get("split") != "held": errs.append(f"{q['id']}: split")
    fig = next((f for f in F if f["id"] == q["figure"]), None)
    if fig and (fig["doc"] != q["doc"] or fig["page"] != q["page"]): errs.append(f"{q['id']}: doc/page mismatch with figure")
for e in errs: print("ERROR", e)
print(f"{len(F)} figures, {len(Q)} questions, {len(errs)} errors")
