"""A document's title, authors and (for a paper) year, read from the layout of its first page.

- A paper's title is the topmost run of large text near the top of its first page — larger than the body text,
  not a running header ("Under review as a conference paper"), a journal or conference banner, an arXiv stamp in
  the margin or text inside a figure — its lines joined ("… Human Evaluation of" + "Faithfulness in …").
- Its authors are the names between the title and the abstract: superscript marks (affiliations, footnotes)
  dropped, affiliations and e-mail addresses left out, a name broken across two lines joined.
- Its year: the arXiv stamp, the conference or journal line ("Proceedings of … 2023", "EACL 2023"), a copyright
  line, else the PDF's creation date.
- A report's title is the phrase that names it on its first pages ("Sustainability Report 2023", "2022 Annual
  Report on Form 10-K"), an SEC filing's its form ("Form 10-K"), a release's its headline."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from rag.domain import DATE_WRITTEN

HEADER = re.compile(r"under review|preprint|proceedings|conference|workshop|symposium|journal|arxiv|\bvol\.|volume|"
                    r"\bpp\.|©|\(c\)|copyright|\bdoi\b|issn|isbn|https?:|www\.|published|accepted|submitted|"
                    r"licen[cs]e|^page \d|^\d+$|draft|camera.ready", re.I)
AFFILIATION = re.compile(r"universit|institut|college|school|department|dept\.|laborator|\blab\b|\blabs\b|research|"
                         r"centre|center|academy|group|inc\.|corp|ltd|gmbh|\bai\b|google|microsoft|meta\b|amazon|"
                         r"bytedance|alibaba|tencent|baidu|ibm|nvidia|openai|deepmind|hospital|foundation|"
                         r"\b(usa|china|germany|france|uk|belgium|japan|korea|canada)\b|,\s*[A-Z]{2}\s*\d", re.I)
PARTICLES = {"de", "van", "der", "von", "di", "da", "del", "la", "le", "bin", "al", "dos", "du", "den", "ter", "y"}
ACCENTS = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303"}
REPORT_TITLE = re.compile(r"(?:\b(?:19|20)\d\d\s+)?(?:(?:sustainability|non-?financial|esg|annual(?:\s+financial)?|"
                          r"integrated|csr|impact|corporate responsibility|environmental|climate)\s+report"
                          r"(?:\s+on\s+form\s+10-k)?)(?:\s+(?:19|20)\d\d)?", re.I)
FORMS = {"10-K": "Form 10-K", "10-Q": "Form 10-Q", "8-K": "Form 8-K"}


@dataclass
class Line:
    text: str
    size: float
    y0: float
    y1: float
    x0: float
    parts: list[str] = field(default_factory=list)  # the line's pieces set apart by a wide gap (one name each)


def _fix_accents(text: str) -> str:
    """'Andr´e' (a spacing accent set before or after its letter, as some PDFs give it) → 'André'."""
    import unicodedata

    for mark, comb in ACCENTS.items():
        text = re.sub(rf"{mark}([A-Za-z])", lambda m, c=comb: m.group(1) + c, text)
        text = re.sub(rf"([A-Za-z]){mark}", lambda m, c=comb: m.group(1) + c, text)
    return unicodedata.normalize("NFKC", text)  # and ligatures ('ﬁ') as letters


def page_lines(page) -> list[Line]:
    """The page's horizontal lines, top to bottom, each without its superscripts (spans much smaller than the
    line's main type), split into parts where a wide gap sets pieces apart."""
    out: list[Line] = []
    for block in page.get_text("dict").get("blocks", []):
        for ln in block.get("lines", []):
            if abs(ln.get("dir", (1, 0))[1]) > 0.1:
                continue  # vertical text: margin stamps, rotated labels
            spans = [s for s in ln["spans"] if s["text"].strip()]
            if not spans:
                continue
            main = max(s["size"] for s in spans)
            kept = [s for s in spans if s["size"] >= 0.75 * main]
            parts, prev = [], None
            for s in kept:
                gap = s["bbox"][0] - prev["bbox"][2] if prev is not None else 0.0
                if gap > 8 and parts:
                    parts.append("")
                elif gap > 0.12 * main and parts and not parts[-1].endswith(" ") and not s["text"].startswith(" "):
                    parts[-1] += " "  # words set apart by position, not by a space character
                parts[-1:] = [(parts[-1] if parts else "") + _small_caps(s, prev, gap)]
                prev = s
            parts = [_fix_accents(re.sub(r"\s+", " ", p)).strip() for p in parts if p.strip()]
            text = " ".join(parts)
            out.append(Line(text, round(main, 1), ln["bbox"][1], ln["bbox"][3], ln["bbox"][0], parts))
    return sorted(out, key=lambda l: (round(l.y0), l.x0))


