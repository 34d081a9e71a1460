"""Named rows of one table compared: "How does PaSa's Selector compare with GPT-4o at judging …?", "What F1 does
XYLayoutLM reach, and how does that compare with LayoutXLM?". Each side of the question names a row of the same
table (a method, a model, a system, a fund, a site); the answer gives each row's values under their column names,
from the table's own cells."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.quantities import numbers, scale_name
from rag.records import Fact

# the words that split a question into its sides
_SIDES = re.compile(r"\b(?:compared? (?:with|to)|comparison (?:with|to)|against|versus|vs\.?|than|and|or|"
                    r"relative to)\b|,", re.I)
_QUESTION_WORDS = {"how", "what", "which", "who", "does", "do", "did", "is", "are", "was", "were", "the", "a", "an",
                   "in", "on", "of", "at", "to", "for", "by", "with", "its", "their", "that", "this", "and", "or"}
# short forms of column names ("Avg." for "average")
_COLUMN_WORDS = {"avg": "average", "acc": "accuracy", "prec": "precision", "rec": "recall", "f1": "f1",
                 "std": "sd", "no": "number"}


# a number that names an item binds to its noun: "Scope 2" is one name, not "Scope" and a number ("Scope 2" ≠ "Scope 3")
_NAMING = re.compile(r"\b(scopes?|categor(?:y|ies)|tiers?|levels?|phases?|stages?|notes?|classes|class|units?|"
                     r"groups?|segments?)\s+(\d{1,2}(?:\.\d{1,2})?)\b", re.I)
# the arithmetic a question asks of two rows' values
_SUM = re.compile(r"\b(?:add(?:ed)?\s+up|sum|combined|together|in total|total of)\b", re.I)
_DIFFERENCE = re.compile(r"\b(?:difference|gap|trails?|trailing|behind|ahead of|by how (?:much|many)|how (?:much|many) "
                         r"(?:more|less|fewer|higher|lower))\b", re.I)
_RATIO = re.compile(r"\bhow many times\b|\bratio (?:of|between)\b|\btimes (?:larger|higher|bigger|more|greater)\b",
                    re.I)


def _bind(text: str) -> str:
    return _NAMING.sub(lambda m: f"{m.group(1)}{m.group(2)}", text)


def operation(question: str) -> str | None:
    """The arithmetic asked of the named rows: sum, difference or ratio; None for a plain comparison."""
    if _RATIO.search(question):
        return "ratio"
    if _SUM.search(question):
        return "sum"
    if _DIFFERENCE.search(question):
        return "difference"
    return None


def _tokens(text: str) -> set[str]:
    """A name's words, lower case, hyphens and possessives split off ("PaSa-7b-Selector" → pasa, 7b, selector); a
    numbered item is one word ("Scope 2" → scope2)."""
    words = re.split(r"[\s\-_/()]+", re.sub(r"['’]s\b", "", _bind(text).lower()))
    return {w.strip(".,:;?!\"'") for w in words if w.strip(".,:;?!\"'")}


def _is_name(word: str, first: bool) -> bool:
    """A word that names something: a capital past its first letter or a digit among letters (GPT-4o,
    XYLayoutLM), or a capitalised word that does not start the question."""
    w = re.sub(r"['’]s$", "", word).strip(".,:;?!\"'()")
    if len(w) < 2 or w.lower() in _QUESTION_WORDS:
        return False
    if re.search(r"[a-z0-9].*[A-Z]|[A-Za-z].*\d|\d.*[A-Za-z]", w) or (w.isupper() and len(w) >= 2):
        return True
    return w[:1].isupper() and not first


def sides(question: str) -> list[set[str]]:
    """The named things on each side of a comparison: [{pasa, selector}, {gpt, 4o}]; [] when the question does
    not compare two or more named things."""
    out: list[set[str]] = []
    first = True
    for part in _SIDES.split(_bind(question)):
        names: set[str] = set()
        for w in part.split():
            if _is_name(w, first):
                names |= _tokens(w)
            first = False
        if names:
            out.append(names)
    return out if len(out) >= 2 else []


@dataclass
class Row:
    label: str
    facts: list[Fact]


@dataclass
class Pick:
    """The table and its rows, one per side, with the column the question names (if any)."""
    rows: list[Row]
    focus: str | None
    score: float
    op: str | None = None  # sum | difference | ratio: computed by code from the focus column's values

    @property
    def facts(self) -> list[Fact]:
        return [f for r in self.rows for f in r.facts]


def _column_terms(header: str) -> set[str]:
    out = set()
    for w in _tokens(header):
        w = w.rstrip(".")
        out |= {w, _COLUMN_WORDS.get(w, w)}
    return out


def _side_score(side: set[str], label: str) -> float:
    row = _tokens(label)
    hit = len(side & row)
    if not hit or hit / len(side) < 0.5:
        return 0.0
    return hit / len(side) + 0.1 * hit / len(row)


def compare_rows(question: str, facts: list[Fact], retrieved: dict[int, float]) -> Pick | None:
    """The table whose rows best match each side of the question, each side a different row; None when no table
    has a row for every side."""
    named = sides(question)
    if not named:
        return None
    q_terms = _tokens(question)
    tables: dict[tuple, dict[str, list[Fact]]] = {}
    for f in facts:
        if f.chunk_id is None or f.is_change:
            continue
        tables.setdefault((f.chunk_id, f.table_title), {}).setdefault(f.label, []).append(f)
    best: Pick | None = None
    for (chunk_id, title), rows in tables.items():
        headers = {f.col_header for fs in rows.values() for f in fs if f.col_header}
        if len(headers) < 1:
            continue
        context = set().union(*(_column_terms(h) for h in headers)) | _tokens(title)
        chosen: list[Row] = []
        total = 0.0
        for side in named:
            side = side - context  # a column's or the table's own name is not a row's
            if not side:
                continue
            scored = [(s, label) for label in rows if label not in {r.label for r in chosen}
                      and (s := _side_score(side, label)) > 0]
            if not scored:
                chosen = []
                break
            s, label = max(scored, key=lambda x: (x[0], -len(x[1])))
            chosen.append(Row(label, sorted(rows[label], key=lambda f: f.col)))
            total += s
        if len(chosen) < 2:
            continue
        focus = next((h for h in sorted(headers) if _column_terms(h) & q_terms - {"no"}), None)
        score = total + retrieved.get(chunk_id, 0.0)
        if best is None or score > best.score:
            best = Pick(chosen, focus, score, operation(question))
    return best


def rows_sentence(pick: Pick, marker: int, page: int) -> str:
    """"PaSa-7b-Selector: Precision 0.95, Recall 0.78, F1 0.85; GPT-4o: Precision 0.96, Recall 0.69, F1 0.80
    (the table on p. 9) [1]." — the column the question names first."""
    parts = []
    for r in pick.rows:
        cells = sorted(r.facts, key=lambda f: (f.col_header != pick.focus, f.col))
        parts.append(f"{r.label}: " + ", ".join(f"{f.col_header} {f.raw}".strip() for f in cells))
    tail = ""
    if pick.focus:
        vals = [next((f for f in r.facts if f.col_header == pick.focus), None) for r in pick.rows]
        done = _computed(pick, vals)
        if done:
            tail = done
        elif all(vals) and len(vals) == 2 and vals[0].value != vals[1].value:  # type: ignore[union-attr]
            hi = 0 if vals[0].value > vals[1].value else 1  # type: ignore[union-attr]
            tail = f", so {pick.rows[hi].label} is higher on {pick.focus}"
    return f"{'; '.join(parts)} (the table on p. {page}){tail} [{marker}]."


