"""Background ingestion on the Postgres job queue: real embedded Postgres, real worker processes, real PDFs.

A worker is `python -m rag worker` in a subprocess on the test's own data directory; one is killed with SIGKILL in
the middle of a document to check that nothing is half-written and that another worker takes the job again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAST = {"RAG_JOBS__HEARTBEAT_S": "1", "RAG_JOBS__STALLED_AFTER_S": "4", "RAG_JOBS__POLL_S": "0.5"}


@pytest.fixture(scope="module")
def qsettings(tmp_path_factory):
    from rag.config import Settings

    s = Settings()
    s.db.data_dir = tmp_path_factory.mktemp("queue")
    return s


@pytest.fixture(scope="module")
def qstore(qsettings):
    from rag.store import open_store

    st = open_store(qsettings)
    yield st
    st.close()


@pytest.fixture
def empty(qstore):
    with qstore.transport.connection() as conn:
        conn.execute("truncate documents, ingest_jobs, procrastinate_jobs restart identity cascade")
    return qstore


def _worker(settings, *args: str) -> subprocess.Popen:
    env = {**os.environ, **FAST, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "rag", "--data-dir", str(settings.db.data_dir), "worker", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _jobs(store) -> dict[str, dict]:
    from rag import jobs

    return {j["file_name"]: j for j in jobs.list_jobs(store)}


def _until(predicate, seconds: float, what: str):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")


def _stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    return out.decode(errors="replace")


def test_enqueue_refuses_bad_files_and_dedupes(empty, qsettings, pdfs, tmp_path):
    from rag import jobs

    data = pdfs["10k_2022"].read_bytes()
    first = jobs.enqueue(empty, data, "acme.pdf", qsettings)
    again = jobs.enqueue(empty, data, "acme-copy.pdf", qsettings)
    assert first.status == "queued" and first.job_id and not first.duplicate
    assert again.duplicate == "job" and again.job_id == first.job_id
    assert jobs.enqueue(empty, b"hello, not a pdf", "notes.pdf", qsettings).error == "not a PDF file"
    assert jobs.enqueue(empty, b"", "blank.pdf", qsettings).error == "empty file (0 bytes)"
    import make_pdfs

    locked = jobs.enqueue(empty, make_pdfs.make_encrypted(tmp_path / "locked.pdf").read_bytes(), "locked.pdf",
                          qsettings)
    assert locked.job_id is None and "password" in locked.error
    assert list(_jobs(empty)) == ["acme.pdf"]
    assert empty.admin_rpc("ingest_jobs_feed") == 1  # a worker's poll turns the queued row into one job, once
    assert empty.admin_rpc("ingest_jobs_feed") == 0
    with empty.transport.connection() as conn:
        assert conn.execute("select count(*) from procrastinate_jobs where queue_name = 'ingest'").fetchone()[0] == 1


def test_worker_drains_the_queue_and_one_file_is_one_document(empty, qsettings, pdfs):
    from rag import jobs

    names = {"acme.pdf": pdfs["10k_2022"], "paper.pdf": pdfs["paper"], "esg.pdf": pdfs["esg"]}
    for name, path in names.items():
        assert jobs.enqueue(empty, path.read_bytes(), name, qsettings).status == "queued"
    proc = _worker(qsettings, "--once")
    try:
        proc.wait(timeout=300)
    finally:
        log = _stop(proc)
    assert proc.returncode == 0, log
    rows = _jobs(empty)
    assert {n: r["status"] for n, r in rows.items()} == {n: "done" for n in names}, rows
    assert all(r["document_id"] and r["summary"]["chunks"] > 0 and r["attempts"] == 1 for r in rows.values())
    assert len(empty.list_documents()) == 3
    again = jobs.enqueue(empty, pdfs["paper"].read_bytes(), "paper-again.pdf", qsettings)
    assert again.duplicate == "document" and again.document_id == rows["paper.pdf"]["document_id"]
    with empty.transport.connection() as conn:  # the uploads' bytes are gone once their documents are stored
        assert conn.execute("select count(*) from ingest_jobs where pdf is not null").fetchone()[0] == 0


def test_a_killed_worker_leaves_nothing_half_written_and_its_job_is_retried(empty, qsettings, tmp_path):
    import make_pdfs

    from rag import jobs

    big = make_pdfs.make_big(tmp_path / "big.pdf", pages=300)
    assert jobs.enqueue(empty, big.read_bytes(), "big.pdf", qsettings).status == "queued"
    first = _worker(qsettings)
    try:
        _until(lambda: _jobs(empty)["big.pdf"]["status"] == "running" and _jobs(empty)["big.pdf"]["done"] > 0,
               180, "the first worker to be in the middle of the document")
        os.killpg(first.pid, signal.SIGKILL)  # no goodbye: no heartbeat, no rollback by the worker
        first.wait(timeout=30)
    finally:
        _stop(first)
    assert empty.list_documents() == []  # the document is one transaction: nothing of it was written
    with empty.transport.connection() as conn:
        assert conn.execute("select count(*) from chunks").fetchone()[0] == 0
    second = _worker(qsettings)
    try:
        def ended():
            r = _jobs(empty)["big.pdf"]
            return r if r["status"] in ("done", "failed") else None

        row = _until(ended, 300, "the second worker to take the job again and finish it")
    finally:
        log = _stop(second)
    assert row["status"] == "done" and row["attempts"] == 2, (row, log)
    docs = empty.list_documents()
    assert len(docs) == 1 and docs[0].page_count >= 300


def test_jobs_belong_to_their_workspace(qstore, qsettings, pdfs):
    from rag import jobs
    from rag.store import open_store

    stores = {}
    for team in ("team-a", "team-b"):
        s = qsettings.model_copy(deep=True)
        s.db.workspace = team
        stores[team] = open_store(s, migrate=False)
    try:
        a = jobs.enqueue(stores["team-a"], pdfs["10k_2021"].read_bytes(), "a-secret-plan.pdf", qsettings)
        assert a.status == "queued"
        assert "a-secret-plan.pdf" in _jobs(stores["team-a"]) and "a-secret-plan.pdf" not in _jobs(stores["team-b"])
        # team B queues the same file: its own job, not team A's (and it learns nothing of A's)
        b = jobs.enqueue(stores["team-b"], pdfs["10k_2021"].read_bytes(), "b.pdf", qsettings)
        assert b.status == "queued" and b.job_id != a.job_id and not b.duplicate
        with stores["team-b"].transport.connection() as conn, conn.transaction():
            conn.execute("set local role rag_app")
            assert conn.execute("select count(*) from ingest_jobs where file_name = 'a-secret-plan.pdf'"
                                ).fetchone()[0] == 0
            with pytest.raises(Exception, match="permission denied"):
                conn.execute("select count(*) from procrastinate_jobs")
    finally:
        for st in stores.values():
            st.close()


def test_library_status_lines_follow_their_job_and_go_with_a_deleted_document(empty, qsettings, pdfs, monkeypatch):
    """The Library page (AppTest): a queued file's line follows its job to the end, the jobs table names the
    document and how long the job took, and a deleted document's line and picker entries go with it."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from rag import jobs

    monkeypatch.setenv("RAG_DATA_DIR", str(qsettings.db.data_dir))
    st.cache_resource.clear()  # the app's store is cached per process: an earlier AppTest's is another database
    try:
        _library_page_follows_a_job(empty, qsettings, pdfs, AppTest, jobs)
    finally:
        st.cache_resource.clear()  # later AppTests open their own store again
        st.cache_data.clear()


