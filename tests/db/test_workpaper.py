"""The workpaper end to end on the real store and model: the history of an issuer's filings read from the store (a
value the later filing prints differently is restated), `python -m rag facts --company … --export` as a user runs
it, the HTTP API's JSON and workbook, and the Facts page (AppTest) with its value's cited page in the viewer."""

import io
import json
import os
import subprocess
import sys

import openpyxl
import pytest
from fastapi.testclient import TestClient
from streamlit.testing.v1 import AppTest

from rag.api import create_app
from rag.errors import RagError
from rag.workpaper import load_workpaper, subjects

APP = os.path.join(os.path.dirname(__file__), "..", "..", "streamlit_app.py")
KEY = "test-key-0123456789"


@pytest.fixture
def filings(clean_store, ingest, pdfs):
    # the synthetic filings print the same balance-sheet numbers each year: 2022's prior year (3,053 of cash) is
    # not what 2021 printed for itself (2,853), a restatement by construction
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["10k_2021"]).ok
    return clean_store


def test_the_history_of_an_issuers_filings_marks_what_a_later_filing_restates(filings, embedder):
    wp = load_workpaper(filings, embedder.encode, company="Acme Widgets")
    h = wp.history
    assert [d.fiscal_year for d in h.documents] == [2021, 2022] and {"FY2021", "FY2022"} <= set(h.periods)
    cash = next(m for m in h.measures if m.label_path.endswith("Cash and cash equivalents"))
    assert cash.topic == "balance sheet"
    fy21 = cash.cells["FY2021"]
    assert (fy21.value.raw, fy21.value.source.file_name) == ("3,053", "report_final_v2.pdf")
    assert [(v.raw, v.source.file_name) for v in fy21.restated] == [("2,853", "acme_old.pdf")]
    assert wp.summary()["restated"] >= 1 and wp.checks
    key = next(k for k in subjects(filings.list_documents()) if not k.startswith("doc:"))
    assert load_workpaper(filings, embedder.encode, company=key).history.title == h.title
    with pytest.raises(RagError, match="no issuer named"):
        load_workpaper(filings, embedder.encode, company="Globex")


def test_the_cli_writes_the_workbook_and_says_what_it_found(filings, settings, tmp_path):
    out = tmp_path / "acme.xlsx"
    env = dict(os.environ, RAG_DATA_DIR=str(settings.db.data_dir))
    run = subprocess.run([sys.executable, "-m", "rag", "facts", "--company", "Acme Widgets", "--export", str(out)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert "restated:" in run.stdout and f"wrote {out}" in run.stdout
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["History", "Metrics", "Sources", "Restatements", "Footing"]
    assert wb["Restatements"].max_row >= 2
    bad = subprocess.run([sys.executable, "-m", "rag", "facts", "--company", "Globex"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "no issuer named 'Globex'" in (bad.stdout + bad.stderr).strip().splitlines()[-1]


def test_the_api_gives_the_workpaper_as_json_and_as_a_workbook(filings, settings):
    with TestClient(create_app(settings, api_key=KEY)) as c:
        r = c.get("/api/facts", params={"company": "Acme Widgets"}, headers={"Authorization": f"Bearer {KEY}"})
        assert r.status_code == 200
        j = r.json()
        assert j["summary"]["restated"] >= 1 and j["measures"] and j["checks"] is not None
        cash = next(m for m in j["measures"] if m["label_path"].endswith("Cash and cash equivalents"))
        assert cash["cells"]["FY2021"]["restated_from"][0]["raw"] == "2,853"
        x = c.get("/api/facts/export", params={"company": "Acme Widgets"}, headers={"Authorization": f"Bearer {KEY}"})
        assert x.status_code == 200 and x.headers["content-type"].startswith("application/vnd.openxmlformats")
        assert "attachment" in x.headers["content-disposition"]
        assert openpyxl.load_workbook(io.BytesIO(x.content)).sheetnames[0] == "History"
        bad = c.get("/api/facts", params={"company": "Globex"}, headers={"Authorization": f"Bearer {KEY}"})
        assert 400 <= bad.status_code < 500 and "no issuer named" in json.dumps(bad.json())
        assert c.get("/api/facts", params={"company": "Acme Widgets"}).status_code == 401


def test_the_facts_page_shows_the_history_footing_and_a_values_cited_page(filings, settings, monkeypatch):
    import streamlit as st

    # the page caches a document's PDF by its id, and the test store restarts ids with every test: an earlier
    # test's cached file under this id would be another document's
    st.cache_data.clear()
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.db.data_dir))
    at = AppTest.from_file(APP, default_timeout=240)
    at.run()
    at.switch_page("pages/views/facts.py").run()
    assert not at.exception and at.title[0].value == "Facts"
    assert [t.label for t in at.tabs][:3] == ["History", "Footing checks", "Metrics"]
    assert at.get("download_button"), "the workbook is offered"
    grid = at.dataframe[0].value
    assert {"Measure", "FY2021", "FY2022"} <= set(grid.columns) and "✱" in set(grid["Restated"])
    measures = next(s for s in at.selectbox if s.label == "Measure")
    cash = next(i for i in measures.options if "Cash and cash equivalents" in str(i))
    measures.set_value(measures.options.index(cash) if isinstance(cash, str) else cash).run()
    next(s for s in at.selectbox if s.label == "Period").set_value("FY2021").run()
    assert any("Restated:" in t.value and "2,853" in t.value for t in at.text)
    opener = next(b for b in at.button if b.label.startswith("Open report_final_v2.pdf"))
    opener.click().run()
    assert not at.exception
    viewer = [c for c in at.get("component_instance") if "streamlit_pdf_viewer" in str(c.proto.component_name)]
    assert len(viewer) == 1, [e.value for e in at.error]