def _computed(pick: Pick, vals: list[Fact | None]) -> str:
    """The arithmetic the question asks, by code, on the focus column's values as printed (same unit and scale);
    "" when it asks none or the values cannot be combined."""
    if pick.op is None or not all(vals) or len(vals) < 2 or (pick.op != "sum" and len(vals) != 2):
        return ""
    got = [v for v in vals if v is not None]
    if len({(v.unit, v.scale) for v in got}) != 1:
        return ""
    places = max((n.decimals for v in got for n in numbers(v.raw)[:1]), default=0)
    a, b = got[0].value, got[1].value
    unit = got[0].unit or ""
    scale = f" {scale_name(got[0].scale)}".rstrip()
    tail = "%" if unit == "%" else f"{scale} {unit}".rstrip() if unit else scale
    if pick.op == "sum":
        return f", together {sum(v.value for v in got):,.{places}f}{tail} on {pick.focus} (computed)"
    if pick.op == "difference":
        which = pick.rows[0].label if a > b else pick.rows[1].label
        return f", a difference of {abs(a - b):,.{places}f}{tail} on {pick.focus}, {which} higher (computed)"
    if b == 0:
        return ""
    return f", so {pick.rows[0].label} is {a / b:,.2f} times {pick.rows[1].label} on {pick.focus} (computed)"

