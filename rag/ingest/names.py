"""The names a filing gives its issuer, collected at ingestion: the legal name, the trading symbols on the cover,
the short names the document defines for itself ("herein referred to as “Boeing,” the “Company,” “we” …") or uses
alone (Adobe Systems Incorporated → "Adobe"), and the parent of a subsidiary named on the cover. "The Company",
"we" and the like are never names."""

from __future__ import annotations

import re

from rag.domain import SUFFIX
from rag.issuers import NOT_TICKERS, names_issuer

_EXCHANGE = (r"(?:The\s+)?(?:New\s+York\s+Stock\s+Exchange|NYSE(?:\s+American|\s+Arca)?|Nasdaq|NASDAQ|"
             r"Chicago\s+Stock\s+Exchange)")
# "Common Stock, $0.10 par value per share BBY New York Stock Exchange" on a filing's cover (symbols of notes,
# such as MMM26 or AUKF/27, carry digits and are left out).
_COVER_SYMBOL = re.compile(rf"(?<![\w/$.%-])([A-Z]{{1,5}}(?:\.[A-Z])?)\s+{_EXCHANGE}")
# "(NYSE: BBY)", "(NASDAQ: ULTA)", "(NYSE:BA, ASX:AMC)" in a release.
_RELEASE_SYMBOL = re.compile(r"\b(?:NYSE(?:\s+American)?|NASDAQ|Nasdaq(?:GS)?|ASX|TSX|LSE|Euronext)\s*:\s*"
                             r"([A-Z]{1,5}(?:\.[A-Z])?)\b")
_SELF = {"company", "the company", "we", "us", "our", "registrant", "the registrant", "corporation", "group",
         "the group", "issuer", "parent", "ours"}
_QUOTED = re.compile(r"[“\"]([^”\"]{1,40}?)[,.]?[”\"]")
_PARENT = re.compile(rf"(?:wholly[- ]owned\s+)?subsidiar(?:y|ies)\s+of\s+([A-Z][\w&.,'\- ]{{1,60}}?\s{SUFFIX})"
                     r"(?=[\s,.;)]|$)", re.I)


def trading_symbols(cover: str) -> list[str]:
    """The symbols on a filing's cover ("Securities registered pursuant to Section 12(b)") or in a release."""
    out: list[str] = []
    m = re.search(r"section\s+12\s*\(\s*b\s*\)", cover, re.I)
    if m:
        out += _COVER_SYMBOL.findall(cover[m.end(): m.end() + 1500])
    out += _RELEASE_SYMBOL.findall(cover[:20000])
    return [s for s in dict.fromkeys(out) if s not in NOT_TICKERS]


def self_names(text: str) -> list[str]:
    """The short names a document defines for its issuer: a parenthesis with quoted names, one of which is
    "the Company", "we" or "the Group" — the others are the issuer's names."""
    out: list[str] = []
    for m in re.finditer(r"\(([^()]{0,480})\)", text[:60000]):
        if "“" not in m.group(1) and '"' not in m.group(1):
            continue
        quoted = [q.strip() for q in _QUOTED.findall(m.group(1))]
        if not any(q.lower().strip(" ,.") in _SELF for q in quoted):
            continue
        out += [q.strip(" ,.") for q in quoted if q.lower().strip(" ,.") not in _SELF and _name_like(q)]
    return list(dict.fromkeys(out))


def _name_like(q: str) -> bool:
    words = q.strip(" ,.").split()
    return 1 <= len(words) <= 5 and all(w[:1].isupper() or w[:1].isdigit() or w in {"&", "and", "of"} for w in words)


def used_short_names(legal: str | None, text: str, min_uses: int = 3) -> list[str]:
    """The legal name's leading words used alone ("Adobe" for "Adobe Systems Incorporated"), at least `min_uses`
    times in the first pages."""
    if not legal:
        return []
    words = re.sub(rf"[\s,]+{SUFFIX}\.?$", "", legal.strip(), flags=re.I).split()
    out = []
    for n in range(len(words) - 1, 0, -1):
        short = " ".join(words[:n])
        if len(short) < 3 or short.lower() in {"the", "first", "new", "united", "american", "general", "national"}:
            continue
        rest = re.escape(" ".join(words[n:n + 1]))
        uses = re.findall(rf"(?<![\w&]){re.escape(short)}(?!\s+{rest})(?![\w&])", text)
        if len(uses) >= min_uses:
            out.append(short)
    return out


def parent_of(company: str | None, text: str) -> str | None:
    """The parent named for the detected issuer ("… each a wholly-owned subsidiary of Amcor plc"), on the first
    pages, when the detected issuer is not itself that parent."""
    if not company:
        return None
    for m in _PARENT.finditer(text[:20000]):
        parent = re.sub(r"\s+", " ", m.group(1)).strip(" ,.")
        named_before = company and company.split()[0].lower() in text[max(0, m.start() - 300): m.start()].lower()
        if named_before and parent.lower() != company.lower() and parent.lower() not in _SELF \
                and not re.fullmatch(rf"(?:the\s+)?{SUFFIX}", parent, re.I) and 1 <= len(parent.split()) <= 6:
            return parent
    return None


def issuer_names(company: str | None, registrant: str | None, cover: str, text: str) -> list[str]:
    """Every name of the issuer found: legal names first, then short names, then trading symbols."""
    names = [n for n in (company, registrant) if n]
    legal = list(names)
    names += [n for n in self_names(text) if names_issuer(n, legal)] + used_short_names(company, text) + \
        trading_symbols(cover)
    seen: set[str] = set()
    out = []
    for n in names:
        n = re.sub(r"\s+", " ", n).strip(" ,.;:")
        if n and n.lower() not in seen:
            seen.add(n.lower())
            out.append(n)
    return out
