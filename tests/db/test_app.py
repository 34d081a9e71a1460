"""Each page's logic headless (AppTest) on a small real store: the real app, database and model."""

import json
import os
import re

import pytest
from streamlit.testing.v1 import AppTest

from rag.answer import confidence

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
    # the documents table is static (walkthrough 5: cells of an editable grid were cut at 1400 px)
    table = next(t.value for t in app.table if "title" in t.value.columns)
    assert list(table.columns[:5]) == ["document", "title", "company", "type", "period"] and len(table) == 2
    pick = next(s for s in app.selectbox if s.label == "Document to correct")
    app.button[[b.label for b in app.button].index("Save")].click().run()
    assert any("Nothing to save" in s.value for s in app.success)
    doc = pick.value
    next(t for t in app.text_input if t.label == "Company").set_value("Acme Widgets Corp (restated)")
    app.button[[b.label for b in app.button].index("Save")].click().run()
    assert not app.exception and any("Saved the corrections" in s.value for s in app.success)
    assert {d.document_id: d.company for d in clean_store.list_documents()}[doc] == "Acme Widgets Corp (restated)"
    assert "Acme Widgets Corp (restated)" in set(next(t.value for t in app.table if "title" in t.value.columns)["company"])


def test_a_deleted_document_leaves_every_library_picker_in_the_same_redraw(app, clean_store):
    """Walkthroughs of issue 36: the Delete box, then the Related documents box, kept naming a deleted document."""
    app.switch_page("pages/views/library.py").run()
    related = next(s for s in app.selectbox if s.label == "Document")
    gone = related.value  # the document the related box shows
    app.multiselect(key="delete_pick").select(gone).run()
    app.button(key="delete_confirm").click().run()
    assert not app.exception and gone not in {d.document_id for d in clean_store.list_documents()}
    related = next(s for s in app.selectbox if s.label == "Document")
    assert related.value != gone and gone not in related.options
    assert app.multiselect(key="delete_pick").value == [] and app.subheader[-1].value != "2 document(s)"


def test_ask_answers_with_citations_feedback_and_follow_ups(app, clean_store):
    app.chat_input[0].set_value("What were Acme Widgets' purchases of property, plant and equipment in 2022?").run()
    assert not app.exception
    text = " ".join(m.value for m in app.markdown)
    assert "(1,577)" in text and "](#src-0-1)" in text  # the marker links to its citation
    assert any(m.value.startswith("**[1]** Acme Widgets 10-K FY2022") for m in app.markdown)
    assert '<div id="src-0-1" style="scroll-margin-top: 5rem"></div>' in text  # the link's target, right before the citation
    assert app.session_state["chat"][-1]["follow_ups"]
    a = app.session_state["last_answer"]
    # every check holds; the label is the fitted policy's (rag/answer/confidence.py), never a refusal's
    assert a.evidence[0].verified and a.confidence == confidence.label(a.signals) != "insufficient_data"
    assert a.signals["entity"] == a.signals["measure"] == a.signals["period"] == "match"
    # the cited row's table, as read at ingestion, opens from its citation as a grid of plain text
    next(b for b in app.button if b.key == "table-0-1").click().run()
    assert not app.exception
    grid = app.dataframe[0].value
    row = grid[grid.iloc[:, 0].str.contains("Purchases of property")].iloc[0].tolist()
    assert row[1] == "(1,577)" and list(grid.columns)[:2] == ["(Millions)", "2022"]
    clean_store.add_feedback(a.question, a.answer, [e.chunk_id for e in a.evidence], 1)
    assert clean_store.feedback_stats()["up"] == 1
    assert clean_store.result_share(10)[0]["results"] > 0  # the question was logged for the bias monitor


def test_ask_says_insufficient_data_plainly(app):
    app.chat_input[0].set_value("What were Acme Widgets' Scope 3 emissions in 2022?").run()
    assert any(w.value.startswith("Insufficient data:") for w in app.warning)


