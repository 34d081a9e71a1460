"""The offline answer: one sentence that answers first — a table fact with its entity, measure, period and unit, a
metric computed from facts with its formula, or the best answering sentence — then the supporting passages, each
relevant and cited; "Insufficient data: …" when the documents do not say. Confidence says what was verified and
what was inferred."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace

from rag.answer import answerable, confidence, extractive
from rag.answer.figure_choice import PlacedFigure, asked_chart, asks_chart, place_figures
from rag.answer.finalize import insufficient
from rag.answer.fit import FitSettings, Judge, Typed
from rag.answer.labels import document_label
from rag.answer.lead import BALANCES as BALANCES
from rag.answer.lead import (
    Scored,
    average_sentence,
    best_facts,
    compare_sentence,
    computation_sentences,
    fact_sentence,
    latest_year,
    money,
    own_recall,
    possessive,
    resolver,
    same_row,
    trend_sentence,
    who,
)
from rag.answer.model import Answer, Evidence
from rag.answer.rows import Pick, compare_rows, rows_sentence, sides
from rag.answer.verify import quote_in, verify
from rag.config import Settings
from rag.domain import years_of
from rag.ingest.chartread import reading_line
from rag.metrics import Computation, compute, without_definition
from rag.quantities import numbers, scale_name
from rag.records import Candidate, DocumentMeta, Fact, FigureHit
from rag.retrieve.facts import FactBook
from rag.retrieve.measure import Ask, asked, asks_figure, demands_figure, strip_instructions, synonyms
from rag.retrieve.measure import label_terms as lead_terms
from rag.retrieve.pipeline import Retrieval
from rag.retrieve.stages import short_title
from rag.statements import statement_of_title
from rag.words import terms as word_terms

# a ratio-like measure the question names: when it is not a metric of the table, the answer says it did not compute
_RATIO_WORDS = re.compile(r"\b[\w-]+ (ratio|coverage|multiple)\b|\b(receivables?|payables?|working capital|fixed asset) "
                          r"turnover\b|\breturn on [\w ]+?\b(equity|capital|investment)\b|\b(dividend|earnings) yield\b",
                          re.I)
_AVERAGE = re.compile(r"\b(average|mean)\b", re.I)
_FIT = FitSettings()
FACT_FLOOR = 0.75  # a fact below this score does not lead (its label or period does not match well enough)
MIN_RECALL = 0.5  # … nor one whose label has less than half of the measure's words


@dataclass
class Lead:
    """The answer's first sentence(s) and what they rest on."""
    sentences: list[str]
    facts: list[Fact]
    kind: str  # fact | metric | sentence
    checks: dict[str, str] = field(default_factory=dict)  # entity / measure / period → match | inferred | mismatch
    verified: bool = False
    computation: Computation | None = None
    computed: list[str] = field(default_factory=list)  # numbers the code computed (growth), not printed anywhere
    parts: list[Lead] = field(default_factory=list)  # a comparison's leads, one per entity
    series: list[Computation] = field(default_factory=list)  # a metric over several years
    after_explanation: bool = False  # the question asks why: the explanation leads, the figure follows
    rivals: list[Fact] = field(default_factory=list)  # other rows that match as well, with other values
    alternative: list[Computation] = field(default_factory=list)  # the metric on its other common convention
    average: bool = False  # the question asks for the average over the years
    rows: Pick | None = None  # named rows of one table compared
    fit: float | None = None  # the judge's fit of the lead to the question (rag/answer/fit.py)


class _Markers:
    def __init__(self, chunks: dict[int, Candidate]):
        self.chunks = chunks
        self.evidence: list[Evidence] = []
        self.of: dict[int, int] = {}

    def cite(self, chunk_id: int | None, quote: str = "") -> int:
        assert chunk_id is not None, "a fact without its chunk is never cited"
        if chunk_id not in self.of:
            c = self.chunks[chunk_id]
            self.of[chunk_id] = len(self.evidence) + 1
            self.evidence.append(Evidence.of(c, len(self.evidence) + 1, quote=quote))
        elif quote and not self.evidence[self.of[chunk_id] - 1].quote:
            self.evidence[self.of[chunk_id] - 1].quote = quote
        return self.of[chunk_id]


def _refused(t0: float, r: Retrieval, message: str, **kw) -> Answer:
    a = insufficient(r, message, **kw)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


def offline_answer(r: Retrieval, settings: Settings, docs: list[DocumentMeta]) -> Answer:
    """The answer from what retrieval found: its passages and the facts its Facts stage fetched (`r.book`); no
    store call."""
    t0 = time.perf_counter()
    it = r.intent
    ask = asked(it)
    by_id = {d.document_id: d for d in docs}
    refusal = _before(r, ask, docs)
    if refusal:
        return _refused(t0, r, refusal, nearest=not refusal.startswith("no document in the library"))
    top = max((c.final for c in r.chunks), default=1.0) or 1.0
    retrieved = {c.chunk_id: max(c.final, 0.0) / top for c in r.chunks}
    chunks = {c.chunk_id: c for c in r.chunks}
    lead, missing_note = _lead(r, ask, by_id, retrieved)
    scored_units = extractive.score_units(it, r.chunks, settings.answer)
    papers = bool(r.chunks) and all(c.doc_type == "research paper" for c in r.chunks[:3])
    # a figure demanded and none given is refused, unless a chart asked for, of the measure, is found (it answers)
    unmet = lead is None and demands_figure(it, ask) and not papers and \
        not _sentence_answers(scored_units, ask, settings)
    judged = Judged() if unmet and ask.answer_type != "chart" else \
        _judged(r, ask, by_id, lead, papers, settings.retrieval.selection.linked_figure_bonus)
    if unmet and judged.chart is None:
        return _refused(t0, r, _missing_breakdown(None, scored_units, it, ask, docs) or missing_note or
                        answerable.not_reported(ask, it.question, _who(ask, docs)))
    # the part asked ("in Romania") is judged on the figure that would lead: the judge's, else the rules'
    missing_part = _missing_breakdown(judged.lead if judged.lead is not None else (None if judged.replaces else lead),
                                      scored_units, it, ask, docs, judged.sentence)
    if missing_part:
        return _refused(t0, r, missing_part)
    if judged.refusal:
        return _refused(t0, r, judged.refusal)
    lead = judged.lead if judged.lead is not None else (None if judged.replaces else lead)
    if lead is not None and judged.fit is not None:
        lead.fit = judged.fit
    _fetch_chunks(r.book, lead, chunks, by_id, judged.chart if lead is None else None)
    marks = _Markers(chunks)
    row_units = _row_units(r.book, [u for u in scored_units[:12] if u.kind == "row"])
    paragraphs, lead = _write(lead, scored_units, marks, ask, by_id, settings, r, row_units, judged.sentence,
                              judged.chart, judged.fit)
    if not paragraphs:
        return insufficient(r, "no sentence or table row of the retrieved passages answers the question")
    text = "\n\n".join(paragraphs)
    unknown = _RATIO_WORDS.search(strip_instructions(it.question)) if ask.metric is None else None
    if missing_note is None and unknown and (lead is None or lead.kind == "sentence"):
        missing_note = (f"'{unknown.group(0)}' is not among the metrics this assistant computes "
                        "(rag/data/metrics.tsv); the figures the documents give are above")
    if missing_note and (lead is None or lead.kind == "sentence"):
        text += f"\n\n*Not computed:* {missing_note}."
    a = Answer(question=r.question, answer=text, confidence="low", evidence=marks.evidence, mode="extractive")
    a.computed = _computed_sentences(lead)
    a.figures = place_figures(r.figures, a, r.intent.company_names + r.intent.company_terms,
                              linked_bonus=settings.retrieval.selection.linked_figure_bonus)
    if judged.chart is not None and lead is not None and lead.kind == "chart" and \
            all(p.figure_id != judged.chart.figure_id for p in a.figures):  # the chart the lead describes is shown
        label = next((e.document for e in a.evidence), judged.chart.file_name)
        a.figures = [PlacedFigure.of(judged.chart, label, 0)] + ([] if asks_chart(a.question) else a.figures[:2])
    _verify_and_score(a, lead, r)
    a.candidate = _candidate(lead, a)
    a.timings_ms["answer"] = round((time.perf_counter() - t0) * 1000, 1)
    return a


