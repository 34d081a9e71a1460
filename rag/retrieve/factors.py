"""The rerank factors. Each is a small function of one candidate that returns its multiplier and the reason, in
words a developer reads on the Debug page. `rerank.score` multiplies them; every number is a setting."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rag.config import RetrievalSettings
from rag.domain import ANNUAL_TYPES, FILING_TYPES, doc_time
from rag.records import Candidate
from rag.retrieve.query import STATEMENT_OF_WORD, QueryIntent
from rag.statements import statement_of_title

Factor = tuple[float, str]

_FILING_PARTS = [(re.compile(r"\brisk factors\b", re.I), "risk"),
                 (re.compile(r"management.s discussion", re.I), "mdna"),
                 (re.compile(r"\bitem\W*1\W*(?:-\W*)?business\b", re.I), "business")]
_BOILERPLATE = re.compile(r"\bitem\W*1[56]\b|\bexhibits?\b|\bsignatures?\b|\bindex to", re.I)
_ASKS_BOILERPLATE = re.compile(r"\b(exhibits?|subsidiar\w*|signat\w*|agreements?|indenture|certificat\w*)\b", re.I)


@dataclass
class RerankContext:
    """What every factor needs besides the candidate: the question, the settings and the pool's reference points."""
    intent: QueryIntent
    cfg: RetrievalSettings
    filtered_companies: bool  # the named companies are already a filter: no boost for them
    newest: float  # the newest document of the store
    newest_by_company: dict[str, float]  # the newest document of each issuer in the pool
    doc_chunks: dict[int, int]  # chunks per document

    @property
    def recency_weight(self) -> float:
        """'Latest' or a history without a period → the newest document wins; a company named without a period →
        lean towards the current one."""
        f = self.cfg.factors
        if self.intent.latest or (self.intent.history and not self.intent.years):
            return f.recency_weight_latest  # "historically", with no period named: the history up to now
        if self.intent.companies and not self.intent.years:
            return max(self.cfg.recency_weight, f.recency_weight_company)
        return self.cfg.recency_weight

    @property
    def wanted_statement(self) -> str | None:
        words = self.intent.statement_words
        return STATEMENT_OF_WORD.get(words[0]) if words else None


def table_share(c: Candidate) -> float:
    """Share of the chunk's lines that are table rows with a figure."""
    lines = [l for l in c.content.splitlines() if l.strip()]
    return sum(1 for l in lines if " | " in l and any(ch.isdigit() for ch in l)) / len(lines) if lines else 0.0


def recency_factor(age: float, weight: float, half_life: float) -> float:
    """(1 - w) + w · 0.5^(age / half-life): 1 for the newest document, decaying with age, never below 1 - w."""
    if weight <= 0:
        return 1.0
    return (1 - weight) + weight * math.pow(0.5, age / max(half_life, 1e-6))


def filing_section(heading: str) -> str | None:
    """The part of a filing a chunk is in, by the Item heading of its path: risk, mdna or business."""
    for pat, name in _FILING_PARTS:
        if pat.search(heading):
            return name
    return None


def chunk_statements(c: Candidate, title_chars: int = 120) -> set[str]:
    """The financial statements a chunk holds: its section heading's and any title line of its own."""
    out = set()
    for part in reversed((c.heading or "").split("›")):  # the deepest statement title of the path
        st = statement_of_title(part)
        if st:
            out.add(st)
            break
    for line in c.content.splitlines():
        if len(line) <= title_chars and "|" not in line:
            st = statement_of_title(line)
            if st:
                out.add(st)
    return out


def metadata(c: Candidate, ctx: RerankContext) -> Factor:
    """The company, year, quarter and document type the question names."""
    it, cfg = ctx.intent, ctx.cfg
    meta, why = 1.0, []
    if it.companies and not ctx.filtered_companies and (c.company_key or "") in it.companies:
        meta *= cfg.company_boost
        why.append("company named")
    labels = c.years
    if it.years and labels:
        if it.target_year in labels:
            meta *= cfg.year_boost
            why.append(f"year {it.target_year}")
        elif labels & set(it.years):
            meta *= cfg.other_year_boost
            why.append("another year named")
    if it.quarters and c.fiscal_period in it.quarters:
        meta *= cfg.period_boost
        why.append(f"quarter {c.fiscal_period}")
    elif it.annual and not it.quarters and not it.doc_types and \
            (c.fiscal_period in ("FY", "Q4") or c.doc_type in ANNUAL_TYPES):
        meta *= cfg.period_boost  # a year's figure: the documents that report the whole year
        why.append("reports the whole year")
        if it.history and c.doc_type in ANNUAL_TYPES:  # several years: the annual report's multi-year tables
            meta *= cfg.period_boost
            why.append("reports several years")
    if it.doc_types and c.doc_type in it.doc_types:
        meta *= cfg.period_boost
        why.append(f"a {c.doc_type}")
    return meta, ", ".join(why) or "no named company, period or type"


