"""The `search --json` contract, built in one place for the plain hybrid search (`--raw`) and the pipeline.

`score` is what the results are ordered by: the fused SQL score for the plain search, the pipeline's final score
(0..1 over the pool) otherwise. `scores` always holds the SQL components; the pipeline adds its relevance, every
rerank factor and the final score."""

from __future__ import annotations

from typing import Any

from rag.records import Candidate, FigureHit, Hit


def result_json(h: Hit) -> dict[str, Any]:
    cand = h if isinstance(h, Candidate) else None
    fused = cand.fused if cand else h.fused_score
    scores: dict[str, Any] = {"cosine": round(h.cosine_similarity, 4), "text_rank": round(h.text_rank, 4),
                              "fused": round(fused, 6), "semantic_rank": h.semantic_rank,
                              "full_text_rank": h.full_text_rank}
    if cand:
        scores["relevance"] = round(cand.relevance, 4)
        scores.update({k: round(v, 4) for k, v in cand.factors.items()})
        scores["final"] = round(cand.final, 4)
    return {"document": h.file_name, "document_id": h.document_id, "chunk_id": h.chunk_id, "page": h.page_start,
            "pages": h.pages, "section": h.section_type, "heading": h.heading,
            "score": round(cand.final, 4) if cand else round(h.fused_score, 6), "scores": scores, "text": h.content}


def figure_json(f: FigureHit, why: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"figure_id": f.figure_id, "document": f.file_name, "page": f.page, "caption": f.caption,
                           "score": round(f.similarity, 4), "chunk_id": f.chunk_id, "kind": f.figure_kind,
                           "chart_type": f.chart_type}
    if why:
        out["why_shown"] = f.why_shown
    return out


def search_json(query: str, results: list, figures: list[FigureHit], timings_ms: dict[str, float],
                refusal: tuple[bool, str | None] | None = None) -> dict[str, Any]:
    """The whole object: refusal fields for the pipeline only (it can refuse; the plain search cannot)."""
    out: dict[str, Any] = {"query": query, "results": [result_json(h) for h in results],
                           "figures": [figure_json(f, why=refusal is not None) for f in figures],
                           "timings_ms": timings_ms}
    if refusal is not None:
        out["refused"], out["message"] = refusal
    return out