def _candidate(lead: Lead | None, a: Answer) -> list[str]:
    """The value(s) the lead gives for the asked measure, entity and period, as printed; none when the lead is a
    sentence, a results table's rows, not verified, or about another entity, measure or period."""
    if lead is None or not lead.verified or "mismatch" in lead.checks.values():
        return []
    if lead.kind == "fact":
        return [lead.facts[0].raw]
    if lead.kind == "compare" and lead.parts:
        return [p.facts[0].raw for p in lead.parts if p.facts]
    if lead.kind == "metric" and a.answer:
        first = numbers(a.answer.split("\n", 1)[0])
        return [first[0].raw] if first else []
    return []


@dataclass
class Judged:
    """What the typed candidates decided: a table cell or a sentence that leads, or a refusal."""
    lead: Lead | None = None
    sentence: Typed | None = None
    refusal: str | None = None
    fit: float | None = None  # the lead's fit (its measure's similarity, with type, period and entity)
    chart: FigureHit | None = None  # the chart asked for, which the lead describes
    replaces: bool = False  # the sentence leads instead of the rules' table fact


def _judged(r: Retrieval, ask: Ask, docs: dict[int, DocumentMeta], lead: Lead | None, papers: bool,
            linked_bonus: float) -> Judged:
    """The candidates judged by meaning and type (rag/answer/fit.py). The rule-based lead of a statement line, a
    computed metric, a comparison or a results table stays (its label, period and unit were matched); where there
    is none, or only a sentence chosen by its words, the best-fitting table cell or sentence leads — or, for a figure
    asked, nothing fits and the answer says so, with what the documents do say nearby."""
    embedder = r.state.embedder if r.state is not None else None
    if embedder is None or not r.chunks:
        return Judged()
    it = r.intent
    words = it.company_names + it.company_terms + [c.replace("-", " ") for c in it.companies]
    judge = Judge(embedder, strip_instructions(it.rewritten), list(ask.companies), words, list(ask.years), docs,
                  named=ask.named)
    kind = ask.answer_type
    if lead is not None and lead.kind != "sentence":
        if lead.kind != "fact" or not lead.facts or kind not in ("quantity", "count", "share"):
            return Judged()
        return _against_rules(judge, r, lead, docs, ask)
    if kind in ("quantity", "count", "share", "open", "yes/no") and len(ask.companies) > 1 and lead is None:
        both = _per_entity(r, ask, docs, words)  # a comparison: each company's own figure, then the difference
        if both is not None:
            return both
    if kind in ("quantity", "count", "share", "open", "yes/no"):
        ranked = judge.best_value(r.facts, r.chunks)
        best = next((c for c in ranked if judge.answers(c)), None)
        if kind in ("open", "yes/no") and (best is None or best.checks["unit"] != "match" and
                                          best.fit < judge.cfg.open_floor):
            kind = "description"  # no figure of the kind asked fits: the sentence that answers
        elif papers and best is not None and best.checks["unit"] != "match" and best.fit < judge.cfg.open_floor:
            return Judged()  # a paper's results tables hold many alike rows: a row close in meaning is not enough
        elif best is None:  # papers too: no candidate is the measure asked (a paper's traps were answered)
            return Judged(refusal=_nothing_fits(judge, ranked, ask, docs))
    if kind in ("quantity", "count", "share", "open", "yes/no"):
        assert best is not None
        if best.fact is not None:
            return Judged(lead=_typed_lead(best, judge, r.facts), fit=best.fit)
        return Judged(sentence=best, fit=best.fit)
    if lead is None and kind == "chart":  # the chart that is shown, judged against the measure
        shown = asked_chart(r.figures, it.question, words, linked_bonus=linked_bonus)
        got = judge.best_figure([shown] if shown is not None else r.figures)
        if got is not None and got[1] >= judge.cfg.chart_floor and \
                _citable(got[0], r, fits=got[1] >= judge.cfg.answer_floor):
            return Judged(chart=got[0], fit=got[1])
    if lead is None and kind in ("description", "list", "yes/no", "chart", "open"):
        ranked = judge.score(judge.sentences(r.chunks[:6], with_value=False, facts=r.book.passages), narrative=True)
        if ranked and ranked[0].sim >= judge.cfg.narrative_floor:
            return Judged(sentence=ranked[0], fit=ranked[0].fit)
    return Judged()


def _citable(f: FigureHit, r: Retrieval, fits: bool = True) -> bool:
    """A chart's passage is among those found: one search chose (its own, or one on its page), or, for a chart that
    `fits` the measure as well as an answer must (FitSettings.answer_floor), its own passage, which the Facts
    stage fetched for the figures found: a chart found by its own words alone needs that much more."""
    return (fits and f.chunk_id in r.book.chunks) or any(
        c.chunk_id == f.chunk_id or (c.document_id, c.page_start) == (f.document_id, f.page) for c in r.chunks)


