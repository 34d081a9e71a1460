"""Hybrid search: one query embedding → match_chunks (vector + full text, RRF) and match_figures."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rag.embed import Embedder


@dataclass
class SearchFilters:
    document_ids: list[int] | None = None
    companies: list[str] | None = None  # company keys (see metadata.company_key)
    year_min: int | None = None
    year_max: int | None = None
    doc_types: list[str] | None = None
    section_types: list[str] | None = None

    def as_params(self) -> dict:
        return {"filter_document_ids": self.document_ids, "filter_companies": self.companies,
                "filter_year_min": self.year_min, "filter_year_max": self.year_max,
                "filter_doc_types": self.doc_types, "filter_section_types": self.section_types}


@dataclass
class SearchResult:
    query: str
    results: list[dict]
    figures: list[dict]
    timings_ms: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The stable `search --json` contract read by other tools."""
        return {
            "query": self.query,
            "results": [{
                "document": r["file_name"], "document_id": r["document_id"], "chunk_id": r["chunk_id"],
                "page": r["page_start"], "pages": list(range(r["page_start"], r["page_end"] + 1)),
                "section": r["section_type"], "heading": r["heading"], "score": round(r["fused_score"], 6),
                "scores": {"cosine": round(r["cosine_similarity"], 4), "text_rank": round(r["text_rank"], 4),
                           "fused": round(r["fused_score"], 6), "semantic_rank": r["semantic_rank"],
                           "full_text_rank": r["full_text_rank"]},
                "text": r["content"],
            } for r in self.results],
            "figures": [{
                "figure_id": f["figure_id"], "document": f["file_name"], "page": f["page"],
                "caption": f["caption"], "score": round(f["similarity"], 4), "chunk_id": f["chunk_id"],
            } for f in self.figures],
            "timings_ms": self.timings_ms,
        }


def hybrid_search(store, embedder: Embedder, query: str, k: int = 5, filters: SearchFilters | None = None,
                  candidates: int = 50, max_figures: int = 3, figure_floor: float = 0.35,
                  linked_figure_floor: float = 0.15) -> SearchResult:
    """Top-k chunks by hybrid search, and at most max_figures figures: those linked to a returned chunk
    (which the chunk's rank already vouches for, so a low floor) or close to the query by themselves."""
    t0 = time.perf_counter()
    vec = embedder.encode_query(query)
    t1 = time.perf_counter()
    params = (filters or SearchFilters()).as_params()
    rows = store.match_chunks(vec, query, match_count=k, candidate_count=max(candidates, 2 * k), **params)
    t2 = time.perf_counter()
    figs = []
    if rows and max_figures:
        found = store.match_figures(vec, match_count=max_figures, chunk_ids=[r["chunk_id"] for r in rows],
                                    document_ids=(filters.document_ids if filters else None))
        figs = [f for f in found if f["similarity"] >= (linked_figure_floor if f["linked"] else figure_floor)]
        figs.sort(key=lambda f: (not f["linked"], -f["similarity"]))
        figs = figs[:max_figures]
    t3 = time.perf_counter()
    return SearchResult(query, rows, figs, {
        "embed": round((t1 - t0) * 1000, 1), "search": round((t2 - t1) * 1000, 1),
        "figures": round((t3 - t2) * 1000, 1), "total": round((t3 - t0) * 1000, 1)})
