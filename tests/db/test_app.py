"""The Streamlit app headless (AppTest) on a small real store."""

import os

from streamlit.testing.v1 import AppTest


def test_app_starts_and_lists_documents(clean_store, ingest, pdfs, settings, monkeypatch):
    assert ingest(pdfs["esg"]).ok
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.db.data_dir))
    at = AppTest.from_file(os.path.join(os.path.dirname(__file__), "..", "..", "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Library"
    df = at.dataframe[0].value
    assert list(df["file_name"]) == ["esg.pdf"]
    assert int(df["chunks"][0]) > 0