def _typed_lead(best: Typed, judge: Judge, facts: list[Fact]) -> Lead:
    """A table cell the judge chose, with its row's other periods (the change from the prior period follows)."""
    assert best.fact is not None
    checks = {"entity": best.checks["entity"], "period": best.checks["period"],
              "measure": "match" if best.sim >= judge.cfg.measure_match else "inferred"}
    lead = Lead([], [best.fact, *same_row(best.fact, facts)], "fact", checks)
    lead.fit = best.fit
    return lead


def _per_entity(r: Retrieval, ask: Ask, docs: dict[int, DocumentMeta], words: list[str]) -> Judged | None:
    """One table cell per company asked, each judged for that company alone; None unless every one is found."""
    assert r.state is not None
    parts = []
    for company in ask.companies:
        judge = Judge(r.state.embedder, strip_instructions(r.intent.rewritten), [company], words, list(ask.years),
                      docs)
        best = next((c for c in judge.best_value(r.facts, r.chunks) if judge.answers(c) and c.fact is not None), None)
        if best is None:
            return None
        parts.append(_typed_lead(best, judge, r.facts))
    lead = _joined(parts)
    lead.fit = min(p.fit for p in parts if p.fit is not None)
    return Judged(lead=lead, fit=lead.fit)


def _against_rules(judge: Judge, r: Retrieval, lead: Lead, docs: dict[int, DocumentMeta], ask: Ask) -> Judged:
    """A table fact the statement-line rules chose, judged like every other candidate, for its confidence. It stays
    (overriding the rules with the best-fitting candidate whenever it fits better was measured and made statement
    lines worse on every filings set) unless it fails a check the judge can see: another unit class or numbered
    qualifier, a fit below the floor, or a part asked that its row does not name; then the best candidate that
    passes leads."""
    f = lead.facts[0]
    chunk = next((c for c in r.chunks if c.chunk_id == f.chunk_id), None) or \
        Candidate(chunk_id=f.chunk_id or 0, document_id=f.document_id, chunk_index=0, page_start=f.page,
                  page_end=f.page, heading=None, section_type="body", content="", file_name="",
                  company_key=docs[f.document_id].company_key if f.document_id in docs else None)
    mine = judge.typed_fact(f, chunk)
    if judge.named and mine.checks.get("entity") == "mismatch":  # "Microsoft's R&D": the row is another company's
        return Judged(refusal=_not_about(judge.named), fit=mine.fit)
    if ask.change or ask.metric is not None:  # a change or a metric computed from the row: the row's own value is
        return Judged(fit=mine.fit)            # not in the unit asked (a growth's percentage, a margin's inputs)
    part = not _names_part(mine, ask.parts)  # "in Romania": the rules' row does not name the part asked
    failed = any(mine.checks.get(k) == "mismatch" for k in ("unit", "qualifier")) or mine.fit < judge.cfg.answer_floor
    if not (failed or part) and mine.sim >= judge.cfg.rules_close:
        return Judged(fit=mine.fit)  # the rules' row is the measure by meaning: not weighed against every candidate
    best = next((c for c in judge.best_value(r.facts, r.chunks)
                 if judge.answers(c) and (not part or _names_part(c, ask.parts))), None)
    if failed or part:
        # an intensity for a total, Scope 2 for Scope 3
        if best is not None and best.fact is not None and (best.fit > mine.fit or part):
            return Judged(lead=_typed_lead(best, judge, r.facts), fit=best.fit)
    elif best is not None and best.sim >= judge.cfg.measure_match and best.fit >= mine.fit + judge.cfg.rules_margin \
            and _names_part(best, ask.parts):
        # the rules matched a word ("work in progress" for "women worked", an employee "retention rate" for the
        # "net retention rate"); a candidate that is the measure by meaning, and passes every check, fits far better
        if best.fact is not None:
            return Judged(lead=_typed_lead(best, judge, r.facts), fit=best.fit)
        return Judged(sentence=best, fit=best.fit, replaces=True)
    return Judged(fit=mine.fit)


def _names_part(c: Typed, parts: list[str]) -> bool:
    """The candidate's row, table or column names a part asked (any of its forms), or none is asked."""
    where = f"{c.label} {c.fact.col_header if c.fact else ''}".lower()
    return not parts or any(p.lower() in where for p in parts)


def _not_about(names: list[str]) -> str:
    return f"no document in the library is about {', '.join(names)} (it is only mentioned in passing)"


def _nothing_fits(judge: Judge, ranked: list[Typed], ask: Ask, docs: dict[int, DocumentMeta]) -> str:
    """'the documents do not give <measure> for <entity, period>', with the nearest thing they do give."""
    if judge.named:
        return _not_about(judge.named)
    who = _who(ask, list(docs.values()))
    when = " for " + ", ".join(str(y) for y in ask.years) if ask.years else ""
    msg = f"the documents{' of ' + who if who else ''} do not give {judge.measure}{when}"
    near = next((c for c in ranked if c.checks.get("entity") != "mismatch"), None)
    if near is not None and near.sim >= judge.cfg.nearby_floor:
        where = f"{document_label(near.chunk)} p. {near.fact.page if near.fact else near.chunk.page_start}"
        said = near.describe()
        said = said if len(said) <= 160 else said[:157].rsplit(" ", 1)[0] + "…"
        why = {"period": "another period", "unit": "another kind of quantity", "entity": "another company"}
        off = [why[k] for k, v in near.checks.items() if v == "mismatch" and k in why]
        msg += f"; nearby, {where} gives{' ' + ' and '.join(off) + ':' if off else ''} “{said}”"
    return msg


def _who(ask: Ask, docs: list[DocumentMeta]) -> str:
    names = sorted({d.company for d in docs if d.company_key in ask.companies and d.company})
    return ", ".join(names)