def test_debug_page_appears_in_developer_mode(app, clean_store, embedder, tmp_path):
    app.chat_input[0].set_value("How did Acme Widgets' net sales develop in 2022?").run()
    app.session_state["keep_developer_mode"] = True
    app.run()  # the sidebar switch adds the Debug page to the navigation
    app.switch_page("pages/views/debug.py").run()
    assert not app.exception
    assert app.title[0].value == "Debug"
    heads = [h.value for h in app.subheader]
    assert "Corpus" in heads and any(h.startswith("Last question:") for h in heads)
    assert len(app.get("plotly_chart")) >= 2
    # readable: what the question was read as is a table of rows, never a collapsed {...}
    assert not app.get("json")
    frames = [f.value for f in app.dataframe]
    read_as = next(f for f in frames if "detected" in f.columns)
    assert {"Companies", "Years"} <= set(read_as["detected"]) and "2022" in set(read_as["value"])
    # per stage: chunks, documents and pages before and after, and what each stage did
    stages = next(t.value for t in app.table if "what it did" in t.value.columns)
    div = stages[stages["stage"] == "diversity"].iloc[0]
    assert "document" in div["before"] and "page" in div["after"] and "set aside" in div["what it did"]
    assert {"Distinct documents", "Distinct pages", "Near-duplicates set aside"} <= {m.label for m in app.metric}
    # documents by their readable names, the file only as a detail
    corpus = next(t.value for t in app.table if "OCR pages" in t.value.columns)  # static: fits the page
    assert "Acme Widgets 10-K FY2022" in set(corpus["document"]) and "file" in corpus.columns
    # the project's own report is said to be the project's; the user's own questions have their table
    assert "The project's own evaluation (not your library)" in heads
    assert "Evaluate retrieval on your own questions" in heads
    # the user's own questions evaluated: the chart, then each question with what was found
    from rag.eval import questions_of_rows, run_eval

    doc = next(d for d in clean_store.list_documents() if d.fiscal_year == 2022)
    own = questions_of_rows([{"question": "What were Acme Widgets' net sales in 2022?", "document": "x",
                              "page": 2}], {"x": doc.file_name.removesuffix(".pdf")})
    (tmp_path / "q.jsonl").write_text(json.dumps(own[0]))
    rep = run_eval(clean_store, embedder, tmp_path / "q.jsonl", k=5)
    app.session_state["own_eval"] = {**rep, "own_questions": {own[0]["id"]: own[0]["question"]}}
    app.run()
    per = next(t.value for t in app.table if "page found" in t.value.columns)
    assert list(per["question"]) == ["What were Acme Widgets' net sales in 2022?"]
    assert per["document found"][0] == "✓" and "Acme Widgets 10-K FY2022" in per["first passage"][0]
    # a reload (a new session, its state empty; the URL keeps ?dev=1): the Debug page is found, the switch is on,
    # and the conversation's last question is searched again, not lost
    assert app.query_params.get("dev") in ("1", ["1"])
    again = AppTest.from_file(APP, default_timeout=180)
    again.query_params["dev"] = "1"
    again.run()
    assert again.toggle(key="developer_mode").value is True
    again.switch_page("pages/views/debug.py").run()
    assert not again.exception
    assert "Last question: How did Acme Widgets' net sales develop in 2022?" in [h.value for h in again.subheader]
    assert any("searched again after a reload" in c.value for c in again.caption)


