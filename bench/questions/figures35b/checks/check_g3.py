import json, re, os, pymupdf
HERE="/work/labels35b/g3"; C="/work/shared/corpus/"
errs=[]
figs=[json.loads(l) for l in open(f"{HERE}/figures.jsonl")]
qs=[json.loads(l) for l in open(f"{HERE}/questions.jsonl")] if os.path.exists(f"{HERE}/questions.jsonl") else []
ids=[f["id"] for f in figs]
if len(ids)!=len(set(ids)): errs.append("duplicate figure ids")
qids=[q["id"] for q in qs]
if len(qids)!=len(set(qids)): errs.append("duplicate question ids")
KINDS={"chart","diagram","table","photo","logo","decoration","map","cover"}
CT={"bar","stacked_bar","line","area","pie","donut","scatter","waterfall","other"}
def inside(a,b,tol=0.5): return a[0]>=b[0]-tol and a[1]>=b[1]-tol and a[2]<=b[2]+tol and a[3]<=b[3]+tol
def norm(s): return s.replace(",","").replace("$","").replace("%","").strip(".()*")
os.makedirs(f"{HERE}/crops",exist_ok=True)
docs={}
for f in figs:
    i=f["id"]
    if not i.startswith("g3-"): errs.append(f"{i}: bad prefix")
    if f.get("split")!="held": errs.append(f"{i}: split")
    for k in ["doc","page","box","graphic","kind","chart_type","title","values","value_source","separate_from","notes"]:
        if k not in f: errs.append(f"{i}: missing {k}")
    if f["kind"] not in KINDS: errs.append(f"{i}: kind")
    if f["kind"]=="chart" and f["chart_type"] not in CT: errs.append(f"{i}: chart_type")
    if f["kind"]!="chart" and f["chart_type"] is not None: errs.append(f"{i}: chart_type should be null")
    if f["value_source"] not in ("text","image"): errs.append(f"{i}: value_source")
    for s in f["separate_from"]:
        if s not in ids: errs.append(f"{i}: separate_from {s} unknown")
    d=docs.setdefault(f["doc"], pymupdf.open(C+f["doc"]))
    if not (1<=f["page"]<=len(d)): errs.append(f"{i}: page out of range"); continue
    pg=d[f["page"]-1]; pr=tuple(pg.rect)
    b=f["box"]; g=f["graphic"]
    if not (b[0]<b[2] and b[1]<b[3]): errs.append(f"{i}: box degenerate")
    if not (g[0]<g[2] and g[1]<g[3]): errs.append(f"{i}: graphic degenerate")
    if not inside(b,pr,0): errs.append(f"{i}: box outside page")
    if not inside(g,pr,0): errs.append(f"{i}: graphic outside page")
    if not inside(g,b,0): errs.append(f"{i}: graphic not inside box")
    if len(f["values"])>10: errs.append(f"{i}: >10 values")
    if f["value_source"]=="text":
        words={norm(w[4]) for w in pg.get_text("words",clip=pymupdf.Rect(b))}
        for v in f["values"]:
            val=v.rsplit(":",1)[-1]
            for n in re.findall(r"\d[\d,.]*",val):
                if norm(n) not in words: errs.append(f"{i}: value number {n} of '{v}' not in box words")
    pg.get_pixmap(dpi=110,clip=pymupdf.Rect(b)).save(f"{HERE}/crops/{i}.png")
for q in qs:
    if q.get("split")!="held": errs.append(f"{q['id']}: split")
    if not q["id"].startswith("g3-q"): errs.append(f"{q['id']}: bad prefix")
    fm={f["id"]:f for f in figs}
    if q["figure"] not in fm: errs.append(f"{q['id']}: figure unknown"); continue
    ff=fm[q["figure"]]
    if ff["doc"]!=q["doc"] or ff["page"]!=q["page"]: errs.append(f"{q['id']}: doc/page mismatch")
    for a in q.get("also_acceptable",[]):
        if a not in fm: errs.append(f"{q['id']}: also_acceptable {a} unknown")
for e in errs: print(e)
print(f"{len(errs)} errors ({len(figs)} figures, {len(qs)} questions)")
