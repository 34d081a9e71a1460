"""Checks h1 labels. Run: PYTHONPATH=/tmp/h1_pylib python3 check.py  (needs PyMuPDF)"""
import json, re, sys, os
try:
    import pymupdf
except ImportError:
    sys.path.insert(0, '/tmp/h1_pylib'); import pymupdf
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = '/work/shared/corpus/'
NUM = re.compile(r'\d[\d,]*(?:\.\d+)?')
def nums(s): return [n.rstrip(',') for n in NUM.findall(s)]
figs = [json.loads(l) for l in open(os.path.join(HERE, 'figures.jsonl')) if l.strip()]
qs = [json.loads(l) for l in open(os.path.join(HERE, 'questions.jsonl')) if l.strip()]
err = []; docs = {}
ids = [f['id'] for f in figs]
if len(ids) != len(set(ids)): err.append('duplicate figure ids')
KINDS = {'chart','diagram','table','photo','logo','decoration','map','cover'}
CT = {'bar','stacked_bar','line','area','pie','donut','scatter','waterfall','other'}
os.makedirs(os.path.join(HERE, 'crops'), exist_ok=True)
for f in figs:
    d = docs.setdefault(f['doc'], pymupdf.open(CORPUS + f['doc']))
    if not 1 <= f['page'] <= len(d): err.append(f"{f['id']}: page out of range"); continue
    p = d[f['page'] - 1]; pr = p.rect + (-0.5, -0.5, 0.5, 0.5)
    B = pymupdf.Rect(f['box']); G = pymupdf.Rect(f['graphic'])
    if not (B.x0 < B.x1 and B.y0 < B.y1): err.append(f"{f['id']}: bad box")
    if not pr.contains(B): err.append(f"{f['id']}: box outside page {B} {p.rect}")
    if not pr.contains(G): err.append(f"{f['id']}: graphic outside page")
    if not (B + (-0.5, -0.5, 0.5, 0.5)).contains(G): err.append(f"{f['id']}: graphic not inside box {G} {B}")
    if f['kind'] not in KINDS: err.append(f"{f['id']}: bad kind")
    if f['kind'] == 'chart' and f['chart_type'] not in CT: err.append(f"{f['id']}: bad chart_type")
    if f['kind'] != 'chart' and f['chart_type'] is not None: err.append(f"{f['id']}: chart_type for non-chart")
    for s in f['separate_from']:
        if s not in ids: err.append(f"{f['id']}: separate_from unknown {s}")
    if f['value_source'] == 'text' and f['values']:
        words = p.get_text('words', clip=B)
        have = set()
        for w in words: have.update(nums(w[4]))
        for v in f['values']:
            for n in nums(v.split(':', 1)[1] if ':' in v else v):
                if n not in have: err.append(f"{f['id']}: value number {n} ({v}) not among words in box")
    pix = p.get_pixmap(dpi=110, clip=B & p.rect)
    pix.save(os.path.join(HERE, 'crops', f['id'] + '.png'))
qids = [q['id'] for q in qs]
if len(qids) != len(set(qids)): err.append('duplicate question ids')
byid = {f['id']: f for f in figs}
for q in qs:
    if q['figure'] not in byid: err.append(f"{q['id']}: unknown figure"); continue
    f = byid[q['figure']]
    if (f['doc'], f['page']) != (q['doc'], q['page']): err.append(f"{q['id']}: doc/page mismatch")
    for a in q.get('also_acceptable', []):
        if a not in byid: err.append(f"{q['id']}: unknown also_acceptable {a}")
for e in err: print('ERROR', e)
print(f"{len(figs)} figures, {len(qs)} questions, {len(err)} errors")
