# Checks figures.jsonl / questions.jsonl of labeller h4 and renders crops.
# run: PYTHONPATH=<dir with pymupdf> python3 check.py   (or /work/main/.venv/bin/python check.py)
import json, re, os, sys
import pymupdf
HERE=os.path.dirname(os.path.abspath(__file__))
CORPUS='/work/shared/corpus/'
figs=[json.loads(l) for l in open(os.path.join(HERE,'figures.jsonl')) if l.strip()]
qs=[json.loads(l) for l in open(os.path.join(HERE,'questions.jsonl')) if l.strip()]
errors=[]
def err(m): errors.append(m); print('ERROR',m)
KINDS={'chart','diagram','table','photo','logo','decoration','map','cover'}
CT={'bar','stacked_bar','line','area','pie','donut','scatter','waterfall','other'}
ids=[f['id'] for f in figs]
for i in set(ids):
    if ids.count(i)>1: err(f'duplicate id {i}')
docs={}
os.makedirs(os.path.join(HERE,'crops'),exist_ok=True)
def norm(s): return s.replace('\u2013','-').replace('\u2212','-').replace(',','').replace('.','')
for f in figs:
    fid=f['id']
    for k in ('id','doc','page','box','graphic','kind','chart_type','title','values','value_source','separate_from','notes'):
        if k not in f: err(f'{fid}: missing key {k}')
    if f['doc'] not in docs: docs[f['doc']]=pymupdf.open(CORPUS+f['doc'])
    d=docs[f['doc']]
    if not (1<=f['page']<=len(d)): err(f'{fid}: page {f["page"]} out of range'); continue
    pg=d[f['page']-1]; pr=pg.rect
    box=pymupdf.Rect(f['box']); g=pymupdf.Rect(f['graphic'])
    tol=0.5
    if box.is_empty: err(f'{fid}: empty box')
    if g.is_empty: err(f'{fid}: empty graphic')
    if not (pr+(-tol,-tol,tol,tol)).contains(box): err(f'{fid}: box {box} outside page {pr}')
    if not (pr+(-tol,-tol,tol,tol)).contains(g): err(f'{fid}: graphic outside page')
    if not (box+(-tol,-tol,tol,tol)).contains(g): err(f'{fid}: graphic {g} not inside box {box}')
    if f['kind'] not in KINDS: err(f'{fid}: bad kind')
    if f['kind']=='chart':
        if f['chart_type'] not in CT: err(f'{fid}: bad chart_type')
    elif f['chart_type'] is not None: err(f'{fid}: chart_type for non-chart')
    if f['value_source'] not in ('text','image'): err(f'{fid}: bad value_source')
    if len(f['values'])>10: err(f'{fid}: more than 10 values')
    for s in f['separate_from']:
        if s not in ids: err(f'{fid}: separate_from unknown {s}')
    if f['value_source']=='text' and f['values']:
        words=[w[4] for w in pg.get_text('words',clip=box+(-1,-1,1,1))]
        nw=[norm(w) for w in words]
        for v in f['values']:
            val=v.split(':',1)[1] if ':' in v else v
            for num in re.findall(r'\d+(?:[.,]\d+)*',val):
                n=norm(num)
                if not any(n in w for w in nw):
                    err(f'{fid}: value number {num!r} (from {v!r}) not among words in box')
    # crop
    pg.get_pixmap(dpi=110,clip=box).save(os.path.join(HERE,'crops',fid+'.png'))
fids=set(ids)
qids=[q['id'] for q in qs]
if len(set(qids))!=len(qids): err('duplicate question ids')
for q in qs:
    if q['figure'] not in fids: err(f'{q["id"]}: figure {q["figure"]} unknown')
    else:
        f=figs[ids.index(q['figure'])]
        if f['doc']!=q['doc'] or f['page']!=q['page']: err(f'{q["id"]}: doc/page mismatch with figure')
    for a in q.get('also_acceptable',[]):
        if a not in fids: err(f'{q["id"]}: also_acceptable {a} unknown')
print(f'{len(figs)} figures, {len(qs)} questions, {len(errors)} errors')
