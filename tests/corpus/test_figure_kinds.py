"""The figure classifier on the 200 labelled figures of the corpus (tests/fixtures/figure_labels.tsv), read from
the real PDFs as ingestion reads them (text rows, drawings, the rendered crop, OCR of images). The floors are below
what bench/bench_figure_kinds.py measures, so a change that breaks a kind fails here; the bench reports the
figures themselves."""

import pytest

from tests.conftest import CORPUS, corpus_or_skip


@pytest.fixture(scope="module")
def classified():
    from rag.eval_figures import classify_labelled, read_labels, summary

    corpus_or_skip("financebench-dev", "3M_2016_10K.pdf")
    rows = classify_labelled(read_labels(), CORPUS)
    return rows, summary(rows)


def test_kinds_of_the_labelled_figures(classified):
    _, s = classified
    assert s["figures"] >= 60
    assert s["accuracy"] >= 0.8, s["confusion"]
    assert s["per_kind"]["photo"]["recall"] >= 0.9 and s["per_kind"]["logo"]["recall"] >= 0.9
    assert s["per_kind"]["chart"]["recall"] >= 0.75 and s["per_kind"]["chart"]["precision"] >= 0.75


def test_what_must_never_be_shown_is_rarely_classified_showable(classified):
    rows, s = classified
    assert s["never_shown_kinds_classified_showable"] <= 0.08 * s["never_shown_kinds_labelled"], s["wrongly_showable"]
    # no photo of a person and no logo is ever classified a chart
    assert not [r for r in rows if r["kind"] in ("photo", "logo") and r["pred"] == "chart"]
