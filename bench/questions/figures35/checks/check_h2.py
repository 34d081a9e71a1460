import json, re, sys, os
import pymupdf
C='/work/shared/corpus/'; H='/work/labels35/h2/'
figs=[json.loads(l) for l in open(H+'figures.jsonl')]
qs=[json.loads(l) for l in open(H+'questions.jsonl')]
err=[]; docs={}
ids=[f['id'] for f in figs]
if len(ids)!=len(set(ids)): err.append('duplicate figure ids')
KINDS={'chart','diagram','table','photo','logo','decoration','map','cover'}
CT={'bar','stacked_bar','line','area','pie','donut','scatter','waterfall','other'}
os.makedirs(H+'crops', exist_ok=True)
def norm(s): return s.replace(',','').replace('%','')
for f in figs:
    d=docs.setdefault(f['doc'], pymupdf.open(C+f['doc']))
    if not 1<=f['page']<=len(d): err.append(f"{f['id']} page out of range"); continue
    p=d[f['page']-1]; P=p.rect
    b=pymupdf.Rect(f['box']); g=pymupdf.Rect(f['graphic'])
    if b.is_empty or g.is_empty: err.append(f"{f['id']} empty box/graphic")
    if not (b.x0>=P.x0-0.5 and b.y0>=P.y0-0.5 and b.x1<=P.x1+0.5 and b.y1<=P.y1+0.5): err.append(f"{f['id']} box outside page {b} {P}")
    if not (g.x0>=b.x0-0.5 and g.y0>=b.y0-0.5 and g.x1<=b.x1+0.5 and g.y1<=b.y1+0.5): err.append(f"{f['id']} graphic not in box")
    if f['kind'] not in KINDS: err.append(f"{f['id']} bad kind")
    if f['kind']=='chart' and f['chart_type'] not in CT: err.append(f"{f['id']} bad chart_type")
    if f['kind']!='chart' and f['chart_type'] is not None: err.append(f"{f['id']} chart_type on non-chart")
    for s in f['separate_from']:
        if s not in ids: err.append(f"{f['id']} separate_from unknown {s}")
    if f['value_source']=='text' and f['values']:
        words=[norm(w[4]) for w in p.get_text('words', clip=b)]
        for v in f['values']:
            val=v.rsplit(': ',1)[1]
            for num in re.findall(r'\d[\d,\.]*', val):
                n=norm(num).rstrip('.')
                if not any(n==w or n in w for w in words): err.append(f"{f['id']} value {v!r}: {num} not found in box words")
    p.get_pixmap(dpi=110, clip=b).save(H+f"crops/{f['id']}.png")
qids=[q['id'] for q in qs]
if len(qids)!=len(set(qids)): err.append('duplicate question ids')
byid={f['id']:f for f in figs}
for q in qs:
    if q['figure'] not in byid: err.append(f"{q['id']} unknown figure"); continue
    f=byid[q['figure']]
    if f['doc']!=q['doc'] or f['page']!=q['page']: err.append(f"{q['id']} doc/page mismatch")
    for a in q['also_acceptable']:
        if a not in byid: err.append(f"{q['id']} unknown also_acceptable {a}")
for e in err: print('ERROR', e)
print(len(figs),'figures',len(qs),'questions',len(err),'errors')
