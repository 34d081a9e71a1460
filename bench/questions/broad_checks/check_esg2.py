#!/usr/bin/env python3
"""Checker for /work/labels/esg2/questions.jsonl.

- file is valid JSONL, ids unique, required fields present, docs from one group only
- reported: the gold number (first number in `value`) is printed on at least one listed page
  (English "1,234.5", German "1.234,5", plain, or digits with any separators)
- computed: every input number in `formula` (left of '=') is printed on a listed page and the
  arithmetic of the left side equals the right side (to the printed rounding)
- compare: every entry of `values` is printed on a listed page (computed differences are checked via formula)
- unanswerable: pages == {}, answer null, missing in {entity, period, measure, breakdown}, nearby given
Run: /tmp/venv-esg2/bin/python check.py
"""
import json, re, sys
import pymupdf as fitz

CORPUS = "/work/shared/corpus/esg/"
QFILE = "/work/labels/esg2/questions.jsonl"
GROUPS = [
    {"mtu_aero_engines_annual_report_2023", "sbo_annual_report_2023", "addiko_sustainability_report_2023"},
    {"polytec_annual_report_2023", "viscom_annual_report_2023"},
]
FIELDS = ["id", "question", "history", "kind", "source", "docs", "pages", "answer", "answer_type", "value",
          "formula", "figure", "missing", "nearby", "notes"]
KINDS = {"fact", "figure", "narrative", "compare", "unanswerable"}

_cache = {}


def page_text(doc, p):
    if doc not in _cache:
        _cache[doc] = fitz.open(CORPUS + doc + ".pdf")
    return _cache[doc][p - 1].get_text()


def variants(num):
    """num: plain number string like '39428' or '101382.7' or '-1.90'."""
    num = num.lstrip("+")
    neg = num.startswith("-")
    num = num.lstrip("-")
    if "." in num:
        ip, dp = num.split(".")
    else:
        ip, dp = num, ""
    groups = []
    s = ip
    while len(s) > 3:
        groups.insert(0, s[-3:]); s = s[:-3]
    groups.insert(0, s)
    out = set()
    for ts, ds in [(",", "."), (".", ","), ("", "."), ("", ","), (" ", ","), (" ", "."), ("\u202f", ","), ("\u00a0", ",")]:
        v = ts.join(groups)
        if dp:
            v += ds + dp
        out.add(v)
    return out


def number_on_page(num, text):
    t = text.replace("\n", " ")
    for v in variants(num):
        if re.search(r"(?<![\d])" + re.escape(v) + r"(?![\d])", t):
            return True
    # fallback: digits with arbitrary thousands/decimal separators (e.g. '12.065,575')
    digits = num.lstrip("+-").replace(".", "")
    if len(digits) < 5:
        return False
    squashed = re.sub(r"(?<=\d)[.,\u202f\u00a0 ](?=\d)", "", t)
    return re.search(r"(?<![\d])" + re.escape(digits) + r"(?![\d])", squashed) is not None


def first_number(s):
    m = re.search(r"-?\d[\d,]*\.?\d*", s)
    if not m:
        return None
    return m.group(0).replace(",", "").rstrip(".")


def on_pages(num, pages):
    for doc, ps in pages.items():
        for p in ps:
            if number_on_page(num, page_text(doc, p)):
                return True
    return False


def check_formula(formula, pages):
    errs = []
    left, right = formula.rsplit("=", 1)
    expr = left.replace(",", "")
    # inputs: numbers in left side, except a '* 100' percent multiplier
    nums = re.findall(r"\d+(?:\.\d+)?", expr)
    mult100 = re.search(r"\*\s*100\b", expr) is not None
    for n in nums:
        if n == "100" and mult100:
            continue
        if not on_pages(n, pages):
            errs.append(f"formula input {n} not found on listed pages")
    try:
        val = eval(expr, {"__builtins__": {}})
    except Exception as e:
        return errs + [f"cannot eval formula: {e}"]
    r = right.replace(",", "").strip()
    m = re.search(r"-?\d+(?:\.\d+)?", r)
    if not m:
        return errs + ["no result on right side of formula"]
    res = float(m.group(0))
    dec = len(m.group(0).split(".")[1]) if "." in m.group(0) else 0
    if abs(val - res) > 0.5 * 10 ** (-dec) + 1e-9:
        errs.append(f"arithmetic: {val} != {res}")
    return errs


