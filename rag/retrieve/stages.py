"""The retrieval stages. Each is a small class with `run(state) -> state | Refusal` that writes its own trace entry
(in → out, notes); `pipeline.retrieve` runs them in order:

understand → scope and filters → embed → candidates → rerank → coverage → threshold → diversify → budget → figures

A plan's sub-search runs the same stages from `Scope` on, with the question already understood and embedded."""

from __future__ import annotations

import datetime as dt
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from rag.config import RetrievalSettings
from rag.domain import ANNUAL_TYPES, doc_time, spelled_out_in, years_of
from rag.ingest.figkind import NEVER_SHOWN
from rag.issuers import Issuers, issuers_of, norm
from rag.records import REFUSAL_OPENING, Candidate, DocumentMeta, FigureHit, Hit, Refusal
from rag.retrieve import rerank
from rag.retrieve.factors import RerankContext
from rag.retrieve.facts import FactBook, gather
from rag.retrieve.measure import asked
from rag.retrieve.query import (
    STATEMENT_OF_WORD,
    STATEMENT_QUERIES,
    Entity,
    QueryIntent,
    named_figure,
    understand,
)
from rag.retrieve.search import SearchFilters
from rag.retrieve.trace import StageTrace, Trace
from rag.words import measure_text


@dataclass
class Scope:
    """The documents searched: the SQL filter parameters, the documents they leave, and what was detected."""
    params: dict[str, Any]
    docs: list[DocumentMeta]
    detected: dict[str, Any] = field(default_factory=dict)

    def narrowed(self, all_docs: list[DocumentMeta]) -> list[int] | None:
        return [d.document_id for d in self.docs] if len(self.docs) < len(all_docs) else None


@dataclass
class State:
    """One question on its way through the stages."""
    question: str
    store: Any
    embedder: Any
    cfg: RetrievalSettings
    docs: list[DocumentMeta]
    user: SearchFilters = field(default_factory=SearchFilters)
    history: list[str] = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    intent: QueryIntent | None = None
    vec: np.ndarray | None = None
    scope: Scope | None = None
    candidates: list[Candidate] = field(default_factory=list)
    passed: list[Candidate] = field(default_factory=list)
    chosen: list[Candidate] = field(default_factory=list)
    figures: list[FigureHit] = field(default_factory=list)
    book: FactBook = field(default_factory=FactBook)  # the facts the answer may judge (the Facts stage)
    refusal: Refusal | None = None
    issuers: Issuers | None = None  # the issuers of the documents searched, with every name they go by
    threshold: float | None = None  # the relevance threshold applied
    entry: StageTrace = field(default_factory=lambda: StageTrace(""))

    @property
    def it(self) -> QueryIntent:
        assert self.intent is not None, "understand runs first"
        return self.intent

    @property
    def where(self) -> Scope:
        assert self.scope is not None, "scope runs before the search"
        return self.scope


class Stage(Protocol):
    name: str

    def run(self, s: State) -> State | Refusal: ...


class Understand:
    name = "query understanding"

    def run(self, s: State) -> State | Refusal:
        s.issuers = s.issuers or issuers_of(s.store, s.docs)
        it = s.intent = understand(s.question, s.issuers, s.history)
        ask = asked(it)  # what it asks for the facts, read here once (rag/retrieve/measure.py)
        s.entry.notes = {"rewritten": it.rewritten, "companies": it.companies, "years": it.years,
                         "quarters": it.quarters, "doc_types": it.doc_types, "latest": it.latest,
                         "compare": it.compare, "target_sections": it.target_sections,
                         "related_sections": it.related_sections, "statement": it.statement_words,
                         "dates": it.dates, "explain": it.explain, "annual": it.annual,
                         "measure": ask.to_dict()}
        return s


class Embed:
    name = "embed query"

    def run(self, s: State) -> State | Refusal:
        """The only embedding of the question: every search and sub-search reuses it."""
        if s.vec is None:
            s.vec = s.embedder.encode_query(s.it.rewritten)
        else:
            s.entry.notes = {"reused": True}
        return s


def _doc_passes(d: DocumentMeta, f: SearchFilters) -> bool:
    if f.document_ids and d.document_id not in f.document_ids:
        return False
    if f.companies and d.company_key not in f.companies:
        return False
    if f.year_min and (d.fiscal_year or 0) < f.year_min:
        return False
    if f.year_max and (d.fiscal_year or 9999) > f.year_max:
        return False
    return not (f.doc_types and d.doc_type not in f.doc_types)


