"""A file named by an attacker (ESC sequences, BEL, CR, LF, a bidi override, a zero-width joiner), ingested from the
CLI and through the job queue: nothing of it reaches the terminal or the database, and no output line is forged.

Real embedded Postgres on the module's own data directory, `python -m rag` in subprocesses, real PDFs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from rag.filenames import clean_file_name

ROOT = Path(__file__).resolve().parents[2]
# The terminal's title set by OSC, the screen cleared, a carriage return hiding the start of the line, and a newline
# that would print a fake error line for another file.
EVIL = ("q3\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\rhidden\n"
        "ERROR other.pdf: forged line \u202efdp\u200d.pdf")
INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _invisible(text: str) -> list[str]:
    """Control, format and separator characters of `text`, but the newline ending each line."""
    return [c for c in text if c != "\n" and unicodedata.category(c) in INVISIBLE]


def run(data_dir: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    # the model loader's progress bar redraws itself with CR on stderr: it is not what is tested here
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAG_JOBS__POLL_S": "0.5", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    return subprocess.run([sys.executable, "-m", "rag", "--data-dir", str(data_dir), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _clean_output(out: subprocess.CompletedProcess) -> None:
    assert not _invisible(out.stdout) and not _invisible(out.stderr), (out.stdout, out.stderr)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A store of its own with a plain-named and an evil-named PDF ingested from the CLI."""
    import make_pdfs

    from rag.config import Settings
    from rag.store import open_store

    s = Settings()
    s.db.data_dir = tmp_path_factory.mktemp("names-store")
    files = tmp_path_factory.mktemp("names-files")
    store = open_store(s)
    plain = make_pdfs.make_esg(files / "plain.pdf")
    evil = make_pdfs.make_paper(files / EVIL)
    outs = {"plain": run(s.db.data_dir, "ingest", str(plain)), "evil": run(s.db.data_dir, "ingest", str(evil))}
    yield {"settings": s, "store": store, "files": files, "outs": outs}
    store.close()


def test_ingest_prints_one_clean_line_for_an_evil_name(home):
    plain, evil = home["outs"]["plain"], home["outs"]["evil"]
    assert plain.returncode == 0 and evil.returncode == 0, evil.stdout + evil.stderr
    _clean_output(evil)
    assert evil.stdout.count("\n") == plain.stdout.count("\n") == 1  # no forged line
    assert evil.stderr.count("\n") == plain.stderr.count("\n")
    assert evil.stdout.startswith(f"ok    {clean_file_name(EVIL)}: ")


def test_the_stored_name_is_clean_and_docs_prints_one_line_per_document(home):
    d = home["settings"].db.data_dir
    docs = json.loads(run(d, "docs", "--json").stdout)
    names = sorted(x["file_name"] for x in docs)
    assert names == sorted(["plain.pdf", clean_file_name(EVIL)])
    assert not any(_invisible(n) for n in names)
    with home["store"].transport.connection() as conn:  # the path's name kept in the document's meta, too
        metas = [r[0] for r in conn.execute("select meta::text from documents").fetchall()]
    assert not any(_invisible(json.loads(m).get("source_path_name", "")) for m in metas)
    table = run(d, "docs")
    assert table.returncode == 0
    _clean_output(table)
    assert table.stdout.count("\n") == 1 + len(docs)


def test_a_name_stored_before_the_fix_prints_safely(home):
    store, d = home["store"], home["settings"].db.data_dir
    with store.transport.connection() as conn:
        conn.execute("update documents set file_name = %s where file_name <> 'plain.pdf'", (EVIL,))
    try:
        table = run(d, "docs")
        _clean_output(table)
        assert table.stdout.count("\n") == 3 and "\\x1b" in table.stdout  # header and two documents
    finally:
        with store.transport.connection() as conn:
            conn.execute("update documents set file_name = %s where file_name = %s", (clean_file_name(EVIL), EVIL))


def test_errors_naming_an_evil_path_are_one_clean_line(home):
    d, files = home["settings"].db.data_dir, home["files"]
    missing = run(d, "ingest", str(files / ("gone" + EVIL)))
    assert missing.returncode == 1
    _clean_output(missing)
    assert missing.stdout.count("\n") == 1 and missing.stdout.startswith("ERROR ")
    bad = files / ("not a pdf " + EVIL)
    bad.write_bytes(b"just some text\nthat is not a PDF\n")
    out = run(d, "ingest", str(bad))
    assert out.returncode == 1
    _clean_output(out)
    assert out.stdout.count("\n") == 1 and "not a PDF" in out.stdout


def test_the_queue_stores_and_ingests_a_clean_name(home):
    import make_pdfs

    from rag import jobs

    s, store, files = home["settings"], home["store"], home["files"]
    evil = make_pdfs.make_10k(files / ("10k " + EVIL), year=2021, revenue=11500, capex=1400)
    queued = run(s.db.data_dir, "ingest", "--queue", str(evil))
    assert queued.returncode == 0, queued.stdout + queued.stderr
    _clean_output(queued)
    assert queued.stdout.count("\n") == 1 and queued.stdout.startswith(f"queued {clean_file_name(evil.name)}: job ")
    annual = "annual " + EVIL
    direct = jobs.enqueue(store, make_pdfs.make_annual_report(files / "annual.pdf").read_bytes(), annual, s)
    assert direct.status == "queued" and direct.file == clean_file_name(annual)
    rows = jobs.list_jobs(store)
    assert sorted(r["file_name"] for r in rows) == sorted([clean_file_name(evil.name), clean_file_name(annual)])
    with store.transport.connection() as conn:  # a job queued before the fix still carries its raw name
        conn.execute("update ingest_jobs set file_name = %s where id = %s", (annual, direct.job_id))
    worker = run(s.db.data_dir, "worker", "--once", timeout=600)
    assert worker.returncode == 0, worker.stdout + worker.stderr
    names = {x.file_name for x in store.list_documents()}
    assert {clean_file_name(evil.name), clean_file_name(annual)} <= names
    assert not any(_invisible(n) for n in names)
