"""Background ingestion on a Postgres job queue: procrastinate (057), in the same database as the documents.

Why procrastinate: it runs on plain Postgres (tables, functions, LISTEN/NOTIFY; no extension), so the queue works on
the embedded database, on DATABASE_URL and on Supabase's Postgres alike; it is maintained since 2019, on psycopg 3
like the rest of the store, and gives what a queue of uploads needs: locked fetch (FOR UPDATE SKIP LOCKED), worker
heartbeats with a query for the jobs of dead workers, retries, and its schema as plain SQL that our numbered
migrations apply. (pgqueuer is younger, asyncpg-first, and would have needed the same wrapping.)

The app enqueues with one SQL call (enqueue_ingest, 058): the file's bytes, its sha256 and a queued row; workers
turn queued rows into procrastinate jobs every poll (ingest_jobs_feed, 060: the app's role never touches the queue's
tables, and no function of ours is SECURITY DEFINER). A worker (`python -m rag worker`) takes the job, reads the file
from the row, ingests it into the uploader's workspace through the usual ingest_document() call (one transaction,
so a worker killed mid-document leaves nothing written) and records progress on the row as it goes. A sweeper in
every worker hands the jobs of workers whose heartbeat stopped back to the queue; a file a worker died on
`jobs.max_attempts` times fails with that said.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.config import Settings
from rag.errors import RagError
from rag.filenames import clean_file_name
from rag.records import JobRow

log = logging.getLogger(__name__)

QUEUE, TASK = "ingest", "ingest_job"


@dataclass
class Enqueued:
    file: str
    job_id: int | None
    status: str  # queued | running | done | failed (a refusal before queueing)
    document_id: int | None = None
    duplicate: str | None = None  # "job": the same file waits already; "document": it is in the library
    error: str | None = None


def needs_password(data: bytes) -> bool:
    """An encrypted PDF is not queued: its password would have to be stored with it."""
    import pymupdf

    try:
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            return bool(doc.needs_pass)
    except Exception:  # a broken file is queued, and its job says what is wrong with it
        return False


def enqueue(store, data: bytes, file_name: str, settings: Settings) -> Enqueued:
    """Queue one PDF (its bytes) for a worker. Never raises for a bad file: the result says why in one line. The
    name is cleaned first: a job row never holds a raw name."""
    file_name = clean_file_name(file_name)
    limit = settings.ingest.max_file_mb
    if len(data) > limit * 1024 * 1024:
        return Enqueued(file_name, None, "failed", error=f"file is {len(data) / 1e6:.0f} MB, above the {limit:.0f}-MB "
                        "limit (RAG_INGEST__MAX_FILE_MB)")
    if not data.strip():
        return Enqueued(file_name, None, "failed", error="empty file (0 bytes)" if not data else "empty file")
    if not data.lstrip()[:5].startswith(b"%PDF"):
        return Enqueued(file_name, None, "failed", error="not a PDF file")
    if needs_password(data):
        return Enqueued(file_name, None, "failed", error="the PDF is protected by a password: it is read at once "
                        "when its password is given, never queued (the password is not stored)")
    out = store.rpc("enqueue_ingest", {"p_file_name": file_name, "p_sha256": hashlib.sha256(data).hexdigest(),
                                       "p_pdf_b64": base64.b64encode(data).decode("ascii")})
    return Enqueued(file_name, out.get("job_id"), out["status"], out.get("document_id"), out.get("duplicate"))


def list_jobs(store, limit: int = 100) -> list[JobRow]:
    """This workspace's jobs, newest first."""
    return list(store.rpc("list_ingest_jobs", {"p_limit": limit}) or [])


def workers_alive(store, seconds: int = 30) -> int:
    return int(store.rpc("ingest_workers_alive", {"p_seconds": seconds}) or 0)


def queue_url(settings: Settings) -> str:
    """The database the queue lives in: the documents' own (DATABASE_URL or the embedded one)."""
    db = settings.db
    if db.url:
        return db.url
    if db.supabase_url:
        raise RagError("a worker needs a direct Postgres connection: set DATABASE_URL to the project's connection "
                       "string (Supabase: Project Settings → Database)")
    from rag.store.transports import embedded_url

    return embedded_url(db.data_dir)


class _Runner:
    """What one worker process keeps between jobs: the owner's store, one store per workspace, the embedder."""

    def __init__(self, settings: Settings):
        from rag.embed import Embedder
        from rag.store import open_store

        self.settings = settings
        self.owner = open_store(settings, migrate=True)
        self.embedder = Embedder(settings.embedding).load()
        self._stores: dict[str | None, Any] = {}
        self._lock = threading.Lock()

    def store_for(self, workspace: str | None):
        from rag.store import open_store

        with self._lock:
            if workspace not in self._stores:
                s = self.settings.model_copy(deep=True)
                s.db.workspace = workspace
                self._stores[workspace] = open_store(s, migrate=False)
            return self._stores[workspace]

    def run(self, job_id: int) -> None:
        """Ingest the file of job `job_id` into its workspace; record progress, then done or failed."""
        from rag.ingest.pipeline import ingest_file

        info = self.owner.admin_rpc("ingest_job_begin", {"p_job_id": int(job_id)})
        if not info:
            return  # ended already (a retry of a job another worker finished)
        if info["attempts"] > self.settings.jobs.max_attempts:
            self._end(job_id, "failed", None, f"stopped: a worker died {info['attempts'] - 1} times on this file")
            return
        with tempfile.TemporaryDirectory(prefix="rag-job-") as tmp:
            path = Path(tmp) / "upload.pdf"
            path.write_bytes(base64.b64decode(info["pdf_b64"]))
            res = ingest_file(path, self.store_for(info["workspace"]), self.embedder, self.settings,
                              progress=self._progress(job_id), display_name=info["file_name"])
        summary = {"pages": res.pages, "chunks": res.chunks, "figures": res.figures, "seconds": res.seconds,
                   "already_ingested": res.already_ingested, "warnings": res.warnings[:5]}
        self._end(job_id, "failed" if res.error else "done", res.document_id, res.error, summary)

    def _end(self, job_id: int, status: str, document_id: int | None, error: str | None,
             summary: dict | None = None) -> None:
        self.owner.admin_rpc("ingest_job_end", {"p_job_id": int(job_id), "p_status": status,
                                                "p_document_id": document_id, "p_error": error,
                                                "p_summary": summary})

    def _progress(self, job_id: int):
        last = [0.0]

        def progress(stage: str, done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] < 1.0:
                return  # at most one write a second
            last[0] = now
            self.owner.admin_rpc("ingest_job_progress", {"p_job_id": int(job_id), "p_stage": stage,
                                                         "p_done": int(done), "p_total": int(total)})
        return progress


