"""Issuers by every name their filings give them, on the real embedded store (issue 12): names collected at
ingestion (sql/functions/issuer_names.sql), a question naming the issuer by its ticker or short name, a 52/53-week year,
and a coverage check that never refuses a period, a form or an abbreviation."""

import pytest
from roles import as_role

from rag.config import RetrievalSettings
from rag.retrieve.pipeline import retrieve
from rag.retrieve.stages import Candidates, Coverage, ScopeAndFilters


@pytest.fixture
def two_issuers(clean_store, ingest, tmp_path):
    import make_pdfs as m

    nf = m.make_10k(tmp_path / "a1b2c3.pdf", company="Northfield Devices Corporation", year=2022, revenue=23456,
                    symbol="NFD", short="Northfield")
    old = m.make_10k(tmp_path / "d4e5f6.pdf", company="Northfield Devices Corporation", year=2021, revenue=21000,
                     symbol="NFD", short="Northfield", year_ended="January 3, 2022")
    acme = m.make_10k(tmp_path / "g7h8i9.pdf", company="Acme Widgets Corporation", year=2022, revenue=12345)
    for p in (nf, old, acme):
        assert ingest(p).ok
    return clean_store


def test_names_are_collected_at_ingestion_and_read_per_issuer(two_issuers):
    names = {i.key: i for i in two_issuers.issuer_names()}
    assert set(names) == {"northfield devices", "acme widgets"}
    assert {"NFD", "Northfield"} <= set(names["northfield devices"].names)
    assert not {"Company", "we"} & set(names["northfield devices"].names)


def test_a_52_53_week_year_ending_in_early_january_is_filed_as_the_year_it_covers(two_issuers):
    years = sorted(d.fiscal_year for d in two_issuers.list_documents() if d.company_key == "northfield devices")
    assert years == [2021, 2022]


@pytest.mark.parametrize("question", ["What were NFD's net sales in FY2022?", "Northfield's net sales in 2022?",
                                      "What were northfield devices corp.'s net sales in fiscal 2022?"])
def test_a_question_naming_the_issuer_any_way_searches_its_filing(two_issuers, embedder, question):
    r = retrieve(two_issuers, embedder, question, RetrievalSettings())
    assert not r.refused
    assert r.intent.companies == ["northfield devices"] and r.intent.years == [2022]
    assert r.trace.of(ScopeAndFilters).notes["detected"]["companies"] == ["northfield devices"]
    assert {c.company_key for c in r.chunks} == {"northfield devices"}
    assert {c.fiscal_year for c in r.chunks} == {2022}


@pytest.mark.parametrize("question", ["What were NFD's net sales in FY2022Q4?", "What were Northfield's 4Q22 net sales?",
                                      "What does NFD's 10-K say about net sales YoY before the AGM?",
                                      "What was NFD's net sales CAGR in the DEF 14A period?"])
def test_the_coverage_check_never_refuses_a_period_form_abbreviation_or_alias(two_issuers, embedder, question):
    r = retrieve(two_issuers, embedder, question, RetrievalSettings())
    assert r.trace.of(Coverage).notes["key_terms"] == []
    assert not r.refused or "do not mention" not in (r.message or "")


def test_a_thing_no_document_contains_is_still_refused(two_issuers, embedder):
    r = retrieve(two_issuers, embedder, "What was NFD's score on DocVQA?", RetrievalSettings())
    assert r.refused and "do not mention 'DocVQA'" in r.message
    assert r.trace.of(Candidates).n_out > 0


def test_issuer_names_are_private_to_a_workspace(two_issuers):
    with two_issuers.transport.connection() as conn:
        conn.execute("update documents set workspace = 'team-a' where company_key = 'northfield devices'")
    assert [r[0] for r in as_role(two_issuers, "anon", "select company_key from issuer_names()")] == ["acme widgets"]
    claims = '{"workspace": "team-a"}'
    seen = {r[0] for r in as_role(two_issuers, "authenticated", "select company_key from issuer_names()", claims=claims)}
    assert seen == {"acme widgets", "northfield devices"}


def test_a_renamed_issuer_stays_one_issuer_and_each_filing_keeps_its_own_name(clean_store, ingest, tmp_path):
    import make_pdfs as m

    old = m.make_10k(tmp_path / "x1.pdf", company="Northfield Devices Corporation", year=2021, symbol="NFD",
                     short="Northfield")
    new = m.make_10k(tmp_path / "x2.pdf", company="Northfield Technologies Inc.", year=2022, symbol="NFD",
                     short="Northfield")
    assert ingest(old).ok and ingest(new).ok
    docs = {d.fiscal_year: d for d in clean_store.list_documents()}
    assert docs[2021].company_key == docs[2022].company_key == "northfield devices"
    assert docs[2022].company.startswith("Northfield Technologies")


def test_the_issuers_are_built_once_for_the_same_documents_and_anew_when_they_change(two_issuers):
    # built for every question, kept by exactly what they were built from (each document's issuer key and display
    # name, and the names the store gives each issuer): a renamed company is found under its new name at once
    from rag.issuers import issuers_of

    s = two_issuers
    first = issuers_of(s, s.list_documents())
    assert issuers_of(s, s.list_documents()) is first
    acme = next(d for d in s.list_documents() if d.company_key == "acme widgets")
    assert s.update_document_metadata(acme.document_id, company="Zenith Gadgets Inc.")
    renamed = issuers_of(s, s.list_documents())
    assert renamed is not first
    assert [i.key for i in renamed.find("What were Zenith Gadgets' net sales in 2022?")] == ["zenith gadgets"]
    assert not first.find("What were Zenith Gadgets' net sales in 2022?")


def test_redetect_reads_a_reports_issuer_again_and_keeps_a_filings(clean_store, ingest, pdfs):
    """rag/ingest/redetect.py (`rag redetect`): a report's issuer read again from its whole stored text; a filing
    keeps its registrant; a dry run changes nothing."""
    from rag.ingest.redetect import redetect_issuers

    assert ingest(pdfs["esg"]).ok and ingest(pdfs["10k_2022"]).ok
    by_type = {d.doc_type: d for d in clean_store.list_documents()}
    report, filing = by_type["sustainability report"], by_type["10-K"]
    assert report.company == "Greenfield AG"
    assert redetect_issuers(clean_store) == []  # nothing reads otherwise
    clean_store.update_document_metadata(report.document_id, company="Wrong Name AG")
    clean_store.update_document_metadata(filing.document_id, company="Another Registrant Inc.")
    assert redetect_issuers(clean_store, apply=False) == [(report.document_id, report.file_name, "Wrong Name AG",
                                                            "Greenfield AG")]
    assert {d.document_id: d.company for d in clean_store.list_documents()}[report.document_id] == "Wrong Name AG"
    redetect_issuers(clean_store)
    now = {d.document_id: d.company for d in clean_store.list_documents()}
    assert now[report.document_id] == "Greenfield AG" and now[filing.document_id] == "Another Registrant Inc."
