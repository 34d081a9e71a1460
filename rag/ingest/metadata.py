"""Company, fiscal year / period, document type, title and date, detected from the content
(cover and first pages, PDF metadata); the file name is only a last resort."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass

# The issuer key and the known-issuer match live in rag.domain; imported here too, as before.
from rag.domain import DATE_WRITTEN, MONTH_NAMES, SUFFIX, company_key, dates_in, fiscal_year_of_end, month_number
from rag.domain import match_known_company as match_known_company
from rag.ingest import names
from rag.records import DocumentMeta

_DATE = DATE_WRITTEN
_LEGAL_NAME = re.compile(rf"\b([A-Z0-9][\w&.,'\- ]{{1,60}}?\s{SUFFIX})(?=[\s,.;)]|$)", re.I)
_QUARTER_WORDS = {"first": "Q1", "second": "Q2", "third": "Q3", "fourth": "Q4", "1st": "Q1", "2nd": "Q2",
                  "3rd": "Q3", "4th": "Q4"}


def context_label(meta: DocumentMeta) -> str:
    """The label each chunk's context line starts with, embedded with its text: 'Boeing 10-K FY2022', 'TAKKT
    sustainability report 2023' (what a store's embeddings were made with: changing it changes them)."""
    parts = [meta.company or meta.title or ""]
    if meta.doc_type and meta.doc_type != "other":
        parts.append(meta.doc_type)
    if meta.fiscal_year:
        period = meta.fiscal_period
        if period in (None, "FY") and meta.doc_type in ("10-K", "annual report"):
            parts.append(f"{period or 'FY'}{meta.fiscal_year}")
        else:
            parts.append(f"{period + ' ' if period and period != 'FY' else ''}{meta.fiscal_year}")
    return " ".join(p for p in parts if p).strip()


def _tidy_company(name: str) -> str:
    """The legal name as printed, in its own case unless all in capitals; an abbreviated suffix keeps its period
    ("Best Buy Co., Inc.", "JPMorgan Chase & Co.")."""
    name = re.sub(r"\s+", " ", name).strip(" ,.;:-")
    if re.search(r"\b(?:inc|co|corp|ltd|bhd|l\.p|n\.v|s\.a|p\.l\.c)$", name, re.I):
        name += "."
    if (name.isupper() or name.islower()) and len(name) > 4:
        name = " ".join(w if len(w) <= 3 and w.isalnum() and any(c.isdigit() for c in w) else w.capitalize()
                        for w in name.split())
        name = re.sub(r"\b(Inc|Co|Corp|Ltd|Plc|Ag|Se)\b|\bN\.v\.?", lambda m: {"Plc": "plc", "Ag": "AG", "Se": "SE"}
                      .get(m.group(1), m.group(1)) if m.group(1) else "N.V.", name)
    return name


_NOT_NAME = re.compile(r"\b(securities|exchange|commission|report(ing)?|act of|pursuant|filer|per|share|diluted|"
                       r"net|sales|quarter|results|revenue|income|trustee|trust company|indenture|the company|"
                       r"our company)\b", re.I)


def _plausible_company(name: str) -> bool:
    words = [w for w in re.split(r"\s+", name.strip()) if w]
    if not words or _NOT_NAME.search(name) or (words[0][:1].isdigit() and not re.match(r"^\d+[A-Za-z]", words[0])):
        return False
    connectors = {"&", "and", "of", "the", "de", "und", "für"}
    return all(w[:1].isupper() or w[:1].isdigit() or w.lower() in connectors or w.lower().rstrip(".,") in
               {"inc", "plc", "co", "ag", "se", "ltd", "n.v", "s.a"} for w in words)


def _year_from_date(text: str) -> tuple[int | None, str | None]:
    m = re.search(_DATE, text, re.I)
    if not m:
        return None, None
    try:
        d = dates_in(m.group(1), numeric=False)[0]
        return d.year, d.isoformat()
    except IndexError:
        return int(m.group(2)), None


_PERIOD_END = re.compile(r"(?:quarter|three months|period|weeks|quarterly period)\s*(?:\([^)]{0,30}\)\s*)?"
                         r"ended\s*:?\s*" + _DATE, re.I)
_FY_END = re.compile(r"fiscal\s+year\s+(?:end(?:s|ed|ing)?|closes?)\s+(?:on\s+)?(" + "|".join(MONTH_NAMES) +
                     r")\s+(\d{1,2})\b", re.I)
_DECLARED = re.compile(r"\b(first|second|third|fourth|q[1-4])\b(?:\s+quarter)?[\s,]+(?:(?:and|of|&)\s+)?(?:the\s+)?"
                       r"(?:full\s+)?(?:fiscal|fy)\s*(?:year\s+)?'?(\d{4}|\d{2})\b"
                       r"|\b(?:fiscal|fy)\s*(?:year\s+)?'?(\d{4}|\d{2})\s+(first|second|third|fourth|q[1-4])\b", re.I)


def _quarterly_years(meta: DocumentMeta, flat: str, cover: str, later: str) -> None:
    """A quarterly document's fiscal year and its other year labels.

    - declared: the issuer's own label on the cover ("Fourth Quarter Fiscal 2022", "Q2 FY24");
    - fiscal-year end: the year in which the fiscal year holding the period ends, when the document states
      the month and day its fiscal year ends (Amcor's quarter to December 2022 is in fiscal 2023);
    - period end: the year the reported period ends.
    The first found is the fiscal year shown; all of them are labels the year filter accepts."""
    period_end = None
    m = _PERIOD_END.search(flat)
    if m:
        _, iso = _year_from_date(m.group(1))
        period_end = dt.date.fromisoformat(iso) if iso else None
    fy_end_year = None
    m = _FY_END.search(flat + " " + later)
    if m and period_end:
        try:
            end = dt.date(period_end.year, month_number(m.group(1)) or 0, int(m.group(2)))
        except ValueError:
            end = None
        if end:
            # 52/53-week years move the day by up to a week: an end just before the period end is the same year.
            if end < period_end - dt.timedelta(days=10):
                end = end.replace(year=end.year + 1)
            fy_end_year = fiscal_year_of_end(end)
    declared = None
    d = _DECLARED.search(cover)
    if d:
        yr = d.group(2) or d.group(3)
        declared = int(yr) if len(yr) == 4 else 2000 + int(yr)
        if not meta.fiscal_period:
            q = (d.group(1) or d.group(4)).lower()
            meta.fiscal_period = _QUARTER_WORDS.get(q) or q.upper()
    found = [y for y in (declared, fy_end_year, period_end.year if period_end else None) if y]
    if found:
        meta.fiscal_year = found[0]
    meta.year_labels = tuple(sorted(set(found + ([meta.fiscal_year] if meta.fiscal_year else []))))


@dataclass(frozen=True)
class _Texts:
    """The texts detection reads, each prepared once."""
    cover: str  # the first pages as given, joined by newlines
    flat: str  # the same, lower case, every run of whitespace one space
    cover1: str  # the cover page alone, flattened like `flat`, its first 4000 characters
    later: list[str]  # the pages after the first ones (a glossy report's 10-K cover may be there)
    pm_title: str  # the PDF metadata's title
    pm_all: str  # the PDF metadata's title, subject and keywords, lower case
    heading_lines: list[str]  # the first page's first 25 lines, stripped


def _texts(first_pages: list[str], pdf_meta: dict, later_pages: list[str] | None) -> _Texts:
    """The cover text, its flattened forms and the PDF metadata's words."""
    cover = "\n".join(first_pages)
    low = cover.lower()
    flat = re.sub(r"\s+", " ", low)
    pm_title = (pdf_meta or {}).get("title") or ""
    pm_subject = (pdf_meta or {}).get("subject") or ""
    pm_all = f"{pm_title} {pm_subject} {(pdf_meta or {}).get('keywords') or ''}".lower()
    cover1 = re.sub(r"\s+", " ", (first_pages[0] if first_pages else "").lower())[:4000]
    heading = [ln.strip() for ln in (first_pages[0] if first_pages else "").splitlines() if ln.strip()][:25]
    return _Texts(cover, flat, cover1, later_pages or [], pm_title, pm_all, heading)


_SEC_COVER = re.compile(r"exact\s+name\s+of\s+(?:the\s+)?registrant|commission\s+file\s+(?:number|no)")
_RELEASE_WORDS = re.compile(r"\bexhibit\s+99\.?\d?\b|\btoday\s+(?:announced|reported)\b|business\s*wire|pr\s*newswire|"
                            r"globe\s*newswire|\((?:nyse|nasdaq)\s*:|\bconference\s+call\b|\bwebcast\b|"
                            r"\b(?:reports?|announces?|delivers?|posts?)\b.{0,80}\bresults\b")


_FORMS = (("10-K", "annual", r"10-?k"), ("10-Q", "quarterly", r"10-?q"), ("8-K", "current", r"8-?k"))


def _sec_form(t: _Texts) -> tuple[str, bool] | None:
    """The SEC form whose cover the first pages hold, and whether the cover is certain: its "… report pursuant to
    section 13" line or the form's name heading the first page are; the form's name elsewhere on the first page
    with the cover's registrant or file-number lines is a weaker sign (a release that mentions its Form 10-Q has
    none of these). A glossy annual report may put its 10-K cover a few pages in."""
    later = re.sub(r"\s+", " ", " ".join(t.later[:7]).lower())
    for form, kind, name in _FORMS:
        if any(f"{kind} report pursuant to section 13" in text for text in (t.flat, later)) \
                or any(re.fullmatch(rf"form\s+{name}\b[\w\s/()]{{0,20}}", line, re.I) for line in t.heading_lines):
            return form, True
    for form, _, name in _FORMS:
        if re.search(rf"form\s+{name}\b", t.cover1) and _SEC_COVER.search(t.cover1):
            return form, False
    return None


def _doc_type(t: _Texts) -> str:
    """Document type from the content: an SEC form only with its cover; an earnings release from press-release
    wording (never a 10-Q); then sustainability reports, papers, annual reports to shareholders."""
    flat, pm_all = t.flat, t.pm_all
    form = _sec_form(t)
    release = bool(_RELEASE_WORDS.search(t.cover1)) and bool(
        re.search(r"(reports?|announces?|delivers?)\b.{0,80}\b(quarter|fiscal|full[- ]year)\b.{0,40}\bresults", flat)
        or re.search(r"\b(earnings release|results for the (first|second|third|fourth) quarter)", flat)
        or re.search(r"\b(quarter|4q|3q|2q|1q)\b.{0,40}\b(results|earnings)\b", pm_all + " " + t.cover1[:600]))
    if form and (form[1] or not release):
        return form[0]
    if release:
        return "earnings release"
    if re.search(r"\b10-k\b", pm_all) and "annual report" not in pm_all:  # an EDGAR title, cover unreadable
        return "10-K"
    if re.search(r"\b10-q\b", pm_all):
        return "10-Q"
    named = _cover_kind(t.heading_lines)
    if named:
        return named
    if _SUSTAINABILITY.search(flat + " " + pm_all):
        return "sustainability report"
    # a paper's front matter: an abstract, or the ACM / IEEE marks that stand for one (ACM's format has no heading)
    if re.search(r"\babstract\b|\bacm reference format\b|\bccs concepts\b|\bindex terms\b", flat[:6000]) \
            and (re.search(r"\b(introduction|references|arxiv|proceedings|et al\.)", flat)):
        return "research paper"
    if _ANNUAL.search(flat[:8000]) or _ANNUAL.search(pm_all):
        return "annual report"
    return "other"


_SUSTAINABILITY = re.compile(r"sustainability report|esg report|non-?financial (report|statement)"
                             r"|corporate (social )?responsibility|impact report|climate report"
                             r"|sustainability statement")
_ANNUAL = re.compile(r"\bannual (?:financial |integrated )?report\b|\bintegrated report\b")


def _cover_kind(heading_lines: list[str]) -> str | None:
    """The kind a cover gives itself: a short line of the first page that names the report ("ANNUAL FINANCIAL
    REPORT 2023", "Sustainability Report"). It outranks the sustainability statement or GRI index an annual
    report carries inside; a cover that names both kinds is the one it names first."""
    for line in heading_lines:
        low = re.sub(r"\s+", " ", line.lower())
        if len(low.split()) > 8:
            continue  # a sentence that mentions a report, not a title
        if _ANNUAL.search(low):
            return "annual report"
        if _SUSTAINABILITY.search(low):
            return "sustainability report"
    return None


def _company(t: _Texts, pdf_meta: dict, doc_type: str, full_text: str | None = None) -> str | None:
    """The issuer, from the strongest source to the weakest: the registrant line of a filing, the name a release
    lists, the legal name the whole document uses most (the first pages when only those are given), the most
    frequent legal name on the first pages, '<Name> reports/announces', the PDF author, the PDF title."""
    listed = _listed_name(t.cover) if doc_type in ("earnings release", "other", "annual report") else None
    whole = issuer_of_text(full_text or (t.cover + "\n" + "\n".join(t.later))) \
        if doc_type not in ("research paper", "10-K", "10-Q", "8-K") else None
    if whole and not on_cover(whole, t.cover):
        whole = None  # an issuer is named on its report's first pages
    return (_registrant(t) or listed or whole or _frequent_legal_name(t.cover) or _announcer(t.cover)
            or _author_company(pdf_meta, doc_type) or _title_company(t.pm_title))


def on_cover(name: str, cover: str) -> bool:
    """The name's distinctive first word is printed on the first pages ("MTU" for "MTU Aero Engines AG")."""
    first = name.split()[0]
    return bool(re.search(rf"(?<![\w&]){re.escape(first)}(?![\w&])", cover, re.I))


# a legal name as printed: up to five words before a legal form ("MTU Aero Engines AG", "freenet AG", "Merck KGaA",
# "1&1 AG", "The Boeing Company"); "Group" counts, as reports name their issuer "the KION Group"
_FORM = r"(?:AG|SE|KGaA|GmbH|Inc\.?|Incorporated|Corporation|Corp\.|plc|PLC|N\.V\.|S\.A\.|S\.p\.A\.|Ltd\.?|Limited|LLC|Co\.|Company|Group)"
_ISSUER = re.compile(rf"(?<![\w&])((?:[A-Za-z0-9][\w&\-.’']*|&)(?:[ \t]+(?:[A-Z0-9&][\w&\-.’']*|&|and|und|of)){{0,4}}"
                     rf"[ \t]+{_FORM})(?=[\s,.;:)’'\]]|$)")
_STRICT_FORM = re.compile(r"\b(AG|SE|KGaA|GmbH|Inc\.?|Incorporated|Corporation|Corp\.|plc|PLC|N\.V\.|S\.A\.|S\.p\.A\.|"
                          r"Ltd\.?|Limited|LLC)$")


def _issuer_words(name: str) -> list[str]:
    """A candidate's words without what precedes a name: lowercase words before a capitalised one ("of 1&1 AG"),
    function words, years and numbers ("2023 Merck Group", "The KION Group")."""
    words = name.split()
    while len(words) > 2 and words[0][:1].islower():
        words = words[1:]
    while len(words) > 1 and (words[0].lower() in _LEAD_IN or re.fullmatch(r"[\d.,]+", words[0])):
        words = words[1:]
    return words


def issuer_of_text(text: str) -> str | None:
    """The issuer of a report: the legal name its whole text uses most. Names are grouped by their company key, and a
    key that holds another as its first or last words joins it ("Annex KION GROUP AG" and "KION Group" are KION;
    "MTU Aero Engines AG" and "MTU Group" are MTU), so the issuer, named on every other page, outweighs a stock
    exchange, an auditor or a subsidiary named a few times. Shown as its most frequent strict legal form ("… AG",
    "… Inc."), else as printed. None when no name is used at least three times."""
    counts: Counter[str] = Counter()
    for m in _ISSUER.finditer(text or ""):
        words = _issuer_words(re.sub(r"\s+", " ", m.group(1)))
        # every word of a name is capitalised ("freenet AG", one word before its form, may not be)
        if len(words) == 2 and words[0][:1].islower() and not _STRICT_FORM.search(words[1]):
            continue  # "non-financial Group": a lowercase word before "Group" or "Company" is a phrase, not a name
        if len(words) >= 2 and (len(words) == 2 or all(w[:1].isupper() or w[:1].isdigit() or w in ("&", "and", "und",
                                                                                                 "of")
                                                       for w in words)) \
                and not _NOT_NAME.search(" ".join(words)) and not re.fullmatch(r"[\d.,]+", words[0]):
            counts[" ".join(words)] += 1
    keys: dict[str, Counter[str]] = {}
    for name, n in counts.items():
        k = company_key(name)
        if k and not re.fullmatch(r"[\d.,\s]*", k):
            keys.setdefault(k, Counter())[name] += n
    roots = sorted(keys, key=lambda k: (len(k.split()), k))
    group: dict[str, str] = {}
    for k in roots:  # the shortest key a longer one starts or ends with is its root
        toks = k.split()
        group[k] = next((r for r in roots if len(r.split()) < len(toks) and group.get(r) == r and
                         (toks[: len(r.split())] == r.split() or toks[-len(r.split()):] == r.split())), k)
    total: Counter[str] = Counter()
    for k, names_ in keys.items():
        total[group[k]] += sum(names_.values())
    if not total:
        return None
    root, n = total.most_common(1)[0]
    if n < 3:
        return None
    # the group's most used key names it ("MTU Aero Engines" before "Engines" of a name broken over two lines)
    named = max((k for k in keys if group[k] == root), key=lambda k: sum(keys[k].values()))
    # shown in a strict legal form ("… AG", "… Inc."): the named key's, or a longer key's that starts with it
    # ("Addiko Bank AG" for "Addiko Group"); else as the named key is printed most
    strict = [(c, v) for k, names_ in keys.items() if k == named or (group[k] == root and k.startswith(named + " "))
              for v, c in names_.items() if _STRICT_FORM.search(v)]
    pick = max(strict)[1] if strict else keys[named].most_common(1)[0][0]
    if pick.isupper():  # "MTU AERO ENGINES AG": the same name in its own case, when printed so
        pick = next((v for v, _ in keys[company_key(pick) or named].most_common() if not v.isupper()
                     and _STRICT_FORM.search(v)), pick)
    body = pick.split()[:-1]
    return pick if body and all(w.isupper() and len(w) <= 4 or not w.isalpha() for w in body) else _tidy_company(pick)


def _listed_name(cover: str) -> str | None:
    """The name a release gives with its listing: "Ulta Beauty, Inc. (NASDAQ: ULTA) today announced …"."""
    m = re.search(r"([A-Z][\w&.,'\- ]{1,60}?)\s*\(\s*(?:NYSE|NASDAQ|Nasdaq|ASX|TSX|LSE)[\w ]{0,20}:", cover[:20000])
    if not m:
        return None
    words = m.group(1).strip(" ,").split()
    while words and words[0].lower() in _LEAD_IN | {"today", "wire", "newswire", "--"}:
        words = words[1:]
    name = " ".join(words[-6:])
    name = re.split(r"--\s*|\)\s*|—\s*", name)[-1].strip(" ,")
    return _tidy_company(name) if name and _plausible_company(name) else None


def _registrant(t: _Texts) -> str | None:
    """The name above '(Exact name of registrant …)'; a glossy annual report puts that 10-K cover a few pages in."""
    m = re.search(r"\n\s*([^\n]{1,80}?)\s*\n\s*([^\n]{1,80}?)\s*\n\s*\(exact\s+name\s+of\s+(?:the\s+)?registrant",
                  "\n" + t.cover + "\n" + "\n".join(t.later), re.I)
    if m:
        # A name broken over lines ("AMCOR" / "PLC") is joined again.
        name = f"{m.group(1)} {m.group(2)}" if re.fullmatch(SUFFIX, m.group(2).strip(), re.I) else m.group(2)
        if _plausible_company(name):
            return _tidy_company(name)
    return None


_LEAD_IN = {"the", "of", "by", "and", "for", "from", "at", "to", "neither", "both", "each", "any", "this", "these",
            "our", "all", "nor", "with"}


def _frequent_legal_name(cover: str) -> str | None:
    """The legal name ('… Inc.', '… AG') met most often in the first 20000 characters."""
    names = Counter()
    for cand in _LEGAL_NAME.findall(cover[:20000]):
        c = re.sub(r"\s+", " ", cand).strip()
        words = c.split()
        while words and not (words[0][:1].isupper() or words[0][:1].isdigit()):
            words = words[1:]  # the regex starts at the leftmost word: drop lowercase lead-in words
        while words and words[0].lower() in _LEAD_IN:
            words = words[1:]
        if len(words) == 1 and re.fullmatch(SUFFIX, words[0], re.I):
            continue
        c = " ".join(words)
        if 1 <= len(words) <= 6 and _plausible_company(c):
            names[c] += 1
    if names:
        return _tidy_company(names.most_common(1)[0][0])
    return None


def _announcer(cover: str) -> str | None:
    """The name at the start of a line that 'reports', 'announces', 'delivers' or 'posts'."""
    m = re.search(r"^\s*([A-Z][\w&.'\-]+(?:\s+[A-Z][\w&.'\-]+){0,3}?)\s+(?i:reports|announces|delivers|posts)\b",
                  cover, re.M)
    if m and _plausible_company(m.group(1)):
        return m.group(1)
    return None


def _author_company(pdf_meta: dict, doc_type: str) -> str | None:
    """The PDF author, when it reads as a company (not for research papers, not a tool or a person's login)."""
    author = ((pdf_meta or {}).get("author") or "").strip()
    if doc_type != "research paper" and author and len(author) < 60 and _plausible_company(author) \
            and not re.search(r"\d", author) \
            and not re.search(r"edgar|donnelley|anonymous|user|admin|microsoft|sustainability|;", author, re.I):
        return pdf_meta["author"].strip()
    return None


def _title_company(pm_title: str) -> str | None:
    """A company named in the PDF title: '… - Boeing Company', 'Addiko 2023 sustainability report'."""
    m = re.search(r"-\s*([A-Z][\w&. ]+?(?:Inc\.?|Company|Corporation|plc))\s*$", pm_title) or \
        re.match(r"^([A-Z][\w&.\-]+(?:\s+[A-Z][\w&.\-]+){0,2}?)\s+(?:\d|[1-4]q|fy|q[1-4]|annual|sustainability|"
                 r"non-?financial|esg|integrated|corporate|group\b|report|results|earnings)", pm_title, re.I)
    if m and _plausible_company(m.group(1)):
        return m.group(1).strip()
    return None


def _fiscal_year_and_period(meta: DocumentMeta, t: _Texts, file_name: str) -> None:
    """Fiscal year and period: from what the document type states, then weaker hints, the file name last."""
    _filing_period(meta, t.flat)
    _release_quarter(meta, t.flat, t.pm_all)
    if meta.doc_type in ("10-Q", "earnings release"):
        _quarterly_years(meta, t.flat, t.cover1 + " " + t.pm_all, re.sub(r"\s+", " ", "\n".join(t.later).lower()))
    if meta.doc_type == "earnings release":
        m = re.search(_DATE, t.cover1[:400], re.I)  # the release date heads the release
        if m:
            meta.published_date = _year_from_date(m.group(1))[1]
    if meta.doc_type == "8-K":
        m = re.search(r"date of report[^\n]{0,80}?" + _DATE, t.flat, re.I)
        if m:
            meta.fiscal_year, meta.published_date = _year_from_date(m.group(1))
    _fallback_fiscal_year(meta, t, file_name)
    if meta.doc_type == "research paper":
        meta.fiscal_period = None
        if not meta.fiscal_year:
            m = re.search(r"\b(20[0-4]\d)\b", t.pm_all + " " + t.flat[:3000])
            meta.fiscal_year = int(m.group(1)) if m else None


def _filing_period(meta: DocumentMeta, flat: str) -> None:
    """A 10-K's year ended, a 10-Q's quarterly period ended (its quarter from 'three/six/nine months ended')."""
    if meta.doc_type == "10-K":
        meta.fiscal_year = _annual_fiscal_year(flat) or meta.fiscal_year
        meta.fiscal_period = "FY"
    elif meta.doc_type == "10-Q":
        m = re.search(r"quarterly\s+period\s+ended\s*:?\s*" + _DATE, flat, re.I)
        if m:
            meta.fiscal_year, _ = _year_from_date(m.group(1))
    if meta.doc_type == "10-Q" and not meta.fiscal_period:
        meta.fiscal_period = ("Q3" if "nine months ended" in flat else "Q2" if "six months ended" in flat
                              else "Q1" if "three months ended" in flat else None)


def _annual_fiscal_year(flat: str) -> int | None:
    """A 10-K's fiscal year: the cover's "for the fiscal year ended <date>", a year ending in the first days of
    January being the year it mostly covers (52/53-week years); an explicit "fiscal 2022" beside that date on the
    cover wins."""
    m = re.search(r"(?:fiscal\s+)?year\s+ended\s*:?\s*" + _DATE, flat, re.I)
    if not m:
        return None
    said = re.search(r"\(?\s*(?:fiscal|fy)\s*(?:year\s+)?'?(\d{4})\s*\)?", flat[m.end(): m.end() + 40])
    if said:
        return int(said.group(1))
    _, iso = _year_from_date(m.group(1))
    return fiscal_year_of_end(dt.date.fromisoformat(iso)) if iso else int(m.group(2))


def _release_quarter(meta: DocumentMeta, flat: str, pm_all: str) -> None:
    """An earnings release's quarter (and year): 'first quarter of fiscal 2023', '4Q22', 'Q2 2023'."""
    q = re.search(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter"
                  r"(?:\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(\d{4}))?", flat)
    if meta.doc_type == "earnings release" and q:
        meta.fiscal_period = _QUARTER_WORDS[q.group(1)]
        if q.group(2) and meta.doc_type == "earnings release":
            meta.fiscal_year = int(q.group(2))
    m_q = re.search(r"\b([1-4])q\s*(?:fy)?\s*(\d{2,4})\b|\bq([1-4])\s*(?:fy)?\s*(\d{4})\b", pm_all + " " + flat[:3000])
    if meta.doc_type == "earnings release" and m_q:
        qn = m_q.group(1) or m_q.group(3)
        yr = m_q.group(2) or m_q.group(4)
        meta.fiscal_period = meta.fiscal_period or f"Q{qn}"
        if yr and not meta.fiscal_year:
            meta.fiscal_year = int(yr) if len(yr) == 4 else 2000 + int(yr)


def _fallback_fiscal_year(meta: DocumentMeta, t: _Texts, file_name: str) -> None:
    """Weaker hints for a fiscal year still unknown: 'fiscal 2022', 'report 2023', the most frequent year on the
    first pages, a year in the file name."""
    flat = t.flat
    if not meta.fiscal_year:
        m = re.search(r"(?:fiscal(?:\s+year)?|fy)\s*'?(\d{4})\b", flat[:5000])
        if m:
            meta.fiscal_year = int(m.group(1))
    if not meta.fiscal_year and meta.doc_type in ("sustainability report", "annual report", "earnings release"):
        m = re.search(r"(report|statement)\s+(?:for\s+)?(?:the\s+year\s+)?(20[0-4]\d)\b"
                      r"|\b(20[0-4]\d)\s+(?:annual|sustainability|non-?financial|esg)", flat[:4000] + " " + t.pm_all)
        if m:
            meta.fiscal_year = int(m.group(2) or m.group(3))
    if not meta.fiscal_year and meta.doc_type != "research paper":
        years = Counter(int(y) for y in re.findall(r"\b(20[0-4]\d|19[89]\d)\b", flat[:6000]))
        if years:
            meta.fiscal_year = years.most_common(1)[0][0]
    if not meta.fiscal_year:
        m = re.search(r"(?<!\d)(20[0-4]\d)(?!\d)", file_name)
        if m:
            meta.fiscal_year = int(m.group(1))


def _year_labels(meta: DocumentMeta) -> tuple[int, ...]:
    """The year labels found so far plus the fiscal year, sorted."""
    labels = set(meta.year_labels)
    if meta.fiscal_year:
        labels.add(meta.fiscal_year)
    return tuple(sorted(labels))


def _creation_date(pdf_meta: dict) -> str | None:
    """The PDF's creation date ('D:20230412…' → '2023-04-12'), when it is a valid date."""
    cd = (pdf_meta or {}).get("creationDate") or ""
    m = re.match(r"D:(\d{4})(\d{2})(\d{2})", cd)
    if m:
        try:
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
        except ValueError:
            pass
    return None


def _title(pm_title: str, cover: str) -> str | None:
    """A meaningful PDF metadata title, else the first substantial line of the cover."""
    if pm_title and not re.fullmatch(r"[\d\-_ ]+|untitled.*|microsoft word.*|.*\.(docx?|indd|pdf)", pm_title, re.I):
        return pm_title.strip()[:200]
    lines = [ln.strip() for ln in cover.splitlines() if ln.strip()]
    for i, s in enumerate(lines):
        if len(s.split()) >= 2 and len(s) > 8 and not re.match(r"^(table of contents|united states|page)", s, re.I):
            return _whole_title(lines, i)[:200]
    return None


_CONNECTOR = r"(?:of|for|and|to|in|on|at|by|with|&|-|–)"


def _whole_title(lines: list[str], i: int) -> str:
    """A cover line with the lines it continues or that continue it: a title is never a fragment such as "OF THE
    GROUP 2023" (the line before holds "ANNUAL REPORT") or "REPORT OF" (the line after holds the name)."""
    start, end = i, i
    while start > 0 and start > i - 2 and re.match(rf"{_CONNECTOR}\b", lines[start], re.I):
        start -= 1
    while end + 1 < len(lines) and end < i + 2 and (re.search(rf"\b{_CONNECTOR}$", lines[end], re.I)
                                                    or re.match(rf"{_CONNECTOR}\b", lines[end + 1], re.I)):
        end += 1
    title = " ".join(lines[start:end + 1])
    # still opening on a connector (the words before it are drawn, not text): the rest stands alone
    return re.sub(rf"^(?:{_CONNECTOR}\s+)+(?:the\s+)?", "", title, flags=re.I) or title


def _names(meta: DocumentMeta, t: _Texts) -> None:
    """The issuer's names; a subsidiary named on the cover gives way to its parent, and stays a name."""
    text = t.cover + "\n" + "\n".join(t.later)
    parent = names.parent_of(meta.company, t.cover[:6000])
    registrant = meta.company
    if parent:
        meta.company = _tidy_company(parent)
    meta.aliases = tuple(names.issuer_names(meta.company, registrant, t.cover, text)) if meta.company else ()


def detect(first_pages: list[str], pdf_meta: dict, file_name: str, later_pages: list[str] | None = None,
           full_text: str | None = None) -> DocumentMeta:
    """first_pages: text of the first ~3 pages; pdf_meta: pymupdf's metadata dict; full_text: the whole document's
    text, when read (the issuer is the legal name it uses most). The result is the store's own record, without an
    id until it is stored."""
    t = _texts(first_pages, pdf_meta, later_pages)
    meta = DocumentMeta(0, file_name, doc_type=_doc_type(t))  # not stored yet: no id
    meta.company = _company(t, pdf_meta, meta.doc_type, full_text)
    _names(meta, t)
    meta.company_key = company_key(meta.company)
    _fiscal_year_and_period(meta, t, file_name)
    meta.year_labels = _year_labels(meta)
    # Published date: PDF creation date unless a filing date was found.
    if not meta.published_date:
        meta.published_date = _creation_date(pdf_meta)
    meta.title = _title(t.pm_title, t.cover)
    return meta
