import json, re, os, pymupdf
BASE="/work/shared/corpus/"; D="/work/labels35c/c1/"
figs=[json.loads(l) for l in open(D+"figures.jsonl") if l.strip()]
qs=[json.loads(l) for l in open(D+"questions.jsonl") if l.strip()] if os.path.exists(D+"questions.jsonl") else []
err=[]
ids=[f["id"] for f in figs]
if len(ids)!=len(set(ids)): err.append("duplicate figure ids")
KINDS={"chart","diagram","table","photo","logo","decoration","map","cover"}
CT={"bar","stacked_bar","line","area","pie","donut","scatter","waterfall","other"}
docs={}
os.makedirs(D+"crops",exist_ok=True)
def inside(a,b,tol=0.5): return a[0]>=b[0]-tol and a[1]>=b[1]-tol and a[2]<=b[2]+tol and a[3]<=b[3]+tol
for f in figs:
    i=f["id"]
    if not i.startswith("c1-"): err.append(i+": bad id")
    if f["doc"] not in docs: docs[f["doc"]]=pymupdf.open(BASE+f["doc"])
    d=docs[f["doc"]]
    if not (1<=f["page"]<=len(d)): err.append(i+": page out of range"); continue
    p=d[f["page"]-1]; pr=tuple(p.rect)
    b=f["box"]; g=f["graphic"]
    if not (b[0]<b[2] and b[1]<b[3]): err.append(i+": bad box")
    if not inside(b,pr,0): err.append(i+": box outside page")
    if not inside(g,pr,0): err.append(i+": graphic outside page")
    if not inside(g,b): err.append(i+": graphic not inside box")
    if f["kind"] not in KINDS: err.append(i+": bad kind")
    if f["kind"]=="chart" and f["chart_type"] not in CT: err.append(i+": bad chart_type")
    if f["kind"]!="chart" and f["chart_type"] is not None: err.append(i+": chart_type on non-chart")
    if f["value_source"] not in ("text","image"): err.append(i+": bad value_source")
    for s in f["separate_from"]:
        if s not in ids: err.append(i+": separate_from unknown "+s)
    if f["value_source"]=="text" and f["values"]:
        words=" ".join(w[4] for w in p.get_text("words",clip=pymupdf.Rect(b)))
        for v in f["values"]:
            for num in re.findall(r"\d[\d,.]*",v.split(":",1)[-1]):
                if num.rstrip(".,") not in words: err.append(f"{i}: value number {num} not in box words")
    p.get_pixmap(dpi=110,clip=pymupdf.Rect(b)).save(D+f"crops/{i}.png")
qids=[q["id"] for q in qs]
if len(qids)!=len(set(qids)): err.append("duplicate question ids")
fm={f["id"]:f for f in figs}
for q in qs:
    if q["figure"] not in fm: err.append(q["id"]+": unknown figure"); continue
    if fm[q["figure"]]["doc"]!=q["doc"] or fm[q["figure"]]["page"]!=q["page"]: err.append(q["id"]+": doc/page mismatch")
    for a in q.get("also_acceptable",[]):
        if a not in fm: err.append(q["id"]+": unknown also_acceptable "+a)
for e in err: print("ERROR",e)
print(f"{len(figs)} figures, {len(qs)} questions, {len(err)} errors")
