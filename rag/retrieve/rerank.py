"""Scoring after the SQL pool: metadata boosts, recency, section boost, heuristic signals and an optional
cross-encoder. Each factor is kept on the candidate so the debug view can show why it ranked where it did."""

from __future__ import annotations

import math
import re
import threading

from rag.config import RetrievalSettings
from rag.retrieve.query import STATEMENT_OF_WORD, QueryIntent
from rag.statements import statement_of_title

ANNUAL_TYPES = ("10-K", "annual report", "sustainability report")
_ce_cache: dict[str, object] = {}
_ce_lock = threading.Lock()


def years_of(d: dict) -> set[int]:
    """The fiscal years a document may be called by (see metadata.DocMeta.year_labels)."""
    ys = set(d.get("year_labels") or [])
    if d.get("fiscal_year"):
        ys.add(d["fiscal_year"])
    return ys


def doc_age_years(c: dict, newest: float) -> float:
    """Age relative to the newest document in the store: fiscal year, else published date, else upload time."""
    return max(0.0, newest - doc_time(c))


def doc_time(c: dict) -> float:
    if c.get("fiscal_year"):
        q = {"Q1": 0.25, "Q2": 0.5, "Q3": 0.75, "Q4": 1.0}.get(c.get("fiscal_period") or "", 1.0)
        return c["fiscal_year"] + q - 1.0
    for key in ("published_date", "uploaded_at"):
        v = c.get(key)
        if v:
            try:
                y, m = int(str(v)[:4]), int(str(v)[5:7])
                return y + (m - 1) / 12
            except ValueError:
                pass
    return 0.0


def _table_share(c: dict) -> float:
    lines = [l for l in c["content"].splitlines() if l.strip()]
    return sum(1 for l in lines if " | " in l and any(ch.isdigit() for ch in l)) / len(lines) if lines else 0.0


def recency_factor(age: float, weight: float, half_life: float) -> float:
    """(1 - w) + w · 0.5^(age / half-life): 1 for the newest document, decaying with age, never below 1 - w."""
    if weight <= 0:
        return 1.0
    return (1 - weight) + weight * math.pow(0.5, age / max(half_life, 1e-6))


_FILING_PARTS = [(re.compile(r"\brisk factors\b", re.I), "risk"),
                 (re.compile(r"management.s discussion", re.I), "mdna"),
                 (re.compile(r"\bitem\W*1\W*(?:-\W*)?business\b", re.I), "business")]


_BOILERPLATE = re.compile(r"\bitem\W*1[56]\b|\bexhibits?\b|\bsignatures?\b|\bindex to", re.I)
_ASKS_BOILERPLATE = re.compile(r"\b(exhibits?|subsidiar\w*|signat\w*|agreements?|indenture|certificat\w*)\b", re.I)


def filing_section(heading: str) -> str | None:
    """The part of a filing a chunk is in, by the Item heading of its path: risk, mdna or business."""
    for pat, name in _FILING_PARTS:
        if pat.search(heading):
            return name
    return None


def chunk_statements(c: dict) -> set[str]:
    """The financial statements a chunk holds: its section heading's and any title line of its own."""
    out = set()
    for part in reversed((c.get("heading") or "").split("›")):  # the deepest statement title of the path
        st = statement_of_title(part)
        if st:
            out.add(st)
            break
    for line in c["content"].splitlines():
        if len(line) <= 120 and "|" not in line:
            st = statement_of_title(line)
            if st:
                out.add(st)
    return out