def _small_caps(span: dict, prev: dict | None, gap: float) -> str:
    """A span's text, in lower case where it is emulated small caps: capitals set smaller (under 0.9 of the size)
    right after a capital of the same word ("L" 14.3 pt, "ONG" 11.5 pt, "E", "VAL" → "LongEval")."""
    t = span["text"]
    if prev is not None and gap < 1.0 and t.isalpha() and t.isupper() and prev["text"][-1:].isupper() \
            and span["size"] < 0.9 * prev["size"]:
        return t.lower()
    return t


def _body_size(lines: list[Line]) -> float:
    sizes = Counter()
    for ln in lines:
        sizes[ln.size] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _title_lines(lines: list[Line], page_height: float) -> list[int]:
    """Indices of the title's lines: the topmost run of large type in the top half of the page (three words or
    more preferred), above the abstract."""
    body = _body_size(lines)
    stop = next((ln.y0 for ln in lines if re.match(r"abstract\b", ln.text, re.I)), page_height * 0.55)
    big = [i for i, ln in enumerate(lines) if ln.size >= 1.15 * body and ln.y0 < min(stop, page_height * 0.55)
           and ln.x0 > 25 and not HEADER.search(ln.text) and len(ln.text) >= 4 and re.search(r"[A-Za-z]{2}", ln.text)]
    runs: list[list[int]] = []
    for i in big:
        if runs and abs(lines[i].size - lines[runs[-1][-1]].size) <= 0.6 \
                and lines[i].y0 - lines[runs[-1][-1]].y1 < 1.25 * lines[i].size:  # a title may be set double-spaced
            runs[-1].append(i)
        else:
            runs.append([i])
    words = lambda r: sum(len(lines[i].text.split()) for i in r)
    return next((r for r in runs if words(r) >= 3), runs[0] if runs else [])


def _join(texts: list[str]) -> str:
    out = ""
    for t in texts:
        out = out[:-1] + t if out.endswith("-") and out[-2:-1].isalpha() else (out + " " + t).strip()
    return re.sub(r"\s+", " ", out).strip()


def _name(piece: str) -> str | None:
    """A person's name from a piece of the author lines, or None (an affiliation, an e-mail, a note)."""
    s = re.sub(r"[\d∗*†‡§¶♠♢♡♣♦♥⋆#,;()]+", " ", piece)
    s = re.sub(r"\s+", " ", s).strip(" .-")
    words = s.split()
    if not 2 <= len(words) <= 5 or AFFILIATION.search(s) or "@" in piece:
        return None
    if not all(w[0].isupper() or w.lower() in PARTICLES for w in words) or not words[-1][0].isupper():
        return None
    if s.isupper():  # set in capitals ("TAL AUGUST"): a name of two to four words, written as names are
        if len(words) > 4:
            return None
        s = " ".join(w.capitalize() if len(w) > 2 or not w.endswith(".") else w for w in words)
    return s


def _author_text(lines: list[Line]) -> str:
    """The author lines as one text, pieces set apart by commas; a name broken across two lines is joined."""
    text = ""
    for ln in lines:
        piece = ", ".join(ln.parts)
        if not text:
            text = piece
        elif text.rstrip().endswith((",", " and", "&")) or piece.lower().startswith("and "):
            text += " " + piece
        else:
            last = re.split(r",|\band\b", text)[-1].split()
            first = re.split(r",|\band\b", piece)[0].split()
            # a name broken across lines: one word left on the line before ("Andrew" / "D. White")
            broken = len(last) == 1 and 1 <= len(first) <= 3 or len(last) + len(first) <= 4 and len(first) == 1
            glue = " " if broken and len(last) >= 1 else ", "
            text += glue + piece
    return text