def _before(r: Retrieval, ask: Ask, docs: list[DocumentMeta]) -> str | None:
    """Refusals before any fact is judged: a company that is not in the library, a period not covered (both found
    by the Facts stage)."""
    if r.book.unknown is not None:
        unknown = r.book.unknown
        # a name the documents mention (a model in a paper, a partner in a filing) is refused only when a company's
        # figure is asked and the passages found are a company's reports, not papers
        # a name the passages mention (a segment, a brand, a subsidiary: "Sam's Club") is not refused here: the
        # candidates' judge answers only with a figure whose row, table or sentence names it (Ask.named)
        # a name that begins with a paper's own name ("S2ORC-SciBERT" in the S2ORC paper) is the paper's subject
        titled = _title_names(docs)
        ask.named = [u.name for u in unknown if u.mentioned and not _of_title(u.name, titled)]
        unknown = [u for u in unknown if not u.mentioned]
        if unknown:
            u = unknown[0]
            return (f"no document in the library is about {u.name}" +
                    (" (it is only mentioned in passing)" if u.mentioned else ""))
    return answerable.uncovered_period(ask, docs, r.book)


def _title_names(docs: list[DocumentMeta]) -> set[str]:
    """The names the documents' titles give their subjects ("s2orc" for "S2ORC: …"; stages.short_title)."""
    return {t for d in docs if (t := short_title(d.title))}


def _of_title(name: str, titled: set[str]) -> bool:
    """The name is a document's own title name, or begins with it ("S2ORC-SciBERT" for "S2ORC: …")."""
    n = answerable.norm(name)
    return any(n == t or n.startswith(t + " ") for t in titled)


def _lead(r: Retrieval, ask: Ask, docs: dict[int, DocumentMeta],
          retrieved: dict[int, float]) -> tuple[Lead | None, str | None]:
    """The figure that answers: a ratio the filing prints, else the metric computed from its inputs, else the
    best table fact; with why not, when none. A question that asks why gets the figure after the explanation."""
    scope = r.book.scope
    if not scope:
        return None, None
    # a comparison of companies on a measure wants each one's figure
    numeric = asks_figure(r.intent, ask) or (len(ask.companies) > 1 and not r.intent.explain)
    facts = r.book.measure
    lead, note = None, None
    if len(ask.companies) <= 1:  # named rows of one table compared (methods, models, sites): their cells
        rows = _rows_lead(r, retrieved)
        if rows is not None:
            return rows, None
    if len(ask.companies) > 1:  # a comparison: each company's own figure
        leads = [_company_lead(r.book, facts, replace(ask, companies=[c]), scope, docs, retrieved, numeric)
                 for c in ask.companies]
        found = [l for l, _ in leads if l is not None]
        lead = _joined(found) if len(found) == len(leads) else None
        note = next((n for _, n in leads if n), None)
    else:
        lead, note = _company_lead(r.book, facts, ask, scope, docs, retrieved, numeric)
    if lead is not None and r.intent.explain:
        lead.after_explanation = True
    return lead, note


def _rows_lead(r: Retrieval, retrieved: dict[int, float]) -> Lead | None:
    """Each named row's cells, when the question compares things that are rows of one retrieved table."""
    question = strip_instructions(r.intent.question)
    if not sides(question):
        return None
    top = [c.chunk_id for c in r.chunks[:5]]
    pick = compare_rows(question, r.book.of_chunks(top, 400), retrieved)
    if pick is None:
        return None
    # a results table has no company or period to check: each side is a row of it, and the measure a column
    checks = {"rows": "match", "measure": "match" if pick.focus else "inferred"}
    return Lead([], pick.facts, "rows", checks, parts=[], rows=pick)


def _company_lead(book: FactBook, facts: list[Fact], ask: Ask, scope: list[int], docs: dict[int, DocumentMeta],
                  retrieved: dict[int, float], numeric: bool) -> tuple[Lead | None, str | None]:
    note = None
    if ask.metric is not None:
        printed = _best_of(facts, ask, retrieved, docs, numeric, exact_only=True)
        if printed is not None and (printed.facts[0].unit == "%") == (ask.metric.unit == "%") and not ask.change:
            return printed, None  # the filing prints the ratio itself
        mine = [i for i in scope if not ask.companies or (docs.get(i) and docs[i].company_key in ask.companies)]
        lead, note = _metric_lead(book, ask, mine, docs, retrieved)
        if lead is not None:
            return lead, None
    return _best_of(facts, ask, retrieved, docs, numeric), note


def _best_of(facts: list[Fact], ask: Ask, retrieved: dict[int, float], docs: dict[int, DocumentMeta],
             numeric: bool, exact_only: bool = False) -> Lead | None:
    """The best fact, when it answers well enough: a figure was asked, or its label and period match exactly."""
    mine = [f for f in facts if not ask.companies or (docs.get(f.document_id) and
                                                      docs[f.document_id].company_key in ask.companies)]
    scored = best_facts(mine, ask, retrieved, docs)
    if not scored or scored[0].score < FACT_FLOOR or scored[0].recall < MIN_RECALL:
        return None
    best = scored[0]
    if (exact_only or not numeric) and not (best.exact and best.period_ok is not False):
        return None
    if exact_only and own_recall(best.fact, ask) < 0.99:
        return None  # a ratio the filing prints: the question's own words, not the filings' words for them
    lead = _fact_lead(best, facts, ask, docs)
    lead.rivals = rivals(best, scored)
    if lead.rivals and lead.checks["measure"] == "match":
        lead.checks["measure"] = "inferred"
    return lead


def rivals(best: Scored, scored: list[Scored]) -> list[Fact]:
    """Other rows that match the question as well as the lead's, with another value: the answer picked one (the
    whole before a segment's part, a statement before a discussion table) but cannot be sure of it."""
    f = best.fact
    out: list[Fact] = []
    for x in scored[1:10]:
        g = x.fact
        if x.score < best.score - 0.12 or not x.exact or x.period_ok is False or g.unit != f.unit \
                or g.fiscal_year != f.fiscal_year or g.fiscal_period != f.fiscal_period:
            continue
        if g.chunk_id == f.chunk_id and g.table_title == f.table_title and abs(g.scaled) < abs(f.scaled):
            continue  # a part of the lead's whole, in its own table ("Direct energy use" under the total)
        if abs(g.scaled - f.scaled) > 0.005 * max(abs(f.scaled), 1e-9) and \
                all(abs(g.scaled - o.scaled) > 0.005 * max(abs(o.scaled), 1e-9) for o in out):
            out.append(g)
    return out[:2]


def _joined(leads: list[Lead]) -> Lead:
    """One lead of several entities' facts (a comparison)."""
    checks = {k: ("match" if all(l.checks[k] == "match" for l in leads) else
                  "mismatch" if any(l.checks[k] == "mismatch" for l in leads) else "inferred")
              for k in ("entity", "measure", "period")}
    return Lead([], [f for l in leads for f in l.facts], "compare", checks, parts=leads)