def describe(f: SearchFilters) -> str:
    parts = [f"{k}={v}" for k, v in f.__dict__.items() if v not in (None, [], ())]
    return ", ".join(parts) or "(none)"


def _days(a: str, b: str) -> int:
    return (dt.date.fromisoformat(str(a)[:10]) - dt.date.fromisoformat(str(b)[:10])).days


def short_title(title: str | None) -> str | None:
    """The name a title gives its subject before a colon ("PaSa: An LLM Agent for …" → "pasa"), of one to three
    words and at least four letters; None when the title has none."""
    if not title or ":" not in title:
        return None
    raw = title.split(":", 1)[0].strip()
    head = norm(raw)
    words = head.split()
    if not 1 <= len(words) <= 3 or len(head.replace(" ", "")) < 4 or all(w in _REPORT_WORDS or w.isdigit() for w in words):
        return None
    if len(words) == 1 and not re.search(r"[a-z][A-Z]|[A-Z]{2}|\d", raw):
        return None  # one plain word ("Note: …") is not a name
    return head


# the words of a report's generic title: "Annual Report 2023: …" names no document
_REPORT_WORDS = {"annual", "report", "reports", "sustainability", "non", "financial", "nonfinancial", "statement",
                 "statements", "group", "year", "the", "a", "an", "our", "integrated", "esg", "and", "of", "csr",
                 "corporate", "responsibility", "review", "highlights", "key", "figures", "overview", "appendix"}


class ScopeAndFilters:
    """The user's filters; a detected company, date or year becomes a filter only when documents match it."""
    name = "metadata filters"

    def run(self, s: State) -> State | Refusal:
        user, it = s.user, s.it
        pool_docs = [d for d in s.docs if _doc_passes(d, user)]
        if (user.document_ids or user.companies or user.year_min or user.year_max or user.doc_types) and not pool_docs:
            msg = "no document matches the filters " + describe(user)
            s.entry.notes, s.entry.n_out = {"message": msg}, 0
            return Refusal(msg)
        scope = s.scope = Scope(user.as_params(), pool_docs)
        self._company(scope, it, user)
        self._titled(scope, it, user, s.question)
        dated = self._dated(scope, it, user, s.cfg.selection.date_window_days)
        self._year(scope, it, user, dated)
        if it.latest and not scope.detected.get("year"):
            scope.detected["latest"] = max((doc_time(d) for d in scope.docs), default=0)
        s.entry.notes = {"user": describe(user), "detected": scope.detected}
        s.entry.n_out = len(scope.docs)
        return s

    @staticmethod
    def _company(scope: Scope, it: QueryIntent, user: SearchFilters) -> None:
        if it.companies and not user.companies and not user.document_ids and \
                any(d.company_key in it.companies for d in scope.docs):
            scope.params["filter_companies"] = it.companies
            scope.detected["companies"] = it.companies
            scope.docs = [d for d in scope.docs if d.company_key in it.companies]

    @staticmethod
    def _titled(scope: Scope, it: QueryIntent, user: SearchFilters, question: str) -> None:
        """A document the question names by its title's own name ("LongEval" for "LONGEVAL: Guidelines for …",
        "S2ORC-SciBERT" for "S2ORC: The Semantic Scholar …"): a paper is named the way an issuer is, and what another
        document says is not about it."""
        if it.companies or user.companies or user.document_ids:
            return
        asked = f" {norm(question)} "
        named = [d for d in scope.docs if (n := short_title(d.title)) and f" {n} " in asked]
        if named and len(named) < len(scope.docs):
            scope.params["filter_document_ids"] = [d.document_id for d in named]
            scope.detected["documents"] = [short_title(d.title) for d in named]
            scope.docs = named

    @staticmethod
    def _dated(scope: Scope, it: QueryIntent, user: SearchFilters, window: int) -> bool:
        """A document named by its date ("the 8-K dated 1st July 2022"): published within a few days of it."""
        dated = [d for d in scope.docs if d.published_date and it.dates
                 and any(abs(_days(d.published_date, x)) <= window for x in it.dates)]
        if dated and not user.document_ids:
            scope.params["filter_document_ids"] = [d.document_id for d in dated]
            scope.detected["dates"] = it.dates
            scope.docs = dated
        return bool(dated)

    @staticmethod
    def _year(scope: Scope, it: QueryIntent, user: SearchFilters, dated: bool) -> None:
        """Every document a reader may call FY<year>: the issuer's label, the year its fiscal year ends."""
        ty = it.target_year
        if not ty or dated or user.year_min or user.year_max or len(it.companies) > 1 or it.compare \
                or not scope.detected.get("companies"):
            return
        exact = [d for d in scope.docs if ty in years_of(d)]
        typed = [d for d in exact if not it.doc_types or d.doc_type in it.doc_types]
        if it.quarters and len(it.years) == 1:
            # a quarter of a fiscal year (FY2023Q4, 1Q24, "the fourth quarter of fiscal 2023"): its quarterly
            # documents, and for a fourth quarter the year's annual report
            exact = [d for d in typed if d.fiscal_period in it.quarters
                     or ("Q4" in it.quarters and d.doc_type in ANNUAL_TYPES)]
            typed = exact
        if typed:
            scope.params["filter_document_ids"] = [d.document_id for d in exact]
            scope.detected["year"] = ty
            scope.docs = exact


