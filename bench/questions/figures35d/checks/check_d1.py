import json,re,pymupdf,os
B='/work/shared/corpus/'; D='/work/labels35d/d1/'
figs=[json.loads(l) for l in open(D+'figures.jsonl')]
qs=[json.loads(l) for l in open(D+'questions.jsonl')] if os.path.exists(D+'questions.jsonl') else []
err=[]
ids=[f['id'] for f in figs]
if len(ids)!=len(set(ids)): err.append('duplicate figure ids')
KINDS={'chart','diagram','table','photo','logo','decoration','map','cover'}
CT={'bar','stacked_bar','line','area','pie','donut','scatter','waterfall','other'}
docs={}
os.makedirs(D+'crops',exist_ok=True)
for f in figs:
    i=f['id']
    d=docs.setdefault(f['doc'],pymupdf.open(B+f['doc']))
    if not (1<=f['page']<=len(d)): err.append(f'{i}: bad page'); continue
    pg=d[f['page']-1]; pr=pg.rect
    box=pymupdf.Rect(f['box']); g=pymupdf.Rect(f['graphic'])
    if not (box.is_valid and g.is_valid and not box.is_empty and not g.is_empty): err.append(f'{i}: invalid rect')
    if not pr.contains(box): err.append(f'{i}: box outside page')
    if not pr.contains(g): err.append(f'{i}: graphic outside page')
    if not box.contains(g): err.append(f'{i}: graphic not inside box')
    if f['kind'] not in KINDS: err.append(f'{i}: bad kind')
    if f['kind']=='chart' and f['chart_type'] not in CT: err.append(f'{i}: bad chart_type')
    if f['kind']!='chart' and f['chart_type'] is not None: err.append(f'{i}: chart_type on non-chart')
    if f['value_source'] not in ('text','image'): err.append(f'{i}: bad value_source')
    if len(f['values'])>10: err.append(f'{i}: >10 values')
    for s in f['separate_from']:
        if s not in ids: err.append(f'{i}: separate_from unknown {s}')
    if f['value_source']=='text':
        words=' '.join(w[4] for w in pg.get_text('words',clip=box))
        for v in f['values']:
            val=v.split(': ',1)[1] if ': ' in v else v
            for n in re.findall(r'\d[\d.,]*',val):
                n=n.rstrip('.,')
                if n not in words: err.append(f'{i}: number {n} of "{v}" not in box words')
    pg.get_pixmap(dpi=110,clip=box).save(D+f'crops/{i}.png')
qids=[q['id'] for q in qs]
if len(qids)!=len(set(qids)): err.append('duplicate question ids')
fig_by={f['id']:f for f in figs}
for q in qs:
    if q['figure'] not in fig_by: err.append(f"{q['id']}: unknown figure"); continue
    f=fig_by[q['figure']]
    if (f['doc'],f['page'])!=(q['doc'],q['page']): err.append(f"{q['id']}: doc/page mismatch")
    for a in q.get('also_acceptable',[]):
        if a not in fig_by: err.append(f"{q['id']}: unknown also_acceptable {a}")
for e in err: print(e)
print(f'{len(figs)} figures, {len(qs)} questions, {len(err)} errors')