def make_app(settings: Settings, runner: _Runner | None = None):
    """The procrastinate app of the ingest queue, with its one task."""
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=queue_url(settings)))

    @app.task(name=TASK, queue=QUEUE, retry=procrastinate.RetryStrategy(max_attempts=2, wait=5))
    def ingest_job(job_id: int) -> None:
        if runner is None:
            raise RagError("this app only enqueues; run `python -m rag worker` to ingest")
        runner.run(job_id)

    return app


async def _sweep(app, runner: _Runner, settings: Settings, stop: asyncio.Event) -> None:
    """Every poll: defer the newly queued rows, and hand the jobs of workers whose heartbeat stopped back to the
    queue."""
    every = max(0.5, settings.jobs.poll_s)
    while not stop.is_set():
        try:
            runner.owner.admin_rpc("ingest_jobs_feed")  # queued rows become procrastinate jobs (060)
            for job in await app.job_manager.get_stalled_jobs(queue=QUEUE,
                                                              seconds_since_heartbeat=settings.jobs.stalled_after_s):
                log.warning("job %s: its worker stopped; queued again", job.task_kwargs.get("job_id"))
                await app.job_manager.retry_job(job)
                runner.owner.admin_rpc("ingest_job_requeue", {"p_job_id": int(job.task_kwargs["job_id"])})
        except Exception as exc:  # the sweeper never stops the worker
            log.warning("sweeping stalled jobs failed: %s", exc)
        try:
            await asyncio.wait_for(stop.wait(), timeout=every)
        except asyncio.TimeoutError:
            pass


async def _work(settings: Settings, name: str, wait: bool) -> None:
    from rag.ingest.child import warm_up

    warm_up()  # the reader's fork server, before the first job rather than in it
    runner = _Runner(settings)
    app = make_app(settings, runner)
    stop = asyncio.Event()
    async with app.open_async():
        sweeper = asyncio.create_task(_sweep(app, runner, settings, stop))
        try:
            await app.run_worker_async(queues=[QUEUE], concurrency=1, name=name, wait=wait,
                                       update_heartbeat_interval=settings.jobs.heartbeat_s,
                                       stalled_worker_timeout=settings.jobs.stalled_after_s,
                                       fetch_job_polling_interval=settings.jobs.poll_s,
                                       install_signal_handlers=True, delete_jobs="successful",
                                       listen_notify=False)  # polls: no notification is trusted (sql/migrations/002_job_queue_procrastinate.sql)
        finally:
            stop.set()
            await sweeper


def work(settings: Settings, name: str = "worker", wait: bool = True) -> None:
    """One worker: one job at a time (ingestion is CPU-bound: concurrency comes from processes)."""
    asyncio.run(_work(settings, name, wait))


def _child(data_dir: str, threads: int, name: str, wait: bool) -> None:
    """A worker process: settings from the environment again (secrets never pass through arguments)."""
    from rag.config import settings_from_env

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # exit handlers run, until the queue's own take over
    settings = settings_from_env()
    settings.db.data_dir = Path(data_dir)
    settings.embedding.threads = threads
    work(settings, name, wait)


def exit_with(pid: int) -> None:
    """Stop this worker (SIGTERM: the job in hand finishes first) once process `pid` is gone: run.sh starts the
    worker next to the app, and the worker leaves with it."""
    import psutil

    def watch() -> None:
        while True:
            time.sleep(2)
            try:
                os.kill(pid, 0)
                gone = psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # dead, not yet reaped by its parent
            except (ProcessLookupError, psutil.NoSuchProcess):
                gone = True
            except (PermissionError, psutil.AccessDenied):  # alive, another user's
                continue
            if gone:
                os.kill(os.getpid(), signal.SIGTERM)
                return

    threading.Thread(target=watch, name="exit-with", daemon=True).start()


def run_workers(settings: Settings, concurrency: int = 1, wait: bool = True) -> int:
    """`concurrency` worker processes (one core each for embedding), until stopped; returns an exit code."""
    if concurrency <= 1:
        work(settings, f"worker-{os.getpid()}", wait)
        return 0
    import multiprocessing as mp

    threads = settings.embedding.threads or max(1, (os.cpu_count() or 1) // concurrency)
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_child, args=(str(settings.db.data_dir), threads, f"worker-{os.getpid()}-{i}", wait))
             for i in range(concurrency)]
    for p in procs:
        p.start()

    def stop(signum, _frame):
        for p in procs:
            if p.is_alive():
                os.kill(p.pid, signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for p in procs:
        p.join()
    return max((p.exitcode or 0) for p in procs)