def _rows(lines: list[Line]) -> list[Line]:
    """Lines in reading order by visual rows: names set on one row with superscript marks sit on baselines a few
    points apart, and sorting by top alone would put a name at the right before the first one."""
    out: list[Line] = []
    row: list[Line] = []
    for ln in sorted(lines, key=lambda ln: ln.y0):
        if row and ln.y0 > max(r.y0 for r in row) + 0.5 * ln.size:
            out += sorted(row, key=lambda r: r.x0)
            row = []
        row.append(ln)
    return out + sorted(row, key=lambda r: r.x0)


def _affiliated_name(ln: Line) -> Line | None:
    """'TAL AUGUST, University of Washington, USA' (a name, then its affiliation, on one line): the name alone."""
    head = ln.text.split(",")[0]
    if "," not in ln.text or AFFILIATION.search(head) or not _name(head):
        return None
    return Line(head, ln.size, ln.y0, ln.y1, ln.x0, [head])


def authors_after(lines: list[Line], end: int) -> list[str]:
    """The names between the title (its last line: end) and the abstract or the first body text, in the order
    they are printed."""
    taken: list[Line] = []
    body = _body_size(lines)
    for ln in lines[end + 1:]:
        if re.match(r"abstract\b", ln.text, re.I) or ln.y0 - lines[end].y1 > 160:
            break
        if ln.size < body - 0.5 and len(ln.text.split()) > 12:
            break
        if "@" in ln.text or HEADER.search(ln.text) or re.match(r"^[\d∗*†‡§¶♠♢♡]", ln.text):
            continue
        if AFFILIATION.search(ln.text) and not re.search(r",\s*\w+\s+\w+\s*\d", ln.text):
            named = _affiliated_name(ln)
            if named is not None:
                taken.append(named)
            continue
        taken.append(ln)
    names = [_name(p) for p in re.split(r",|;|\band\b|&", _author_text(_rows(taken)))]
    return list(dict.fromkeys(n for n in names if n))[:30]


def paper_title(page) -> tuple[str | None, list[str]]:
    """A paper's title and authors from its first page."""
    lines = page_lines(page)
    idx = _title_lines(lines, page.rect.height)
    if not idx:
        return None, []
    title = _join([lines[i].text for i in idx])
    return title[:300], authors_after(lines, idx[-1])


def paper_year(page, pdf_meta: dict) -> int | None:
    """A paper's year from its first page: its arXiv stamp (in the margin), its conference or journal line, a
    copyright line; else the PDF's creation date."""
    t = page.get_text()
    m = re.search(r"arXiv:(\d{2})(\d{2})\.\d{4,5}", t)
    if m and 1 <= int(m.group(2)) <= 12:
        return 2000 + int(m.group(1))
    m = re.search(r"(?:proceedings|conference|workshop|symposium|journal|transactions)[\s\S]{0,160}?"
                  r"(?<!et al\., )\b((?:19|20)\d\d)\b", t, re.I) \
        or re.search(r"\b(?:E?ACL|NAACL|EMNLP|COLING|NeurIPS|NIPS|ICLR|ICML|CVPR|ICCV|ECCV|AAAI|IJCAI|SIGIR|KDD|CHI)"
                     r"\s*'?((?:19|20)\d\d)\b", t)
    if m:
        return int(m.group(1))
    m = re.search(r"(?:©|\(c\)|c\u20dd|copyright)\s*((?:19|20)\d\d)", t, re.I)
    if m:
        return int(m.group(1))
    m = re.match(r"D:((?:19|20)\d\d)", (pdf_meta or {}).get("creationDate") or "")
    return int(m.group(1)) if m else None


def report_title(first_pages: list[str]) -> str | None:
    """The phrase that names a report on its first pages, in title case when it is set all in capitals or all in
    lower case."""
    for text in first_pages[:4]:
        lines = text.splitlines()
        for i in range(len(lines)):
            m = next((m for m in map(REPORT_TITLE.search, _title_candidates(lines, i)) if m), None)
            if m and re.search(r"(?:19|20)\d\d", m.group(0)):
                t = re.sub(r"\s+", " ", m.group(0)).strip()
                return _title_case(t) if t.isupper() or t.islower() else t
    return None


