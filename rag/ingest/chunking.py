"""Rows → units (paragraphs, table rows, headings) → chunks of ~150–350 words inside a section.
A table row stays one line; the table's header row travels with every chunk cut from the table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.config import ChunkingSettings
from rag.ingest.layout import Row, section_type_of
from rag.statements import statement_of_title

HEADING_SEP = " › "


@dataclass
class Unit:
    text: str
    page: int
    y0: float
    y1: float
    kind: str  # para | table | heading
    heading_path: tuple[str, ...]
    section_type: str
    table_header: str | None = None

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass
class Chunk:
    units: list[Unit] = field(default_factory=list)
    heading_path: tuple[str, ...] = ()
    section_type: str = "other"
    text: str = ""
    chunk_index: int = 0
    starts_statement: bool = False

    @property
    def page_start(self) -> int:
        return min(u.page for u in self.units)

    @property
    def page_end(self) -> int:
        return max(u.page for u in self.units)

    @property
    def pages(self) -> list[int]:
        return list(range(self.page_start, self.page_end + 1))

    @property
    def heading(self) -> str:
        return HEADING_SEP.join(self.heading_path)

    @property
    def words(self) -> int:
        return sum(u.words for u in self.units)


_LEADING_NUMBER = re.compile(r"^(\d{1,4})\s+(?=[^\W\d_])")


def _page_numbered(heading: str, page: int) -> str | None:
    """The words of a heading printed after a number within four of its page's own ("26 Environmental and Climate
    Protection" on page 26, or 28 when the count starts at the cover); None for any other heading."""
    m = _LEADING_NUMBER.match(heading)
    if m is None or abs(int(m.group(1)) - page) > 4 or not heading[m.end()].isupper():
        return None
    return heading[m.end():].strip().lower()


def running_titles(pages: list[list[Row]]) -> set[str]:
    """The words of headings printed after the page number on two or more pages: a report's running header (its
    chapter's name beside the page number, page after page). A paper's numbered section ("1 Introduction" on page 1)
    is printed once, so its number, though near its page's, is the section's and stays."""
    seen: dict[str, set[int]] = {}
    for rows in pages:
        for r in rows:
            words = _page_numbered(r.text.strip(), r.page) if r.heading_level is not None else None
            if words:
                seen.setdefault(words, set()).add(r.page)
    return {w for w, on in seen.items() if len(on) >= 2}


def without_page_number(heading: str, page: int, running: set[str]) -> str:
    """A heading without the page number printed before it, when its words are a running title (running_titles).
    A section number ("3.1 Results", "1 Introduction") stays; a number after the name ("Scope 3", "Item 7") is the
    name's."""
    words = _page_numbered(heading, page)
    if words is None or words not in running:
        return heading
    return heading[_LEADING_NUMBER.match(heading).end():]  # type: ignore[union-attr]


def _dehyphen(a: str, b: str, compounds: frozenset[str] = frozenset()) -> str:
    """Two lines of a paragraph joined. A hyphen ending the first line before a lower-case word is where a word was
    broken ("evalu-" / "ation" → "evaluation"), unless the document writes the two parts as a hyphenated compound
    elsewhere in a line ("inter-" / "annotator" → "inter-annotator": `compounds`)."""
    if re.search(r"[a-z]-$", a) and b[:1].islower():
        first = re.search(r"([^\W\d_]+)-$", a)
        second = re.match(r"[^\W\d_]+", b)
        if first and second and f"{first.group(1)}-{second.group(0)}".lower() in compounds:
            return a + b
        return a[:-1] + b
    return a + " " + b


def hyphenated_compounds(pages: list[list[Row]]) -> frozenset[str]:
    """The hyphenated words a document prints inside its lines ("inter-annotator", "long-form"), lower-cased: how
    it writes them when no line break splits them."""
    return frozenset(m.group(0).lower() for rows in pages for r in rows
                     for m in re.finditer(r"(?<![\w-])[^\W\d_]+-[^\W\d_]+(?![\w-])", r.text.rstrip("-")))