def _library_page_follows_a_job(empty, qsettings, pdfs, AppTest, jobs) -> None:
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=180)
    at.run()
    out = jobs.enqueue(empty, pdfs["paper"].read_bytes(), "paper.pdf", qsettings)
    at.session_state["ingest_results"] = {"paper.pdf": {"queued": out.job_id, "status": out.status}}
    at.switch_page("pages/views/library.py").run()
    assert not at.exception
    assert any(f"paper.pdf: queued (job {out.job_id})" in s.value for s in at.success)
    table = next(f.value for f in at.table if "took" in f.value.columns)
    assert table.iloc[0]["status"] == "queued" and table.iloc[0]["document"] == "paper.pdf"
    empty.admin_rpc("ingest_job_begin", {"p_job_id": out.job_id})  # a worker has started it
    at.run()
    assert any(f"paper.pdf: being read (job {out.job_id})" in s.value for s in at.info)
    # the line and the table are read together: they never disagree (walkthrough 5 saw "being read" over "queued")
    assert next(f.value for f in at.table if "took" in f.value.columns).iloc[0]["status"] == "running"
    with empty.transport.connection() as conn:  # back in the queue, for the worker below
        conn.execute("update ingest_jobs set status = 'queued', attempts = 0 where id = %s", (out.job_id,))
    proc = _worker(qsettings, "--once")
    try:
        proc.wait(timeout=300)
    finally:
        _stop(proc)
    at.run()
    assert any(f"paper.pdf: ingested (job {out.job_id})" in s.value for s in at.success)
    row = next(f.value for f in at.table if "took" in f.value.columns).iloc[0]
    doc = empty.list_documents()[0]
    assert row["status"] == "done" and row["document"] not in ("", "None", None) and row["took"].endswith(" s")
    at.multiselect(key="delete_pick").select(doc.document_id).run()
    at.button(key="delete_confirm").click().run()
    assert not at.exception and not empty.list_documents()
    assert not any("paper.pdf" in s.value for s in list(at.success) + list(at.info) + list(at.error))
    # the same redraw: no document counted, no picker naming it, its job's row says it is gone
    assert any(h.value == "0 document(s)" for h in at.subheader)
    assert not at.get("multiselect") or at.multiselect(key="delete_pick").value == []
    row = next(f.value for f in at.table if "took" in f.value.columns).iloc[0]
    assert row["document"] == "paper.pdf (deleted)"