def recency(c: Candidate, ctx: RerankContext) -> Factor:
    """Age against the newest document of the same issuer ("the current filing of 3M"), else of the store."""
    ref = ctx.newest_by_company.get(c.company_key or "", ctx.newest)
    age = max(0.0, ref - doc_time(c))
    w = ctx.recency_weight
    return recency_factor(age, w, ctx.cfg.recency_half_life_years), f"{age:.1f} years older than the newest (weight {w})"


def section(c: Candidate, ctx: RerankContext) -> Factor:
    """A paper's target section, the financial statement asked for, the filing part, boilerplate."""
    it, cfg, f = ctx.intent, ctx.cfg, ctx.cfg.factors
    sec, why = 1.0, "no section preference"
    # Intent → section types is the papers' vocabulary; filings and reports are steered by headings.
    if c.doc_type == "research paper":
        if c.section_type in it.target_sections:
            sec, why = cfg.section_boost, f"target section {c.section_type}"
        elif c.section_type in it.related_sections:
            sec, why = cfg.related_section_boost, f"related section {c.section_type}"
    wanted = ctx.wanted_statement
    if wanted and wanted in chunk_statements(c, f.statement_title_chars) and table_share(c) > f.statement_table_share:
        sec = max(sec, cfg.statement_boost * f.statement_table_boost)  # the statement itself, not a discussion of it
        why = f"the {wanted} statement itself"
    part = filing_section(c.heading or "") if it.filing_sections and c.doc_type in ("10-K", "10-Q") else None
    if part in it.filing_sections:
        if cfg.filing_section_boost > sec:
            why = f"filing part {part}"
        sec = max(sec, cfg.filing_section_boost)
    if c.doc_type in FILING_TYPES and _BOILERPLATE.search(c.heading or "") \
            and not _ASKS_BOILERPLATE.search(it.question):
        sec *= f.boilerplate_factor  # exhibits, signatures, subsidiaries lists: rarely what an analyst asks about
        why += "; boilerplate"
    return sec, why


def table(c: Candidate, ctx: RerankContext) -> Factor:
    """Numbers live in tables: a question that wants one prefers chunks of table rows."""
    it = ctx.intent
    if it.wants_number and not it.explain and c.doc_type != "research paper":
        share = table_share(c)
        return 1.0 + ctx.cfg.factors.table_boost * share, f"{share:.0%} table rows"
    return 1.0, "no number wanted"


def comparands(c: Candidate, ctx: RerankContext) -> Factor:
    """A comparison of named things ("the Selector against GPT-4o"): the passage that names every one of them, such as
    the results table with a row for each, says how they compare; one that names a single side only describes it."""
    it = ctx.intent
    if not it.compare or len(it.key_terms) < 2:
        return 1.0, "not a comparison of named things"
    named = [t for t in it.key_terms if re.search(rf"(?<![\w-]){re.escape(t)}(?!\w)", c.content, re.I)]
    if len(named) == len(it.key_terms):
        return ctx.cfg.factors.comparand_boost, "names every one compared: " + ", ".join(named)
    return 1.0, f"names {len(named)} of the {len(it.key_terms)} compared"


def heuristic(c: Candidate, ctx: RerankContext) -> Factor:
    """Very short or long chunks, the cover chunk, and a small bonus for early positions."""
    f, it = ctx.cfg.factors, ctx.intent
    words = len(c.content.split())
    h, why = 1.0, []
    if words < f.short_chunk_words:
        h *= f.short_chunk_factor
        why.append("short")
    elif words > f.long_chunk_words:
        h *= f.long_chunk_factor
        why.append("long")
    n = ctx.doc_chunks.get(c.document_id, 0) or 1
    if c.chunk_index == 0:
        intro = "abstract" in it.target_sections or "introduction" in it.target_sections
        h *= f.first_chunk_intro if intro else f.first_chunk_other
        why.append("first chunk")
    h *= 1.0 + f.early_position_bonus * (1.0 - min(1.0, c.chunk_index / n))  # early-position bonus
    return h, ", ".join(why) or "ordinary chunk"


def relevance(c: Candidate, ctx: RerankContext) -> float:
    """What the threshold reads: meaning (cosine) plus a share of lexical evidence (ts_rank_cd in 0..1)."""
    return min(1.0, max(0.0, float(c.cosine_similarity)) + ctx.cfg.factors.text_rank_weight * float(c.text_rank or 0.0))
