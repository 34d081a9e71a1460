"""Named rows of one table compared: "How does PaSa's Selector compare with GPT-4o at judging …?", "What F1 does
XYLayoutLM reach, and how does that compare with LayoutXLM?". Each side of the question names a row of the same
table (a method, a model, a system, a fund, a site); the answer gives each row's values under their column names,
from the table's own cells."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.records import Fact

# the words that split a question into its sides
_SIDES = re.compile(r"\b(?:compared? (?:with|to)|comparison (?:with|to)|against|versus|vs\.?|than|and|or|"
                    r"relative to)\b|,", re.I)
_QUESTION_WORDS = {"how", "what", "which", "who", "does", "do", "did", "is", "are", "was", "were", "the", "a", "an",
                   "in", "on", "of", "at", "to", "for", "by", "with", "its", "their", "that", "this", "and", "or"}
# short forms of column names ("Avg." for "average")
_COLUMN_WORDS = {"avg": "average", "acc": "accuracy", "prec": "precision", "rec": "recall", "f1": "f1",
                 "std": "sd", "no": "number"}


def _tokens(text: str) -> set[str]:
    """A name's words, lower case, hyphens and possessives split off ("PaSa-7b-Selector" → pasa, 7b, selector)."""
    words = re.split(r"[\s\-_/()]+", re.sub(r"['’]s\b", "", text.lower()))
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
    for part in _SIDES.split(question):
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
            best = Pick(chosen, focus, score)
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
        if all(vals) and len(vals) == 2 and vals[0].value != vals[1].value:  # type: ignore[union-attr]
            hi = 0 if vals[0].value > vals[1].value else 1  # type: ignore[union-attr]
            tail = f", so {pick.rows[hi].label} is higher on {pick.focus}"
    return f"{'; '.join(parts)} (the table on p. {page}){tail} [{marker}]."