class Candidates:
    """match_chunks for the question, plus sub-searches: the statement it names (by title) and each named company
    or period (the question's entities)."""
    name = "candidates (hybrid SQL)"

    def run(self, s: State) -> State | Refusal:
        cfg, it, scope = s.cfg, s.it, s.where
        pool = max(cfg.candidates.pool_min, cfg.candidates.pool_factor * cfg.rerank_size)
        sub = int(pool * cfg.candidates.sub_search_share)
        searches = [Search(it.text_query, pool, dict(scope.params))]
        if it.statement_words:  # the statement the question names: a search by its title
            searches.append(Search(STATEMENT_QUERIES[STATEMENT_OF_WORD[it.statement_words[0]]], sub, dict(
                full_text_weight=cfg.candidates.statement_title_text_weight, **scope.params)))
        ents = [e for e in it.entities if e.company or it.companies]  # a period's search needs a named company
        for e in ents:  # every named company / period gets its own candidates
            p = dict(scope.params, filter_companies=[e.company] if e.company else it.companies)
            if e.year is not None:
                ids = [d.document_id for d in scope.docs if e.year in years_of(d)]
                if not ids:
                    continue
                p["filter_document_ids"] = ids
            searches.append(Search(it.text_query, sub, p))
        found = run_searches(s.store, s.vec, searches, candidate_count=pool, rrf_k=cfg.rrf_k,
                             parallel=cfg.candidates.parallel_searches)
        hits = found[0]
        title_hits = found[1] if it.statement_words else []
        entity_hits = [h for hs in found[2 if it.statement_words else 1:] for h in hs]
        s.candidates = pool_of(hits, title_hits, entity_hits, s.docs)
        s.entry.n_out = len(s.candidates)
        s.entry.notes = {"pool": pool, "sub_searches": len(ents), "after": spread(s.candidates),
                         "duplicates_merged": len(hits) + len(title_hits) + len(entity_hits) - len(s.candidates)}
        return s


_SEARCHERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rag-search")  # shared; each call waits its turn


@dataclass
class Search:
    """One match_chunks call: its query text, how many chunks it returns, and its filters and weights."""
    text: str
    match_count: int
    params: dict[str, Any] = field(default_factory=dict)


def run_searches(store, vec, searches: list[Search], parallel: int, **common) -> list[list[Hit]]:
    """match_chunks for each search, in order. With parallel > 1 the first runs in this thread while the others
    run on the shared searchers, each on its own pooled connection: they are independent reads, so the answer is
    the same as one after another, in the time of the slowest. A failure is raised here as it would be in turn."""
    def one(q: Search) -> list[Hit]:
        return store.match_chunks(vec, q.text, match_count=q.match_count, **common, **q.params)

    found: list[list[Hit]] = []
    for i in range(0, len(searches), max(1, parallel)):
        batch = searches[i:i + max(1, parallel)]
        rest = [_SEARCHERS.submit(one, q) for q in batch[1:]]
        first = one(batch[0])
        found += [first] + [f.result() for f in rest]
    return found