def _fact_lead(best: Scored, facts: list[Fact], ask: Ask, docs: dict[int, DocumentMeta]) -> Lead:
    f = best.fact
    d = docs.get(f.document_id)
    checks = {
        "entity": "match" if d is not None and d.company_key in ask.companies else
        ("inferred" if not ask.companies else "mismatch"),
        "measure": "match" if best.exact else "inferred",
        "period": "inferred" if best.period_ok is None else ("match" if best.period_ok else "mismatch"),
    }
    lead = Lead([], [f, *same_row(f, facts)], "fact", checks)
    return lead


# the length of a compound growth asked with one year named: "the 3-year revenue CAGR to FY2022"
_SPAN = re.compile(r"\b(\d{1,2}|two|three|four|five|ten)[- ]years?\b", re.I)
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, **{str(i): i for i in range(1, 21)}}


def _metric_lead(book: FactBook, ask: Ask, scope: list[int], docs: dict[int, DocumentMeta],
                 retrieved: dict[int, float]) -> tuple[Lead | None, str | None]:
    metric = ask.metric
    assert metric is not None
    resolve = resolver(lambda item: book.item_facts(item, scope), docs, retrieved, ask.quarter, set(ask.terms))
    years = list(ask.years)
    average = bool(_AVERAGE.search(without_definition(ask.question))) and len(years) >= 2
    if metric.defined and (metric.averaged or metric.changed) and years:
        years, average = [max(years)], False  # "average PP&E between FY2018 and FY2019": the FY2019 figure
    if average or (len(years) == 2 and years[1] - years[0] > 1 and ask.change is False):
        years = list(range(min(years), max(years) + 1))
    if not years:
        y = latest_year(resolve, metric.inputs, range(2030, 1990, -1))
        years = [y] if y else []
    start = None
    if metric.compounded:  # "2 year revenue CAGR from FY2020 to FY2022": one figure, from the first year to the last
        span = _SPAN.search(without_definition(ask.question))
        start = min(years) if len(years) >= 2 else (max(years) - _NUMBER_WORDS.get(span.group(1).lower(), 0)
                                                     if years and span else None)
        years, average = years[-1:], False
    elif (ask.change or ask.history) and len(years) == 1:
        years = [years[0] - 1, years[0]]
    comps = [c for c in (compute(metric, y, resolve, start) for y in years) if c is not None]
    other = metric.other()
    if not comps and other is not None:  # the other common convention, when the first's inputs are not printed
        comps = [c for c in (compute(other, y, resolve) for y in years) if c is not None]  # (a report's own EBITDA)
        metric, other = (other, None) if comps else (metric, other)
    if comps and len(comps) < len(years) and (average or len(years) == 2):
        missing = sorted(set(years) - {c.year for c in comps})
        comps = comps if not average else []
        note_years = ", ".join(f"FY{y}" for y in missing)
    else:
        note_years = ""
    if not comps:
        found = [(n, resolve(n, years[-1] if years else None)) for n in metric.inputs]
        have = [f"{n.replace('_', ' ')} {f.raw} ({f.period}, p. {f.page})" for n, f in found if f is not None]
        lacking = [n.replace("_", " ") for n, f in found if f is None]
        when = f" for {note_years or ('FY' + str(years[-1]) if years else 'any year')}"
        note = f"{metric.name} needs {', '.join(lacking) or 'inputs'}{when}, which no table row of the documents " \
            f"gives" + (f"; found: {'; '.join(have)}" if have else "")
        return None, note
    d = docs.get(comps[-1].facts[0].document_id)
    checks = {
        "entity": "match" if d is not None and d.company_key in ask.companies else
        ("inferred" if not ask.companies else "mismatch"),
        "measure": "inferred" if metric.several else "match",
        "period": "match" if ask.years and comps[-1].year in ask.years else "inferred",
    }
    alt = [a for a in (compute(other, c.year, resolve) for c in comps) if a is not None] if other else []
    # shown only when it differs and every input is read from a primary statement (no guessed rows)
    alt = alt if len(alt) == len(comps) and any(abs(a.value - c.value) > 0.005 * max(abs(c.value), 1e-9)
                                                for a, c in zip(alt, comps)) \
        and all(statement_of_title(f.table_title) and _whole_row(name, f)
                for a in alt for name, i in a.inputs.items() for f in i.facts) \
        and all(len({(f.document_id, f.page) for name, i in a.inputs.items() if name in BALANCES for f in i.facts
                     if f.fiscal_year == a.year}) <= 1 for a in alt) else []  # one balance sheet's rows
    return Lead([], [f for c in comps for f in c.facts], "metric", checks, computation=comps[-1], series=comps,
                average=average, alternative=alt), None


def _whole_row(item: str, f: Fact) -> bool:
    """A row whose own label names the line item ("Merchandise inventories"), not a part of its group
    ("Inventories, net › Raw materials and supplies")."""
    own = set(lead_terms(f.label))
    words = set(lead_terms(item.replace("_", " "))) - {"total", "net"}
    return bool(own & (words | {w for t in words for w in synonyms(t)}))


def _sentence_answers(units: list[extractive.Unit], ask: Ask, settings: Settings) -> bool:
    """A sentence or row of the passages, close enough to the question, that gives a number and names at least
    half of the measure's words."""
    return any(_figure_unit(u, ask, settings) for u in units[:12])


def _coverage(u: extractive.Unit, ask: Ask) -> float:
    want = set(ask.terms)
    words = set(lead_terms(u.text + " " + (u.header or "")))
    return len({t for t in want if t in words or synonyms(t) & words}) / max(1, len(want))


def _figure_unit(u: extractive.Unit, ask: Ask, settings: Settings) -> bool:
    """A passage that gives a figure for the measure: a number and at least a quarter of the measure's words, or
    half of them."""
    if u.score < settings.answer.floor:
        return False
    cov = _coverage(u, ask)
    return cov >= 0.5 or (bool(numbers(u.text)) and cov >= 0.25)


