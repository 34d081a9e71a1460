"""Bad files: one clear line naming the reason, nothing written, the rest of the batch goes on."""

import subprocess
import sys

import pytest


def _count(store):
    with store.transport.connection() as conn:
        return [conn.execute(f"select count(*) from {t}").fetchone()[0] for t in ("documents", "chunks", "figures")]


@pytest.fixture
def bad_files(tmp_path, pdfs):
    good = pdfs["paper"].read_bytes()
    files = {
        "zero.pdf": b"",
        "truncated.pdf": good[: len(good) // 3],
        "garbage.pdf": b"%PDF-1.7\n" + bytes(range(256)) * 20,
        "page.html.pdf": b"<html><body>not a pdf</body></html>",
        "notes.pdf": b"just some text\nthat is not a PDF\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize("name,reason", [
    ("zero.pdf", "empty file"), ("page.html.pdf", "not a PDF"), ("notes.pdf", "not a PDF"),
    ("garbage.pdf", "malformed PDF"),
])
def test_bad_file_gives_one_clear_line_and_writes_nothing(clean_store, ingest, bad_files, name, reason):
    res = ingest(bad_files / name)
    assert not res.ok and reason in res.error and "\n" not in res.error
    assert _count(clean_store) == [0, 0, 0]


def test_truncated_file_is_repaired_or_refused_cleanly(clean_store, ingest, bad_files):
    res = ingest(bad_files / "truncated.pdf")
    assert res.ok or "malformed" in res.error or "no text" in res.error
    if not res.ok:
        assert _count(clean_store) == [0, 0, 0]


def test_password_required_then_given(clean_store, ingest, pdfs):
    res = ingest(pdfs["encrypted"])
    assert not res.ok and "password required" in res.error
    assert ingest(pdfs["encrypted"], password="wrong").error.startswith("password required")
    ok = ingest(pdfs["encrypted"], password="secret")
    assert ok.ok and ok.chunks >= 1


def test_blank_pdf_is_refused_without_empty_chunks(clean_store, ingest, pdfs):
    res = ingest(pdfs["blank"])
    assert not res.ok and "no text" in res.error
    assert _count(clean_store) == [0, 0, 0]


def test_scanned_page_becomes_searchable_text(clean_store, ingest, embedder, pdfs):
    from rag.retrieve.search import hybrid_search

    res = ingest(pdfs["scanned"])
    assert res.ok and res.ocr_pages == 1
    out = hybrid_search(clean_store, embedder, "turbines safety inspection", k=1)
    assert "turbines" in out.results[0].content.lower()


def test_cli_batch_goes_on_after_bad_files(clean_store, settings, bad_files, pdfs):
    (bad_files / "good.pdf").write_bytes(pdfs["esg"].read_bytes())
    out = subprocess.run([sys.executable, "-m", "rag", "--data-dir", str(settings.db.data_dir), "ingest", str(bad_files)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1  # some files failed
    lines = [l for l in out.stdout.splitlines() if l.startswith(("ok", "ERROR", "skip"))]
    assert any(l.startswith("ok    good.pdf") for l in lines)
    assert sum(l.startswith("ERROR") for l in lines) >= 4
    assert "Traceback" not in out.stdout + out.stderr
    assert _count(clean_store)[0] == 1 + sum(1 for l in lines if l.startswith("ok") and "truncated" in l)
