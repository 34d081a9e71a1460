#!/usr/bin/env python3
"""Checker for papers question set. Run with a python that has PyMuPDF (e.g. /tmp/venv-papers/bin/python)."""
import json, re, sys, os
import fitz
HERE=os.path.dirname(os.path.abspath(__file__))
CORPUS='/work/shared/corpus/papers'
GROUP_A={'acl2020_s2orc','eacl2023_longeval','pasa_arxiv','strain_sensor_cmos','xylayoutlm_2203.06947','beyond_summarization_2304.02623','papermage_toolkit'}
GROUP_B={'molecular_explanations_perspective','multilexsum_2206.10883','paper_plain_2203.00130'}
WORDS={'12':['twelve'],'2':['two'],'3':['three'],'5':['five'],'7':['seven'],'8':['eight']}
_cache={}
def page_text(doc,p):
    if doc not in _cache:
        d=fitz.open(os.path.join(CORPUS,doc+'.pdf'))
        _cache[doc]=[pg.get_text() for pg in d]
    t=_cache[doc][p-1]
    return t.replace('\u2212','-').replace('\u2013','-')
NUM=re.compile(r'-?\d[\d,]*\.?\d*')
def first_num(s):
    m=NUM.search(s); return m.group(0).replace(',','') if m else None
def variants(n):
    v={n}
    try:
        f=float(n)
        if '.' not in n and abs(f)>=1000:
            v.add(f"{int(f):,}")
        if '.' in n:
            ip,dp=n.split('.')
            if abs(int(ip or 0))>=1000: v.add(f"{int(ip):,}.{dp}")
    except ValueError: pass
    for w in WORDS.get(n,[]): v.add(w)
    return v
def found(n,doc_pages):
    pats=[re.compile(r'(?<![\d.])'+re.escape(x)+r'(?![\d])',re.I) if x[0].isdigit() or x[0]=='-' else re.compile(re.escape(x),re.I) for x in variants(n)]
    for doc,ps in doc_pages.items():
        for p in ps:
            t=page_text(doc,p)
            if any(pt.search(t) for pt in pats): return (doc,p)
            # negative numbers may be printed with a separated minus sign
            if n.startswith('-') and any(re.search(r'(?<![\d.])'+re.escape(x.lstrip('-'))+r'(?![\d])',t) for x in variants(n)): return (doc,p)
    return None
def main(path=os.path.join(HERE,'questions.jsonl')):
    errs=[]; qs=[]
    for i,l in enumerate(open(path)):
        try: qs.append(json.loads(l))
        except Exception as e: errs.append(f'line {i+1}: invalid JSON {e}')
    ids=[q['id'] for q in qs]
    if len(ids)!=len(set(ids)): errs.append('duplicate ids')
    req=['id','question','history','kind','source','docs','pages','answer','answer_type','value','formula','figure','missing','nearby','notes']
    from collections import Counter
    for q in qs:
        qid=q['id']
        for k in req:
            if k not in q: errs.append(f'{qid}: missing field {k}')
        docs=set(q['docs'])
        if docs and not (docs<=GROUP_A or docs<=GROUP_B): errs.append(f'{qid}: docs span groups')
        for d in docs:
            if not os.path.exists(os.path.join(CORPUS,d+'.pdf')): errs.append(f'{qid}: unknown doc {d}')
        if q['kind']=='unanswerable':
            if q['answer'] is not None or q['answer_type'] is not None or q['pages']!={} or not q['missing'] or not q['nearby']:
                errs.append(f'{qid}: unanswerable fields wrong')
            continue
        if not q['pages']: errs.append(f'{qid}: no pages')
        for d,ps in q['pages'].items():
            if d not in docs: errs.append(f'{qid}: page doc not in docs')
        if q['kind']=='figure':
            f=q['figure']
            if not f or f['doc'] not in docs or f['page'] not in q['pages'].get(f['doc'],[]): errs.append(f'{qid}: bad figure block')
            # caption words must be printed on the figure page
            cap=f['caption'][:30]
            t=page_text(f['doc'],f['page']).replace('\n',' ')
            if cap.split(':')[0].split('.')[0] not in t: errs.append(f'{qid}: caption start not on page')
        if q['kind']=='follow-up' or (q['history'] and not isinstance(q['history'],list)): errs.append(f'{qid}: bad history')
        at=q['answer_type']
        if at=='reported':
            n=first_num(q['value'] or '')
            if n is None: errs.append(f'{qid}: no number in value'); continue
            if not found(n,q['pages']): errs.append(f'{qid}: value {n} not found on pages {q["pages"]}')
        if at=='computed':
            lhs,rhs=q['formula'].split('=')[0],q['formula'].split('=')[1]
            nums=[x.replace(',','') for x in NUM.findall(lhs)]
            for n in nums:
                if not found(n,q['pages']): errs.append(f'{qid}: input {n} not found on pages')
            expr=lhs.replace(',','').replace('x','*')
            try:
                val=eval(expr)
                r=float(first_num(rhs))
                if abs(val-r)>0.006*max(1,abs(r)): errs.append(f'{qid}: arithmetic {expr}={val} != {r}')
            except Exception as e: errs.append(f'{qid}: cannot eval {expr}: {e}')
        if q['kind']=='compare':
            for v in q.get('values') or []:
                n=first_num(v)
                if not found(n,q['pages']): errs.append(f'{qid}: compare value {n} not found')
    c=Counter(q['kind'] for q in qs); a=Counter(str(q['answer_type']) for q in qs); m=Counter(str(q['missing']) for q in qs if q['kind']=='unanswerable')
    s=Counter(str(q['source']) for q in qs)
    grpB=sum(1 for q in qs if set(q['docs'])&GROUP_B)
    perdoc=Counter(d for q in qs for d in q['docs'])
    print('total',len(qs)); print('kind',dict(c)); print('answer_type',dict(a)); print('source',dict(s)); print('missing',dict(m))
    print('follow-ups',sum(1 for q in qs if q['history'])); print('group B questions',grpB); print('per doc',dict(perdoc))
    print('unanswerable share %.1f%%'%(100*c['unanswerable']/len(qs)))
    if errs:
        print('ERRORS:'); [print(' ',e) for e in errs]; sys.exit(1)
    print('ALL CHECKS PASSED')
if __name__=='__main__': main(*sys.argv[1:])
