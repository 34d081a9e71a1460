"""Readable names for evidence, for people and for the prompt: "Boeing 10-K FY2022, p. 45, Item 8 › Cash Flows",
"TAKKT Sustainability Report 2023, p. 13" — never a raw file name when the metadata says more."""

from __future__ import annotations

import re

_LEGAL = re.compile(r",?\s*\b(inc\.?|incorporated|corporation|corp\.?|company|co\.?|plc|ag|se|n\.v\.|ltd\.?|limited|"
                    r"holdings?|group)\s*$", re.I)


def short_company(name: str | None) -> str:
    if not name:
        return ""
    n = re.sub(r"^the\s+", "", name.strip(), flags=re.I)
    for _ in range(2):
        n = _LEGAL.sub("", n).strip(" ,")
    return n or name


def document_label(d: dict) -> str:
    """d: a document row or a chunk row (company, doc_type, fiscal_year, fiscal_period, title, file_name)."""
    kind = d.get("doc_type") or "other"
    year, period = d.get("fiscal_year"), d.get("fiscal_period")
    if kind == "research paper":
        title = (d.get("title") or d.get("file_name") or "").strip()
        title = title if len(title) <= 70 else title[:67].rstrip() + "…"
        return f"{title} ({year})" if year else title
    who = short_company(d.get("company")) or (d.get("title") or d.get("file_name") or "document")
    what = {"10-K": "10-K", "10-Q": "10-Q", "8-K": "8-K", "earnings release": "earnings release",
            "sustainability report": "Sustainability Report", "annual report": "Annual Report"}.get(kind, "")
    when = ""
    if year:
        if kind in ("10-K", "annual report") or period == "FY":
            when = f"FY{year}"
        elif period and period.startswith("Q"):
            when = f"{period} FY{year}"
        else:
            when = str(year)
    if kind == "8-K" and d.get("published_date"):
        when = f"dated {str(d['published_date'])[:10]}"
    return " ".join(x for x in (who, what, when) if x)


def pages_label(start: int, end: int) -> str:
    return f"p. {start}" if start == end else f"pp. {start}–{end}"


def heading_label(heading: str | None, parts: int = 2) -> str:
    """The Item (if any) and the deepest heading: 'Item 8 › Consolidated Statement of Cash Flows'."""
    if not heading:
        return ""
    comps = [c.strip() for c in heading.split("›") if c.strip()]
    comps = [c for c in comps if not re.fullmatch(r"part\s+[ivx]+", c, re.I)]
    item = next((re.match(r"(item\s*\d+[a-z]?)", c, re.I).group(1) for c in comps
                 if re.match(r"item\s*\d+[a-z]?\b", c, re.I)), None)
    tail = [c for c in comps if not re.match(r"item\s*\d", c, re.I)][-(parts - 1 if item else parts):]
    out = ([item.replace("\xa0", " ").title()] if item else []) + [t[:60] for t in tail]
    return " › ".join(out)


def source_label(c: dict) -> str:
    """A chunk's readable source: document, pages, heading."""
    bits = [document_label(c), pages_label(c["page_start"], c["page_end"])]
    h = heading_label(c.get("heading"))
    if h:
        bits.append(h)
    return ", ".join(bits)
