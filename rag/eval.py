"""Retrieval evaluation over labelled questions (../shared/eval format), with the plain cosine top-k baseline
(the old system's retriever) measured in the same run."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from rag.config import RetrievalSettings
from rag.ingest.pdf import sha256_file
from rag.records import FigureHit, Hit
from rag.retrieve.pipeline import retrieve


class Question(TypedDict, total=False):
    """One labelled question (../shared/eval/README.md): its id, text and kind, the gold documents (file names
    without ".pdf") and 1-based pages, the short gold answer, the chart a good answer shows, the gold section."""
    id: str
    question: str
    kind: str  # fact | figure | section | compare | unanswerable
    docs: list[str]
    pages: dict[str, list[int]]
    answer: str | None
    figure: dict[str, Any] | None  # {doc, page, caption, type, raster_or_vector}
    section: str | None
    notes: str
    split: str  # tune | held (a labelled set split by document)
    history: list[Any]  # earlier turns, for a follow-up
    value: float | None  # the gold figure, where the answer computes one
    missing: str | None  # what an unanswerable question lacks: company | period | measure


class Judged(TypedDict, total=False):
    """One question's retrieval, judged against its labels (one row of a report's per_question)."""
    id: str
    kind: str | None
    doc_hit: bool
    page_hit: bool
    rr: float
    refused: bool
    distinct_docs: int
    n_figures: int
    section_hit: bool
    figure_hit: bool
    all_docs_hit: bool
    newest_doc: bool
    latest: bool
    top: list[tuple[str, int]]


def load_questions(path: Path) -> list[Question]:
    return [json.loads(l) for l in Path(path).read_text().splitlines() if l.strip()]


def questions_of_rows(rows: Iterable[Mapping[str, Any]], stems: dict[str, str]) -> list[Question]:
    """Questions a user wrote (Debug's table: question, document, page) in the labelled format `run_eval` reads;
    `stems` maps a document's label to its file name without ".pdf". Rows without all three are left out."""
    out: list[Question] = []
    for r in rows:
        q, doc, page = (r.get("question") or "").strip(), r.get("document"), r.get("page")
        if q and doc in stems and page:
            stem = stems[doc]
            out.append({"id": f"own-{len(out) + 1}", "question": q, "kind": "fact", "docs": [stem],
                        "pages": {stem: [int(page)]}})
    return out


def resolve_documents(store, questions: list[Question], questions_path: Path) -> dict[str, int]:
    """Gold document name → document id: by file name, else by content hash of the named corpus file
    (a byte-identical copy is stored once under its first name)."""
    docs = store.list_documents()
    by_stem = {Path(d.file_name).stem: d.document_id for d in docs}
    out: dict[str, int] = {}
    corpus = Path(questions_path).resolve().parent.parent / "corpus"
    for q in questions:
        for name in q.get("docs", []):
            if name in out:
                continue
            if name in by_stem:
                out[name] = by_stem[name]
                continue
            for p in corpus.rglob(f"{name}.pdf") if corpus.exists() else []:
                did = store.document_by_sha256(sha256_file(p))
                if did:
                    out[name] = did
                    break
    return out


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def _judge(q: Question, rows: Sequence[Hit], figures: Sequence[FigureHit], refused: bool, names: dict[str, int],
           newest_of: set[int] | None) -> Judged:
    gold_ids = {names[n] for n in q.get("docs", []) if n in names}
    gold_pages = {(names[n], p) for n, ps in (q.get("pages") or {}).items() if n in names for p in ps}
    doc_hit = any(r.document_id in gold_ids for r in rows)
    page_rank = next((i + 1 for i, r in enumerate(rows) if any((r.document_id, p) in gold_pages for p in r.pages)),
                     None)
    out: Judged = {"id": q["id"], "kind": q.get("kind"), "doc_hit": doc_hit, "page_hit": page_rank is not None,
                   "rr": 1.0 / page_rank if page_rank else 0.0, "refused": refused,
                   "distinct_docs": len({r.document_id for r in rows}), "n_figures": len(figures)}
    if q.get("section"):
        out["section_hit"] = any(r.section_type == q["section"] and r.document_id in gold_ids for r in rows)
    g = q.get("figure")
    if g:
        gid = names.get(g["doc"])
        out["figure_hit"] = any(f.document_id == gid and f.page == g["page"] for f in figures)
    if q.get("kind") == "compare":
        out["all_docs_hit"] = gold_ids <= {r.document_id for r in rows}
    if newest_of is not None:
        out["newest_doc"] = bool(rows) and rows[0].document_id in newest_of
    return out


def _summary(items: list[Judged], latencies: list[float]) -> dict:
    answerable = [i for i in items if i["kind"] != "unanswerable"]
    unans = [i for i in items if i["kind"] == "unanswerable"]

    def rate(xs, key):
        vals = [x[key] for x in xs if key in x]
        return round(sum(vals) / len(vals), 3) if vals else None

    figq = [i for i in items if "figure_hit" in i]
    return {
        "questions": len(items),
        "doc@k": rate(answerable, "doc_hit"), "page@k": rate(answerable, "page_hit"), "mrr": rate(answerable, "rr"),
        "section@k": rate(answerable, "section_hit"), "figure_hit": rate(figq, "figure_hit"),
        "figures_per_answer": round(statistics.mean(i["n_figures"] for i in figq), 2) if figq else None,
        "compare_all_docs": rate(answerable, "all_docs_hit"),
        "distinct_docs_topk": round(statistics.mean(i["distinct_docs"] for i in answerable), 2) if answerable else None,
        "latest_from_newest": rate([i for i in items if i.get("latest")], "newest_doc"),
        "refusal_unanswerable": rate(unans, "refused"), "refusal_answerable": rate(answerable, "refused"),
        "latency_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "latency_p95_ms": round(pct(latencies, 95), 1) if latencies else None,
    }


def run_eval(store, embedder, questions_path: Path, k: int = 5, baseline: bool = True,
             cfg: RetrievalSettings | None = None, progress=None) -> dict:
    questions = load_questions(questions_path)
    names = resolve_documents(store, questions, questions_path)
    docs = store.list_documents()
    cfg = (cfg or RetrievalSettings()).model_copy(update={"k": k})
    sys_items: list[Judged] = []
    base_items: list[Judged] = []
    sys_lat: list[float] = []
    base_lat: list[float] = []
    embedder.load()
    for i, q in enumerate(questions):
        embedder._cache.clear()
        t = time.perf_counter()
        r = retrieve(store, embedder, q["question"], cfg, documents=docs)
        sys_lat.append((time.perf_counter() - t) * 1000)
        newest = None
        if r.intent.latest:
            comp = [d for d in docs if not r.intent.companies or d.company_key in r.intent.companies]
            top = max((d.fiscal_year or 0 for d in comp), default=0)
            newest = {d.document_id for d in comp if (d.fiscal_year or 0) == top}
        item = _judge(q, r.chunks, r.figures, r.refused, names, newest)
        item["latest"] = r.intent.latest
        item["top"] = [(c.file_name, c.page_start) for c in r.chunks]
        sys_items.append(item)
        if baseline:
            embedder._cache.clear()
            t = time.perf_counter()
            vec = embedder.encode_query(q["question"])
            lit = "[" + ",".join(f"{x:.7g}" for x in vec) + "]"
            rows = [Hit.from_row(x) for x in store.rpc("match_chunks_cosine", {"query_embedding": lit, "match_count": k})]
            figs = store.match_figures(vec, match_count=3)
            base_lat.append((time.perf_counter() - t) * 1000)
            b = _judge(q, rows, figs, False, names, newest)
            b["latest"] = r.intent.latest
            base_items.append(b)
        if progress:
            progress(i + 1, len(questions))
    report: dict[str, Any] = {"questions_file": str(questions_path), "k": k, "settings": cfg.model_dump(),
              "system": _summary(sys_items, sys_lat), "per_question": sys_items}
    if baseline:
        report["baseline"] = _summary(base_items, base_lat)
        report["baseline_per_question"] = base_items
    keys = ["doc@k", "page@k", "mrr", "section@k", "figure_hit", "compare_all_docs", "refusal_unanswerable"]
    report["plot"] = {"metrics": keys, "system": [report["system"][m] for m in keys],
                      "baseline": [report.get("baseline", {}).get(m) for m in keys]}
    return report


def format_report(rep: dict) -> str:
    keys = ["questions", "doc@k", "page@k", "mrr", "section@k", "figure_hit", "figures_per_answer",
            "compare_all_docs", "distinct_docs_topk", "latest_from_newest", "refusal_unanswerable",
            "refusal_answerable", "latency_p50_ms", "latency_p95_ms"]
    lines = [f"{'metric (k=' + str(rep['k']) + ')':26} {'system':>10} {'baseline':>10}"]
    for key in keys:
        s, b = rep["system"].get(key), rep.get("baseline", {}).get(key)
        fmt = lambda v: "—" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
        lines.append(f"{key:26} {fmt(s):>10} {fmt(b):>10}")
    return "\n".join(lines)
