"""Where the judge loses a figure: is the gold value among the typed candidates at all (candidate generation), and does
the judge pick it (selection)? And would fitting the judge's weights from data, instead of setting them, pick it more
often? Reads the TUNING part of a broad labelled set only; the held-back part is never read.

For every answerable figure question of the tuning part (reported or computed), it runs the offline retrieval plan,
builds the judge exactly as the answer does (`rag/answer/fit.py`), and records each candidate's features (meaning,
the measure's words, the unit / period / entity / qualifier checks, exact unit, retrieval rank, sentence or row) and
whether its value is the gold value (the eval's own number match). Then:
- oracle: a candidate holds the gold value;
- judge: the first candidate the judge lets answer holds it;
- learned: a listwise (softmax per question) linear model over the same features, fitted with every document but
  one and scored on that one (leave one document out), holds it at its top.
A gold value that matches a candidate by coincidence (a bare "1") counts too, so the oracle is an upper bound.

Usage: python bench/judge_oracle.py --data-dir STORE QUESTIONS.jsonl [--data-dir STORE2 QUESTIONS2.jsonl]
       [--json bench/results/judge_oracle.json]"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FEATURES = ["meaning", "words", "unit+", "unit-", "period+", "period-", "entity-", "qualifier+", "qualifier-",
            "exact unit", "rank", "sentence", "no value"]


def candidates(data_dir: str, qfile: Path) -> list[dict]:
    from rag.answer.fit import Judge, _vectors
    from rag.assistant.plan import offline_plan
    from rag.assistant.tools import ToolContext
    from rag.config import Settings
    from rag.embed import Embedder
    from rag.eval import load_questions, resolve_documents
    from rag.eval_answers import _page_texts, gold_of, number_matches
    from rag.retrieve.measure import asked, strip_instructions
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = data_dir
    store = open_store(s)
    emb = Embedder(s.embedding)
    emb.load()
    docs = store.list_documents()
    by_id = {d.document_id: d for d in docs}
    qs = load_questions(qfile)
    names = resolve_documents(store, qs, qfile)
    cache: dict = {}
    out = []
    for q in qs:
        if q.get("split") != "tune" or q.get("kind") == "unanswerable" or \
                q.get("answer_type") not in ("reported", "computed"):
            continue  # the held-back part is never read
        gold = gold_of(q, _page_texts(store, q, names, cache))
        if gold.value is None:
            continue
        golds = gold.others or [gold.value]
        r = offline_plan(ToolContext(store, emb, s, docs, q["question"], None, q.get("history")))
        rows: list[dict] = []
        if not r.refused and r.chunks:
            it, ask = r.intent, asked(r.intent)
            words = it.company_names + it.company_terms + [c.replace("-", " ") for c in it.companies]
            j = Judge(emb, strip_instructions(it.rewritten), list(ask.companies), words, list(ask.years), by_id,
                      named=ask.named)
            ranked = j.best_value(r.facts, r.chunks)
            top = max((c.chunk.final for c in ranked), default=1.0) or 1.0
            meaning = _vectors(emb, [c.label for c in ranked]) @ j.measure_vec if ranked else []
            for c, m in zip(ranked, meaning):
                ch = c.checks
                rows.append({
                    "x": [float(m), j._words_in(c.label), ch["unit"] == "match", ch["unit"] == "mismatch",
                          ch["period"] == "match", ch["period"] == "mismatch", ch["entity"] == "mismatch",
                          ch["qualifier"] == "match", ch["qualifier"] == "mismatch",
                          bool(j.unit_asked and c.fact is not None and c.fact.unit == j.unit_asked),
                          max(c.chunk.final, 0.0) / top, c.kind == "sentence", c.value is None],
                    "answers": j.answers(c),
                    "gold": c.value is not None and any(number_matches(g, c.value) for g in golds)})
        out.append({"id": q["id"], "doc": (q.get("docs") or ["?"])[0], "cands": rows})
    return out


def fit(rows: list[dict], l2: float = 0.01, steps: int = 1500, lr: float = 0.5) -> np.ndarray:
    """A linear score per candidate, fitted so that each question's gold candidates get the softmax's mass."""
    groups = [(np.array([c["x"] for c in r["cands"]], float), np.array([c["gold"] for c in r["cands"]], float))
              for r in rows if any(c["gold"] for c in r["cands"])]
    w = np.zeros(len(FEATURES))
    for _ in range(steps):
        g = l2 * w
        for X, y in groups:
            s = X @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            g += X.T @ (p - y / y.sum()) / len(groups)
        w -= lr * g
    return w


def measure(rows: list[dict]) -> dict:
    rows = [r for r in rows if r["cands"]]
    n = len(rows)
    oracle = sum(any(c["gold"] for c in r["cands"]) for r in rows)
    judge = sum(next((c["gold"] for c in r["cands"] if c["answers"]), False) for r in rows)
    learned = 0
    for d in sorted({r["doc"] for r in rows}):
        w = fit([r for r in rows if r["doc"] != d])
        for r in (r for r in rows if r["doc"] == d):
            learned += bool(r["cands"][int(np.argmax([np.array(c["x"], float) @ w for c in r["cands"]]))]["gold"])
    return {"questions": n, "oracle": round(oracle / n, 3), "judge": round(judge / n, 3),
            "learned_leave_one_document_out": round(learned / n, 3),
            "weights_all_documents": dict(zip(FEATURES, np.round(fit(rows), 2).tolist()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", nargs=2, action="append", metavar=("STORE", "QUESTIONS"), required=True)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    t0 = time.perf_counter()
    result = {}
    for store, qfile in a.data_dir:
        result[Path(qfile).stem] = measure(candidates(store, Path(qfile)))
    print("| set (tuning part) | figures with candidates | oracle | judge | learned weights (leave one doc out) |")
    print("|---|---|---|---|---|")
    for k, v in result.items():
        print(f"| {k} | {v['questions']} | {v['oracle']:.3f} | {v['judge']:.3f} | "
              f"{v['learned_leave_one_document_out']:.3f} |")
    print(f"({time.perf_counter() - t0:.0f} s)")
    if a.json:
        a.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