def _missing_breakdown(lead: Lead | None, units: list[extractive.Unit], it, ask: Ask,
                       docs: list[DocumentMeta], said: Typed | None = None) -> str | None:
    """A place or named part the figure is asked for ('net sales in Germany') that the answer's figure does not
    cover, and no passage gives: the documents report the figure, not that breakdown."""
    company_words = {answerable.norm(w) for d in docs if d.company_key in ask.companies
                     for w in (d.company or "").split()} | {answerable.norm(w) for w in it.company_terms}
    # a paper named by its title's name ("in LongEval") is the document asked, not a part of it
    company_words |= {w for t in _title_names(docs) for w in t.split()}
    parts = answerable.breakdown_terms(it.question, company_words)
    if not parts or not asks_figure(it, ask):
        return None  # a chart or a description of a part is not refused for want of its figure
    named = answerable.part_stems(it.question, parts)
    measure = {t for t in ask.terms if t not in named}
    measure |= {w for t in measure for w in synonyms(t)}
    if lead is not None:
        # the lead's row must be about the part and the measure ("of which in Duisburg and Dresden via customer
        # service" is about Dresden, not its energy use)
        text = " ".join(f"{f.label_path} {f.col_header} {f.table_title} {f.row_text}" for f in lead.facts
                        if not measure or set(lead_terms(f"{f.label_path} {f.table_title}")) & measure)
    elif said is not None and _figure_in(said.label):
        text = said.label  # the sentence that would lead, when it states a figure
    else:
        text = ""  # a passage must give the part's figure (below)
    lacking = [p for p in parts if not answerable.covers(text, p)]
    if not lacking:
        return None
    for u in units[:8]:
        for sentence in re.split(r"(?<=[.;!?])\s+", u.text):
            if any(answerable.covers(sentence, p) for p in lacking) and _figure_in(sentence) and \
                    (not measure or set(lead_terms(sentence)) & measure):
                return None  # a passage gives the figure for that part
    who = _who(ask, docs)
    return (f"the documents{' of ' + who if who else ''} do not break "
            f"{answerable.measure_words(ask, it.question)} down by {', '.join(lacking)}")


def _figure_in(sentence: str) -> bool:
    """A sentence states a figure: a number that is not a year (or a date's day)."""
    return any(re.search(r"[\d,.]*\d", m) and not re.fullmatch(r"(19|20)\d{2}", m.strip("., "))
               for m in re.findall(r"[$€£]?\d[\d,.]*\s?%?", sentence)
               if not re.fullmatch(r"\d{1,2}", m.strip("., ")) or "%" in m)


def _fetch_chunks(book: FactBook, lead: Lead | None, chunks: dict[int, Candidate], docs: dict[int, DocumentMeta],
                  chart: FigureHit | None = None) -> None:
    """The passages of the lead's facts, and of the chart it describes, that the search did not return (the Facts
    stage fetched them)."""
    ids = [f.chunk_id for f in lead.facts] if lead is not None else []
    if chart is not None and chart.chunk_id in book.chunks:
        ids.append(chart.chunk_id)
    for cid in dict.fromkeys(i for i in ids if i is not None and i not in chunks):
        h = book.chunks[cid]
        chunks[cid] = Candidate.of(h, docs.get(h.document_id))


def _row_units(book: FactBook, rows: list[extractive.Unit]) -> dict[str, str]:
    """A quoted table row's unit, from its facts: 'USD millions', 't CO2e', 'GJ'."""
    if not rows:
        return {}
    out: dict[str, str] = {}
    for f in book.of_chunks(list(dict.fromkeys(u.c.chunk_id for u in rows)), 2000):
        if f.row_text in out or f.unit == "%" or f.is_change:
            continue
        scale = scale_name(f.scale, plural=True)
        unit = " ".join(x for x in ((f.unit or "").replace("/share", " per share"), scale) if x)
        if unit:
            out[f.row_text] = unit
    return out


_BULLET = re.compile(r"^[\u2022\u2023\u2043\u2219\u25aa\u25ab\u25cf\u25e6\u25a0\u25a1\u00b7\uf0b7]+\s*")


def _render(u: extractive.Unit, row_units: dict[str, str]) -> str:
    """A unit as quoted: a sentence as printed (without the PDF's own bullet glyph: it is drawn as a list item of
    ours, and would show twice); a table row with its column headers and its unit."""
    if u.kind != "row":
        return _BULLET.sub("", u.text).rstrip(".")
    unit = row_units.get(u.text)
    return extractive.render_row(u) + (f" (in {unit})" if unit else "")


def _write(lead: Lead | None, units: list[extractive.Unit], marks: _Markers, ask: Ask,
           docs: dict[int, DocumentMeta], settings: Settings, r: Retrieval,
           row_units: dict[str, str] | None = None, prefer: Typed | None = None, chart: FigureHit | None = None,
           fit: float | None = None) -> tuple[list[str], Lead | None]:
    """The paragraphs: the lead (with the formula of a computed metric), then the supporting passages."""
    paragraphs: list[str] = []
    lead_rows: set[str] = set()
    if lead is not None and lead.after_explanation:
        why = next((u for u in units if u.kind == "sentence" and u.score >= settings.answer.floor), None)
        if why is not None:
            m = marks.cite(why.c.chunk_id, why.text)
            paragraphs.append(f"{why.text.rstrip('.')} [{m}].")
            lead_rows.add(why.text)
    if lead is not None and lead.kind in ("metric", "fact", "compare"):
        parts = lead.parts or [lead]
        method = [_write_metric(p, marks, docs, lead.computed) if p.kind == "metric" else
                  _write_fact(p, marks, docs, ask, lead.computed) for p in parts]
        for p in parts:
            lead_rows |= {f.row_text for f in p.facts}
        # one sentence per entity, then the comparison; then how each figure was computed
        first = [p.sentences[0] for p in parts]
        if len(parts) > 1:
            first.append(_comparison(parts, docs, lead.computed))
        lead.sentences = [x for x in first if x] + [t for p in parts for t in p.sentences[1:]]
        bullets = [b for m in method for b in m[0]]
        notes = list(dict.fromkeys(n for m in method for n in m[1]))
        paragraphs.append(" ".join(x for x in first if x))
        if bullets:
            paragraphs.append("\n".join(f"- {b}" for b in bullets))
        if notes:
            paragraphs.append(" ".join(notes))
    if lead is not None and lead.kind == "rows" and lead.rows is not None:
        f = lead.rows.rows[0].facts[0]
        m = marks.cite(f.chunk_id, f.row_text)  # the first row quoted; each row's values are checked below
        lead.sentences = [rows_sentence(lead.rows, m, f.page)]
        paragraphs.append(lead.sentences[0])
        lead_rows |= {x.row_text for x in lead.facts}
    chosen = _supporting(units, lead_rows, settings, lead is None, r.intent.wants_number, ask)
    if lead is None and (chart is not None or (prefer is not None and prefer.unit is not None)):
        chosen = [x for x in chosen if prefer is None or prefer.unit is None or x.text != prefer.unit.text]
        lead = _chart_lead(chart, r, marks, fit) if chart is not None else \
            _sentence_lead(prefer, marks, row_units or {})  # type: ignore[arg-type]
        paragraphs.append(lead.sentences[0])
    elif lead is None and chosen:
        # a figure asked: the best passage that gives one for the measure leads
        i = next((k for k, u in enumerate(chosen) if _figure_unit(u, ask, settings)), 0) \
            if asks_figure(r.intent, ask) else 0
        u = chosen.pop(i)
        m = marks.cite(u.c.chunk_id, u.text)
        checks = {"entity": "match" if u.c.company_key in ask.companies else "inferred", "measure": "inferred",
                  "period": "match" if set(ask.years) & years_of(u.c) else "inferred"}
        lead = Lead([f"{_render(u, row_units or {})} [{m}]."], [], "sentence", checks)
        paragraphs.append(lead.sentences[0])
    if chosen:
        bullets = []
        for u in chosen:
            m = marks.cite(u.c.chunk_id, u.text)
            bullets.append(f"- {_render(u, row_units or {})} ({document_label(u.c)}) [{m}]")
        paragraphs.append("**Supporting passages:**\n" + "\n".join(bullets))
    return paragraphs, lead


