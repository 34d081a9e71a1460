"""Hybrid search: one query embedding → match_chunks (vector + full text, RRF) and match_figures, with no
pipeline (`search --raw`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rag.config import RawSearchSettings
from rag.embed import Embedder
from rag.records import FigureHit, Hit


@dataclass
class SearchFilters:
    document_ids: list[int] | None = None
    companies: list[str] | None = None  # company keys (see rag.domain.company_key)
    year_min: int | None = None
    year_max: int | None = None
    doc_types: list[str] | None = None
    section_types: list[str] | None = None

    def as_params(self) -> dict[str, Any]:
        return {"filter_document_ids": self.document_ids, "filter_companies": self.companies,
                "filter_year_min": self.year_min, "filter_year_max": self.year_max,
                "filter_doc_types": self.doc_types, "filter_section_types": self.section_types}

    @property
    def active(self) -> bool:
        return any(v not in (None, [], ()) for v in vars(self).values())


@dataclass
class SearchResult:
    query: str
    results: list[Hit]
    figures: list[FigureHit]
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The stable `search --json` contract read by other tools."""
        from rag.retrieve.contract import search_json

        return search_json(self.query, self.results, self.figures, self.timings_ms)


def hybrid_search(store, embedder: Embedder, query: str, k: int = 5, filters: SearchFilters | None = None,
                  cfg: RawSearchSettings | None = None, max_figures: int = 3) -> SearchResult:
    """Top-k chunks by hybrid search, and at most max_figures figures: those linked to a returned chunk
    (which the chunk's rank already vouches for, so a low floor) or close to the query by themselves."""
    cfg = cfg or RawSearchSettings()
    t0 = time.perf_counter()
    vec = embedder.encode_query(query)
    t1 = time.perf_counter()
    params = (filters or SearchFilters()).as_params()
    rows = store.match_chunks(vec, query, match_count=k, candidate_count=max(cfg.candidates, 2 * k), **params)
    t2 = time.perf_counter()
    figs: list[FigureHit] = []
    if rows and max_figures:
        found = store.match_figures(vec, match_count=max_figures, chunk_ids=[r.chunk_id for r in rows],
                                    document_ids=(filters.document_ids if filters else None))
        figs = [f for f in found if f.similarity >= (cfg.linked_figure_floor if f.linked else cfg.figure_floor)]
        figs.sort(key=lambda f: (not f.linked, -f.similarity))
        figs = figs[:max_figures]
    t3 = time.perf_counter()
    return SearchResult(query, rows, figs, {
        "embed": round((t1 - t0) * 1000, 1), "search": round((t2 - t1) * 1000, 1),
        "figures": round((t3 - t2) * 1000, 1), "total": round((t3 - t0) * 1000, 1)})