def rows_to_units(pages: list[list[Row]]) -> list[Unit]:
    """Group rows into paragraphs, table rows and headings, tracking the heading path and section type."""
    units: list[Unit] = []
    stack: list[tuple[int, str]] = []  # (level, heading text)
    section = "other"
    table_header: str | None = None
    para: Unit | None = None
    prev: Row | None = None

    def path() -> tuple[str, ...]:
        return tuple(t for _, t in stack)

    running = running_titles(pages)
    compounds = hyphenated_compounds(pages)
    for rows in pages:
        for r in rows:
            text = r.text.strip()
            if not text:
                continue
            if r.heading_level is not None:
                text = without_page_number(text, r.page, running)
                para = None
                table_header = None
                # Consecutive heading lines of the same level are one wrapped heading.
                if prev is not None and prev.heading_level == r.heading_level and stack and units \
                        and units[-1].kind == "heading" and prev.page == r.page and r.y0 - prev.y1 < r.size:
                    lvl, t = stack[-1]
                    stack[-1] = (lvl, t + " " + text)
                    units[-1].text += " " + text
                    units[-1].heading_path = path()
                else:
                    while stack and stack[-1][0] >= r.heading_level:
                        stack.pop()
                    stack.append((r.heading_level, text[:120]))
                    units.append(Unit(text, r.page, r.y0, r.y1, "heading", path(), section))
                section = _section_for(path(), section)
                units[-1].section_type = section
                prev = r
                continue
            if r.is_header_row:
                table_header = text
                para = None
                units.append(Unit(text, r.page, r.y0, r.y1, "table", path(), section, None))
            elif r.is_table:
                para = None
                units.append(Unit(text, r.page, r.y0, r.y1, "table", path(), section, table_header))
            else:
                cont = (para is not None and prev is not None and prev.page == r.page
                        and -0.5 * r.size <= r.y0 - prev.y1 < max(r.size, prev.size) * 0.9
                        and abs(r.size - prev.size) < 1.0)
                if cont and para is not None:
                    para.text = _dehyphen(para.text, text, compounds)
                    para.y1 = r.y1
                else:
                    if r.words > 12:
                        table_header = None  # prose ends a table
                    para = Unit(text, r.page, r.y0, r.y1, "para", path(), section)
                    units.append(para)
            prev = r
    return units


def _section_for(path: tuple[str, ...], current: str) -> str:
    # Deepest specific heading wins ("5 Conclusion › Limitations" is discussion), but a generic subsection
    # name defers to its parent ("4 Methodology › 4.1 Overview" is methods, not introduction).
    generic = None
    for depth in range(len(path) - 1, -1, -1):
        st = section_type_of(path[depth])
        if not st:
            continue
        if depth >= 2 and st in ("introduction", "abstract", "related_work"):
            generic = generic or st
            continue
        return st
    if generic:
        return generic
    # A new top-level heading we cannot classify: after references it stays appendix-like.
    return "appendix" if current in ("references", "appendix") and path else "other"


def _split_long(unit: Unit, max_words: int) -> list[Unit]:
    words = unit.text.split()
    if len(words) <= max_words:
        return [unit]
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z(\[])", unit.text)
    parts, cur = [], []
    for s in sentences:
        sw = s.split()
        if cur and len(cur) + len(sw) > max_words:
            parts.append(cur)
            cur = []
        while len(sw) > max_words:
            parts.append(sw[:max_words])
            sw = sw[max_words:]
        cur.extend(sw)
    if cur:
        parts.append(cur)
    return [Unit(" ".join(p), unit.page, unit.y0, unit.y1, unit.kind, unit.heading_path, unit.section_type,
                 unit.table_header) for p in parts]


def _render(units: list[Unit]) -> str:
    lines: list[str] = []
    first = units[0]
    if first.kind == "table" and first.table_header and first.text != first.table_header:
        lines.append(first.table_header)
    for u in units:
        lines.append(u.text)
    return "\n".join(lines).strip()


def chunk_units(units: list[Unit], cfg: ChunkingSettings) -> list[Chunk]:
    """Greedy packing inside each section; small chunks merge with a neighbour of the same section type."""
    chunks: list[Chunk] = []
    cur: Chunk | None = None
    for unit in units:
        for u in _split_long(unit, cfg.max_words):
            new_section = cur is not None and (u.kind == "heading" or u.heading_path != cur.heading_path)
            too_big = cur is not None and cur.words + u.words > cfg.max_words
            full = cur is not None and cur.words >= cfg.target_words
            statement = u.kind == "heading" and statement_of_title(u.text) is not None
            if cur is None or too_big or full or statement or \
                    (new_section and (cur.words >= cfg.min_words or u.section_type != cur.section_type)):
                cur = Chunk([u], u.heading_path, u.section_type)
                cur.starts_statement = statement  # a financial statement starts its own chunk
                chunks.append(cur)
            else:
                cur.units.append(u)
                if u.kind == "heading" or (new_section and not cur.heading_path):
                    cur.heading_path, cur.section_type = u.heading_path, u.section_type
    # Merge a short chunk into the previous one when both fit and share the section type.
    merged: list[Chunk] = []
    for c in chunks:
        if merged and c.words < cfg.min_words and merged[-1].section_type == c.section_type \
                and merged[-1].words + c.words <= cfg.max_words and not c.starts_statement:
            merged[-1].units.extend(c.units)
        else:
            merged.append(c)
    out = []
    for c in merged:
        # A chunk that is only headings carries no content.
        if all(u.kind == "heading" for u in c.units):
            continue
        c.text = _render(c.units)
        if not c.text.strip():
            continue
        c.chunk_index = len(out)
        out.append(c)
    return out