def pool_of(hits: list[Hit], title_hits: list[Hit], entity_hits: list[Hit],
            docs: list[DocumentMeta]) -> list[Candidate]:
    """The candidates: the question's hits, then the title search's and the entities' that are new. A title hit's
    fused score answers the title query, not the question: it enters at most at the median of the question's, and
    ranks by the statement boost and its own text."""
    entered: list[tuple[Hit, float]] = [(h, h.fused_score) for h in hits]
    seen = {h.chunk_id for h in hits}
    floor = float(np.median([h.fused_score for h in hits])) if hits else 0.0
    for h, capped in [(h, True) for h in title_hits] + [(h, False) for h in entity_hits]:
        if h.chunk_id not in seen:
            seen.add(h.chunk_id)
            entered.append((h, min(h.fused_score, floor) if capped else h.fused_score))
    by_id = {d.document_id: d for d in docs}
    return [Candidate.of(h, by_id.get(h.document_id), fused) for h, fused in entered]


class Rerank:
    name = "rerank"

    def run(self, s: State) -> State | Refusal:
        cands, it = s.candidates, s.it
        s.entry.n_in = len(cands)
        newest_by_company: dict[str, float] = {}
        for c in cands:
            if c.company_key:
                newest_by_company[c.company_key] = max(newest_by_company.get(c.company_key, 0.0), doc_time(c))
        ctx = RerankContext(it, s.cfg, bool(s.where.detected.get("companies")),
                            max((doc_time(d) for d in s.docs), default=0.0), newest_by_company,
                            {d.document_id: d.chunks for d in s.docs})
        rerank.score(cands, ctx)
        cands.sort(key=lambda c: -c.final)
        s.entry.n_out = len(cands)
        s.entry.notes = {"statement": it.statement_words[:1],
                         "cross_encoder": s.cfg.cross_encoder or "none (heuristics)"}
        return s


class Coverage:
    """A specific term of the question (DocVQA, Scope 1) that no searched document contains means the documents
    do not say: better "insufficient data" than the nearest passage about something else."""
    name = "coverage"

    def run(self, s: State) -> State | Refusal:
        it, scope = s.it, s.where
        s.entry.n_in = len(s.candidates)
        missing = s.store.terms_missing(it.key_terms, scope.narrowed(s.docs)) if it.key_terms else []
        # an abbreviation the passages spell out ("AGM": "annual general meeting") is there
        spelled = [m for m in missing if m.isupper() and any(spelled_out_in(m, c.content) for c in s.candidates)]
        missing = [m for m in missing if m not in spelled]
        s.entry.notes = {"key_terms": it.key_terms, "missing": missing, "spelled_out": spelled}
        s.entry.n_out = 0 if missing else len(s.candidates)
        return not_mentioned(missing, scope.docs, s.docs, s.candidates[: s.cfg.selection.nearest]) if missing else s


def not_mentioned(missing: list[str], searched: list[DocumentMeta], every: list[DocumentMeta],
                  candidates: list[Candidate]) -> Refusal:
    """The refusal for terms no searched document contains, naming the documents searched when narrowed."""
    if len(searched) < len(every):
        where = "the documents of " + ", ".join(sorted({d.company or d.file_name for d in searched})[:5])
    else:
        where = "the documents"
    return Refusal(f"{REFUSAL_OPENING.lower()}: {where} do not mention " + ", ".join(f"'{m}'" for m in missing),
                   tuple(candidates))


class Threshold:
    name = "threshold"

    def run(self, s: State) -> State | Refusal:
        thr = s.threshold = s.cfg.threshold
        s.entry.n_in = len(s.candidates)
        s.passed = [c for c in s.candidates if c.relevance >= thr]
        s.entry.n_out, s.entry.notes = len(s.passed), {"threshold": thr, "before": spread(s.candidates),
                                                       "after": spread(s.passed)}
        if not s.passed:
            nearest = sorted(s.candidates, key=lambda c: -c.relevance)[: s.cfg.selection.nearest]
            return Refusal(f"no relevant passages above threshold {thr:.2f}", tuple(nearest))
        return s