def _title_candidates(lines: list[str], i: int) -> list[str]:
    """The line i as a title may be set: alone or with the line that ends it ("ANNUAL REPORT" / "OF THE GROUP
    2023"), after a year set above it, or a cover's run of one- or two-word lines ("2023" / "Sustainability" /
    "Report") joined. Only lines of at most 12 words: a sentence that names a report is not its title."""
    line = lines[i]
    if i + 1 < len(lines) and re.match(r"\s*(?:of|for)\b|\s*(?:19|20)\d\d\s*$", lines[i + 1], re.I):
        line = f"{line} {lines[i + 1]}"
    elif i > 0 and re.fullmatch(r"\s*(?:19|20)\d\d\s*", lines[i - 1]):
        line = f"{lines[i - 1].strip()} {line}"
    out = [line] if len(line.split()) <= 12 else []
    run = []
    for ln in lines[i:i + 4]:
        if not 1 <= len(ln.split()) <= 2:
            break
        run.append(ln.strip())
    return out + ([" ".join(run)] if len(run) > 1 else [])


def _title_case(title: str) -> str:
    """"NON-FINANCIAL REPORT 2023" and "non-financial report 2023" → "Non-Financial Report 2023" (Form 10-K kept)."""
    words = [w if re.fullmatch(r"\d+-K", w, re.I) else "-".join(p.capitalize() for p in w.split("-"))
             for w in title.split()]
    out = " ".join(w.lower() if w.lower() in ("of", "on", "for") and i else w for i, w in enumerate(words))
    return re.sub(r"\bForm (\d+)-k\b", r"Form \1-K", out, flags=re.I)


def headline(page) -> str | None:
    """A release's headline: the topmost run of large type on its first page that is not a banner."""
    lines = [ln for ln in page_lines(page) if not re.fullmatch(r"(news|press)\s+release|exhibit\s+[\d.]+", ln.text,
                                                                 re.I)]
    idx = _title_lines(lines, page.rect.height)
    return _join([lines[i].text for i in idx])[:300] if idx else None


def apply(meta, doc, first_pages: list[str]) -> None:
    """Set a detected document's title by its kind — a paper's (with its authors and year), a report's, a
    filing's form, a release's headline — where its first page gives one."""
    page = doc[0]
    kind = meta.doc_type
    if kind == "research paper":
        title, authors = paper_title(page)
        meta.title = title or meta.title
        meta.authors = tuple(authors)
        meta.company = meta.company_key = None  # a paper has authors, not an issuer
        meta.aliases = ()
        meta.fiscal_year = paper_year(page, doc.metadata or {}) or meta.fiscal_year
        meta.year_labels = (meta.fiscal_year,) if meta.fiscal_year else ()  # a paper answers to its one year
    elif kind in ("sustainability report", "annual report"):
        meta.title = report_title(first_pages) or meta.title
    elif kind in FORMS:
        meta.title = (report_title(first_pages) if kind == "10-K" else None) or filing_title(kind, first_pages)
    elif kind == "earnings release":
        meta.title = headline(page) or meta.title
    else:
        title, _ = paper_title(page)
        meta.title = title if title and not slogan(title) else meta.title


def filing_title(kind: str, first_pages: list[str]) -> str:
    """A filing's title in its cover's own words: "Form 10-K for the fiscal year ended December 31, 2017", "Form
    10-Q for the quarterly period ended June 2, 2023", "Form 8-K dated May 20, 2022" (the date of report); the
    form alone when the cover gives no date."""
    cover = " ".join(" ".join(first_pages[:1]).split())
    if kind == "8-K":
        m = re.search(rf"date of report\b[^:]{{0,60}}:?\s*{DATE_WRITTEN}", cover, re.I)
        return f"{FORMS[kind]} dated {' '.join(m.group(1).split())}" if m else FORMS[kind]
    m = re.search(rf"for the (fiscal year|quarterly period|year) ended\s+{DATE_WRITTEN}", cover, re.I)
    return f"{FORMS[kind]} for the {m.group(1).lower()} ended {' '.join(m.group(2).split())}" if m else FORMS[kind]


def slogan(title: str) -> bool:
    """One word set large ("ENERGY.", "Progress"): a cover's slogan or a brand, not the title of a document."""
    return len(re.findall(r"[^\W\d_]{2,}", title)) < 2