def score(cands: list[dict], intent: QueryIntent, cfg: RetrievalSettings, applied_filters: dict,
          doc_chunk_counts: dict[int, int], newest: float) -> None:
    """Set per-candidate factors and the final score (normalised to 0..1 over the pool)."""
    top_fused = max((c["fused_score"] for c in cands), default=1.0) or 1.0
    # Age is measured against the newest document of the same issuer ("the current filing of 3M"),
    # else against the newest document in the store.
    newest_by_company: dict[str, float] = {}
    for c in cands:
        k = c.get("company_key")
        if k:
            newest_by_company[k] = max(newest_by_company.get(k, 0.0), doc_time(c))
    # "Latest" → the newest document wins; a company named without a period → lean towards the current one.
    weight = 1.0 if intent.latest else (max(cfg.recency_weight, 0.5) if intent.companies and not intent.years
                                        else cfg.recency_weight)
    wanted = STATEMENT_OF_WORD.get(intent.statement_words[0]) if intent.statement_words else None
    for c in cands:
        f: dict[str, float] = {}
        f["fused_norm"] = c["fused_score"] / top_fused
        meta = 1.0
        key = (c.get("company_key") or "")
        if intent.companies and not applied_filters.get("companies") and key in intent.companies:
            meta *= cfg.company_boost
        labels = years_of(c)
        if intent.years and labels:
            if intent.target_year in labels:
                meta *= cfg.year_boost
            elif labels & set(intent.years):
                meta *= cfg.other_year_boost
        if intent.quarters and c.get("fiscal_period") in intent.quarters:
            meta *= cfg.period_boost
        elif intent.annual and not intent.quarters and not intent.doc_types and \
                (c.get("fiscal_period") in ("FY", "Q4") or c.get("doc_type") in ANNUAL_TYPES):
            meta *= cfg.period_boost  # a year's figure: the documents that report the whole year
        if intent.doc_types and c.get("doc_type") in intent.doc_types:
            meta *= cfg.period_boost
        f["metadata"] = meta
        ref = newest_by_company.get(c.get("company_key") or "", newest)
        f["recency"] = recency_factor(doc_age_years(c, ref), weight, cfg.recency_half_life_years)
        sec = 1.0
        # Intent → section types is the papers' vocabulary; filings and reports are steered by headings.
        if c.get("doc_type") == "research paper":
            if c["section_type"] in intent.target_sections:
                sec = cfg.section_boost
            elif c["section_type"] in intent.related_sections:
                sec = cfg.related_section_boost
        if wanted and wanted in chunk_statements(c) and _table_share(c) > 0.3:
            sec = max(sec, cfg.statement_boost * 1.5)  # the statement itself, not a discussion of it
        if intent.filing_sections and c.get("doc_type") in ("10-K", "10-Q") and \
                filing_section(c.get("heading") or "") in intent.filing_sections:
            sec = max(sec, cfg.filing_section_boost)
        if c.get("doc_type") in ("10-K", "10-Q", "8-K") and _BOILERPLATE.search(c.get("heading") or "") \
                and not _ASKS_BOILERPLATE.search(intent.question):
            sec *= 0.8  # exhibits, signatures, subsidiaries lists: rarely what an analyst asks about
        f["section"] = sec
        if intent.wants_number and not intent.explain and c.get("doc_type") != "research paper":
            f["table"] = 1.0 + 0.3 * _table_share(c)  # numbers live in tables
        else:
            f["table"] = 1.0
        # Heuristic signals of the design brief.
        words = len(c["content"].split())
        h = 1.0
        if words < 40:
            h *= 0.75
        elif words > 420:
            h *= 0.9
        n = doc_chunk_counts.get(c["document_id"], 0) or 1
        if c["chunk_index"] == 0:
            h *= 1.1 if ("abstract" in intent.target_sections or "introduction" in intent.target_sections) else 0.85
        h *= 1.0 + 0.05 * (1.0 - min(1.0, c["chunk_index"] / n))  # early-position bonus
        f["heuristic"] = h
        c["factors"] = f
        # Relevance for the threshold: meaning (cosine) plus a share of lexical evidence (ts_rank_cd in 0..1),
        # so a short question fully matched by a long passage is not discarded for a diluted cosine.
        c["relevance"] = min(1.0, max(0.0, float(c["cosine_similarity"])) + 0.25 * float(c["text_rank"] or 0.0))
        c["final"] = f["fused_norm"] * meta * f["recency"] * sec * h * f["table"] if cfg.rerank else f["fused_norm"]
    if cfg.rerank:
        _cross_encode(cands, intent, cfg)
    top = max((c["final"] for c in cands), default=1.0) or 1.0
    for c in cands:
        c["final"] = c["final"] / top


def _cross_encode(cands: list[dict], intent: QueryIntent, cfg: RetrievalSettings) -> None:
    """Optional cross-encoder: its sigmoid score becomes the relevance and multiplies the final score."""
    if not cfg.cross_encoder or not cands:
        return
    with _ce_lock:
        model = _ce_cache.get(cfg.cross_encoder)
        if model is None:
            from sentence_transformers import CrossEncoder

            model = CrossEncoder(cfg.cross_encoder, device="cpu")
            _ce_cache[cfg.cross_encoder] = model
    pool = sorted(cands, key=lambda c: -c["final"])[: cfg.rerank_size]
    raw = model.predict([(intent.rewritten, c["content"][:2000]) for c in pool], show_progress_bar=False)
    for c, r in zip(pool, raw):
        p = 1 / (1 + math.exp(-float(r)))
        c["factors"]["rerank"] = p
        c["relevance"] = p
        c["final"] *= 0.5 + p
    for c in cands:
        if "rerank" not in c["factors"]:
            c["factors"]["rerank"] = 0.0
            c["final"] *= 0.5
