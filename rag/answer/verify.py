"""Citation verification, for extractive and LLM answers alike: every marker points to retrieved evidence,
every quote is in its chunk, every number of a sentence is in the evidence that sentence cites."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_LIGATURES = {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "ft", "ﬆ": "st"}
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6, "m": 1e6, "mm": 1e6,
          "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12}
# 1,577 | 1577 | (1,577) | $1.6 billion | 12.5% | -3.2
_NUMBER = re.compile(r"(?<![\w.])(\(?-?\$?[ \t]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|\(?-?\$?[ \t]?\d+(?:\.\d+)?)\)?"
                     r"([ \t]?%|[ \t]?(?:thousand|millions?|billions?|trillion|mn|bn|tn|mm|[kmb])\b)?", re.I)
_MARKER = re.compile(r"\[(\d{1,2})\]")
# Numbers that are names, not quantities: pages, form types, periods, items, notes, citation markers.
_NOT_QUANTITY = re.compile(r"\b((?:19|20)\d{2}-\d{2}-\d{2}\b|pp?\.\s*\d+(\s*[–-]\s*\d+)?|\d+-[kq]\b|q[1-4]\b|fy\s*'?\d{2,4}|item\s+\d+[a-z]?|"
                           r"note\s+\d+|part\s+[ivx]+|scope\s+[123]|figure\s+\d+|table\s+\d+|[1-4]q\b|"
                           r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|"
                           r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)",
                           re.I)


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


@dataclass(frozen=True)
class Num:
    value: float  # with its scale: "$1.6 billion" → 1.6e9
    percent: bool
    raw: str
    decimals: int = 0  # digits after the point as written: the precision of a rounded number
    scale: float = 1.0


def numbers(text: str) -> list[Num]:
    """Numbers of a text with their scale: '$1.6 billion' → 1.6e9, '1,577' → 1577, '12.5%' → 12.5 (percent).
    Years (1900–2100 without decimals or scale), pages, form names, periods and citation markers are not numbers."""
    out: list[Num] = []
    clean = _NOT_QUANTITY.sub(" ", _MARKER.sub(" ", text))
    clean = re.sub(r"(\d)[ \t]*(?:percentage points?|pp\b|percent|per cent)\b", r"\1%", clean, flags=re.I)
    for m in _NUMBER.finditer(clean):
        raw, suffix = m.group(1), (m.group(2) or "").strip().lower()
        if suffix in ("k", "m", "b") and "$" not in raw:
            continue  # a name, not an amount: "3M", "5G"
        if not suffix and m.end() < len(clean) and clean[m.end()].isalpha():
            continue  # "A320", "10x" are names or units we do not compare
        digits = raw.replace("$", "").replace(",", "").replace("(", "").replace(" ", "")
        try:
            v = abs(float(digits))
        except ValueError:
            continue
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        if not suffix and "." not in digits and "," not in raw and 1900 <= v <= 2100:
            continue  # a year
        if suffix == "%":
            out.append(Num(v, True, m.group(0), decimals))
            continue
        scale = _SCALE.get(suffix, 1.0)
        out.append(Num(v * scale, False, m.group(0), decimals, scale))
    return out


def _matches(a: Num, b: Num) -> bool:
    """a (as written in the answer) is b (from the evidence) in another format or scale: 1,577 ~ 1577 ~
    $1.6 billion when the table is in millions; rounding is allowed to the precision a was written with."""
    if a.percent != b.percent:
        return False
    tol = 0.5 * (10 ** -a.decimals) * a.scale
    for unit in (1.0, 1e3, 1e6, 1e9):  # the evidence may state the number in a table's unit ("in millions")
        x = b.value * unit
        if abs(a.value - x) <= max(tol, 1e-9 * max(abs(x), 1.0)):
            return True
        if a.scale == 1.0:
            break  # an unscaled number in the answer is compared as written
    return False


def unsupported_numbers(sentence: str, evidence_texts: list[str]) -> list[str]:
    """Numbers of the sentence found in none of its evidence texts."""
    ev = [n for t in evidence_texts for n in numbers(t)]
    return [n.raw.strip() for n in numbers(sentence) if not any(_matches(n, e) for e in ev)]


def sentences(markdown: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(\"'*])|\n+", markdown)
    return [p.strip() for p in parts if p and p.strip()]


@dataclass
class Verification:
    ok_markers: set[int] = field(default_factory=set)
    bad_markers: list[int] = field(default_factory=list)  # cited but not retrieved
    unsupported: list[dict] = field(default_factory=list)  # {"sentence", "reason", "numbers"}
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
        cited = [int(x) for x in _MARKER.findall(s)]
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
