import json, re, pymupdf, os
D='/work/labels35b/g1'; C='/work/shared/corpus/'
errs=[]
figs=[json.loads(l) for l in open(f'{D}/figures.jsonl')]
qs=[json.loads(l) for l in open(f'{D}/questions.jsonl')]
ids=[f['id'] for f in figs]+[q['id'] for q in qs]
if len(ids)!=len(set(ids)): errs.append('duplicate ids')
KINDS={'chart','diagram','table','photo','logo','decoration','map','cover'}
CT={'bar','stacked_bar','line','area','pie','donut','scatter','waterfall','other'}
NUM=re.compile(r'-?\d[\d,]*(?:\.\d+)?')
def norm(s): return s.replace('−','-').replace('–','-').replace(',','')
os.makedirs(f'{D}/crops',exist_ok=True)
docs={}
for f in figs:
    fid=f['id']
    if not fid.startswith('g1-'): errs.append(f'{fid}: prefix')
    if f.get('split')!='held': errs.append(f'{fid}: split')
    if f['kind'] not in KINDS: errs.append(f'{fid}: kind')
    if f['kind']=='chart' and f['chart_type'] not in CT: errs.append(f'{fid}: chart_type')
    if f['kind']!='chart' and f['chart_type'] is not None: errs.append(f'{fid}: chart_type should be null')
    if f['value_source'] not in ('text','image'): errs.append(f'{fid}: value_source')
    doc=docs.setdefault(f['doc'],pymupdf.open(C+f['doc']))
    if not 1<=f['page']<=len(doc): errs.append(f'{fid}: page'); continue
    p=doc[f['page']-1]; B=pymupdf.Rect(f['box']); G=pymupdf.Rect(f['graphic'])
    if B.is_empty or G.is_empty: errs.append(f'{fid}: empty rect')
    if not B in p.rect: errs.append(f'{fid}: box outside page')
    if not G in p.rect: errs.append(f'{fid}: graphic outside page')
    if not G in B: errs.append(f'{fid}: graphic not inside box')
    for s in f['separate_from']:
        if s not in ids: errs.append(f'{fid}: separate_from {s} unknown')
    if f['value_source']=='text' and f['values']:
        words={norm(w[4]) for w in p.get_text('words',clip=B)}
        joined=' '.join(words)
        for v in f['values']:
            for n in NUM.findall(norm(v)):
                if n not in words and n.lstrip('-') not in words:
                    errs.append(f'{fid}: value number {n} ({v}) not in box words')
    p.get_pixmap(dpi=110,clip=B).save(f'{D}/crops/{fid}.png')
fids={f['id'] for f in figs}
for q in qs:
    if q['figure'] not in fids: errs.append(f"{q['id']}: figure missing")
    for a in q['also_acceptable']:
        if a not in fids: errs.append(f"{q['id']}: also_acceptable {a} missing")
    fig=[f for f in figs if f['id']==q['figure']]
    if fig and (fig[0]['doc']!=q['doc'] or fig[0]['page']!=q['page']): errs.append(f"{q['id']}: doc/page mismatch")
    if q.get('split')!='held': errs.append(f"{q['id']}: split")
for e in errs: print(e)
print(f'{len(figs)} figures, {len(qs)} questions, {len(errs)} errors')
