"""The words of a question, a sentence or a table label, as the answer compares them: lower-cased, without stop
words, stemmed (plural and singular alike). Retrieval reads the question with them and the answer matches with them."""

from __future__ import annotations

import re

STOP = set("""a an the of in on for to and or by with from at as is are was were be been being what which who whom
how much many does did do has have had this that these those it its their there than then into over under per
about between during any all each was were will would can could should may might give answer question using use
based primarily information shown provided details relying response please state explain why if not company like
fy fiscal year years usd millions billions million billion total amount""".split())


# the question asks to see something: a chart, a plot, a figure, a map — or "show me"
ASKS_CHART = re.compile(r"\b(charts?|graphs?|plots?|figures?|diagrams?|visuali[sz]\w*|illustrat\w*|matrix|maps?|"
                        r"show(?:s|n)?(?: me)?|see|picture|image)\b", re.I)
# the words of a request to see, which name no measure: "is there a chart", "show me the graph"
_REQUEST = re.compile(r"\b(?:is there an?|show(?:s|n)?(?: me)?|charts?|graphs?|graphics?|plots?|figures?|diagrams?|"
                      r"visuali[sz]\w*|please)\b", re.I)


def terms(text: str, stop: set[str] = STOP) -> list[str]:
    out = []
    for w in re.findall(r"[a-z][a-z0-9&'\-]*", text.lower()):
        w = w.strip("'-")
        if len(w) < 3 or w in stop:
            continue
        out.append(stem(w))
    return out


def measure_text(question: str, names: list[str]) -> str:
    """The question without the names of the issuers it asks about and without its request to see ("chart", "show
    me"): what it asks about, to match against a figure's own words. Every figure of an issuer's report may bear the
    issuer's name; the name tells them apart only by which of them repeats it ("Vonovia in Figures")."""
    drop = {t for n in names for t in terms(n)}
    kept = [w for w in question.split() if not (t := terms(re.sub(r"['’]s\b", "", w))) or not set(t) <= drop]
    text = " ".join(_REQUEST.sub(" ", " ".join(kept)).split())
    return text if terms(text) else question


def stem(w: str) -> str:
    for suf in ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "es", "ed", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            if suf == "es" and not re.search(r"(?:s|x|z|ch|sh)es$", w):
                return w[:-1]  # "employees" is "employee" (as its singular stems), "processes" is "process"
            if suf == "s" and w.endswith(("ss", "us", "is")):
                return w  # "process", "status", "analysis" are not plurals
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def shorten(text: str, width: int) -> str:
    """Text cut to at most `width` characters at a word's end, with "…" when cut (a single word longer than that
    is cut inside it)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    if " " in cut and not text[width - 1].isspace():
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip(" ,;:–—-") + "…"
