"""The retrieval pipeline: the stages of `stages.py` run in order, each recorded in the trace for
`search --trace`, the Debug page and the demo. `retrieve()` is the whole of it; `sub_search()` runs a plan's
further search through the same stages with the question already understood and embedded."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rag.config import RetrievalSettings
from rag.embed import Embedder
from rag.records import Candidate, DocumentMeta, Fact, FigureHit, Refusal
from rag.retrieve.contract import result_json, search_json
from rag.retrieve.facts import FactBook, regather
from rag.retrieve.query import QueryIntent
from rag.retrieve.search import SearchFilters
from rag.retrieve.stages import STAGES, SUB_SEARCH, Facts, Stage, State, dynamic_k
from rag.retrieve.trace import Trace

__all__ = ["Retrieval", "dynamic_k", "refresh_facts", "retrieve", "sub_search"]


@dataclass
class Retrieval:
    question: str
    intent: QueryIntent
    chunks: list[Candidate]
    figures: list[FigureHit]
    trace: Trace
    refusal: Refusal | None = None
    candidates: list[Candidate] = field(default_factory=list)  # the scored pool, for the debug view
    timings_ms: dict[str, float] = field(default_factory=dict)
    threshold: float | None = None  # the relevance threshold applied (None when a stage before it refused)
    state: State | None = field(default=None, repr=False)  # for a plan's sub-searches
    book: FactBook = field(default_factory=FactBook)  # the facts the answer may judge (the Facts stage)

    @property
    def facts(self) -> list[Fact]:
        """The chosen passages' table facts."""
        return self.book.passages

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    @property
    def message(self) -> str | None:
        return self.refusal.message if self.refusal else None

    @property
    def nearest(self) -> list[Candidate]:
        return list(self.refusal.nearest) if self.refusal else []

    def to_json(self, with_trace: bool = False) -> dict[str, Any]:
        """The `search --json` contract, plus refusal fields; `trace` when asked."""
        out = search_json(self.question, self.chunks, self.figures, self.timings_ms, (self.refused, self.message))
        if with_trace:
            out["intent"] = self.intent.to_dict()
            out["trace"] = self.trace.to_list()
            out["nearest"] = [result_json(c) for c in self.nearest]
        return out


def run_stages(stages: list[Stage], s: State) -> State:
    """The pipeline itself: each stage in turn, until one refuses."""
    for stage in stages:
        with s.trace.stage(stage.name, type(stage)) as entry:
            s.entry = entry
            out = stage.run(s)
        if isinstance(out, Refusal):
            s.refusal = out
            break
    return s


def _result(s: State, t0: float) -> Retrieval:
    assert s.intent is not None
    return Retrieval(s.question, s.intent, [] if s.refusal else s.chosen, [] if s.refusal else s.figures, s.trace,
                     s.refusal, s.candidates,
                     {"total": round((time.perf_counter() - t0) * 1000, 1), **s.trace.timings()}, s.threshold, s,
                     FactBook() if s.refusal else s.book)


def retrieve(store, embedder: Embedder, question: str, cfg: RetrievalSettings | None = None,
             filters: SearchFilters | None = None, history: list[str] | None = None,
             documents: list[DocumentMeta] | None = None) -> Retrieval:
    t0 = time.perf_counter()
    docs = documents if documents is not None else store.list_documents()
    s = State(question, store, embedder, cfg or RetrievalSettings(), docs, filters or SearchFilters(),
              list(history or []))
    return _result(run_stages(STAGES, s), t0)


def refresh_facts(r: Retrieval) -> None:
    """The Facts stage again, for the passages a plan gathered after the first search (its sub-searches' chunks
    joined the first search's): a trace entry of its own."""
    if r.state is None or r.refused:
        return
    s = r.state
    with r.trace.stage(f"{Facts.name} (after the plan)", Facts, len(r.chunks)) as entry:
        r.book = regather(s.store, r.book, r.intent, r.chunks, s.docs, s.cfg.max_facts)
        entry.n_out = len(r.book.passages)
        entry.notes = {"fetched": r.book.counts()}


def sub_search(first: Retrieval, filters: SearchFilters) -> Retrieval:
    """The same question within other documents: the stages from scope on, reusing the intent and the vector."""
    t0 = time.perf_counter()
    assert first.state is not None
    p = first.state
    s = State(p.question, p.store, p.embedder, p.cfg, p.docs, filters, p.history, intent=p.intent, vec=p.vec)
    return _result(run_stages(SUB_SEARCH, s), t0)
