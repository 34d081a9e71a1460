"""File names from outside (a CLI path, an upload, a queued job) made safe to store and show, and any name or
message made safe to print on a terminal.

A file name is chosen by whoever made the file: ESC sequences would drive the terminal, a newline would forge a line
of `ingest` output, bidi overrides and zero-width characters would make one name read as another."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["FALLBACK_NAME", "MAX_NAME_CHARS", "clean_file_name", "printable"]

FALLBACK_NAME = "document.pdf"
MAX_NAME_CHARS = 120  # a name still reads whole in a table column or a status line
MAX_NAME_BYTES = 240  # under the 255-byte name limit of common file systems (the upload is written under its name)
# Cc control (C0, DEL, C1), Cf format (bidi embeddings, overrides and isolates, zero-width space/joiners, soft
# hyphen, BOM), Cs lone surrogates (an undecodable byte of a Linux name; Postgres refuses them), Co private use,
# Cn unassigned, Zl/Zp line and paragraph separators.
_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in _UNSAFE


def clean_file_name(name: str | None) -> str:
    """The name a file is stored and shown under: its last path component, NFC, without control or invisible
    characters, whitespace collapsed to single spaces, no leading dot, ending in .pdf, at most MAX_NAME_CHARS
    characters (the extension kept); never empty (FALLBACK_NAME). Cleaning a clean name changes nothing."""
    text = unicodedata.normalize("NFC", name or "")
    text = "".join(" " if ch.isspace() else "" if _unsafe(ch) else ch for ch in text)
    base = re.split(r"[\\/]", text)[-1]
    base = unicodedata.normalize("NFC", " ".join(base.split())).rstrip(" .")
    stem, dot, ext = base.rpartition(".")
    if not dot or ext.lower() != "pdf":
        stem, ext = base, "pdf"
    room = MAX_NAME_CHARS - len(ext) - 1
    while len(stem) > room or len(stem.encode("utf-8")) > MAX_NAME_BYTES - len(ext) - 1:
        stem = stem[:min(room, len(stem) - 1)]
    stem = unicodedata.normalize("NFC", stem).strip(" .")  # no hidden file, no "..", no dot before the extension
    return f"{stem}.{ext}" if stem else FALLBACK_NAME


def printable(text: object) -> str:
    """Text for a terminal: every control, format or separator character shown as a visible escape (`\\x1b`,
    `\\n`, `\\u202e`), so a name or message stays one line and cannot drive the terminal."""
    out = []
    for ch in "" if text is None else str(text):
        if not _unsafe(ch):
            out.append(ch)
        elif ch in _SHORT:
            out.append(_SHORT[ch])
        else:
            n = ord(ch)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
    return "".join(out)