def dynamic_k(intent: QueryIntent, cfg: RetrievalSettings) -> int:
    """3 / 5 / 7 chunks by the question's length and complexity, unless k is set."""
    if cfg.k:
        return cfg.k
    sel = cfg.selection
    if intent.compare or len(intent.companies) > 1 or len(intent.years) > sel.compare_years:
        return sel.k_compare
    if len(intent.question.split()) <= sel.short_question_words and not intent.statement_words:
        return sel.k_short
    return sel.k_default


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class Diversify:
    """MMR over the pool with per-document caps, one chunk per location group, near-duplicate removal, and the
    best chunk of each named company / period first."""
    name = "diversity"

    def run(self, s: State) -> State | Refusal:
        cfg, it, passed = s.cfg, s.it, s.passed
        s.entry.n_in = len(passed)
        k = dynamic_k(it, cfg)
        single_doc = len({c.document_id for c in passed[: cfg.selection.single_document_top]}) == 1 or \
            bool(s.user.document_ids and len(s.user.document_ids) == 1)
        pool = passed[: cfg.rerank_size]
        if it.entities:  # every named company / year keeps its best candidates, wherever they ranked overall
            extra = [c for c in passed[cfg.rerank_size:]
                     if c.company_key in it.companies or c.years & set(it.years)]
            pool += extra[: cfg.rerank_size]
        picker = _Picker(k if single_doc else cfg.max_per_document, cfg.selection.location_group_chunks,
                         cfg.selection.near_duplicate_jaccard)
        s.chosen = self.mmr(s, pool, k, single_doc, picker) if cfg.diversity else pool[:k]
        s.entry.n_out = len(s.chosen)
        s.entry.notes = {"k": k, "mmr_lambda": cfg.mmr_lambda if cfg.diversity else None,
                         "distinct_documents": len({c.document_id for c in s.chosen}),
                         "distinct_pages": len({(c.document_id, c.page_start) for c in s.chosen}),
                         **diversity_notes(pool, pool[:k], s.chosen, picker.ruled_out)}
        return s

    @staticmethod
    def mmr(s: State, cands: list[Candidate], k: int, single_doc: bool, picker: _Picker) -> list[Candidate]:
        embs = s.store.chunk_embeddings([c.chunk_id for c in cands])
        return select(cands, k, single_doc, embs, s.it.entities, s.cfg, picker)


def spread(chunks: list[Candidate]) -> dict[str, int]:
    """How many chunks, distinct documents and distinct pages a list holds."""
    return {"chunks": len(chunks), "documents": len({c.document_id for c in chunks}),
            "pages": len({(c.document_id, c.page_start) for c in chunks})}


def diversity_notes(pool: list[Candidate], plain: list[Candidate], chosen: list[Candidate],
                    ruled_out: dict[int, str]) -> dict:
    """What diversity did: the pool it chose from, the plain top-k by relevance ("before") against what it chose
    ("after"), the candidates each rule set aside, and which chunks MMR brought in or left out (chunk ids, in
    relevance order; rank is the 1-based place in the pool)."""
    rank = {c.chunk_id: i + 1 for i, c in enumerate(pool)}
    plain_ids, chosen_ids = {c.chunk_id for c in plain}, {c.chunk_id for c in chosen}
    reasons = list(ruled_out.values())
    return {"pool": spread(pool), "before": spread(plain), "after": spread(chosen),
            "ruled_out": {r: reasons.count(r) for r in _Picker.REASONS},
            "brought_in": [{"chunk_id": c.chunk_id, "rank": rank[c.chunk_id]} for c in chosen
                           if c.chunk_id not in plain_ids],
            "left_out": [{"chunk_id": c.chunk_id, "rank": rank[c.chunk_id],
                          "why": ruled_out.get(c.chunk_id, "lower MMR score")} for c in plain
                         if c.chunk_id not in chosen_ids]}


def select(cands: list[Candidate], k: int, single_doc: bool, embs: dict[int, np.ndarray], entities: list[Entity],
           cfg: RetrievalSettings, picker: _Picker | None = None) -> list[Candidate]:
    """MMR with the caps: each entity's best chunk first, then relevance against similarity to those chosen.
    `picker` (optional) keeps the record of what each rule set aside."""
    picker = picker or _Picker(k if single_doc else cfg.max_per_document, cfg.selection.location_group_chunks,
                               cfg.selection.near_duplicate_jaccard)
    for e in entities:  # entity coverage first: the best chunk of each named company (or year)
        best = next((c for c in cands if e.covers(c) and picker.allowed(c)), None)
        if best:
            picker.take(best)
    lam = cfg.mmr_lambda
    while len(picker.chosen) < k:
        best, best_score = None, -1e9
        for c in cands:
            if c.chunk_id in picker.ids or not picker.allowed(c):
                continue
            emb = embs.get(c.chunk_id)
            sim = max((float(emb @ embs[o.chunk_id]) for o in picker.chosen
                       if emb is not None and o.chunk_id in embs), default=0.0)
            score = lam * c.final - (1 - lam) * sim
            if score > best_score:
                best, best_score = c, score
        if best is None:
            break
        best.mmr = best_score
        picker.take(best)
    return sorted(picker.chosen, key=lambda c: -c.final)