def main():
    errs_total = 0
    seen = set()
    rows = []
    with open(QFILE) as f:
        for ln, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                print(f"line {ln}: invalid JSON: {e}"); errs_total += 1
    for d in rows:
        errs = []
        for k in FIELDS:
            if k not in d:
                errs.append(f"missing field {k}")
        if d["id"] in seen:
            errs.append("duplicate id")
        seen.add(d["id"])
        if not d["id"].startswith("e2_"):
            errs.append("bad id prefix")
        if d["kind"] not in KINDS:
            errs.append("bad kind")
        docs = set(d["docs"])
        if docs and not any(docs <= g for g in GROUPS):
            errs.append("docs span groups")
        for doc in d["pages"]:
            if doc not in docs:
                errs.append(f"pages doc {doc} not in docs")
        if d["history"] and not isinstance(d["history"], list):
            errs.append("history not list")
        at = d["answer_type"]
        if d["kind"] == "unanswerable":
            if d["pages"] != {} or d["answer"] is not None or at is not None:
                errs.append("unanswerable must have pages {}, answer null, answer_type null")
            if d["missing"] not in {"entity", "period", "measure", "breakdown"}:
                errs.append("bad missing")
            if not d["nearby"]:
                errs.append("nearby missing")
        else:
            if not d["pages"]:
                errs.append("no pages")
            if d["kind"] == "figure":
                fg = d["figure"] or {}
                if not all(k in fg for k in ("doc", "page", "caption", "type")):
                    errs.append("figure dict incomplete")
                elif fg["page"] not in d["pages"].get(fg["doc"], []):
                    errs.append("figure page not in pages")
            if at == "reported" and d["value"]:
                n = first_number(d["value"])
                if n is None or not on_pages(n, d["pages"]):
                    errs.append(f"reported value {d['value']} not found on listed pages")
            if at == "computed":
                if not d["formula"]:
                    errs.append("computed without formula")
                else:
                    errs += check_formula(d["formula"], d["pages"])
                    n = first_number(d["value"] or "")
                    res = first_number(d["formula"].rsplit("=", 1)[1])
                    if n is None or res is None or abs(float(n) - float(res)) > 1e-9:
                        errs.append(f"value {d['value']} != formula result")
            if d["kind"] == "compare":
                for v in d.get("values") or []:
                    n = first_number(v)
                    if n is None or not on_pages(n, d["pages"]):
                        errs.append(f"compare value {v} not on listed pages")
            if at == "narrative" and d["value"] is not None:
                errs.append("narrative with value")
        if errs:
            errs_total += len(errs)
            print(d["id"], "FAIL:", "; ".join(errs))
    # summary
    from collections import Counter
    print(f"\n{len(rows)} questions, {errs_total} errors")
    print("kind:", dict(Counter(d["kind"] for d in rows)))
    print("source:", dict(Counter(str(d["source"]) for d in rows)))
    print("answer_type:", dict(Counter(str(d["answer_type"]) for d in rows)))
    print("missing:", dict(Counter(d["missing"] for d in rows if d["missing"])))
    print("follow-ups:", sum(1 for d in rows if d["history"]))
    print("per doc:", dict(Counter(x for d in rows for x in d["docs"])))
    un = sum(1 for d in rows if d["kind"] == "unanswerable")
    print(f"unanswerable share: {un}/{len(rows)} = {un/len(rows):.1%}")
    return 1 if errs_total else 0


if __name__ == "__main__":
    sys.exit(main())
