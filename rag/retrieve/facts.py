"""The Facts stage's reading of the store: every table fact the answer may judge, and the checks that need the whole
library, fetched here once per question (`FactBook`). The answer layer (`rag/answer/`) reads nothing else: it never
calls the store.

- the facts of the chosen passages (every cell, with its label path, period and unit, read at ingestion);
- the facts whose label or table title names the measure asked, in the documents that may answer (the asked issuers',
  else those retrieval found), for the asked years and the one before each;
- for a metric the question names, each input's line-item facts, per issuer compared;
- the names the question uses as its subject that no document is about, and the asked years no document, table
  column or chosen passage of the asked issuer covers;
- the passages of those facts that the search did not choose, so that any of them can be cited."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Sequence

from rag.domain import ANNUAL_TYPES
from rag.issuers import norm
from rag.metrics import line_items
from rag.records import Candidate, DocumentMeta, Fact, FigureHit, Hit
from rag.retrieve.measure import NOT_NAMES, Ask, Unknown, asked, named_entities, scope_documents
from rag.retrieve.query import QueryIntent

MEASURE_FACTS = 400  # the measure's facts fetched at most
ITEM_FACTS = 2000  # a line item's facts fetched at most, per issuer
YEAR_FACTS = 50  # the facts read to see whether an asked year is in some table's columns


@dataclass
class FactBook:
    """What the Facts stage fetched for one question (see the module's docstring)."""
    passages: list[Fact] = field(default_factory=list)
    measure: list[Fact] = field(default_factory=list)
    scope: list[int] = field(default_factory=list)  # the documents whose facts may answer
    chosen: list[int] = field(default_factory=list)  # the chunks whose facts `passages` holds
    items: dict[tuple[str, tuple[int, ...]], list[Fact]] = field(default_factory=dict)  # (item, documents) → facts
    unknown: list[Unknown] | None = None  # None: not checked (no issuers known)
    uncovered: list[int] = field(default_factory=list)  # asked years no evidence of the asked issuer covers
    chunks: dict[int, Hit] = field(default_factory=dict)  # passages of the facts above that were not chosen

    def of_chunks(self, chunk_ids: list[int], limit: int) -> list[Fact]:
        """The chosen passages' facts of these chunks, in the store's order."""
        want = set(chunk_ids)
        return [f for f in self.passages if f.chunk_id in want][:limit]

    def item_facts(self, item: str, doc_ids: list[int]) -> list[Fact]:
        """A line item's facts in these documents; a metric's inputs are fetched for every issuer compared."""
        key = (item, tuple(doc_ids))
        if key not in self.items:
            raise KeyError(f"the Facts stage did not fetch {item} for documents {list(doc_ids)}")
        return self.items[key]

    def counts(self) -> dict[str, int]:
        return {"passages": len(self.passages), "measure": len(self.measure), "scope": len(self.scope),
                "items": sum(len(v) for v in self.items.values()), "unknown": len(self.unknown or []),
                "uncovered": len(self.uncovered), "chunks": len(self.chunks)}


def gather(store, intent: QueryIntent, chosen: list[Candidate], docs: list[DocumentMeta], issuers,
           max_facts: int, figures: Sequence[FigureHit] = ()) -> FactBook:
    """Everything the answer may judge for this question and these chosen passages (and the passages of the
    figures found, which a chart asked for is cited to)."""
    ask = asked(intent)
    book = FactBook(chosen=[c.chunk_id for c in chosen])
    if chosen:
        book.passages = store.match_facts(chunk_ids=book.chosen, match_count=max_facts)
    book.scope = scope_documents(ask, chosen, docs)
    _scoped(store, book, ask, docs)
    if issuers is not None:
        book.unknown = unknown_entities(store, intent, issuers, docs)
    book.uncovered = uncovered_years(store, ask, intent, docs, chosen)
    _passages_of_facts(store, book, figures)
    return book


def regather(store, book: FactBook, intent: QueryIntent, chosen: list[Candidate], docs: list[DocumentMeta],
             max_facts: int) -> FactBook:
    """The book for the passages a plan gathered (its sub-searches' chunks joined the first search's): what depends
    on the passages is read again, for the new ones only; the rest is kept. The same book as `gather` gives."""
    ask = asked(intent)
    ids = [c.chunk_id for c in chosen]
    new = FactBook(chosen=ids, unknown=book.unknown, chunks=dict(book.chunks))
    had = set(book.chosen)
    added = [i for i in ids if i not in had]
    if len(book.passages) >= max_facts:  # the first read was cut at max_facts: read them all again
        new.passages = store.match_facts(chunk_ids=ids, match_count=max_facts) if ids else []
    else:
        keep = set(ids)
        more = store.match_facts(chunk_ids=added, match_count=max_facts) if added else []
        # the store's order for facts of chunks (no words to rank by): document, then fact
        new.passages = sorted([f for f in book.passages if f.chunk_id in keep] + more,
                              key=lambda f: (f.document_id, f.fact_id))[:max_facts]
    new.scope = scope_documents(ask, chosen, docs)
    if new.scope == book.scope:
        new.measure, new.items = book.measure, book.items
    else:
        _scoped(store, new, ask, docs)
    new.uncovered = uncovered_years(store, ask, intent, docs, chosen)
    _passages_of_facts(store, new)
    return new


def _scoped(store, book: FactBook, ask: Ask, docs: list[DocumentMeta]) -> None:
    """The measure's facts, and a metric's inputs, in the documents that may answer."""
    if book.scope and ask.query:
        book.measure = store.match_facts(ask.query, document_ids=book.scope, fiscal_years=ask.fact_years,
                                         match_count=MEASURE_FACTS)
    if book.scope and ask.metric is not None:
        book.items = _metric_items(store, ask, book.scope, docs)


def _passages_of_facts(store, book: FactBook, figures: Sequence[FigureHit] = ()) -> None:
    """The passages of the measure's and the items' facts, and of the figures found, that were not chosen (and
    not read already): a chart found by its own words is cited to its own passage, not only one on its page."""
    have = set(book.chosen) | set(book.chunks)
    ids = [f.chunk_id for f in [*book.measure, *(f for fs in book.items.values() for f in fs)]]
    need = [i for i in [*ids, *(f.chunk_id for f in figures)] if i is not None and i not in have]
    if need:
        book.chunks.update({h.chunk_id: h for h in store.chunks_by_id(list(dict.fromkeys(need)))})


def item_words(item: str) -> str:
    """The words to search a line item's rows with: every word of its labels (line_items.tsv)."""
    return " ".join(dict.fromkeys(w for lab, _ in line_items()[item].labels for w in re.findall(r"[a-z0-9]+", lab)))


def item_facts(store, item: str, doc_ids: list[int], years: list[int] | None) -> list[Fact]:
    """A line item's facts in these documents, for the years asked and the one before each (an average balance,
    a change)."""
    wanted = sorted({y for x in years for y in (x, x - 1)}) if years else None
    return store.match_facts(item_words(item), document_ids=doc_ids, fiscal_years=wanted, match_count=ITEM_FACTS)


def _metric_items(store, ask: Ask, scope: list[int], docs: list[DocumentMeta]
                  ) -> dict[tuple[str, tuple[int, ...]], list[Fact]]:
    """The inputs of the metric asked (and of its other common convention), in each compared issuer's documents."""
    metric = ask.metric
    assert metric is not None
    other = metric.other()
    names = list(dict.fromkeys([*metric.inputs, *(other.inputs if other else [])]))
    by_id = {d.document_id: d for d in docs}
    groups = [[c] for c in ask.companies] if len(ask.companies) > 1 else [ask.companies]
    span = list(range(min(ask.years), max(ask.years) + 1)) if ask.years else None
    out: dict[tuple[str, tuple[int, ...]], list[Fact]] = {}
    for companies in groups:
        mine = [i for i in scope if not companies or (i in by_id and by_id[i].company_key in companies)]
        for name in names:
            out[(name, tuple(mine))] = item_facts(store, name, mine, span)
    return out


def unknown_entities(store, intent: QueryIntent, issuers, docs: list[DocumentMeta]) -> list[Unknown]:
    """The names a question uses as its subject that no document is about: not an issuer's name, not in a
    document's title or company; 'mentioned' when some passage still names it."""
    if intent.companies:
        return []
    known_text = " ".join(norm(f"{d.title or ''} {d.company or ''} {d.file_name}") for d in docs)
    out = []
    for name in named_entities(intent.question):
        if issuers.find(name) or issuers.names_term(name):
            continue
        if norm(name) and f"{norm(name)}" in known_text:
            continue
        terms = [t for t in re.findall(r"[A-Za-z][\w&\-]+", name) if t.lower() not in NOT_NAMES]
        if not terms:
            continue
        missing = store.terms_missing(terms, None)
        out.append(Unknown(name, mentioned=len(missing) < len(terms)))
    return out


def uncovered_years(store, ask: Ask, intent: QueryIntent, docs: list[DocumentMeta], passages=()) -> list[int]:
    """The first asked year the asked issuer's documents do not cover (a list of one, or empty): no document of that
    year (or quarter), no table column for it, and no chosen passage of the issuer that prints the year (a 2022
    figure in the text of a 2023 report, "(2022: 1,293.5 t)", covers 2022). Forward-looking questions (plans for
    next year) are answered from this year's report."""
    if intent.forward or not ask.years or not ask.companies:
        return []
    mine = [d for d in docs if d.company_key in ask.companies]
    if not mine:
        return []
    own_year = {d.document_id: d.fiscal_year for d in mine}
    for y in ask.years:
        if ask.quarter:
            has_doc = any(y in d.years and (d.fiscal_period == ask.quarter or
                                              (ask.quarter == "Q4" and d.doc_type in ANNUAL_TYPES)) for d in mine)
        else:
            has_doc = any(y in d.years for d in mine)
        if has_doc or (not ask.quarter and any(c.company_key in ask.companies and prints_period(c.content or "", y)
                                               for c in passages)):
            continue
        # the measure asked, in that year's column of some table (a later filing's comparative columns count) …
        facts = store.match_facts(ask.query, document_ids=[d.document_id for d in mine], fiscal_years=[y],
                                  match_count=YEAR_FACTS)
        # … of a reported period, not a schedule of future years (debt maturities, commitments)
        if not [f for f in facts if y <= (own_year.get(f.document_id) or 0) and
                f.fiscal_period == (ask.quarter or "FY")]:
            return [y]
    return []


def prints_period(text: str, year: int) -> bool:
    """A passage gives a figure for the year: "(2022: 1,293.5 t)", "in 2022", "for fiscal 2022", "as of December
    31, 2022" — not a year inside a name ("the 2017 Tax Act")."""
    return bool(re.search(rf"\(\s*(?:fy\s?)?{year}\s*:\s*[-−–(]?[$€£]?\s?\d|\b(?:in|for|during|fiscal(?: year)?|fy|"
                          rf"year|as of|as at|at|compared (?:to|with))\s+(?:[A-Z][a-z]+\.?\s+\d{{1,2}},\s+)?{year}\b",
                          text, re.I))
