"""Issue 38's measures of the workpaper (rag/workpaper), on a store of the shared filings:

  restatements  the restated cells found in an issuer's three 10-Ks' statements, against a list made by hand
                (bench/questions/workpaper/restatements.jsonl): recall and precision by issuer
  footing       per issuer: checks, tables checked (of tables with a total or a change), share failing, by class
  sample        N random history cells, half from the tuning issuers and half from the held-back ones, for a check
                on their pages by people who never see the code
  cells         the blind check's verdicts: value, period and unit right, by part

A tuning and a held-back part, by issuer: the six issuers of financebench-dev tune; the five of financebench-more
are held back. Prints a table and writes JSON (--out).

  RAG_DATA_DIR=STORE python bench/bench_workpaper.py restatements --out F
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.config import settings_from_env  # noqa: E402
from rag.quantities import read_cell  # noqa: E402
from rag.store import open_store  # noqa: E402
from rag.workpaper import load_workpaper  # noqa: E402
from rag.workpaper.footing import check_document  # noqa: E402
from rag.workpaper.history import build_history  # noqa: E402

GOLD = ROOT / "bench" / "questions" / "workpaper"
TUNING = ["3m", "adobe", "amcor", "best buy", "boeing", "ulta beauty"]
HELD = ["american water works", "lockheed martin", "microsoft", "netflix", "walmart"]
STATEMENT_OF = {"income statement": "income statement", "balance sheet": "balance sheet", "cash flows": "cash flows"}


def _num(raw: str) -> float | None:
    raw = raw.strip()
    if raw in ("—", "-", "–", ""):
        return 0.0
    c = read_cell(raw)
    return None if c is None else round(c.value, 4)


def _part(key: str) -> str:
    return "tuning" if any(key.startswith(t.split()[0]) for t in TUNING) else "held back"


def _store_and_embed():
    from rag.embed import Embedder

    s = settings_from_env()
    store = open_store(s)
    emb = Embedder(s.embedding).load()
    return store, emb


def _issuer_docs(store, name: str, files: list[str] | None = None):
    docs = store.list_documents()
    from rag.issuers import issuers_of

    found = issuers_of(store, docs).find(name)
    key = found[0].key if found else name
    mine = [d for d in docs if d.company_key == key and (files is None or d.file_name in files)]
    return key, mine


# -- restatements --------------------------------------------------------------------------------------------------

def _gold_cells(rows: list[dict]) -> list[tuple[str, int, frozenset]]:
    """The hand list's restated cells: rows of one statement and year that share a value are one cell."""
    cells: list[tuple[str, int, set]] = []
    for r in rows:
        vals = {_num(r["earlier_value"]), _num(r["later_value"])} - {None}
        for st, yr, got in cells:
            if st == r["statement"] and yr == r["fiscal_year"] and got & vals:
                got |= vals
                break
        else:
            cells.append((r["statement"], r["fiscal_year"], set(vals)))
    return [(s, y, frozenset(v)) for s, y, v in cells]


def cmd_restatements(args) -> dict:
    store, emb = _store_and_embed()
    gold = [json.loads(x) for x in (GOLD / "restatements.jsonl").read_text().splitlines() if x.strip()]
    out = {}
    for issuer in sorted({g["issuer"] for g in gold}):
        rows = [g for g in gold if g["issuer"] == issuer]
        files = sorted({g[k] for g in rows for k in ("earlier_file", "later_file")})
        key, docs = _issuer_docs(store, issuer, files)
        h = build_history(issuer, [(d, store.document_tables(d.document_id)) for d in docs], embed=emb.encode)
        mine = []
        for m, c in h.restatements():
            if m.topic in STATEMENT_OF:
                vals = frozenset(x for x in [_num(c.value.raw), *[_num(v.raw) for v in c.restated]] if x is not None)
                mine.append((m.topic, int(c.period[2:]) if c.period.startswith("FY") else 0, vals, m.label_path))
        gcells = _gold_cells(rows)
        hit_gold = [g for g in gcells if any(s == g[0] and y == g[1] and len(v & g[2]) >= 2 for s, y, v, _ in mine)]
        hit_mine = [x for x in mine if any(x[0] == g[0] and x[1] == g[1] and len(x[2] & g[2]) >= 2 for g in gcells)]
        out[issuer] = {"part": _part(key), "documents": [d.file_name for d in docs], "gold_cells": len(gcells),
                       "found": len(mine), "recall": len(hit_gold) / max(1, len(gcells)),
                       "precision": len(hit_mine) / max(1, len(mine)),
                       "missed": [(s, y, sorted(v)) for s, y, v in gcells if (s, y, v) not in hit_gold],
                       "false": [(s, y, sorted(v), lab) for s, y, v, lab in mine if (s, y, v, lab) not in hit_mine]}
        print(f"{issuer:18} {out[issuer]['part']:10} gold {len(gcells):3}  found {len(mine):3}  "
              f"recall {out[issuer]['recall']:.2f}  precision {out[issuer]['precision']:.2f}")
    return out


# -- footing -------------------------------------------------------------------------------------------------------

