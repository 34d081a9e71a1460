import json, re, os, pymupdf
C='/work/shared/corpus/'; HERE=os.path.dirname(os.path.abspath(__file__))
F=[json.loads(l) for l in open(os.path.join(HERE,'figures.jsonl'))]
Q=[json.loads(l) for l in open(os.path.join(HERE,'questions.jsonl'))]
err=[]
def E(m): err.append(m); print('ERROR',m)
ids=[f['id'] for f in F]
if len(ids)!=len(set(ids)): E('duplicate figure ids')
KINDS={'chart','diagram','table','photo','logo','decoration','map','cover'}
CT={'bar','stacked_bar','line','area','pie','donut','scatter','waterfall','other'}
docs={}
os.makedirs(os.path.join(HERE,'crops'),exist_ok=True)
for f in F:
    d=docs.setdefault(f['doc'],pymupdf.open(C+f['doc']))
    if not (1<=f['page']<=len(d)): E(f"{f['id']} page"); continue
    pg=d[f['page']-1]; pr=pg.rect
    b=pymupdf.Rect(f['box']); g=pymupdf.Rect(f['graphic'])
    tol=0.5
    if not (b.x0>=pr.x0-tol and b.y0>=pr.y0-tol and b.x1<=pr.x1+tol and b.y1<=pr.y1+tol): E(f"{f['id']} box outside page")
    if not (g.x0>=pr.x0-tol and g.y0>=pr.y0-tol and g.x1<=pr.x1+tol and g.y1<=pr.y1+tol): E(f"{f['id']} graphic outside page")
    if not (g.x0>=b.x0-tol and g.y0>=b.y0-tol and g.x1<=b.x1+tol and g.y1<=b.y1+tol): E(f"{f['id']} graphic not in box")
    if b.is_empty or g.is_empty: E(f"{f['id']} empty rect")
    if f['kind'] not in KINDS: E(f"{f['id']} kind")
    if f['kind']=='chart' and f['chart_type'] not in CT: E(f"{f['id']} chart_type")
    if f['kind']!='chart' and f['chart_type'] is not None: E(f"{f['id']} chart_type should be null")
    if f['value_source'] not in ('text','image'): E(f"{f['id']} value_source")
    for s in f['separate_from']:
        if s not in ids: E(f"{f['id']} separate_from {s}")
    if f['value_source']=='text' and f['values']:
        words=' '.join(w[4] for w in pg.get_text('words',clip=b))
        toks=set(re.findall(r'\d[\d,.]*',words))
        toks|={t.rstrip('.,') for t in toks}
        for v in f['values']:
            val=v.split(':',1)[-1]
            for n in re.findall(r'\d[\d,.]*',val):
                if n.rstrip('.,') not in toks: E(f"{f['id']} value number {n} of '{v}' not in box words")
    pg.get_pixmap(dpi=110,clip=b&pr).save(os.path.join(HERE,'crops',f['id']+'.png'))
qids=[q['id'] for q in Q]
if len(qids)!=len(set(qids)): E('duplicate question ids')
fmap={f['id']:f for f in F}
for q in Q:
    if q['figure'] not in fmap: E(f"{q['id']} figure missing"); continue
    f=fmap[q['figure']]
    if f['doc']!=q['doc'] or f['page']!=q['page']: E(f"{q['id']} doc/page mismatch")
    for a in q['also_acceptable']:
        if a not in fmap: E(f"{q['id']} also_acceptable {a} missing")
print(len(F),'figures',len(Q),'questions',len(err),'errors')