def test_demo_walks_through_the_pipeline(app):
    app.switch_page("pages/views/demo.py").run()
    examples = app.selectbox[0].options  # example questions built from the library
    assert examples and app.selectbox[0].value is None
    app.selectbox[0].select(examples[0]).run()
    assert app.text_input[0].value == examples[0]  # a picked example is the question that runs
    typed = "What were Acme Widgets' purchases of property, plant and equipment in 2022?"
    app.text_input[0].set_value(typed).run()
    assert app.selectbox[0].value is None  # typed: the dropdown names no example that would not run
    next(b for b in app.button if b.label == "Run").click().run()
    assert any(m.value == f"**Question:** {typed}" for m in app.markdown)
    for _ in range(7):
        next_button = [b for b in app.button if b.label == "Next step →"]
        next_button[0].click().run()
    assert not app.exception
    assert app.session_state["demo_step"] == 7
    assert any("Numbers verified" == m.label for m in app.metric)
    assert not app.get("json")  # every step readable without JSON
    shown = " ".join(str(v) for f in [*app.dataframe, *app.table] for v in f.value.to_numpy().ravel())
    assert "Acme Widgets 10-K FY2022" in shown and ".pdf" not in shown  # passages by name, not by file
    app.text_input[0].set_value("   ").run()  # a blank question: refused, and no earlier question's steps under it
    next(b for b in app.button if b.label == "Run").click().run()
    assert any(w.value.startswith("Not run:") for w in app.warning)
    assert not any(m.value.startswith("**Question:**") for m in app.markdown)


def test_compare_runs_two_settings_side_by_side(app):
    app.switch_page("pages/views/compare.py").run()
    app.text_input[0].set_value("What were Acme Widgets' net sales in 2022?")
    app.button[0].click().run()
    assert not app.exception
    out = app.session_state["cmp"]
    assert out["A"]["found"] >= out["A"]["used"] > 0
    assert out["B"]["used"] <= 3  # B: top-3, higher threshold, no rerank, no diversity
    assert {m.label for m in app.metric} >= {"Found", "After filtering", "Used", "Time"}
    # each side: its answer with its sources by title; the time in full; the disabled option says why
    assert out["A"]["sources"] and out["A"]["sources"][0]["source"].startswith("Acme Widgets 10-K")
    assert any(m.value.startswith("**[1]** Acme Widgets 10-K") for m in app.markdown)
    assert all(m.value.endswith((" ms", " s")) for m in app.metric if m.label == "Time")
    off = [t for t in app.toggle if t.label.startswith("Without retrieval")]
    assert off and all(t.disabled for t in off) and "Needs a language model" in (off[0].help or "")
    assert any("unavailable" in c.value and "OPENAI_BASE_URL" in c.value for c in app.caption)


def test_two_or_three_follow_ups_are_offered(app):
    app.chat_input[0].set_value("What were Acme Widgets' net sales in 2022?").run()
    assert 2 <= len(app.session_state["chat"][-1]["follow_ups"]) <= 3


def test_a_conversation_is_kept_in_the_database_and_reopens_from_its_url(app, clean_store, settings):
    app.chat_input[0].set_value("What were Acme Widgets' net sales in 2022?").run()
    app.chat_input[0].set_value("And in 2021?").run()
    assert not app.exception
    cid = app.session_state["conversation_id"]
    assert app.query_params["c"] == [str(cid)] or app.query_params["c"] == str(cid)
    title, turns = clean_store.conversation(cid)
    assert [t.question for t in turns] == ["What were Acme Widgets' net sales in 2022?", "And in 2021?"]
    assert title == "What were Acme Widgets' net sales in 2022?" and turns[0].answer["evidence"]
    # a reload is a new session: the URL's conversation is read back from the database, answers and citations
    again = AppTest.from_file(APP, default_timeout=180)
    again.query_params["c"] = str(cid)
    again.run()
    assert not again.exception
    assert [t["question"] for t in again.session_state["chat"]] == [t.question for t in turns]
    assert any(m.value.startswith("**[1]**") for m in again.markdown)
    # the past conversations are listed; "New chat" starts an empty one
    # by its first question and when it was last used, never by a bare count (walkthrough 5: "· 1", "· 6")
    past = next(b for b in again.button if b.label.startswith("What were Acme Widgets' net sales in 2022?"))
    assert re.fullmatch(r".* · 2 questions · (?:\w{3} \d\d )?\d\d:\u2060?\d\d", past.label), past.label
    next(b for b in again.button if b.label == "New chat").click().run()
    assert again.session_state["chat"] == [] and "c" not in again.query_params
    # another id, or one of no conversation, starts empty instead of failing
    other = AppTest.from_file(APP, default_timeout=180)
    other.query_params["c"] = "999999"
    other.run()
    assert not other.exception and other.session_state["chat"] == []


