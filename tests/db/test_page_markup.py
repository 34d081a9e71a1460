"""Document text on every page: a PDF whose title, headings, figure caption and body carry Markdown images and
links, HTML, bare URLs and Streamlit directives is ingested; every page is driven headless (AppTest, the real app,
database and model) and nothing the pages send to the browser as Markdown holds one of them live."""

from __future__ import annotations

import json
import os
import re

import make_pdfs
import pytest
import streamlit as st
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

APP = os.path.join(os.path.dirname(__file__), "..", "..", "streamlit_app.py")
QUESTION = "What accuracy does the hybrid retriever reach by epoch? Show the chart."
# a file name is document text too (it is shown beside the title on the Library page)
FILE_NAME = "accuracy [click](http:evil.example) <img src=x>.pdf"

# Elements whose strings the browser shows as plain text: their document text needs no escaping.
PLAIN = {"text", "code", "json", "arrow_data_frame", "arrow_table", "plotly_chart", "text_input", "text_area",
         "chat_input", "selectbox", "multiselect", "data_frame"}
# The fields Streamlit renders as Markdown: bodies of markdown, captions, alerts, headings and toasts; the labels of
# buttons, expanders, status boxes, metrics (their values too) and widgets; image captions; progress texts; tooltips.
MARKDOWN_FIELDS = {"body", "label", "caption", "text", "help"}
LIVE = {
    "Markdown image": re.compile(r"!\["),
    "Markdown link": re.compile(r"(?<!\\)\]\(\s*http"),
    "HTML image": re.compile(r"<img", re.I),
    "HTML link": re.compile(r"<a\s", re.I),
    "bare URL (autolinked)": re.compile(r"https?://evil"),
    "Streamlit directive": re.compile(r":(?:red\[|material/|smile:)"),
    "LaTeX": re.compile(r"(?<!\\)\$x\^2(?<!\\)\$"),
}


def _strings(message, fields: set[str]) -> list[str]:
    out: list[str] = []

    def walk(x, key: str | None) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, str) and key in fields:
            out.append(x)

    walk(MessageToDict(message, preserving_proto_field_name=True), None)
    return out


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def rendered_markdown(at: AppTest) -> list[str]:
    """Every string the page sends to be rendered as Markdown (main area, sidebar, dialogs)."""
    out: list[str] = []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or node.type in PLAIN:
            continue
        which = proto.WhichOneof("type") if "type" in {f.name for f in proto.DESCRIPTOR.oneofs} else None
        out += _strings(getattr(proto, which) if which else proto, MARKDOWN_FIELDS)
    return out


def live_markup(at: AppTest) -> list[tuple[str, str]]:
    return [(what, s) for s in rendered_markdown(at) for what, pat in LIVE.items() if pat.search(s)]


def chart_labels(at: AppTest) -> list[str]:
    """The strings of every Plotly chart's figure (Plotly reads <a href> and <b> in its labels)."""
    out: list[str] = []

    def walk(x) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            out.append(x)

    for c in at.get("plotly_chart"):
        walk(json.loads(c.proto.spec))
    return out


def _clean(at: AppTest, page: str) -> str:
    """The page's rendered Markdown, joined, after checking that none of it is live."""
    assert not at.exception, at.exception
    assert not live_markup(at), f"{page}: document markup rendered live: {live_markup(at)}"
    return " ".join(rendered_markdown(at))


@pytest.fixture
def bomb(clean_store, ingest, settings, monkeypatch, tmp_path):
    res = ingest(make_pdfs.make_markdown_bomb(tmp_path / FILE_NAME))
    assert res.ok and res.figures == 1
    d = clean_store.list_documents()[0]
    assert "![x](http://evil.example" in d.title and "<img" in d.title  # the markup survives ingestion as text
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.db.data_dir))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    yield at
    # the pages' st.cache_data (PDFs, tables, crops by document and chunk id) outlives the app in this process, and
    # ids restart with the next test's store
    st.cache_data.clear()


def test_no_page_renders_document_markup(bomb):
    at = bomb
    _clean(at, "Ask (welcome)")
    # Ask: the answer, its figure (caption and why shown), reasons, citations and follow-ups
    at.chat_input[0].set_value(QUESTION).run()
    shown = _clean(at, "Ask")
    a = at.session_state["last_answer"]
    assert a.figures and a.evidence and "evil.example" in a.answer  # the document's markup reached the answer
    assert "evil.example" in shown and any(c.value.startswith("Why shown: ") for c in at.caption)
    assert "](#src-0-1)" in shown  # our own [n] markers still link to their citation
    captions = [s for n in _nodes(at._tree) if n.type in ("image", "imgs") for s in _strings(n.proto, {"caption"})]
    assert any("evil.example" in c for c in captions)  # the figure, under its caption
    next(b for b in at.button if b.key == "page-0-1").click().run()  # the cited page, in a dialog
    _clean(at, "Ask (cited page)")
    enlarge = [b for b in at.button if (b.key or "").startswith("enlarge-")]
    if enlarge:
        enlarge[0].click().run()
        _clean(at, "Ask (enlarged figure)")

    at.switch_page("pages/views/library.py").run()
    _clean(at, "Library")
    at.multiselect(key="delete_pick").set_value([1]).run()  # the confirmation names the document
    assert "evil.example" in _clean(at, "Library (delete)")

    at.switch_page("pages/views/compare.py").run()
    at.text_input(key="cmp_q").set_value(QUESTION)
    next(b for b in at.button if b.label == "Compare").click().run()
    assert "evil.example" in _clean(at, "Compare")

    at.switch_page("pages/views/demo.py").run()
    at.text_input(key="demo_q").set_value(QUESTION)
    next(b for b in at.button if b.label == "Run").click().run()
    for _ in range(7):
        next(b for b in at.button if b.label == "Next step →").click().run()
    assert at.session_state["demo_step"] == 7
    assert "evil.example" in _clean(at, "RAG demo")

    at.session_state["keep_developer_mode"] = True
    at.run()
    at.switch_page("pages/views/debug.py").run()
    _clean(at, "Debug")
    labels = chart_labels(at)
    assert any("evil.example" in s for s in labels)  # the corpus chart names the document
    assert not [s for s in labels if re.search(r"<a\s|<img|<b>", s, re.I)]
