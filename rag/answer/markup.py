"""Document text on a page that renders Markdown (st.markdown, captions, alerts, and the labels of buttons, expanders,
metrics, images, status boxes): every string that comes from a PDF — file name, title, company, heading, caption,
quote, figure reason, answer text built from quotes — goes through `neutral` and shows as the text it is.

The pages import this module; it never imports Streamlit. The Markdown export (rag/answer/export.py) writes a file
for other readers and has its own, lighter escaping."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from rag.answer.model import Answer
from rag.quantities import MARKER

__all__ = ["SUPPORTING", "answer_markdown", "chart_text", "neutral"]

# U+2060 WORD JOINER: invisible, and no word character. Streamlit turns some patterns into links or icons *after*
# parsing, in the text itself, where a backslash escape is already gone: bare URLs and e-mail addresses (GFM
# autolink literals), `:emoji:` shortcodes, `:material/…:` icons, `:streamlit:`. A joiner after the colon (or the
# `@`, or `www`) breaks each pattern; the colon also starts Streamlit's `:red[…]` directives, broken the same way.
_JOIN = "\u2060"
_SPECIAL = re.compile(r"([\\`*_~\[\]#|$&])")  # emphasis, code, links, headings, tables, LaTeX, entities


def neutral(text: object) -> str:
    """Untrusted text (a document's, or built from one) as Markdown that renders exactly that text: no images,
    links, bare-URL links, emphasis, headings, lists, HTML, LaTeX, Streamlit directives, icons or emoji codes."""
    t = _SPECIAL.sub(r"\\\1", str(text or "")).replace("\\](", "\\]\\(")  # `](` would be a link's middle
    t = t.replace("<", "&lt;")  # HTML and autolinks <http://…> (a `>` alone opens nothing but a blockquote)
    t = re.sub(r"(?m)^([ \t]*)>", r"\1\\>", t)  # blockquotes
    t = re.sub(r"\n[ \t]+", "\n", t)  # an indented line would be a code block
    t = re.sub(r"(?m)^([-+=])", r"\\\1", t)  # list items, setext underlines
    t = re.sub(r"(?m)^(\d+)([.)])", r"\1\\\2", t)  # ordered lists
    t = re.sub(r":(?=[\w/+-])", ":" + _JOIN, t)
    t = re.sub(r"@(?=[\w-])", "@" + _JOIN, t)
    return re.sub(r"(?i)\bwww(?=\.)", lambda m: m.group(0) + _JOIN, t)


def chart_text(text: object) -> str:
    """Untrusted text for a Plotly label (axis ticks, legend, hover): Plotly reads `<a href>`, `<b>` and `<br>` in
    its labels, and decodes entities only in the text between tags."""
    return html.escape(str(text or ""), quote=False)


_MARKER = re.compile(MARKER.pattern + r"(?!\()")  # a marker, not a Markdown link's text ("[1](…)")
_BOLD_LEAD = re.compile(r"\*\*(.+?)\*\*")
_RULE = re.compile(r"\|(\s*:?-+:?\s*\|)+")
SUPPORTING = "Supporting passages:"  # the offline composer's lead-in (rag/answer/offline.py)


def _own_bold(a: Answer) -> set[str]:
    """The bold lead-ins the answer layer writes: a document's name before its passages, the supporting passages,
    a structured answer's single value. Any other `**…**` in the text is the document's and shows as written."""
    own = {SUPPORTING, *(e.document for e in a.evidence)}
    if a.rows is not None and len(a.rows) == 1 and len(a.rows[0]) == 1:
        own |= {str(v) for v in a.rows[0].values()}
    return own


def markers_in(text: str) -> list[int]:
    """The [n] markers of a text, each once, in the order they first appear."""
    return list(dict.fromkeys(int(m.group(1)) for m in _MARKER.finditer(text)))


def _with_markers(text: str, link: Callable[[int], str | None] | None) -> str:
    """Text between [n] markers neutralised; each marker a link to link(n) when it has one."""
    out, at = [], 0
    for m in _MARKER.finditer(text):
        target = link(int(m.group(1))) if link is not None else None
        if target is None:
            continue
        out += [neutral(text[at:m.start()]), f"[\\[{m.group(1)}\\]]({target})"]
        at = m.end()
    return "".join(out) + neutral(text[at:])


def answer_markdown(a: Answer, text: str | None = None, link: Callable[[int], str | None] | None = None) -> str:
    """An answer's text (a.answer, or one of a.paragraphs) as Markdown. The answer layer writes plain text with a
    few shapes of its own around document text — [n] markers, `- ` bullets, a bold lead-in, a structured answer's
    table — and only those stay Markdown; everything between them goes through `neutral`. link(n): the target of
    marker [n] (None, or no link: the marker shows as text)."""
    own = _own_bold(a)
    lines = []
    for line in (a.answer if text is None else text).split("\n"):
        if _RULE.fullmatch(line.strip()):
            lines.append(line.strip())
        elif line.startswith("|") and line.rstrip().endswith("|") and len(line.strip()) > 1:
            cells = line.strip()[1:-1].split("|")
            lines.append("| " + " | ".join(_with_markers(c.strip(), link) for c in cells) + " |")
        else:
            bullet = line.startswith("- ")
            body = line[2:] if bullet else line
            m = _BOLD_LEAD.match(body)
            if m and m.group(1) in own:
                body_md = f"**{neutral(m.group(1))}**" + _with_markers(body[m.end():], link)
            else:
                body_md = _with_markers(body, link)
            lines.append(("- " if bullet else "") + body_md)
    return "\n".join(lines)
