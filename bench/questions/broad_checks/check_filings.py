#!/usr/bin/env python3
"""Checker for /work/labels/filings/questions.jsonl.
Needs PyMuPDF (e.g. /tmp/venv-filings/bin/python check.py)."""
import json, re, sys, os
import fitz
CORPUS = "/work/shared/corpus/financebench-more"
HERE = os.path.dirname(os.path.abspath(__file__))
GROUP_A = {"COSTCO_2021_10K","LOCKHEEDMARTIN_2021_10K","LOCKHEEDMARTIN_2022_10K","MICROSOFT_2023_10K",
           "WALMART_2020_10K","ACTIVISIONBLIZZARD_2019_10K","AMERICANWATERWORKS_2022_10K"}
GROUP_B = {"AES_2022_10K","KRAFTHEINZ_2019_10K","NETFLIX_2017_10K","COCACOLA_2017_10K"}
KINDS = {"fact","figure","narrative","compare","unanswerable"}
ATYPES = {"reported","computed","narrative",None}
MISSING = {"entity","period","measure","breakdown"}
FIELDS = ["id","question","history","kind","source","docs","pages","answer","answer_type","value","formula","figure","missing","nearby","notes"]
_cache = {}
def page_text(doc, p):
    if doc not in _cache:
        d = fitz.open(f"{CORPUS}/{doc}.pdf")
        _cache[doc] = [re.sub(r"\s+", " ", pg.get_text()) for pg in d]
    t = _cache[doc]
    return t[p-1] if 1 <= p <= len(t) else ""
NUM = re.compile(r"-?\d[\d,]*\.?\d*")
def variants(x):
    """printed forms of a number string like '11692713', '1.48', '-15'"""
    s = x.replace(",", "").lstrip("-")
    out = {s}
    if "." in s:
        ip, dp = s.split(".")
        out.add(f"{int(ip):,}.{dp}")
        out.add(s.rstrip("0").rstrip(".") if dp.strip("0")=="" else s)
    else:
        out.add(f"{int(s):,}")
    return out
def on_pages(numstr, pages):
    vs = variants(numstr)
    for doc, ps in pages.items():
        for p in ps:
            t = page_text(doc, p)
            for v in vs:
                if re.search(r"(?<![\d.])" + re.escape(v) + r"(?![\d]|\.\d)", t):
                    return True
    return False
def check_formula(f, pages, errs, qid):
    for part in f.split(";"):
        if "=" not in part: errs.append(f"{qid}: formula part without '=': {part}"); continue
        left, right = part.rsplit("=", 1)
        left = left.split(":", 1)[-1]
        nums = NUM.findall(left)
        for n in nums:
            if n.replace(",", "") in {"100", "2"}: continue
            if not on_pages(n, pages): errs.append(f"{qid}: formula input {n} not found on listed pages")
        expr = left.replace(",", "")
        expr = re.sub(r"[^0-9.+\-*/() ]", "", expr)
        try: val = eval(expr)
        except Exception as e: errs.append(f"{qid}: cannot eval '{expr}': {e}"); continue
        rn = NUM.findall(right)
        if not rn: errs.append(f"{qid}: no result in '{right}'"); continue
        r = float(rn[0].replace(",", ""))
        d = len(rn[0].split(".")[1]) if "." in rn[0] else 0
        if abs(val - r) > 0.5 * 10**(-d) + 1e-9:
            errs.append(f"{qid}: arithmetic {expr} = {val:.4f} != {r}")
def main(path=os.path.join(HERE, "questions.jsonl")):
    errs, rows, ids = [], [], set()
    for i, line in enumerate(open(path), 1):
        if not line.strip(): continue
        try: q = json.loads(line)
        except Exception as e: errs.append(f"line {i}: invalid JSON {e}"); continue
        rows.append(q)
        for f in FIELDS:
            if f not in q: errs.append(f"{q.get('id')}: missing field {f}")
        qid = q["id"]
        if qid in ids: errs.append(f"{qid}: duplicate id")
        ids.add(qid)
        if q["kind"] not in KINDS: errs.append(f"{qid}: bad kind")
        if q["answer_type"] not in ATYPES: errs.append(f"{qid}: bad answer_type")
        docs = set(q["docs"])
        if docs and not (docs <= GROUP_A or docs <= GROUP_B): errs.append(f"{qid}: docs span groups {docs}")
        for d in list(docs) + list(q["pages"].keys()):
            if not os.path.exists(f"{CORPUS}/{d}.pdf"): errs.append(f"{qid}: unknown doc {d}")
        if not set(q["pages"]) <= docs: errs.append(f"{qid}: pages doc not in docs")
        if q["kind"] == "unanswerable":
            if q["answer"] is not None or q["pages"] != {} or q["missing"] not in MISSING or not q["nearby"]:
                errs.append(f"{qid}: unanswerable fields wrong")
            continue
        if not q["answer"]: errs.append(f"{qid}: empty answer")
        if not q["pages"]: errs.append(f"{qid}: no pages")
        if q["kind"] == "figure":
            fg = q["figure"] or {}
            if fg.get("page") not in q["pages"].get(fg.get("doc"), []): errs.append(f"{qid}: figure page not in pages")
        if q["kind"] == "compare" and not q.get("values"): errs.append(f"{qid}: compare without values")
        if q["history"] and not isinstance(q["history"], list): errs.append(f"{qid}: history not list")
        at = q["answer_type"]
        if at == "reported":
            n = NUM.findall(q["value"] or "")
            if not n: errs.append(f"{qid}: reported without numeric value")
            elif not on_pages(n[0], q["pages"]): errs.append(f"{qid}: value {n[0]} not found on listed pages")
        elif at == "computed":
            if not q["formula"]: errs.append(f"{qid}: computed without formula")
            else: check_formula(q["formula"], q["pages"], errs, qid)
            if q["value"]:
                v = NUM.findall(q["value"])[0]
                if v.replace(",", "") not in q["formula"].replace(",", ""):
                    errs.append(f"{qid}: value {v} not the formula result")
    from collections import Counter
    print("questions:", len(rows))
    for k in ["kind", "answer_type", "missing", "source"]:
        print(k, dict(Counter(q[k] for q in rows)))
    print("follow-ups:", sum(1 for q in rows if q["history"]))
    ga = sum(1 for q in rows if set(q["docs"]) and set(q["docs"]) <= GROUP_A)
    gb = sum(1 for q in rows if set(q["docs"]) and set(q["docs"]) <= GROUP_B)
    print("group A:", ga, "group B:", gb, "no docs:", len(rows) - ga - gb)
    per = Counter(d for q in rows for d in q["docs"])
    print("per doc:", dict(per))
    print("ERRORS:", len(errs))
    for e in errs: print("  ", e)
    return 1 if errs else 0
if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