def test_a_refusal_is_said_once(app):
    app.chat_input[0].set_value("What were Acme Widgets' Scope 3 emissions in 2022?").run()
    said = [e.value for e in list(app.warning) + list(app.markdown) + list(app.caption)
            if "Scope 3" in str(e.value) and "Insufficient" in str(e.value) or "do not" in str(e.value)]
    assert len([w for w in app.warning if w.value.startswith("Insufficient data:")]) == 1
    assert len(said) == 1, said


def test_an_empty_library_offers_the_sample_documents_then_a_summary_and_examples(clean_store, settings, monkeypatch):
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.db.data_dir))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    load = [b for b in at.button if b.label.startswith("Load sample documents")]
    assert load, [b.label for b in at.button]
    load[0].click().run()
    assert not at.exception, at.exception
    docs = clean_store.list_documents()
    assert {d.doc_type for d in docs} == {"research paper", "10-K", "sustainability report"}
    text = " ".join(m.value for m in at.markdown)
    assert text.count("document") and "3 documents:" in text
    examples = [b.label for b in at.button if b.key and b.key.startswith("ex-")]
    assert any("3M" in q for q in examples) and any("Northwind" in q for q in examples), examples
    # a paper by its title's short name, which its text repeats, so the example finds it (the walkthrough's
    # "What are the main findings of Lo et al.?" was answered from another document)
    paper = [b for b in at.button if b.key and b.key.startswith("ex-") and "longeval" in b.label.lower()]
    assert paper, examples
    paper[0].click().run()
    a = at.session_state["last_answer"]
    assert not a.insufficient and a.evidence and "longeval" in a.evidence[0].document.lower(), \
        (a.answer, a.evidence)


def test_a_citation_opens_the_whole_document_at_its_quote_highlighted(app, clean_store):
    """Issue 36: "Open page N" and each marker's chip open the cited document in the pdf.js viewer, at the quote,
    highlighted in the PDF itself; the rendered page stays as a fallback tab."""
    import base64
    import json

    import pymupdf

    app.chat_input[0].set_value("What were Acme Widgets' purchases of property, plant and equipment in 2022?").run()
    a = app.session_state["last_answer"]
    e = a.evidence[0]
    next(b for b in app.button if b.key == f"page-0-{e.marker}").click().run()
    assert not app.exception
    assert [t.label for t in app.tabs] == ["Document", "Page image"]
    viewer = [c for c in app.get("component_instance") if "streamlit_pdf_viewer" in str(c.proto.component_name)]
    assert len(viewer) == 1
    args = json.loads(viewer[0].proto.json_args)
    assert args["scroll_to_annotation"] == 1 and args["annotations"][0]["page"] == e.pages[0]
    doc = pymupdf.open(stream=base64.b64decode(args["binary"]), filetype="pdf")  # the whole document
    page = doc[e.pages[0] - 1]
    assert [an.type[1] for an in page.annots()] == ["Highlight"] and doc.page_count > 1
    chips = [p for p in app.get("button_group") if p.key and p.key.startswith("open-0-")]
    assert chips, "each paragraph with markers has its chips"


def test_a_blank_question_is_refused_as_the_api_refuses_it_and_nothing_is_saved(app, clean_store):
    """Issue 36: white space only is not a question: no conversation "· 1", no search."""
    before = len(clean_store.list_conversations(30))
    app.chat_input[0].set_value("   \n\t ").run()
    assert not app.exception
    assert any(w.value.startswith("Not asked: the question is empty") for w in app.warning)
    assert not app.session_state["chat"] and len(clean_store.list_conversations(30)) == before