def _chart_lead(f: FigureHit, r: Retrieval, marks: _Markers, fit: float | None) -> Lead:
    """'The chart “Net sales by business sector – 2023” (p. 6) shows: 44% Life Science € 9,281 million …' — the
    chart's own title and the words and values printed on it (its text layer, or OCR), cited to its passage."""
    # its own passage, else one on its page
    chunk = marks.chunks.get(f.chunk_id) if f.chunk_id is not None else None
    chunk = chunk or next(c for c in r.chunks if (c.document_id, c.page_start) == (f.document_id, f.page))
    title = re.sub(r"\s+", " ", f.caption or "").strip(" .") or "the chart"
    # what the chart reads as (its values tied to their labels) when it holds every number printed on it; else
    # the words printed on it too
    reading = reading_line(f.ocr_text)
    figures_in = re.compile(r"\d[\d,.]*\d|\d").findall
    whole = bool(reading) and set(figures_in((f.ocr_text or "")[len(reading):])) <= set(figures_in(reading))
    said = re.sub(r"\s+", " ", reading if whole else f.ocr_text or "").strip()
    if said.lower().startswith(title.lower()):
        said = said[len(title):].strip(" .:–-")
    said = said if len(said) <= 220 else said[:217].rsplit(" ", 1)[0] + " …"
    m = marks.cite(chunk.chunk_id, "")
    typed = f.figure_kind == "chart" and f.chart_type and f.chart_type != "other"
    kind = f"{(f.chart_type or '').replace('_', ' ')} chart" if typed else (f.figure_kind or "chart")
    text = f"The {kind} “{title}” on p. {f.page} shows" + (f": {said}" if said else " the figure asked for") + f" [{m}]."
    lead = Lead([text], [], "chart", {"entity": "inferred", "measure": "match" if (fit or 0) >= _FIT.measure_match
                                      else "inferred", "period": "inferred"})
    lead.fit = fit
    return lead


def _sentence_lead(prefer: Typed, marks: _Markers, row_units: dict[str, str]) -> Lead:
    """The sentence the candidates' judge chose: closest in meaning, of the type, entity and period asked."""
    u = prefer.unit
    assert u is not None
    m = marks.cite(u.c.chunk_id, u.text)
    checks = {"entity": prefer.checks.get("entity", "inferred"),
              "measure": "match" if prefer.sim >= _FIT.measure_match else "inferred",
              "period": prefer.checks.get("period", "inferred")}
    lead = Lead([f"{_render(u, row_units)} [{m}]."], [], "sentence", checks)
    lead.fit = prefer.fit
    return lead


def _write_metric(lead: Lead, marks: _Markers, docs: dict[int, DocumentMeta], computed: list[str]
                  ) -> tuple[list[str], list[str]]:
    """A computed metric: the sentence that answers (lead.sentences[0]); returns the formula of each year with
    every input cited, and the notes and convention."""
    assert lead.computation is not None
    series = lead.series or [lead.computation]
    for c in series:
        for f in c.facts:
            marks.cite(f.chunk_id, f.row_text)
    d = docs.get(series[-1].facts[0].document_id)
    lines = [computation_sentences(c, d, marks.of) for c in series]
    computed.extend(c.formatted() for c in series)
    first = lines[-1][0]
    if lead.average:
        first = average_sentence(series, d, computed)
    elif len(series) > 1:
        first = trend_sentence(series, d, marks.of, computed)
    if lead.alternative and not lead.average:
        alt = lead.alternative
        shown = " and ".join(f"{a.formatted()} in FY{a.year}" for a in reversed(alt[-2:])) if len(alt) > 1 \
            else alt[-1].formatted()
        computed.extend(a.formatted() for a in alt)
        # the other common convention's figure, in the same sentence: the analyst who uses it finds their number
        first = re.sub(r"(\s*(?:\[\d+\])*)\.$", rf" ({shown} on the other common convention, "
                                                     rf"{alt[-1].metric.convention})\1.", first, count=1)
    notes = [f"({n}.)" for n in sorted({n for c in series for n in c.notes})]
    notes.append(f"*Convention:* {series[-1].metric.convention}.")
    formulas = [f for _, f in lines] + [computation_sentences(a, d, marks.of)[1] for a in lead.alternative[-1:]]
    lead.sentences = [first] + formulas + notes
    return formulas, notes


def _write_fact(lead: Lead, marks: _Markers, docs: dict[int, DocumentMeta], ask: Ask, computed: list[str]
                ) -> tuple[list[str], list[str]]:
    f = lead.facts[0]
    m = marks.cite(f.chunk_id, f.row_text)
    lead.sentences = [fact_sentence(f, docs.get(f.document_id), m, lead.facts[1:], ask, computed)]
    return [], []


def _comparison(parts: list[Lead], docs: dict[int, DocumentMeta], computed: list[str]) -> str:
    """The comparison after one answer per entity: the difference of two metrics in points (or as a ratio), or
    which figure is larger."""
    if all(p.kind == "metric" and p.computation is not None for p in parts) and len(parts) == 2:
        a, b = (p.computation for p in parts)
        assert a is not None and b is not None
        big, small = (a, b) if a.value >= b.value else (b, a)
        name = lambda c: who(docs.get(c.facts[0].document_id)) or "one"
        unit = big.metric.unit
        diff = big.value - small.value
        text = f"{diff:.1f} percentage points" if unit == "%" else f"{diff:,.2f}"
        computed.append(text.split()[0])
        return f"{possessive(name(big))}{big.metric.name} is {text} higher than {possessive(name(small)).strip()}."
    return compare_sentence([p.facts[0] for p in parts], docs, computed)


