"""Why the chunks were chosen, in words and tables a developer reads at a glance (the Debug page and the demo):
what the question was read as, what each stage did to the spread of documents and pages, and what diversity
changed. Plain data in, plain rows out; no Streamlit here."""

from __future__ import annotations

from typing import Any, TypedDict

from rag.answer.labels import document_label, source_label
from rag.ingest.chartread import reading_line
from rag.retrieve.pipeline import Retrieval
from rag.retrieve.query import QueryIntent
from rag.retrieve.stages import Budget, Candidates, Coverage, Diversify, Facts, Figures, ScopeAndFilters, Threshold

# The rows of the tables Debug and the RAG demo draw, one TypedDict per table, keyed by the column headings.
IntentRow = TypedDict("IntentRow", {"detected": str, "value": str})
FilterRow = TypedDict("FilterRow", {"filter": str, "value": str})
StageRow = TypedDict("StageRow", {"stage": str, "chunks in": int | None, "chunks out": int | None, "before": str,
                                  "after": str, "what it did": str, "ms": float})
DiversityRow = TypedDict("DiversityRow", {"change": str, "relevance rank": int, "source": str, "why": str})
FigureShown = TypedDict("FigureShown", {"shown": str, "file": str, "page": int, "kind": str, "chart type": str,
                                        "reads": str, "caption": str, "why this kind": str})


def _join(xs) -> str:
    return ", ".join(str(x) for x in xs if x not in (None, ""))


def intent_rows(i: QueryIntent) -> list[IntentRow]:
    """What the question was read as: one row per thing detected, nothing for what was not."""
    rows = [("Companies", _join(i.company_names or i.companies)), ("Years", _join(i.years)),
            ("Quarters", _join(i.quarters)), ("Dates", _join(i.dates)), ("Document types", _join(i.doc_types)),
            ("Statement", _join(i.statement_words[:1])), ("Filing parts", _join(i.filing_sections)),
            ("Sections sought", _join(i.target_sections)), ("Related sections", _join(i.related_sections)),
            ("Terms the evidence must contain", _join(i.key_terms)),
            ("Asks for", _join([w for w, on in (("the latest", i.latest), ("a comparison", i.compare),
                                                ("a number", i.wants_number), ("an explanation", i.explain),
                                                ("several years", i.history)) if on])),
            ("Rewritten as", i.rewritten if i.rewritten != i.question else "")]
    return [{"detected": k, "value": v} for k, v in rows if v]


def filter_rows(r: Retrieval, docs: list[Any]) -> list[FilterRow]:
    """The filters applied: the user's, and what the question's entities narrowed to (documents by name)."""
    s = r.trace.of(ScopeAndFilters)
    if s is None:
        return []
    det = s.notes.get("detected") or {}
    rows: list[FilterRow] = []
    if s.notes.get("user") and s.notes["user"] != "(none)":
        rows.append({"filter": "set by you", "value": str(s.notes["user"])})
    if det.get("companies"):
        names = {d.company_key: d.company for d in docs if d.company_key and d.company}
        rows.append({"filter": "company (from the question)",
                     "value": _join(names.get(k, k) for k in det["companies"])})
    if det.get("year"):
        rows.append({"filter": "fiscal year (from the question)", "value": str(det["year"])})
    if det.get("dates"):
        rows.append({"filter": "date (from the question)", "value": _join(det["dates"])})
    if det.get("latest"):
        rows.append({"filter": "latest documents first", "value": "yes"})
    scope = (r.state.scope.docs if r.state is not None and r.state.scope is not None else None)
    if scope is not None and len(scope) < len(docs):
        labels = [document_label(d) for d in scope]
        more = f" and {len(labels) - 8} more" if len(labels) > 8 else ""
        rows.append({"filter": f"documents searched ({len(scope)} of {len(docs)})",
                     "value": _join(labels[:8]) + more})
    return rows


def _spread(n: dict | None) -> str:
    if not n:
        return ""
    return f"{n['documents']} document{'s' * (n['documents'] != 1)} · {n['pages']} page{'s' * (n['pages'] != 1)}"


