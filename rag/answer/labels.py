"""Readable names for evidence, for people and for the prompt: "Boeing 10-K FY2022, p. 45, Item 8 › Cash Flows",
"TAKKT Sustainability Report 2023, p. 13" — never a raw file name when the metadata says more."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from rag.words import shorten

_LEGAL = re.compile(r",?\s*\b(inc\.?|incorporated|corporation|corp\.?|company|co\.?|plc|ag|se|n\.v\.|ltd\.?|limited|"
                    r"holdings?|group)\s*$", re.I)


def short_company(name: str | None) -> str:
    if not name:
        return ""
    n = re.sub(r"^the\s+", "", name.strip(), flags=re.I)
    for _ in range(2):
        n = _LEGAL.sub("", n).strip(" ,")
        n = re.sub(r"\s+(?:&|and)$", "", n)  # "JPMorgan Chase & Co." → "JPMorgan Chase", never "… &"
    return n or name


def period_label(year: int | None, period: str | None, kind: str | None = None) -> str:
    """A fiscal period as every surface prints it: "Q2 FY2023", "FY2023" (a year's filing or report), "2023"."""
    if not year:
        return period or ""
    if kind in ("10-K", "annual report") or period == "FY":
        return f"FY{year}"
    if period and period.upper().startswith(("Q", "H")):
        return f"{period.upper()} FY{year}"
    return str(year)


def document_label(d: Any) -> str:
    """d: a document (DocumentMeta) or a chunk (Hit, Candidate): company, doc_type, fiscal_year, fiscal_period,
    title, file_name, published_date."""
    kind = d.doc_type or "other"
    year, period = d.fiscal_year, d.fiscal_period
    if kind == "research paper":
        title = (d.title or d.file_name or "").strip()
        title = shorten(title, 70)
        return f"{title} ({year})" if year else title
    who = short_company(d.company) or (d.title or d.file_name or "document")
    what = {"10-K": "10-K", "10-Q": "10-Q", "8-K": "8-K", "earnings release": "earnings release",
            "sustainability report": "Sustainability Report", "annual report": "Annual Report"}.get(kind, "")
    when = period_label(year, period, kind)
    if kind == "8-K" and d.published_date:
        when = f"dated {str(d.published_date)[:10]}"
    return " ".join(x for x in (who, what, when) if x)


def pages_label(start: int, end: int) -> str:
    return f"p. {start}" if start == end else f"pp. {start}–{end}"


def heading_label(heading: str | None, parts: int = 2) -> str:
    """The Item (if any) and the deepest heading: 'Item 8 › Consolidated Statement of Cash Flows'."""
    if not heading:
        return ""
    comps = [c.strip() for c in heading.split("›") if c.strip()]
    comps = [c for c in comps if not re.fullmatch(r"part\s+[ivx]+", c, re.I)]
    item = next((m.group(1) for m in (re.match(r"(item\s*\d+[a-z]?)\b", c, re.I) for c in comps) if m), None)
    tail = [c for c in comps if not re.match(r"item\s*\d", c, re.I)][-(parts - 1 if item else parts):]
    out = ([" ".join(item.split()).title()] if item else []) + [shorten(_printed(t), 60) for t in tail]
    return " › ".join(out)  # "Item  1" (two spaces, a no-break space) prints "Item 1"


def _printed(heading: str) -> str:
    """A heading as printed, without what its text layer glued on: footnote marks set as superscripts after a
    lower-case letter ("Staff turnover1, 2" → "Staff turnover"; "CO2", "Scope 3" and "H2" keep theirs), and the
    space a line break left after a hyphen before a digit ("GPT- 4o" → "GPT-4o")."""
    t = " ".join(heading.split())
    t = re.sub(r"(?<=[a-z])\d{1,2}(?:\s*,\s*\d{1,2})*\s*$", "", t)
    return re.sub(r"(?<=[^\W\d_])- (?=\d)", "-", t)


def time_label(t: Any) -> str:
    """When, as a reader reads it: "13:36" today, "Nov 28 13:36" before (t: a datetime or its ISO text)."""
    if not t:
        return ""
    when = t if isinstance(t, datetime) else datetime.fromisoformat(str(t))
    return when.strftime("%H:%M") if when.date() == datetime.now(when.tzinfo).date() else when.strftime("%b %d %H:%M")


def source_label(c: Any) -> str:
    """A chunk's readable source: document, pages, heading."""
    bits = [document_label(c), pages_label(c.page_start, c.page_end)]
    h = heading_label(c.heading)
    if h:
        bits.append(h)
    return ", ".join(bits)


def duration_label(ms: float) -> str:
    """'840 ms', '1.25 s', '1 min 04 s': the whole value, never cut."""
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.2f} s"
    return f"{int(ms // 60_000)} min {int(ms % 60_000 // 1000):02d} s"
