"""Citation verification, for extractive and LLM answers alike: every marker points to retrieved evidence,
every quote is in its chunk, every number of a sentence is in the evidence that sentence cites."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import TypedDict

from rag.quantities import MARKER, Num, numbers  # noqa: F401
from rag.quantities import same_number as _matches

_LIGATURES = {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "ft", "ﬆ": "st"}



def normalise_text(text: str) -> str:
    """Whitespace, hyphenation at line ends, ligatures, quotes and dashes made uniform; lower case."""
    t = unicodedata.normalize("NFKC", text)
    for k, v in _LIGATURES.items():
        t = t.replace(k, v)
    t = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", t)  # hyphenation across lines
    t = t.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    t = re.sub(r"[‐‑‒–—]", "-", t)
    t = t.replace("|", " ")
    return re.sub(r"\s+", " ", t).strip().lower()


def quote_in(quote: str, text: str) -> bool:
    q = normalise_text(quote).strip(" .…\"'")
    return bool(q) and q in normalise_text(text)


def quote_matches(quote: str, text: str) -> bool:
    """A quote is in its passage: word for word, or — a table row quoted as 'Net income | $14,472' or
    'Net income: 14,472' — cell by cell, every cell in one line of the passage (numbers in any format)."""
    if quote_in(quote, text):
        return True
    cells = [c.strip(" .:;") for c in re.split(r"\s*(?:\||:|\t|\s{2,}| — | - )\s*", quote) if c.strip(" .:;")]
    if len(cells) < 2:
        return False
    for line in text.splitlines():
        if all(_cell_in(c, line) for c in cells):
            return True
    return False


def _cell_in(cell: str, line: str) -> bool:
    if quote_in(cell, line):
        return True
    nums = numbers(cell)
    return bool(nums) and all(any(_matches(n, x) or _matches(x, n) for x in numbers(line)) for n in nums)


def unsupported_numbers(sentence: str, evidence_texts: list[str]) -> list[str]:
    """Numbers of the sentence found in none of its evidence texts."""
    ev = [n for t in evidence_texts for n in numbers(t)]
    return [n.raw.strip() for n in numbers(sentence) if not any(_matches(n, e) for e in ev)]


def sentences(markdown: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(\"'*])|\n+", markdown)
    return [p.strip() for p in parts if p and p.strip()]


class Flag(TypedDict, total=False):
    """A sentence of an answer that verification flagged or dropped, and why."""
    sentence: str
    reason: str
    numbers: list[str]  # the figures in it that no cited passage holds
    action: str  # "dropped" when it was taken out of the answer


@dataclass
class Verification:
    ok_markers: set[int] = field(default_factory=set)
    bad_markers: list[int] = field(default_factory=list)  # cited but not retrieved
    unsupported: list[Flag] = field(default_factory=list)
    quotes_verified: dict[int, bool] = field(default_factory=dict)
    numbers_total: int = 0
    numbers_verified: int = 0

    @property
    def all_numbers_verified(self) -> bool:
        return self.numbers_total == self.numbers_verified


def verify(answer_md: str, evidence: dict[int, dict]) -> Verification:
    """evidence: marker → {"text": chunk text, "quote": quote or ""}. Checks markers, quotes and numbers."""
    v = Verification()
    for marker, ev in evidence.items():
        q = ev.get("quote") or ""
        v.quotes_verified[marker] = quote_in(q, ev["text"]) if q else False
    for s in sentences(answer_md):
        cited = [int(x) for x in MARKER.findall(s)]
        nums = numbers(s)
        v.numbers_total += len(nums)
        bad = [c for c in cited if c not in evidence]
        v.bad_markers.extend(b for b in bad if b not in v.bad_markers)
        good = [c for c in cited if c in evidence]
        v.ok_markers.update(good)
        if nums and not good:
            v.unsupported.append({"sentence": s, "reason": "numbers without a valid citation",
                                  "numbers": [n.raw.strip() for n in nums]})
            continue
        if bad and not good:
            v.unsupported.append({"sentence": s, "reason": f"cites [{', '.join(map(str, bad))}], which was not retrieved",
                                  "numbers": []})
            continue
        missing = unsupported_numbers(s, [evidence[c]["text"] for c in good]) if nums else []
        v.numbers_verified += len(nums) - len(missing)
        if missing:
            v.unsupported.append({"sentence": s, "reason": "numbers not in the cited evidence", "numbers": missing})
    return v