def _did(s: Any) -> str:
    n = s.notes
    if s.kind is ScopeAndFilters:
        return f"{s.n_out} document(s) searched" + (f": {n['message']}" if n.get("message") else "")
    if s.kind is Candidates:
        return f"{n.get('duplicates_merged', 0)} duplicate hits of the sub-searches merged"
    if s.kind is Coverage:
        return ("missing: " + ", ".join(n["missing"])) if n.get("missing") else "every key term is in the documents"
    if s.kind is Threshold:
        return f"relevance below {n.get('threshold', 0):.2f} dropped"
    if s.kind is Diversify:
        out = n.get("ruled_out") or {}
        did = "; ".join(f"{v} set aside as {k}" for k, v in out.items() if v) or "nothing set aside"
        return did + f"; MMR brought in {len(n.get('brought_in') or [])}, left out {len(n.get('left_out') or [])}"
    if s.kind is Budget:
        return f"{n.get('used', 0)} of {n.get('context_chars', 0)} characters"
    if s.kind is Figures:
        return f"{s.n_out or 0} figure(s) linked or matched"
    if s.kind is Facts:
        got = n.get("fetched") or {}
        asked = n.get("asked") or {}
        what = f"'{asked['measure']}' ({asked.get('answer_type')}): " if asked.get("measure") else ""
        return (what + f"{got.get('passages', 0)} facts of the passages, {got.get('measure', 0)} of the measure in "
                f"{got.get('scope', 0)} document(s), {got.get('items', 0)} of a metric's inputs")
    return ""


def stage_rows(r: Retrieval) -> list[StageRow]:
    """Per stage: chunks in → out, distinct documents and pages before → after, and what it did."""
    rows: list[StageRow] = []
    for s in r.trace.stages:
        n = s.notes
        rows.append({"stage": s.stage, "chunks in": s.n_in, "chunks out": s.n_out,
                     "before": _spread(n.get("before") or (n.get("pool") if s.kind is Diversify else None)),
                     "after": _spread(n.get("after")), "what it did": _did(s), "ms": s.ms})
    return rows


def diversity_rows(r: Retrieval) -> list[DiversityRow]:
    """What diversity changed against the plain top-k by relevance: each chunk brought in or left out, by name."""
    s = r.trace.of(Diversify)
    if s is None:
        return []
    by_id = {c.chunk_id: c for c in r.candidates}
    rows: list[DiversityRow] = []
    for change, key in (("brought in", "brought_in"), ("left out", "left_out")):
        for x in s.notes.get(key) or []:
            c = by_id.get(x["chunk_id"])
            rows.append({"change": change, "relevance rank": x["rank"],
                         "source": source_label(c) if c is not None else f"chunk {x['chunk_id']}",
                         "why": x.get("why", "less like the chunks already chosen (MMR)")})
    return rows


def diversity_summary(r: Retrieval) -> dict[str, Any]:
    """Before (plain top-k) and after (chosen) for the metrics: documents, pages, chunks."""
    s = r.trace.of(Diversify)
    if s is None:
        return {}
    return {"before": s.notes.get("before") or {}, "after": s.notes.get("after") or {},
            "ruled_out": s.notes.get("ruled_out") or {}, "pool": s.notes.get("pool") or {}}


RATE_EXCLUDE = ("questions", "latency", "_ms", "per_", "distinct", "answers", "shown")


def eval_series(report: dict) -> tuple[list[str], list[float | None], list[float | None]]:
    """A retrieval (`rag eval`) or answer (`--answers`) report as bars: every rate metric of the system, and the
    baseline's value for each when the report has a baseline (None where the report has none)."""
    sys_s, base = report.get("system") or {}, report.get("baseline") or {}
    metrics = [m for m, v in sys_s.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
               and 0 <= v <= 1 and not any(x in m for x in RATE_EXCLUDE)]
    return metrics, [sys_s[m] for m in metrics], [base.get(m) if base else None for m in metrics]


def figure_rows(figures: list, shown: set[int]) -> list[FigureShown]:
    """The figures retrieval found for a question: shown or not, what each is (kind, chart type, and why), and what
    a chart reads as (its values tied to their labels, read at ingestion: rag/ingest/chartread.py)."""
    return [{"shown": "✓" if f.figure_id in shown else "", "file": f.file_name, "page": f.page,
             "kind": f.figure_kind or "", "chart type": (f.chart_type or "").replace("_", " "),
             "reads": reading_line(f.ocr_text)[:300], "caption": (f.caption or "")[:120], "why this kind": f.kind_why}
            for f in figures]