def cmd_footing(args) -> dict:
    store = open_store(settings_from_env())
    out: dict = {}
    for name in TUNING + HELD:
        key, docs = _issuer_docs(store, name)
        if not docs:
            continue
        checks, tables = [], 0
        for d in docs:
            ts = store.document_tables(d.document_id)
            tables += len(ts)
            checks += check_document(d, ts)
        checked = {(c.document_id, c.table_title) for c in checks}
        failed = [c for c in checks if not c.ok]
        out[name] = {"part": _part(key), "documents": len(docs), "tables": tables, "tables_checked": len(checked),
                     "checks": len(checks), "failed": len(failed),
                     "failed_tables": len({(c.document_id, c.table_title) for c in failed}),
                     "by_kind": {k: {"checks": sum(c.kind == k for c in checks),
                                     "failed": sum(c.kind == k for c in failed)}
                                 for k in ("sum", "balance", "scope", "change")},
                     "classes": dict(Counter(c.verdict for c in failed))}
        o = out[name]
        print(f"{name:22} {o['part']:10} tables {tables:5} checked {len(checked):4} checks {len(checks):5} "
              f"failed {len(failed):4} ({len(failed) / max(1, len(checks)):.2f}) {o['classes']}")
    for part in ("tuning", "held back"):
        rows = [o for k, o in list(out.items()) if not k.startswith("_") and o["part"] == part]
        n, f = sum(o["checks"] for o in rows), sum(o["failed"] for o in rows)
        tc, t = sum(o["tables_checked"] for o in rows), sum(o["tables"] for o in rows)
        out[f"_{part}"] = {"checks": n, "failed": f, "share_failing": f / max(1, n), "tables": t,
                           "tables_checked": tc, "share_checked": tc / max(1, t)}
        print(f"{part:10} checks {n}, failing {f / max(1, n):.3f}; tables checked {tc} of {t} ({tc / max(1, t):.2f})")
    return out


def cmd_failures(args) -> dict:
    """A random sample of failing checks, half per part, for a blind label: real (as printed) or our misread."""
    store = open_store(settings_from_env())
    rng = random.Random(args.seed)
    pool: dict[str, list] = defaultdict(list)
    for name in TUNING + HELD:
        key, docs = _issuer_docs(store, name)
        for d in docs:
            for c in check_document(d, store.document_tables(d.document_id)):
                if not c.ok:
                    pool[_part(key)].append(c)
    items = []
    for part in ("tuning", "held back"):
        for c in rng.sample(pool[part], min(args.n // 2, len(pool[part]))):
            items.append({"id": len(items) + 1, "part": part, **c.to_json()})
    return {"items": items}


# -- cells ---------------------------------------------------------------------------------------------------------

def cmd_sample(args) -> dict:
    store, emb = _store_and_embed()
    rng = random.Random(args.seed)
    items = []
    for part, names in (("tuning", TUNING), ("held back", HELD)):
        per = args.n // 2 // len(names)
        extra = args.n // 2 - per * len(names)
        for i, name in enumerate(names):
            wp = load_workpaper(store, emb.encode, company=name)
            cells = [(m, c) for m in wp.history.measures for c in m.cells.values()]
            for m, c in rng.sample(cells, per + (1 if i < extra else 0)):
                v = c.value
                items.append({"id": len(items) + 1, "part": part, "issuer": wp.history.title,
                              "file": v.source.file_name, "page": v.source.page, "table_title": v.source.table_title,
                              "row_label": m.label_path if v.source.row_text.startswith(m.label_path.split(" › ")[-1])
                              else v.source.row_text.split(" | ")[0], "measure": m.label_path, "period": c.period,
                              "value_shown": v.raw, "value": v.value, "unit": v.unit, "scale": v.scale,
                              "row_as_read": v.source.row_text})
    return {"items": items}


def cmd_cells(args) -> dict:
    labels = [json.loads(x) for x in Path(args.labels).read_text().splitlines() if x.strip()]
    out = {}
    for part in ("tuning", "held back"):
        rows = [r for r in labels if r["part"] == part]
        n = len(rows)
        res = {k: sum(bool(r.get(k)) for r in rows) / max(1, n) for k in ("value_ok", "period_ok", "unit_ok")}
        right = [r for r in rows if r.get("value_ok") and r.get("period_ok") and r.get("unit_ok")]
        res["all_ok"] = len(right) / max(1, n)
        res["n"] = n
        out[part] = res
        print(f"{part:10} n={n:3} value {res['value_ok']:.3f} period {res['period_ok']:.3f} unit {res['unit_ok']:.3f}"
              f" all three {res['all_ok']:.3f}")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["restatements", "footing", "failures", "sample", "cells"])
    p.add_argument("--n", type=int, default=150)
    p.add_argument("--seed", type=int, default=38)
    p.add_argument("--labels", help="cells: the blind check's verdicts (JSONL)")
    p.add_argument("--out", help="write the result as JSON")
    args = p.parse_args()
    t0 = time.perf_counter()
    res = {"restatements": cmd_restatements, "footing": cmd_footing, "failures": cmd_failures, "sample": cmd_sample,
           "cells": cmd_cells}[args.what](args)
    res = {"what": args.what, "seconds": round(time.perf_counter() - t0, 1), "result": res}
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1, ensure_ascii=False, default=str))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
