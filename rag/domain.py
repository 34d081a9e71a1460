"""Domain helpers shared by ingestion, retrieval and answers: an issuer's key, the years a document may be called
by, and a document's place in time. One definition each; every layer imports them from here."""

from __future__ import annotations

import re
from typing import Any

_SUFFIX = (r"(?:inc\.?|incorporated|corporation|corp\.?|company|co\.|plc|ag|se|s\.a\.|n\.v\.|ltd\.?|limited|"
           r"group|holdings?|llc|gmbh|kgaa)")
_STOP_KEY = re.compile(rf"\b({_SUFFIX}|co|corp|ltd|the|and|&)(?=\s|$)", re.I)
_QUARTER_SHARE = {"Q1": 0.25, "Q2": 0.5, "Q3": 0.75, "Q4": 1.0}
ANNUAL_TYPES = ("10-K", "annual report", "sustainability report")
FILING_TYPES = ("10-K", "10-Q", "8-K")


def company_key(name: str | None) -> str | None:
    """The issuer key documents and questions are matched by: lower case, legal suffixes and punctuation gone
    ('The Boeing Company' → 'boeing')."""
    if not name:
        return None
    k = name.lower().replace("’", "'")
    k = re.sub(r"[.,()'\"]", " ", k)
    k = _STOP_KEY.sub(" ", k)
    k = re.sub(r"\s+", " ", k).strip()
    return k or None


def match_known_company(key: str | None, known: dict[str, str]) -> tuple[str, str] | None:
    """An issuer already in the store whose key is a word-prefix of this one (or the reverse):
    'amcor flexibles north america' → 'amcor'. known: key → display name."""
    if not key:
        return None
    if key in known:
        return key, known[key]
    for k, name in known.items():
        if key.startswith(k + " ") or k.startswith(key + " "):
            return k, name
    return None


def years_of(d: Any) -> set[int]:
    """The fiscal years a document (or a chunk of it) may be called by: its year labels (the issuer's own label,
    the year its fiscal year ends, the year its period ends) and its fiscal year."""
    ys = set(getattr(d, "year_labels", None) or [])
    fy = getattr(d, "fiscal_year", None)
    if fy:
        ys.add(fy)
    return ys


def doc_time(d: Any) -> float:
    """A document's place in time in years: fiscal year (a quarter is the share of the year it closes), else
    the published date, else the upload time."""
    fy = getattr(d, "fiscal_year", None)
    if fy:
        return fy + _QUARTER_SHARE.get(getattr(d, "fiscal_period", None) or "", 1.0) - 1.0
    for key in ("published_date", "uploaded_at"):
        v = getattr(d, key, None)
        if v:
            try:
                y, m = int(str(v)[:4]), int(str(v)[5:7])
                return y + (m - 1) / 12
            except ValueError:
                pass
    return 0.0
