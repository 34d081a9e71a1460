"""Each page's logic headless (AppTest) on a small real store: the real app, database and model."""

import os

import pytest
from streamlit.testing.v1 import AppTest

APP = os.path.join(os.path.dirname(__file__), "..", "..", "streamlit_app.py")


@pytest.fixture
def app(clean_store, ingest, pdfs, settings, monkeypatch):
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["10k_2021"]).ok
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.db.data_dir))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception
    return at


def test_library_lists_documents_and_saves_a_correction(app, clean_store):
    app.switch_page("pages/views/library.py").run()
    assert app.title[0].value == "Library"
    assert app.subheader[0].value == "2 document(s)"
    assert app.get("file_uploader") and [s for s in app.selectbox if s.label == "Document"]
    clean_store.update_document_metadata(1, company="Acme Widgets Corp (restated)")
    app.run()
    assert "Acme Widgets Corp (restated)" in {d.company for d in clean_store.list_documents()}


def test_ask_answers_with_citations_feedback_and_follow_ups(app, clean_store):
    app.chat_input[0].set_value("What were Acme Widgets' purchases of property, plant and equipment in 2022?").run()
    assert not app.exception
    text = " ".join(m.value for m in app.markdown)
    assert "(1,577)" in text and "[1]" in text
    assert any(e.label.startswith("[1] Acme Widgets 10-K FY2022") for e in app.expander)
    assert app.session_state["chat"][-1]["follow_ups"]
    a = app.session_state["last_answer"]
    assert a.confidence in ("high", "medium") and a.evidence[0].verified
    clean_store.add_feedback(a.question, a.answer, [e.chunk_id for e in a.evidence], 1)
    assert clean_store.feedback_stats()["up"] == 1
    assert clean_store.result_share(10)[0]["results"] > 0  # the question was logged for the bias monitor


def test_ask_says_insufficient_data_plainly(app):
    app.chat_input[0].set_value("What were Acme Widgets' Scope 3 emissions in 2022?").run()
    assert any(w.value.startswith("Insufficient data:") for w in app.warning)


def test_debug_page_appears_in_developer_mode(app):
    app.chat_input[0].set_value("How did Acme Widgets' net sales develop in 2022?").run()
    app.session_state["keep_developer_mode"] = True
    app.run()  # the sidebar switch adds the Debug page to the navigation
    app.switch_page("pages/views/debug.py").run()
    assert not app.exception
    assert app.title[0].value == "Debug"
    heads = [h.value for h in app.subheader]
    assert "Corpus" in heads and any(h.startswith("Last question:") for h in heads)
    assert len(app.get("plotly_chart")) >= 2


def test_demo_walks_through_the_pipeline(app):
    app.switch_page("pages/views/demo.py").run()
    assert app.selectbox[0].options  # example questions built from the library
    app.text_input[0].set_value("What were Acme Widgets' purchases of property, plant and equipment in 2022?")
    app.button[0].click().run()
    for _ in range(7):
        next_button = [b for b in app.button if b.label == "Next step →"]
        next_button[0].click().run()
    assert not app.exception
    assert app.session_state["demo_step"] == 7
    assert any("Numbers verified" == m.label for m in app.metric)


def test_compare_runs_two_settings_side_by_side(app):
    app.switch_page("pages/views/compare.py").run()
    app.text_input[0].set_value("What were Acme Widgets' net sales in 2022?")
    app.button[0].click().run()
    assert not app.exception
    out = app.session_state["cmp"]
    assert out["A"]["found"] >= out["A"]["used"] > 0
    assert out["B"]["used"] <= 3  # B: top-3, higher threshold, no rerank, no diversity
    assert {m.label for m in app.metric} >= {"Found", "After filtering", "Used", "Time"}


def test_two_or_three_follow_ups_are_offered(app):
    app.chat_input[0].set_value("What were Acme Widgets' net sales in 2022?").run()
    assert 2 <= len(app.session_state["chat"][-1]["follow_ups"]) <= 3
