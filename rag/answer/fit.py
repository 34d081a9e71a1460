"""Candidates judged by meaning and type: every table cell and every sentence with a value in the retrieved passages is
a typed candidate (value, unit class, period, entity, and its row's label path or its sentence); the one that fits the
question best leads.

Fit combines
- meaning: the cosine between the question's measure (the question without its instructions, company names and
  periods) and the candidate's label path or sentence, with the embedding model retrieval already loaded — not word
  overlap, so "energy used in total" finds the row "Total energy consumption";
- type: the unit class asked (t CO2e, currency, %, FTE …) against the candidate's;
- period: the year asked against the candidate's column or the years its sentence names;
- entity: the company asked against the candidate's document.

A narrative question's lead is the sentence closest in meaning to the whole question. Below the floors nothing leads,
and the answer says "Insufficient data" with what the documents do say nearby. The weights and floors are fitted on
the tuning part of `bench/questions/broad_*.jsonl` (docs/benchmarks.md), never on its held-back part."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from rag.answer.extractive import Unit, units_of
from rag.domain import MONTH
from rag.quantities import (
    NEGATED,
    PROTOTYPES,
    Num,
    asked_class,
    class_of_unit,
    compatible,
    counted_words,
    named_class,
    numbers,
    printed_class,
    qualifiers,
    quantities_in,
)
from rag.records import Candidate, DocumentMeta, Fact, FigureHit
from rag.retrieve.measure import ASK_WORDS, asked_unit, label_terms, strip_instructions

__all__ = ["Judge", "Typed", "FitSettings", "measure_text"]


@dataclass(frozen=True)
class FitSettings:
    unit_weight: float = 0.12  # the unit class asked agrees (+) or conflicts (−)
    period_weight: float = 0.10  # the period asked agrees (+) or another period (−)
    entity_weight: float = 0.25  # another company than the one asked (−)
    rank_weight: float = 0.05  # retrieval's own rank of the passage
    word_weight: float = 0.25  # the share of the measure's own words in the label, beside its meaning
    qualifier_weight: float = 0.15  # the numbered qualifier asked ("Scope 1") agrees (+) or is another (−)
    answer_floor: float = 0.42  # a figure's candidate below this fit does not answer
    sentence_floor: float = 0.70  # a sentence without a value of the kind asked answers a figure only this close
    open_floor: float = 0.85  # an open question takes a figure of no asked unit only when it fits this well
    narrative_floor: float = 0.30
    chart_floor: float = 0.25  # a chart this far from the measure asked is not the one asked  # a narrative sentence below this similarity does not answer
    measure_match: float = 0.60  # a label or sentence this close to the measure is the measure asked
    rules_margin: float = 0.25  # a candidate that is the measure replaces the rules' row when it fits this much better
    rules_close: float = 0.85  # a rules' row this close to the measure is kept without weighing every candidate
    nearby_floor: float = 0.30  # what the documents say nearby is named only this close to the measure
    max_sentences: int = 50
    max_rows: int = 120
    sentence_chunks: int = 5  # sentences are read from the best passages only


@dataclass
class Typed:
    """A candidate answer: a table cell or a sentence, with its type."""
    kind: str  # row | sentence
    label: str  # what is compared by meaning: the row's label path and table title, or the sentence
    chunk: Candidate
    value: Num | None = None
    unit_class: str | None = None
    years: set[int] = field(default_factory=set)
    fact: Fact | None = None
    unit: Unit | None = None
    sim: float = 0.0
    fit: float = 0.0
    checks: dict[str, str] = field(default_factory=dict)  # entity / period / unit → match | inferred | mismatch

    def describe(self) -> str:
        """What the candidate says, for 'the documents say nearby'."""
        if self.fact is not None:
            f = self.fact
            return f"{f.label_path} ({f.col_header or f.period or ''}): {f.raw}{' ' + f.unit if f.unit else ''}"
        return self.label


@lru_cache(maxsize=8192)
def column_group(header: str | None) -> str:
    """A column header without its period: "Germany 2023" → "Germany", "FINE" → "FINE", "2023" → ""."""
    h = re.sub(r"\b(?:fy|fiscal(?: year)?)?\s?'?(?:19|20)\d{2}(?:\s*/\s*\d{2,4})?\b|\bfy\s?'?\d{2}\b|"
               r"\b(?:q[1-4]|[1-4]q|h[12]|9m)(?:\s?'?\d{2})?\b|"
               rf"\b{MONTH}(?:\s+\d{{1,2}})?,?|"
               r"\b(?:as of|as at|at|year|years|ended|ending|months?|three|six|nine|twelve|restated|adjusted)\b",
               " ", header or "", flags=re.I)
    h = re.sub(r"\s+", " ", h).strip(" ,|/-–()*:.")
    if class_of_unit(h) and len(h.split()) <= 3:
        return ""  # a unit ("in %", "EUR m") says how, not what
    return h if re.search(r"[A-Za-z]{2,}", h) else ""


# a question that asks a change or a comparison may be answered by a percentage
_CHANGE_ASKED = re.compile(r"\b(?:chang\w*|grow\w*|grew|increas\w*|decreas\w*|declin\w*|rise|rose|fell|fall|drop\w*|"
                           r"compar\w*|versus|vs\.?|yoy|year[- ]over[- ]year|up|down|higher|lower|improv\w*|"
                           r"how (?:much|many) (?:more|less|fewer))\b", re.I)

# the classes whose unit a sentence always prints beside the number (a count or a headcount may stand alone)
_PRINTED = ("currency", "energy", "emissions", "water", "mass", "per_share")

# a row whose own label names a rate or a share measures a percentage, whatever its table counts
_RATE_ROW = re.compile(r"\b(rate|ratio|share|proportion|percentage|quota)\b", re.I)
# a group of rates ("Turnover rate by region" over "Europe", "North America"): each row under it is a rate
_RATE_GROUP = re.compile(r"\b(rates?|ratios?|percentages?|quotas?)\b", re.I)

_VEC_CACHE: OrderedDict[str, np.ndarray] = OrderedDict()
_VEC_LOCK = threading.Lock()


def _vectors(embedder, texts: list[str]) -> np.ndarray:
    """Normalised vectors of short texts, cached across questions (the same labels recur)."""
    key = getattr(embedder, "model_name", "")
    out: dict[str, np.ndarray] = {}
    with _VEC_LOCK:
        for t in texts:
            v = _VEC_CACHE.get(f"{key}\x00{t}")
            if v is not None:
                out[t] = v
    todo = list(dict.fromkeys(t for t in texts if t not in out))
    if todo:
        vecs = embedder.encode(todo, batch_size=64)
        with _VEC_LOCK:
            for t, v in zip(todo, vecs):
                out[t] = v
                _VEC_CACHE[f"{key}\x00{t}"] = v
            while len(_VEC_CACHE) > 50_000:
                _VEC_CACHE.popitem(last=False)
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([out[t] for t in texts])


_PERIOD = re.compile(r"\b(?:in|for|during|as of|as at|at the end of|by the end of|at year[- ]end|at)?\s*(?:the\s+)?"
                     r"(?:(?:year[- ])?end[- ](?:of[- ])?)?"
                     r"(?:(?:fiscal|financial|calendar|reporting)\s+)?(?:year\s+)?(?:fy\s?'?)?(?:19|20)\d{2}"
                     r"(?:\s*/\s*(?:19|20)?\d{2})?\b|\bq[1-4]\b|\b(?:first|second|third|fourth) quarter\b|"
                     r"\b(?:fiscal|financial) year\b", re.I)


# a date: "January 30, 2021", "31 Dec 2023", "12/31/2023", with what introduces it ("ended", "as of", "at")
_DATE = re.compile(rf"(?:\b(?:ended|ending|as of|as at|at|on|of)\s+)?(?:\b{MONTH}\s+\d{{1,2}},?\s+(?:19|20)\d{{2}}|"
                   rf"\b\d{{1,2}}\.?\s+{MONTH},?\s+(?:19|20)\d{{2}}|\b\d{{1,2}}/\d{{1,2}}/(?:19|20)?\d{{2}})\b", re.I)
# the words that ask (how much, by what percentage) and the auxiliaries of a question: not what is measured
_AUXILIARY = re.compile(r"\b(?:by\s+)?(?:how\s+(?:much|many)|what\s+(?:percentage|percent|share|proportion))\b|"
                        r"\b(?:did|does|do)\b", re.I)

# a sentence that tells how to answer, not what is asked: it starts with an instruction verb
_INSTRUCTION = re.compile(r"^\s*(?:please\s+)?(?:answer|base|round|give|provide|use|assume|respond|express|report|state|"
                          r"note|consider|focus|rely|relying|show your|keep|do not|don't|format|write|return)\b", re.I)


def measure_text(question: str, company_words: list[str]) -> str:
    """The question's measure: without its instructions (whole sentences that say how to answer, and the phrases
    strip_instructions knows), the companies it names and its periods."""
    parts = [p for p in re.split(r"(?<=[.?!])\s+", question.strip()) if p]
    asked = [p for p in parts if p.rstrip().endswith("?")]
    kept = (asked if asked and len(asked) < len(parts) else [p for p in parts if not _INSTRUCTION.match(p)]) or parts
    q = strip_instructions(" ".join(kept))
    for w in sorted({w for w in company_words if w}, key=len, reverse=True):
        q = re.sub(rf"\b{re.escape(w)}(?:['’]s)?\b", " ", q, flags=re.I)
    q = _DATE.sub(" ", q)
    q = _PERIOD.sub(" ", q)
    q = re.sub(r"\(\s*(?:ended|ending|as of|as at|at)?\s*[,;]?\s*\)", " ", q, flags=re.I)  # "(ended January 30, )"
    q = _QUESTION_WORDS.sub("", q)
    q = _AUXILIARY.sub(" ", q)
    q = re.sub(r"^\s*(?:was|were|is|are|did|does|do|has|have) there (?:any |a )?", "", q, flags=re.I)
    for _ in range(3):  # prepositions left dangling by the periods taken out: "between of and", "at for"
        q = re.sub(r"\b(?:between|of|and|in|for|from|to|at|by|during|as)\s+(?=(?:between|of|and|in|for|from|to|at|by|"
                   r"during|as)\b|[?.,]|$)", "", q, flags=re.I)
    q = re.sub(r"\s+", " ", q).strip(" ,?.")
    return q or question


def qualifier_fit(asked: dict[str, set[str]], label: str) -> str:
    """mismatch when the candidate names a qualifier asked with other numbers only (Scope 2 for Scope 1); match when
    it prints the dotted number asked ("3.11 Use of sold products" for "category 3.11") or names every qualifier
    asked; inferred when it names some and is silent on others (Scope 3 in total for "Scope 3 category 3.11")."""
    got = qualifiers(label)
    common = [w for w in asked if w in got]
    if any(not (asked[w] & got[w]) for w in common):
        return "mismatch"
    dotted = {n for ns in asked.values() for n in ns if "." in n}
    if any(re.search(rf"(?<![\d.]){re.escape(n)}(?![\d.])", NEGATED.sub(" ", label)) for n in dotted):
        return "match"
    return "match" if common and len(common) == len(asked) else "inferred"


_QUESTION_WORDS = re.compile(r"^\s*(?:(?:what|which|how)\s+(?:much|many|big|large|high)?\s*(?:is|was|were|are|did|does|do)?"
                             r"|show me|tell me|give me|can you (?:show|tell|give) me|is there)\b\s*(?:the\s+)?", re.I)


_FULL_SENTENCE = re.compile(r"[a-z)\]%\d][\"'”’)\]]*[.!?](?:\s*\(?\d{0,3}\)?)?\s*$")
_CAPTION = re.compile(r"\s*(figure|fig\.|table|chart|exhibit)\s*[\dIVX]+[a-z]?\s*[:.|]", re.I)


# a year printed as a period: after a period word or in "(2022: …)", or in a list of years after one ("in 2023,
# 2022 and 2021") — not a year inside a name ("the 2017 Tax Act")
_YEAR_AS_PERIOD = re.compile(r"(?:\b(?:in|for|during|fiscal(?:\s+year)?|fy|year|years|as of|as at|at|since|from|to|until|by|"
                             r"end of|compared (?:to|with)|versus|vs\.?|and|,)\s+(?:[A-Z][a-z]+\.?\s+\d{1,2},\s+)?|"
                             r"\(\s*|^\s*)((?:19|20)\d{2})(?![\d,.]\d)(?!\s+(?:[A-Z][a-z]+\s+)?Act\b)", re.I)


def _spelling(term: str) -> str:
    """One spelling for British and American word ends: kilometre ~ kilometer, centre ~ center, litre ~ liter."""
    return re.sub(r"re$", "er", term)


def _years_in(text: str) -> set[int]:
    return {int(y) for y in _YEAR_AS_PERIOD.findall(text)}


def _plain(text: str) -> str:
    """A line compared as printed: its words, without cell gaps or a closing full stop."""
    return " ".join(text.replace(" | ", " ").split()).rstrip(" .")


class Judge:
    """Scores the typed candidates of one question."""

    def __init__(self, embedder, question: str, companies: list[str], company_words: list[str], years: list[int],
                 docs: dict[int, DocumentMeta], cfg: FitSettings | None = None, named: list[str] | None = None):
        self.embedder = embedder
        self.cfg = cfg or FitSettings()
        self.question = question
        self.companies = companies
        self.years = list(years)
        self.docs = docs
        self.named = [n for n in named or [] if n]  # a name no document is about: the candidate itself names it
        self.measure = measure_text(question, company_words)
        self.qualifiers = qualifiers(self.measure)
        self.measure_terms = [t for t in dict.fromkeys(label_terms(self.measure)) if t not in ASK_WORDS]
        vecs = _vectors(embedder, [self.measure, question] + list(PROTOTYPES.values()))
        self.measure_vec, self.question_vec = vecs[0], vecs[1]
        self.asked_class = asked_class(question, self.measure_vec, dict(zip(PROTOTYPES, vecs[2:])))
        # only a unit the question names makes another unit a mismatch; one inferred from the measure's meaning
        # (dividends: an amount or per share?) makes it "inferred"
        self.class_named = named_class(question) is not None
        # a unit the question prints ("in EUR", "in MWh"), not a class inferred from a word ("rate", "how many")
        self.unit_named = printed_class(question)
        self.change_asked = bool(_CHANGE_ASKED.search(question))  # a percentage may answer a change asked
        self.unit_asked = asked_unit(question)  # "in GWh": of two tables alike, one in GWh and one in TJ, the GWh
        # "how many passenger kilometres": a number printed with the words counted is a number of the kind asked
        counted = label_terms(counted_words(question) or "")
        self.counted = _spelling(counted[-1]) if counted else None

    # -- candidates ----------------------------------------------------------------------------------------------
    def rows(self, facts: list[Fact], chunks: dict[int, Candidate]) -> list[Typed]:
        """One candidate per table row: the cell of the period asked (or the latest), never a change column."""
        by_row: dict[tuple, list[Fact]] = {}
        for f in facts:
            if f.chunk_id in chunks and not f.is_change:
                # a row's cells under one column group: the periods of one measure; a table whose columns are not
                # periods (COARSE | FINE, Germany | abroad) holds one measure per column, each its own candidate
                key = (f.chunk_id, f.label_path, f.table_title, f.row_text, column_group(f.col_header))
                by_row.setdefault(key, []).append(f)
        out = []
        for (cid, path, title, _, group), cells in by_row.items():
            cell = self._cell(cells)
            if cell is None:
                continue
            if group and group.lower() not in path.lower():
                path = f"{path} › {group}"
            cls = "percent" if cell.unit == "%" else class_of_unit(cell.unit) or class_of_unit(title)
            if cls in (None, "mass") and class_of_unit(f"{title} {path}") in ("emissions", "intensity"):
                cls = class_of_unit(f"{title} {path}")  # "t" in a table of "t CO2e"; a row of an intensity
            elif cls in (None, "headcount", "count") and (_RATE_ROW.search(path.rsplit("›", 1)[-1]) or
                                                           _RATE_GROUP.search(path)):
                cls = "percent"  # "Turnover rate" (or its group) in a table of "Staff": a rate, not people
            label = f"{path} ({title})" if title and title.lower() not in path.lower() else path
            out.append(Typed("row", label, chunks[cid], numbers(cell.raw)[0] if numbers(cell.raw) else None, cls,
                             {cell.fiscal_year} if cell.fiscal_year else set(), fact=cell))
        return out[: self.cfg.max_rows]

    def _cell(self, cells: list[Fact]) -> Fact | None:
        dated = [f for f in cells if f.fiscal_year]
        if self.years:
            asked = [f for f in dated if f.fiscal_year in self.years]
            if asked:
                return max(asked, key=lambda f: (f.fiscal_period in ("FY", None), f.fiscal_year))
            return max(dated, key=lambda f: f.fiscal_year or 0) if dated else None  # judged a period mismatch
        if dated:
            return max(dated, key=lambda f: (f.fiscal_year, f.fiscal_period in ("FY", None)))
        return cells[0]

    def sentences(self, chunks: list[Candidate], with_value: bool, facts: Sequence[Fact] = ()) -> list[Typed]:
        """The sentences of the retrieved passages (with a value, when a figure is asked). A line the table reader
        read as a row of a table (one of `facts`' rows: printed without column gaps, "Scope 1 1,772.6 t 1,293.5 t")
        is a row, judged as its cells, not a sentence."""
        rows = {(f.chunk_id, _plain(f.row_text)) for f in facts}
        out = []
        for c in chunks:
            for pos, u in enumerate(units_of(c)):
                if u.kind != "sentence" or len(u.text) > 600 or (c.chunk_id, _plain(u.text)) in rows or (
                        not with_value and (
                        _CAPTION.match(u.text) or not _FULL_SENTENCE.search(u.text))):
                    continue  # a caption names a figure, a header row lists columns: neither answers in words
                u.chunk, u.pos = c, pos
                found = quantities_in(u.text)
                if with_value and not found:
                    continue
                pick, cls = self._value_of(found, u.text)
                out.append(Typed("sentence", u.text, c, pick, cls, _years_in(u.text), unit=u))
                if len(out) >= self.cfg.max_sentences:
                    return out
        return out

    def _value_of(self, found: list[tuple[str, str | None]], text: str = "") -> tuple[Num | None, str | None]:
        """The sentence's value for the asked class (the first of that class; the first followed by the words a "how
        many" question counts), else its first quantity that is not a condition of the measurement (a temperature:
        "at 25°C", "1.5°C pathway")."""
        if not found:
            return None, None
        at = 0
        for raw, _ in found if self.counted else ():
            at = text.find(raw, at) + len(raw)  # the words printed after the number, up to the next one
            after = re.split(r"[,;(]|\d", text[at: at + 40])[0]
            if self.counted in {_spelling(t) for t in label_terms(after)}:
                nums = numbers(raw)
                return (nums[0] if nums else None), self.asked_class
        for raw, cls in found:
            if self.asked_class and compatible(self.asked_class, cls) == "match":
                nums = numbers(raw)
                return (nums[0] if nums else None), cls
        raw, cls = next(((r, c) for r, c in found if c != "temperature"), found[0])
        nums = numbers(raw)
        return (nums[0] if nums else None), cls

    # -- scoring -------------------------------------------------------------------------------------------------
    def score(self, cands: list[Typed], narrative: bool = False) -> list[Typed]:
        """Fit of each candidate, best first."""
        if not cands:
            return []
        vecs = _vectors(self.embedder, [c.label for c in cands])
        target = self.question_vec if narrative else self.measure_vec
        # meaning, with the measure's own words as a second opinion (a rare exact word — "inventories" — that the
        # small embedding model weighs little): the share of the measure's content words the label has
        sims = vecs @ target + self.cfg.word_weight * np.array([self._words_in(c.label) for c in cands])
        top = max((c.chunk.final for c in cands), default=1.0) or 1.0
        cfg = self.cfg
        for c, s in zip(cands, sims):
            c.sim = float(s)
            c.checks = self._checks(c)
            w = {"match": 1.0, "inferred": 0.0, "mismatch": -1.0}
            unit = w[c.checks["unit"]] * cfg.unit_weight if not narrative else 0.0
            period = w[c.checks["period"]] * cfg.period_weight
            entity = min(0.0, w[c.checks["entity"]]) * cfg.entity_weight
            qualifier = w[c.checks["qualifier"]] * cfg.qualifier_weight
            if self.unit_asked and c.fact is not None and c.fact.unit == self.unit_asked:
                unit += cfg.unit_weight / 2  # the very unit asked, not only its kind
            c.fit = c.sim + unit + period + entity + qualifier + cfg.rank_weight * max(c.chunk.final, 0.0) / top
        return sorted(cands, key=lambda c: -c.fit)

    def _words_in(self, label: str) -> float:
        if not self.measure_terms:
            return 0.0
        have = set(label_terms(label))
        return sum(1 for t in self.measure_terms if t in have) / len(self.measure_terms)

    def _checks(self, c: Typed) -> dict[str, str]:
        d = self.docs.get(c.chunk.document_id)
        if self.named:  # "Sam's Club": the row, its table, its heading or the sentence names it
            where = f"{c.label} {c.chunk.heading or ''}".lower()
            entity = "match" if all(n.lower() in where for n in self.named) else "mismatch"
        elif not self.companies:
            entity = "inferred"
        else:
            entity = "match" if d is not None and d.company_key in self.companies else "mismatch"
        if not self.years:
            period = "inferred"
        elif c.years:
            period = "match" if c.years & set(self.years) else "mismatch"
        else:  # a sentence that names no year speaks of its document's year: another year is another period
            own = {d.fiscal_year} if d is not None and d.fiscal_year else set()
            period = "match" if own & set(self.years) else ("mismatch" if own else "inferred")
        unit = compatible(self.asked_class, c.unit_class)
        if unit == "mismatch" and not self.class_named and "intensity" not in (self.asked_class, c.unit_class):
            unit = "inferred"  # a class guessed from the measure's meaning; but a ratio is never its total
        if c.unit_class == "percent" and self.asked_class != "percent" and not self.change_asked:
            unit = "mismatch"  # a percentage answers a share, a rate or a change asked, never an amount or a count
        if c.kind == "sentence" and c.unit_class is None and self.unit_named in _PRINTED:
            unit = "mismatch"  # "in EUR" asked: a sentence's bare number ("among the top 100") is not an amount
        qualifier = "inferred"
        if self.qualifiers:  # the row's own label first: "(Scope 1)" under a title "Scope 1 and 2" is Scope 1
            qualifier = qualifier_fit(self.qualifiers, c.fact.label_path) if c.fact is not None else "inferred"
            if qualifier == "inferred":
                qualifier = qualifier_fit(self.qualifiers, c.label)
        return {"entity": entity, "period": period, "unit": unit, "qualifier": qualifier}

    def best_value(self, facts: list[Fact], chunks: list[Candidate]) -> list[Typed]:
        """Every typed candidate for a figure, best first: table cells and sentences with a value."""
        by_id = {c.chunk_id: c for c in chunks}
        return self.score(self.rows(facts, by_id) + self.sentences(chunks[: self.cfg.sentence_chunks],
                                                                   with_value=True, facts=facts))

    def answers(self, c: Typed | None) -> bool:
        """The candidate is the asked measure for the asked entity and period, well enough to lead."""
        if c is None or c.fit < self.cfg.answer_floor or "mismatch" in c.checks.values():
            return False
        # a sentence answers a figure question with a value of the kind asked, or by a close meaning
        return c.kind != "sentence" or c.checks.get("unit") == "match" or c.fit >= self.cfg.sentence_floor

    def best_figure(self, figures: list[FigureHit], shown: tuple[str, ...] = ("chart", "diagram", "map")
                    ) -> tuple[FigureHit, float] | None:
        """The chart asked for: the figure whose title, text and surroundings are closest in meaning to the measure
        (a chart's own words: its caption, the values and labels printed on it, the line above it)."""
        figs = [f for f in figures if (f.figure_kind or "chart") in shown]
        if not figs:
            return None
        texts = [" ".join(x for x in (f.caption, (f.context or "")[:120], (f.ocr_text or "")[:240]) if x) or "figure"
                 for f in figs]
        sims = _vectors(self.embedder, texts) @ self.measure_vec
        i = int(np.argmax(sims))
        return figs[i], float(sims[i])

    def typed_fact(self, f: Fact, chunk: Candidate) -> Typed:
        """A table fact chosen elsewhere (the statement-line rules), judged as a candidate like the others."""
        t = self.rows([f], {f.chunk_id: chunk} if f.chunk_id is not None else {})
        return self.score(t)[0] if t else Typed("row", f.label_path, chunk, fact=f)
