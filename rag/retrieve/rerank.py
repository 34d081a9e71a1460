"""Scoring after the SQL pool: the factors of `factors.py` multiplied into a final score, and an optional
cross-encoder. Each factor and its reason stay on the candidate, so the Debug page can show why it ranked there."""

from __future__ import annotations

import math
import threading

from rag.config import RetrievalSettings
from rag.records import Candidate
from rag.retrieve import factors
from rag.retrieve.factors import RerankContext, filing_section, recency_factor
from rag.retrieve.query import QueryIntent

__all__ = ["RerankContext", "filing_section", "recency_factor", "score"]

_ce_cache: dict[str, object] = {}
_ce_lock = threading.Lock()


def score(cands: list[Candidate], ctx: RerankContext) -> None:
    """Set each candidate's factors, relevance and final score (normalised to 0..1 over the pool)."""
    cfg = ctx.cfg
    top_fused = max((c.fused for c in cands), default=1.0) or 1.0
    for c in cands:
        meta, meta_why = factors.metadata(c, ctx)
        rec, rec_why = factors.recency(c, ctx)
        sec, sec_why = factors.section(c, ctx)
        tab, tab_why = factors.table(c, ctx)
        cmp_, cmp_why = factors.comparands(c, ctx)
        heu, heu_why = factors.heuristic(c, ctx)
        norm = c.fused / top_fused
        c.factors = {"fused_norm": norm, "metadata": meta, "recency": rec, "section": sec, "table": tab,
                     "comparands": cmp_, "heuristic": heu}
        c.reasons = {"fused_norm": "fused SQL score over the pool's best", "metadata": meta_why, "recency": rec_why,
                     "section": sec_why, "table": tab_why, "comparands": cmp_why, "heuristic": heu_why}
        c.relevance = factors.relevance(c, ctx)
        c.final = norm * meta * rec * sec * tab * cmp_ * heu if cfg.rerank else norm
    if cfg.rerank:
        _cross_encode(cands, ctx.intent, cfg)
    top = max((c.final for c in cands), default=1.0) or 1.0
    for c in cands:
        c.final = c.final / top


def _cross_encode(cands: list[Candidate], intent: QueryIntent, cfg: RetrievalSettings) -> None:
    """Optional cross-encoder: its sigmoid score becomes the relevance and multiplies the final score."""
    if not cfg.cross_encoder or not cands:
        return
    with _ce_lock:
        model = _ce_cache.get(cfg.cross_encoder)
        if model is None:
            from sentence_transformers import CrossEncoder

            model = CrossEncoder(cfg.cross_encoder, device="cpu")
            _ce_cache[cfg.cross_encoder] = model
    base = cfg.factors.cross_encoder_base
    pool = sorted(cands, key=lambda c: -c.final)[: cfg.rerank_size]
    n = cfg.factors.cross_encoder_chars
    raw = model.predict([(intent.rewritten, c.content[:n]) for c in pool], show_progress_bar=False)  # type: ignore[attr-defined]
    for c, r in zip(pool, raw):
        p = 1 / (1 + math.exp(-float(r)))
        c.factors["rerank"] = p
        c.reasons["rerank"] = f"cross-encoder probability {p:.2f}"
        c.relevance = p
        c.final *= base + p
    for c in cands:
        if "rerank" not in c.factors:
            c.factors["rerank"] = 0.0
            c.reasons["rerank"] = "outside the cross-encoder's pool"
            c.final *= base