def _supporting(units: list[extractive.Unit], lead_rows: set[str], settings: Settings, need_lead: bool,
                numeric: bool, ask: Ask | None = None) -> list[extractive.Unit]:
    """The best units after the lead: above the floors, no near-duplicate rows, not the lead's own row."""
    if not units or units[0].score < settings.answer.floor:
        return []
    best = units[0].score
    out: list[extractive.Unit] = []
    seen: set[str] = set()
    cap = settings.answer.max_units - (0 if need_lead else 2)
    for u in units:
        if len(out) >= max(1, cap) or u.score < max(settings.answer.floor, settings.answer.relative * best):
            break
        key = " ".join(sorted(set(word_terms(u.text))))
        if u.text in lead_rows or key in seen or any(u.text in row or row in u.text for row in lead_rows):
            continue
        if numeric and not need_lead and not numbers(u.text):
            continue  # a figure was asked: supporting passages give figures
        if ask is not None and not need_lead and _coverage(u, ask) < 0.5:
            continue  # a supporting passage names the measure asked
        seen.add(key)
        out.append(u)
    return out


def _verify_and_score(a: Answer, lead: Lead | None, r: Retrieval) -> None:
    """Every quote and number against its cited passage (a computed value by recomputation from its verified
    inputs), then the confidence: high only when the lead's value is verified and its entity, measure and period
    match the question; medium when one of them is inferred; low otherwise."""
    ev = {e.marker: {"text": e.text, "quote": e.quote} for e in a.evidence}
    computed = lead.kind == "metric" if lead else False
    # the method (convention, notes) is not a claim; numbers the code computed are checked by recomputation
    body = "\n".join(l for l in a.answer.splitlines() if not l.startswith(("*Convention:*", "(", "*Not computed:*")))
    for x in sorted(lead.computed if lead else [], key=len, reverse=True):
        body = body.replace(x, "")
    v = verify(body, ev)
    for e in a.evidence:
        e.verified = quote_in(e.quote, e.text) if e.quote else False
    a.numbers_total, a.numbers_verified = v.numbers_total, v.numbers_verified
    a.unsupported += [{**u, "action": "flagged"} for u in v.unsupported]
    reasons = []
    if lead is None:
        a.confidence, a.reasons = "low", ["no sentence or table fact answers directly"]
        return
    if lead.kind in ("fact", "metric", "compare", "rows"):
        check = lead.facts[:1] if lead.kind == "fact" else ([p.facts[0] for p in lead.parts] if lead.parts
                                                             else lead.facts)
        ok = all(_raw_in(f, a.evidence) for f in check)
        lead.verified = ok
        what = {"fact": "the lead's value", "compare": "each compared value",
                "rows": "every compared row value"}.get(lead.kind, "every input of the computation")
        reasons.append(f"{what} {'is' if ok else 'is NOT'} printed in its cited passage")
        if computed:
            reasons.append("the computed value is recalculated from those inputs by code")
    elif lead.kind == "chart":
        lead.verified = bool(a.figures)
        reasons.append("the chart is shown; its title, labels and values are read from the chart itself (text layer "
                       "or OCR)" if lead.verified else "the chart described was not shown")
    else:
        lead.verified = all(e.verified for e in a.evidence[:1])
        reasons.append("the lead sentence is quoted from its cited passage" if lead.verified else
                       "the lead sentence was not found in its passage")
    for k in ("rows", "measure") if lead.kind == "rows" else ("entity", "measure", "period"):
        state = lead.checks.get(k, "inferred")
        if k == "measure" and lead.rivals:
            reasons.append("measure: inferred (other rows match the question as well, with other values: " +
                           "; ".join(f"{money(f)} on p. {f.page}" for f in lead.rivals) + ")")
            continue
        words = "inferred (the question names no column: every column is given)" \
            if lead.kind == "rows" and k == "measure" and state == "inferred" else _CHECK_WORDS[k][state]
        reasons.append(f"{k}: {words}")
    if lead.fit is not None:
        reasons.append(f"fit to the question {lead.fit:.2f} (meaning of the measure, unit, period, entity)")
    if lead.after_explanation:
        reasons.append("the question asks why: the explanation is quoted from the filing, the figure follows it")
    a.signals = {"kind": lead.kind, "verified": lead.verified, "fit": lead.fit, "rivals": bool(lead.rivals),
                 "unsupported": len(v.unsupported), "after_explanation": lead.after_explanation,
                 **{k: lead.checks.get(k, "inferred") for k in ("entity", "measure", "period")}}
    a.confidence = confidence.label(a.signals)  # fitted on the tuning part (rag/answer/confidence.py)
    a.signals["p_right"] = round(confidence.probability(a.signals), 3)
    reasons.append(f"estimated chance of being right {a.signals['p_right']:.2f} (the policy fitted on labelled "
                   "questions)")
    if v.unsupported:
        reasons.append(f"{len(v.unsupported)} supporting sentence(s) with a number not in their passage")
    a.reasons = reasons + a.reasons


def _computed_sentences(lead: Lead | None) -> list[str]:
    """The lead's sentences that hold a figure computed by code (a formula, a change, a comparison)."""
    if lead is None or not lead.computed:
        return []
    return [x for x in lead.sentences if any(c in x for c in lead.computed)]


def _raw_in(f: Fact, evidence: list[Evidence]) -> bool:
    """The fact's row is in its cited passage and the value is in the row."""
    return any(e.chunk_id == f.chunk_id and bool(f.row_text) and quote_in(f.row_text, e.text)
               and quote_in(f.raw, f.row_text) for e in evidence)


_CHECK_WORDS = {
    "rows": {"match": "each thing compared is a row of the cited table, matched by its name's words (never 'high')"},
    "entity": {"match": "the company asked", "inferred": "inferred (the question names no company in the library)",
               "mismatch": "another company than the one asked"},
    "measure": {"match": "the row label (or the metric's definition, or a results table's column) matches the "
                         "measure asked",
                "inferred": "inferred (the row label matches only part of the measure's words, or the metric has "
                            "more than one convention)",
                "mismatch": "another measure"},
    "period": {"match": "the period asked", "inferred": "inferred (the question names no period: the latest found)",
               "mismatch": "another period than the one asked"},
}
