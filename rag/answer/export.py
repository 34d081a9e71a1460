"""An answer as Markdown (citations with quotes and pages, figure images inline) or JSON."""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Callable
from datetime import date

from rag.answer.model import Answer
from rag.errors import redact

Images = Callable[[int], "bytes | None"]  # figure id → its PNG (the store's figure_image)


def export_name(title: str, extension: str, when: date | None = None, what: str = "") -> str:
    """A download's file name from the conversation's title or the question, with the day, and `what` it holds
    when one title names two downloads (an answer and its whole conversation):
    "2026-11-29_costcos-net-income-fiscal-2021_conversation.md". Letters, digits, hyphens and underscores only, at
    most eight words, so any file system and shell takes it."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()  # "é" → "e", "β" dropped
    words = re.findall(r"[^\W_]+", re.sub(r"['\u2019](?=\w)", "", ascii_title.lower()))  # Costco's -> costcos
    stop = {"what", "was", "were", "is", "are", "the", "a", "an", "of", "in", "did", "does", "do", "how", "which"}
    kept = [w for w in words if w not in stop][:8] or words[:8] or ["answer"]
    return f"{(when or date.today()).isoformat()}_{'-'.join(kept)[:80].strip('-')}{'_' + what if what else ''}" \
           f".{extension}"


def to_markdown(a: Answer, figure_image: Images | None = None, images: bool = True, level: int = 1) -> str:
    """Figures go after the paragraph they support, as embedded PNGs when figure_image is given (the store's
    `figure_image`: the caller reads the store, not this module). level: the question's heading level (2 inside a
    conversation)."""
    # Everything that comes from a PDF or a user (titles, captions, quotes, answer text built from quotes) is
    # untrusted: no HTML, images or links of its own reach the Markdown.
    u = untrusted
    h = "#" * level
    out = [f"{h} {u(a.question)}", ""]
    paras = a.paragraphs or [a.answer]
    for i, p in enumerate(paras):
        out += [u(p), ""]
        for f in [f for f in a.figures if f.after_paragraph == i]:
            caption = u(f.caption or f"Figure on page {f.page}")
            png = figure_image(f.figure_id) if figure_image is not None and images else None
            if png:
                alt = caption.replace("[", "(").replace("]", ")")
                out.append(f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode('ascii')})")
            out += [f"*{caption} — {u(str(f.document))}, p. {f.page}*", ""]
    # reasons and flags may quote an error (an LLM server's): redacted, like every message
    out += [f"**Confidence:** {a.confidence.replace('_', ' ')}" +
            (f" — {u(redact('; '.join(a.reasons)))}" if a.reasons else ""),
            ""]
    if a.evidence:
        out += [f"{h}# Sources", ""]
        for e in a.evidence:
            mark = "quote verified" if e.verified else "quote not found in the passage"
            out.append(f"[{e.marker}] {u(e.source)} ({mark})")
            if e.quote:
                out.append(f"> {u(' '.join(e.quote.split()))}")
            out.append("")
    if a.unsupported:
        out += [f"{h}# Not supported by the evidence", ""]
        out += [f"- {x.get('action', 'flagged')}: {u(x.get('sentence') or '(reply)')} — {u(redact(x['reason']))}"
                for x in a.unsupported]
        out.append("")
    if a.rows is not None:
        out += [f"{h}# Rows", "", "```json", json.dumps(a.rows[:50], indent=1, default=str), "```", ""]
    return "\n".join(out).rstrip() + "\n"


def untrusted(text: str) -> str:
    """Document text for a Markdown renderer: no images, links or HTML from the PDF (it is untrusted)."""
    import re

    t = (text or "").replace("<", "&lt;")  # HTML and autolinks; a `>` opens only a blockquote, at a line's start
    t = re.sub(r"(?m)^([ \t]*)>", r"\1\\>", t)
    t = re.sub(r"!\[", r"!\\[", t)
    t = re.sub(r"\]\(", r"]\\(", t)
    return t


def to_json(a: Answer, with_trace: bool = False) -> str:
    return json.dumps(a.to_json(with_trace), indent=2, default=str)


def conversation_markdown(title: str, answers: list[Answer], figure_image: Images | None = None,
                          images: bool = True) -> str:
    """A whole conversation: its title, then each question and answer in order (figures inline, sources)."""
    parts = [f"# {untrusted(title)}", ""]
    parts += [to_markdown(a, figure_image, images, level=2) for a in answers]
    return "\n".join(parts).rstrip() + "\n"


def conversation_json(conversation_id: int | None, title: str, answers: list[Answer]) -> str:
    """A whole conversation as JSON: {"conversation_id", "title", "turns": [the `ask --json` object, …]}."""
    return json.dumps({"conversation_id": conversation_id, "title": title,
                       "turns": [a.to_json() for a in answers]}, indent=2, default=str)
