"""Metadata accuracy: company, fiscal year, period and document type detected from the content of every filing
in ../shared/corpus/financebench-dev, against the truth its file name gives (COMPANY_YEAR[Qn]_TYPE[_date].pdf).

The detector never sees the file names: each file is read under the neutral name "document.pdf", exactly as
ingestion reads it (the first 12 pages' text in reading order, the PDF's own metadata).

Truth:
- company: the file's company is one of the issuer's names the detector found (its key, or a legal name, short
  name or trading symbol), spaces ignored ("best buy" ↔ BESTBUY, "Adobe Systems Incorporated" / "Adobe" ↔ ADOBE);
- fiscal year: the file's year is among the years the year filter accepts for the document (its labels). The
  file names follow "the calendar year in which the fiscal year ends": Ulta's "Fourth Quarter Fiscal 2022" (ended
  28 January 2023) is ULTABEAUTY_2023Q4. "shown" also reports how often the one year displayed equals the file's;
- period: FY for a 10-K, Qn for a 10-Q or an earnings release, none required for an 8-K;
- type: 10-K, 10-Q, 8-K, earnings release.
One file's name is wrong, checked by reading it (LABEL_ERRORS): its figures are given with and without it.

Issuer names: the names detected from every filing and report (financebench-dev, financebench, esg) are gathered
per issuer as ingestion files them (a new document joins the issuer it shares a name or symbol with), and each
name variant of tests/fixtures/name_variants.tsv (tickers, possessives, "&", punctuation, legal and short names,
and texts that name no issuer) must find exactly its issuer.

Usage: python bench/bench_metadata.py [--corpus DIR] [--out bench/results/metadata.json]"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
TYPES = {"10K": "10-K", "10Q": "10-Q", "8K": "8-K", "EARNINGS": "earnings release"}
# File names that contradict the document's own cover (read by hand; the detector never sees this table).
LABEL_ERRORS = {"ADOBE_2022Q2_10Q.pdf": "the cover reads 'for the quarterly period ended June 2, 2023': Adobe's "
                                        "fiscal 2023 (year ending 1 December 2023), not 2022"}
NAME = re.compile(r"^(?P<co>[A-Z0-9]+)_(?P<year>\d{4})(?:Q(?P<q>[1-4]))?_(?P<type>10K|10Q|8K|EARNINGS)(?=[_.])")


def truth(file_name: str) -> dict | None:
    m = NAME.match(file_name)
    if not m:
        return None
    t = TYPES[m["type"]]
    period = "FY" if t == "10-K" else f"Q{m['q']}" if m["q"] else None
    return {"company": m["co"].lower(), "fiscal_year": int(m["year"]), "period": period, "doc_type": t}


def detected(path: Path) -> dict:
    from rag.ingest import metadata
    from rag.ingest.pdf import open_pdf

    try:
        from rag.ingest.pipeline import first_pages_text
    except ImportError:  # code from before the function existed (a baseline run with --code)
        first_pages_text = _first_pages_text

    doc = open_pdf(path, None, 10_000, 100_000)
    try:
        pages = first_pages_text(doc)
        m = metadata.detect(pages[:5], doc.metadata or {}, "document.pdf", later_pages=pages[5:])
    finally:
        doc.close()
    return {"company": (m.company_key or "").replace(" ", ""), "company_key": m.company_key, "company_name": m.company,
            "fiscal_year": m.fiscal_year, "year_labels": list(m.year_labels or []), "period": m.fiscal_period,
            "doc_type": m.doc_type, "aliases": list(getattr(m, "aliases", None) or [])}


def _first_pages_text(doc, n: int = 12) -> list[str]:
    from rag.ingest import layout
    from rag.ingest.pipeline import DICT_FLAGS

    out = []
    for i in range(min(n, doc.page_count)):
        page = doc.load_page(i)
        rows = layout.reading_order(layout.lines_from_dict(page.get_text("dict", flags=DICT_FLAGS)),
                                    page.rect.width, i + 1)
        out.append("\n".join(r.text for r in rows))
    return out


VARIANTS = ROOT / "tests/fixtures/name_variants.tsv"


def _no_space(name: str) -> str:
    from rag.domain import company_key

    return re.sub(r"\s+", "", company_key(name) or name.lower())


def issuers_from(rows: list[dict]):
    """The store's issuers as ingestion files the documents, in file order (rag.issuers.Issuers.same_issuer)."""
    from rag.issuers import Issuer, Issuers

    issuers: list[Issuer] = []
    for r in rows:
        g = r["detected"]
        if not g["company_name"]:
            continue
        key = g.get("company_key") or g["company"]
        same = Issuers(issuers).same_issuer(key, g["aliases"] or [])
        if same:
            same.names = list(dict.fromkeys(same.names + (g["aliases"] or [])))
        else:
            issuers.append(Issuer(key, g["company_name"], list(g["aliases"] or [])))
    return Issuers(issuers)


