#!/usr/bin/env python3
"""Checker for /work/labels/esg1/questions.jsonl.
Run with a python that has PyMuPDF:  /tmp/venv-esg1/bin/python check.py
- validates JSONL and fields
- reported: gold number printed on at least one listed page (text layer), in some formatting
  (skipped with a notice for chart-only values and tables that are embedded images, which were checked visually)
- computed: every input of the formula printed on a listed page, and arithmetic holds
"""
import json, re, sys, os
import pymupdf
CORPUS = '/work/shared/corpus/esg/'
HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {'fact', 'figure', 'narrative', 'compare', 'unanswerable'}
_cache = {}
def page_text(doc, p):
    if doc not in _cache:
        d = pymupdf.open(CORPUS + doc + '.pdf')
        _cache[doc] = [pg.get_text() for pg in d]
    t = _cache[doc][p - 1]
    return re.sub(r'\s+', ' ', t)

def variants(num):
    """num: string like 1772.6 or 1100714 -> printed variants"""
    neg = num.startswith('-'); num = num.lstrip('-')
    if '.' in num: ip, dp = num.split('.')
    else: ip, dp = num, ''
    groups = []
    s = ip
    while len(s) > 3: groups.insert(0, s[-3:]); s = s[:-3]
    groups.insert(0, s)
    out = set()
    for th, dec in ((',', '.'), ('.', ','), (' ', '.'), (' ', ','), ('', '.'), ('', ',')):
        v = th.join(groups) + ((dec + dp) if dp else '')
        out.add(v)
        if dp and set(dp) == {'0'}:
            out.add(th.join(groups))
    return out

def printed(num, pages_text):
    for v in variants(num):
        pat = r'(?<![\d.,])' + re.escape(v) + r'(?![\d]|[.,]\d)'
        for t in pages_text:
            if re.search(pat, t): return True
    return False

def first_num(s):
    m = re.search(r'-?\d[\d,]*(?:\.\d+)?', s)
    return m.group(0).replace(',', '') if m else None

def main():
    path = os.path.join(HERE, 'questions.jsonl')
    errs, warns, n = [], [], 0
    ids = set()
    rows = []
    for i, line in enumerate(open(path), 1):
        if not line.strip(): continue
        try: q = json.loads(line)
        except Exception as e:
            errs.append(f'line {i}: invalid JSON {e}'); continue
        rows.append(q)
    for q in rows:
        n += 1; qid = q.get('id')
        for f in ('id','question','history','kind','source','docs','pages','answer','answer_type','value','formula','figure','missing','nearby','notes'):
            if f not in q: errs.append(f'{qid}: missing field {f}')
        if qid in ids: errs.append(f'{qid}: duplicate id')
        ids.add(qid)
        if q['kind'] not in KINDS: errs.append(f'{qid}: bad kind')
        for d in q['docs']:
            if not os.path.exists(CORPUS + d + '.pdf'): errs.append(f'{qid}: unknown doc {d}')
        for d in q['pages']:
            if d not in q['docs']: errs.append(f'{qid}: pages doc {d} not in docs')
        if q['kind'] == 'unanswerable':
            if q['answer'] is not None or q['pages'] != {} or not q['missing'] or not q['nearby']:
                errs.append(f'{qid}: unanswerable fields wrong')
            if q['missing'] not in ('entity','period','measure','breakdown'): errs.append(f'{qid}: bad missing')
            continue
        if q['kind'] == 'figure' and not q.get('figure'): errs.append(f'{qid}: figure missing')
        if q['kind'] == 'compare' and not q.get('values'): warns.append(f'{qid}: compare without values')
        texts = [page_text(d, p) for d, ps in q['pages'].items() for p in ps]
        visual = q['source'] == 'chart' or 'embedded image' in (q.get('notes') or '')
        if q['answer_type'] == 'reported':
            num = first_num(q['value'] or '')
            if q['value'] and ':' in q['value'] and re.match(r'^\d+:\d+$', q['value'].strip()):
                ok = any(q['value'].strip() in t for t in texts)
            elif num is None: ok = False
            else: ok = printed(num, texts)
            if not ok:
                if visual: warns.append(f'{qid}: value {q["value"]} not in text layer (chart/image; visually checked)')
                else: errs.append(f'{qid}: value {q["value"]} not found on pages {q["pages"]}')
        elif q['answer_type'] == 'computed':
            f = q['formula'] or ''
            if '=' not in f: errs.append(f'{qid}: no formula'); continue
            lhs, rhs = f.split('=', 1)
            inputs = re.findall(r'\d[\d,]*(?:\.\d+)?', lhs)
            for x in inputs:
                if not printed(x.replace(',', ''), texts):
                    if visual: warns.append(f'{qid}: input {x} not in text layer (image; visually checked)')
                    else: errs.append(f'{qid}: input {x} not found on pages')
            try:
                val = eval(lhs.replace(',', ''))
            except Exception as e:
                errs.append(f'{qid}: cannot eval {lhs}: {e}'); continue
            m = re.search(r'(-?\d[\d,]*(?:\.\d+)?)\s*(%?)', rhs)
            res = float(m.group(1).replace(',', ''))
            if m.group(2) == '%' and '/' in lhs: val *= 100
            if abs(val - res) > max(0.06, abs(res) * 0.005):
                errs.append(f'{qid}: arithmetic {lhs} = {val} != {res}')
            vnum = first_num(q['value'] or '')
            if vnum is None or abs(float(vnum) - res) > max(0.06, abs(res) * 0.005):
                # value may be the rounded result
                if vnum is None or abs(float(vnum) - val) > max(0.06, abs(val) * 0.01):
                    errs.append(f'{qid}: value {q["value"]} inconsistent with formula result {res}')
    from collections import Counter
    print('questions:', n)
    print('by kind:', dict(Counter(q['kind'] for q in rows)))
    print('by answer_type:', dict(Counter(q['answer_type'] for q in rows)))
    print('by source:', dict(Counter(q['source'] for q in rows)))
    print('by missing:', dict(Counter(q['missing'] for q in rows if q['missing'])))
    print('follow-ups (history):', sum(1 for q in rows if q['history']))
    print('by doc:', dict(Counter(d for q in rows for d in q['docs'])))
    for w in warns: print('WARN', w)
    for e in errs: print('ERROR', e)
    print('OK' if not errs else f'{len(errs)} errors')
    return 1 if errs else 0
if __name__ == '__main__':
    sys.exit(main())
