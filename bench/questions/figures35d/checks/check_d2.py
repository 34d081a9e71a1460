import pymupdf, json, re, os
C="/work/shared/corpus/"; HERE=os.path.dirname(os.path.abspath(__file__))
figs=[json.loads(l) for l in open(os.path.join(HERE,"figures.jsonl"))]
qs=[json.loads(l) for l in open(os.path.join(HERE,"questions.jsonl"))]
errs=[]
def E(m): errs.append(m); print("ERROR",m)
ids=[f['id'] for f in figs]
if len(set(ids))!=len(ids): E("duplicate figure ids")
KINDS={"chart","diagram","table","photo","logo","decoration","map","cover"}
CT={"bar","stacked_bar","line","area","pie","donut","scatter","waterfall","other"}
os.makedirs(os.path.join(HERE,"crops"),exist_ok=True)
for f in figs:
    try: doc=pymupdf.open(C+f['doc'])
    except Exception as e: E(f"{f['id']} cannot open {f['doc']}"); continue
    if not (1<=f['page']<=len(doc)): E(f"{f['id']} page out of range"); continue
    p=doc[f['page']-1]; pr=p.rect
    b=pymupdf.Rect(f['box']); g=pymupdf.Rect(f['graphic'])
    if b.is_empty or g.is_empty: E(f"{f['id']} empty box/graphic")
    if not pr.contains(b): E(f"{f['id']} box outside page")
    if not pr.contains(g): E(f"{f['id']} graphic outside page")
    if not pymupdf.Rect(b.x0-0.05,b.y0-0.05,b.x1+0.05,b.y1+0.05).contains(g): E(f"{f['id']} graphic not inside box")
    if f['kind'] not in KINDS: E(f"{f['id']} bad kind")
    if f['kind']=="chart" and f['chart_type'] not in CT: E(f"{f['id']} bad chart_type")
    if f['kind']!="chart" and f['chart_type'] is not None: E(f"{f['id']} chart_type should be null")
    if len(f['values'])>10: E(f"{f['id']} >10 values")
    if f['value_source'] not in ("text","image"): E(f"{f['id']} bad value_source")
    for s in f['separate_from']:
        if s not in ids: E(f"{f['id']} separate_from unknown {s}")
    if f['value_source']=="text":
        words=[w[4] for w in p.get_text("words",clip=b)]
        nums=set()
        for w in words: nums.update(re.findall(r"\d[\d,]*\.?\d*",w))
        nums={x.rstrip('.,') for x in nums}
        for v in f['values']:
            val=v.rsplit(": ",1)[-1]
            for num in re.findall(r"\d[\d,]*\.?\d*",val):
                if num.rstrip('.,') not in nums: E(f"{f['id']} value '{v}': {num} not in words of box")
    p.get_pixmap(dpi=110,clip=b).save(os.path.join(HERE,"crops",f"{f['id']}.png"))
qids=[q['id'] for q in qs]
if len(set(qids))!=len(qids): E("duplicate question ids")
byid={f['id']:f for f in figs}
for q in qs:
    if q['figure'] not in byid: E(f"{q['id']} unknown figure"); continue
    fg=byid[q['figure']]
    if fg['doc']!=q['doc'] or fg['page']!=q['page']: E(f"{q['id']} doc/page mismatch")
    for a in q['also_acceptable']:
        if a not in byid: E(f"{q['id']} unknown also_acceptable {a}")
print(f"{len(figs)} figures, {len(qs)} questions, {len(errs)} errors")