class _OldIssuers:
    """For a baseline run (--code) of code from before rag.issuers: the store's {key: name} as ingestion filed the
    documents then (word-prefix keys), matched through the question parser of that code."""

    def __init__(self, rows: list[dict]):
        from rag.domain import match_known_company

        self.known: dict[str, str] = {}
        for r in rows:
            g = r["detected"]
            if g.get("company_key") and not match_known_company(g["company_key"], self.known):
                self.known[g["company_key"]] = g["company_name"]

    def find(self, text: str):
        from types import SimpleNamespace

        from rag.retrieve.query import understand

        return [SimpleNamespace(key=k, name=self.known[k], names=[k.split()[0]]) for k in
                understand(text, self.known).companies]


def name_variants(issuers, path: Path = VARIANTS) -> tuple[float, list[dict]]:
    """Each variant must find exactly its issuer ("-": none)."""
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        variant, want = line.split("\t")
        found = issuers.find(variant)
        names = [{_no_space(n) for n in [i.key, i.name, *i.names]} for i in found]
        ok = not found if want == "-" else len(found) == 1 and want in names[0]
        out.append({"variant": variant, "want": want, "found": [i.key for i in found], "ok": ok})
    return round(sum(r["ok"] for r in out) / max(len(out), 1), 3), out


def score(files: list[Path]) -> tuple[dict, list[dict]]:
    from rag.domain import company_key

    rows = []
    for f in files:
        want = truth(f.name)
        got = detected(f)
        if not want:  # a report without a truth in its name: its issuer's names still count
            rows.append({"file": f.name, "truth": None, "detected": got, "ok": None, "label_error": None})
            continue
        issuer = {got["company"]} | {re.sub(r"\s+", "", company_key(a) or "") for a in got["aliases"] or []} \
            | {re.sub(r"\s+", "", a.lower()) for a in got["aliases"] or []}
        ok = {"company": want["company"] in issuer, "fiscal_year": want["fiscal_year"] in (got["year_labels"] or []),
              "fiscal_year_shown": got["fiscal_year"] == want["fiscal_year"],
              "period": want["period"] is None or got["period"] == want["period"],
              "doc_type": got["doc_type"] == want["doc_type"]}
        ok["company+year+type"] = ok["company"] and ok["fiscal_year"] and ok["doc_type"]
        ok["all four"] = ok["company+year+type"] and ok["period"]
        rows.append({"file": f.name, "truth": want, "detected": got, "ok": ok, "label_error": LABEL_ERRORS.get(f.name)})
    scored = [r for r in rows if r["truth"]]
    summary = _rates(scored)
    summary["without label errors"] = _rates([r for r in scored if not r["label_error"]])
    return summary, rows


def _rates(rows: list[dict]) -> dict:
    n = len(rows)
    out: dict = {k: round(sum(r["ok"][k] for r in rows) / n, 3) for k in rows[0]["ok"]} if n else {}
    out["files"] = n
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(SHARED / "corpus/financebench-dev"))
    ap.add_argument("--names-from", nargs="*",
                    default=[str(SHARED / "corpus/financebench"), str(SHARED / "corpus/esg")],
                    help="more folders whose issuers' names count for the name-variant table (not scored)")
    ap.add_argument("--out", default=str(ROOT / "bench/results/metadata.json"))
    ap.add_argument("--code", help="measure the rag package of another checkout (a baseline, e.g. a git worktree "
                    "of an older commit)")
    a = ap.parse_args()
    if a.code:
        sys.path.insert(0, str(Path(a.code).resolve()))
    files = sorted(Path(a.corpus).glob("*.pdf")) + [f for d in a.names_from for f in sorted(Path(d).glob("*.pdf"))]
    if not files:
        print(f"no PDFs in {a.corpus}")
        return 1
    t0 = time.perf_counter()
    summary, rows = score(files)
    secs = time.perf_counter() - t0
    print(f"metadata accuracy over {summary['files']} filings ({secs:.0f} s, file names hidden from the detector)")
    clean = summary["without label errors"]
    print(f"  {'measure':20} {'all files':>9} {'without the mislabelled file':>30}")
    for k, v in summary.items():
        if k not in ("files", "without label errors"):
            print(f"  {k:20} {v:9.3f} {clean[k]:30.3f}")
    try:
        issuers = issuers_from(rows)
    except ImportError:  # a baseline run of older code
        issuers = _OldIssuers(rows)
    name_rate, variants = name_variants(issuers)
    summary["name variants"] = name_rate
    print(f"  {'name variants':20} {name_rate:9.3f}   ({len(variants)} variants, tests/fixtures/name_variants.tsv)")
    for v in variants:
        if not v["ok"]:
            print(f"  miss name {v['variant']!r}: found {v['found']} (want {v['want']})")
    misses = [r for r in rows if r["truth"] and not r["ok"]["all four"]]
    for r in misses:
        wrong = [k for k in ("company", "fiscal_year", "period", "doc_type") if not r["ok"][k]]
        note = f"  [{r['label_error']}]" if r["label_error"] else ""
        print(f"  miss {r['file']:40} " + ", ".join(f"{k}: {r['detected'][k]!r} (want {r['truth'][k]!r})"
                                                     for k in wrong) + note)
    Path(a.out).write_text(json.dumps({"summary": summary, "seconds": round(secs, 1), "files": rows,
                                       "name_variants": variants}, indent=2))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