class _Picker:
    """The chunks chosen so far and what they rule out: a document's cap, a location taken, a near-duplicate.
    `ruled_out` keeps, per chunk id, the first rule that set it aside."""
    REASONS = ("near-duplicate", "per-document cap", "same location group")

    def __init__(self, cap: int, group: int, jaccard: float):
        self.cap, self.group, self.jaccard = cap, group, jaccard
        self.ruled_out: dict[int, str] = {}
        self.chosen: list[Candidate] = []
        self.ids: set[int] = set()
        self.groups: set[tuple[int, int, int]] = set()
        self.per_doc: dict[int, int] = {}
        self._words: dict[int, set[str]] = {}

    def words(self, c: Candidate) -> set[str]:
        if c.chunk_id not in self._words:
            self._words[c.chunk_id] = _words(c.content)
        return self._words[c.chunk_id]

    def _group(self, c: Candidate) -> tuple[int, int, int]:
        return (c.document_id, c.page_start, c.chunk_index // self.group)

    def allowed(self, c: Candidate) -> bool:
        why = self._rule(c)
        if why:
            self.ruled_out.setdefault(c.chunk_id, why)
        return why is None

    def _rule(self, c: Candidate) -> str | None:
        if self._group(c) in self.groups:
            return "same location group"
        if self.per_doc.get(c.document_id, 0) >= self.cap:
            return "per-document cap"
        w = self.words(c)
        for o in self.chosen:  # near-duplicate snippets (the same boilerplate in several filings)
            ow = self.words(o)
            if w and ow and len(w & ow) / len(w | ow) > self.jaccard:
                return "near-duplicate"
        return None

    def take(self, c: Candidate) -> None:
        self.chosen.append(c)
        self.ids.add(c.chunk_id)
        self.groups.add(self._group(c))
        self.per_doc[c.document_id] = self.per_doc.get(c.document_id, 0) + 1


class Budget:
    """The character budget of the final chunks (the LLM's context): chunks in rank order until it is spent."""
    name = "budget"

    def run(self, s: State) -> State | Refusal:
        s.entry.n_in = len(s.chosen)
        before = spread(s.chosen)
        s.chosen = budget(s.chosen, s.cfg.context_chars)
        s.entry.n_out, s.entry.notes = len(s.chosen), {"context_chars": s.cfg.context_chars, "before": before,
                                                       "after": spread(s.chosen),
                                                       "used": sum(len(c.content) for c in s.chosen)}
        return s


def budget(chosen: list[Candidate], chars: int) -> list[Candidate]:
    out: list[Candidate] = []
    used = 0
    for c in chosen:
        if out and used + len(c.content) > chars:
            break
        out.append(c)
        used += len(c.content)
    return out


class Figures:
    """Figures linked to the final chunks or matching the question by caption / context / OCR; at most
    max_figures, none below the floors. Each carries its chunk and a 'why shown'. The figures that may be shown
    are embedded for their own words' closeness to the question, and admitted by it too: a figure's stored vector
    is mostly its page, so charts side by side score alike by it, and only their own words tell them apart."""
    name = "figures"

    def run(self, s: State) -> State | Refusal:
        cfg, chunks = s.cfg, s.chosen
        s.entry.n_in = len(chunks)
        s.figures = []
        if cfg.max_figures and chunks:
            found = s.store.match_figures(s.vec, match_count=cfg.max_figures * cfg.selection.figure_pool_factor,
                                          chunk_ids=[c.chunk_id for c in chunks],
                                          document_ids=list({c.document_id for c in chunks}))
            found = with_named(found, s.store, s.question, list({c.document_id for c in chunks}))
            # a figure's own words against the question, and against what it asks about (not the issuer's name,
            # which any figure of its report may bear, not "show me a chart"): the latter ranks them
            about = measure_text(s.question, s.it.company_names + s.it.company_terms)
            own_similarity([f for f in found if f.figure_kind not in NEVER_SHOWN or f.named], s.vec, s.embedder,
                           None if s.vec is None or about == s.question else s.embedder.encode_query(about))
            s.figures = self.best(self.admit(found, chunks, cfg), cfg)
        s.entry.n_out = len(s.figures)
        return s

    @staticmethod
    def admit(found: list[FigureHit], chunks: list[Candidate], cfg: RetrievalSettings,
              kinds: bool = True) -> list[FigureHit]:
        """The figures that may be shown: a kind that is shown, linked to a final chunk above the linked floor or
        above the figure floor. `kinds=False`: every kind, as before figures had kinds (the evaluation's
        baseline)."""
        rank = {c.chunk_id: i for i, c in enumerate(chunks)}
        keep = []
        for f in found:
            if f.named:  # the question names it by its number: whatever it is, it is the figure asked for
                f.why_shown = f"the figure the question names, by its number; caption similarity {f.similarity:.2f}"
                keep.append(f)
                continue
            if kinds and f.figure_kind in NEVER_SHOWN:  # a photo, logo, cover, decoration; a table is its citation
                continue
            if f.linked and f.similarity >= cfg.linked_figure_floor and f.chunk_id in rank:
                f.why_shown = f"linked to answer chunk #{rank[f.chunk_id] + 1}; caption similarity {f.similarity:.2f}"
            elif max(f.similarity, f.own_similarity, f.measure_similarity or 0.0) >= cfg.figure_floor:
                f.why_shown = f"caption/context similarity {f.similarity:.2f}, own words {f.own_similarity:.2f}"
            else:
                continue
            keep.append(f)
        return keep

    @staticmethod
    def best(figures: list[FigureHit], cfg: RetrievalSettings) -> list[FigureHit]:
        """At most max_figures: one the question names by its number first, then by score (stored similarity, own
        words' closeness, a linked bonus)."""
        bonus = cfg.selection.linked_figure_bonus
        return sorted(figures, key=lambda f: (not f.named, -f.score(bonus)))[: cfg.max_figures]


def with_named(found: list[FigureHit], store, question: str, document_ids: list[int]) -> list[FigureHit]:
    """The figures found, with those of the documents searched that the question names by number ("Figure 3"),
    marked `named` (a named figure found by meaning too is marked in place)."""
    number = named_figure(question)
    if number is None:
        return found
    named = {f.figure_id: f for f in store.figures_numbered(number, document_ids)}
    for f in found:
        if f.figure_id in named:
            f.named = True
            named.pop(f.figure_id)
    for f in named.values():
        f.named = True
    return found + list(named.values())


def own_similarity(figures: list[FigureHit], vec, embedder, about=None) -> None:
    """Each figure's own words (caption, then its text: a chart's reading, title, legend and labels) against the
    question, by meaning: "women and men" finds a chart whose legend says "female, male"; and against `about`, the
    vector of what the question asks about, when it differs from the question."""
    if not figures or vec is None:
        return
    texts = [f"{f.caption or ''}\n{(f.ocr_text or '')[:300]}".strip() or "figure" for f in figures]
    for f, v in zip(figures, embedder.encode(texts), strict=True):
        f.own_similarity = float(v @ vec)
        f.measure_similarity = float(v @ about) if about is not None else None


class Facts:
    """Every fact the answer may judge, fetched once (`rag/retrieve/facts.py`): the chosen passages' table facts (the
    typed candidates of `rag/answer/fit.py`), the measure's facts in the documents that may answer, a named metric's
    inputs, the names and years no document covers, and the passages of those facts and of the figures found. The
    answer layer reads the store through nothing else."""
    name = "facts"

    def run(self, s: State) -> State | Refusal:
        s.entry.n_in = len(s.chosen)
        s.book = gather(s.store, s.it, s.chosen, s.docs, s.issuers, s.cfg.max_facts, s.figures)
        s.entry.n_out = len(s.book.passages)
        s.entry.notes = {"asked": s.it.measure.to_dict() if s.it.measure else None, "fetched": s.book.counts()}
        return s


# The question's own retrieval; a sub-search of a plan starts at ScopeAndFilters with the same intent and vector.
STAGES: list[Stage] = [Understand(), ScopeAndFilters(), Embed(), Candidates(), Rerank(), Coverage(), Threshold(),
                       Diversify(), Budget(), Figures(), Facts()]
SUB_SEARCH: list[Stage] = STAGES[1:]
