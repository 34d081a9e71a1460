"""Every PDF is read in a child process, with a memory limit and a wall-clock limit of its own.

A PDF is a program for MuPDF: a 9 KB file whose Form XObjects each draw the next one twice, 20 levels deep, holds
one page that takes 12 minutes and 1.75 GB to read, and the time limit checked between pages cannot interrupt a
single call into the C library. So every call into PyMuPDF for a new document (opening it, reading its text, its
first page's layout for the title, rendering and OCR of its figures) runs in a child process, and this process
only embeds and writes. A watchdog thread here measures the child's resident memory and its age every 50 ms and
kills it past `RAG_INGEST__MAX_PARSE_MB` or `RAG_INGEST__MAX_SECONDS`; the file then gets one clean line, nothing
of it is written, and the batch and the worker go on. The child also runs under RLIMIT_DATA (twice the limit and
2 GB more: the OCR runtime reserves far more than it touches), so that an allocation faster than the watchdog
fails inside the child instead of growing on.

The child streams what it reads, so that the parent embeds the chunks while the child renders figures:
("progress", stage, done, total), ("text", Text), ("figures", page_no, [Figure]), then ("done", warnings), or
("error", kind, message) for a file that cannot be read (the IngestError subclass's name and its one line).

Children come from a fork server (multiprocessing's "forkserver"), started once and single-threaded: forking the
app itself (Streamlit's threads, the embedding model's) could copy a lock held by another thread.
"""

from __future__ import annotations

import io
import multiprocessing as mp
import os
import pickle
import resource
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from rag import errors
from rag.config import Settings
from rag.errors import IngestError, LimitExceededError
from rag.records import DocumentMeta

_POLL_S = 0.05
_MAX_MESSAGE = 256 * 1024 * 1024  # one page's figures at most (PNG crops), far below
# Classes outside rag.ingest.* that a reading's results hold (module → names).
_ALLOWED: dict[str, set[str]] = {
    "builtins": {"set", "frozenset", "complex", "bytearray", "slice", "range"},
    "collections": {"OrderedDict", "defaultdict", "Counter"},
    "rag.records": {"Table", "TableColumn", "TableRow", "TableCell", "DocumentMeta"},
    # numbers and arrays from OCR and image statistics: rebuilt by numpy from a dtype and raw bytes
    "numpy": {"dtype", "ndarray"},
    "numpy._core.multiarray": {"scalar", "_reconstruct"},
    "numpy.core.multiarray": {"scalar", "_reconstruct"},
}
_CONTEXT: Any = None
_LOCK = threading.Lock()


@dataclass
class Text:
    """What the first pass gives the parent: enough to embed the chunks and write the document."""
    page_count: int
    chunks: list  # rag.ingest.chunking.Chunk
    meta: DocumentMeta  # detected, before the store's issuers are consulted
    ocr_pages: int
    warnings: list[str] = field(default_factory=list)


def _context():
    global _CONTEXT
    with _LOCK:
        if _CONTEXT is None:
            ctx = mp.get_context("forkserver")
            # the main module and the reader are imported once, in the server: each child starts with them
            ctx.set_forkserver_preload(["__main__", "rag.ingest.pipeline"])
            _CONTEXT = ctx
        return _CONTEXT


def rss_mb(pid: int) -> float:
    """A process's resident memory in MB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _child(conn, read: Callable, path: str, password: str | None, settings: Settings, file_name: str) -> None:
    """The child: read the document with `read` (rag.ingest.pipeline.read_document) and send what it finds; every
    failure is one message."""
    # address space it may write, a backstop behind the watchdog (which measures what is resident): generous,
    # since the OCR runtime reserves far more than it touches
    _die_with_parent()
    limit = int((settings.ingest.max_parse_mb * 2 + 2048) * 1024 * 1024)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ValueError, OSError):
        pass
    def send(event: tuple) -> None:
        conn.send_bytes(pickle.dumps(event, protocol=pickle.HIGHEST_PROTOCOL))

    try:
        read(Path(path), password, settings, file_name, send)
    except IngestError as exc:
        send(("error", type(exc).__name__, str(exc)))
    except MemoryError:
        send(("error", "LimitExceededError", _memory_message(settings)))
    except Exception as exc:  # one line, whatever it was
        send(("error", "IngestError", " ".join(f"{type(exc).__name__}: {exc}".split())[:400]))
    finally:
        conn.close()


class _Unpickler(pickle.Unpickler):
    """What the child sends is read back with only the classes a document's reading is made of: the child parses
    hostile input, so its bytes are not trusted to name any other class (a pickle may call what it names)."""

    def find_class(self, module: str, name: str):
        if module in _ALLOWED and name in _ALLOWED[module]:
            return super().find_class(module, name)
        if module.startswith("rag.ingest.") and not name.startswith("_"):
            found = super().find_class(module, name)
            if isinstance(found, type):  # a class of the reader's results, never a function to call
                return found
        raise pickle.UnpicklingError(f"the reader sent a {module}.{name}, which is not part of a document")


def _load(data: bytes):
    return _Unpickler(io.BytesIO(data)).load()


def _die_with_parent() -> None:
    """The child's parent is the fork server, which exits when the ingesting process dies (killed, even with
    SIGKILL): the child is then killed too, instead of reading on with no watchdog (Linux's PR_SET_PDEATHSIG).

    The server sees the ingesting process die by the end of a pipe that only that process should hold; it hands a
    copy of that end to every child it forks (so that a child could fork through it too), and a child holding it
    would keep the server, and so itself, alive. The child closes it first."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass
        server._forkserver_alive_fd = None  # type: ignore[union-attr]
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the server was gone before the signal was set
        os._exit(1)


def _memory_message(settings: Settings) -> str:
    return (f"reading stopped: the PDF needed more than {settings.ingest.max_parse_mb:,.0f} MB of memory "
            "(limit RAG_INGEST__MAX_PARSE_MB); nothing was stored")


class _Watchdog(threading.Thread):
    """Kills the child past the memory or the time limit, and says which."""

    def __init__(self, proc, settings: Settings, started: float):
        super().__init__(name="parse-watchdog", daemon=True)
        self.proc, self.settings, self.started = proc, settings, started
        self.reason: str | None = None
        self.peak_mb = 0.0
        self._stop = threading.Event()

    def run(self) -> None:
        cfg = self.settings.ingest
        while not self._stop.wait(_POLL_S) and self.proc.is_alive():
            mb = rss_mb(self.proc.pid)
            self.peak_mb = max(self.peak_mb, mb)
            if mb > cfg.max_parse_mb:
                self.reason = _memory_message(self.settings)
            elif time.perf_counter() - self.started > cfg.max_seconds:
                self.reason = (f"reading stopped after {cfg.max_seconds:.0f} s (limit RAG_INGEST__MAX_SECONDS); "
                               "nothing was stored")
            if self.reason:
                self.proc.kill()
                return

    def stop(self) -> None:
        self._stop.set()


def read_in_child(read: Callable, path: Path, password: str | None, settings: Settings, file_name: str,
                  progress: Callable[[str, int, int], None] | None = None,
                  started: float | None = None) -> Iterator[tuple]:
    """`read(path, password, settings, file_name, send)` run in a child process; its events as they come ("text", then "figures" page by page, then "done"); progress events are
    handed to `progress`. Raises the IngestError the child reported, or LimitExceededError when the watchdog killed
    it. The child is gone when this generator ends, however it ends."""
    ctx = _context()
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child_conn, read, str(path), password, settings, file_name),
                       name="rag-parse", daemon=True)
    proc.start()
    child_conn.close()
    dog = _Watchdog(proc, settings, started or time.perf_counter())
    dog.start()
    try:
        while True:
            try:
                event = _load(parent_conn.recv_bytes(_MAX_MESSAGE))
            except pickle.UnpicklingError as exc:
                raise IngestError(f"the PDF could not be read: {exc}") from None
            except (EOFError, OSError):
                proc.join(5)
                if dog.reason:
                    raise LimitExceededError(dog.reason) from None
                raise IngestError(f"the PDF could not be read: the reader stopped (exit code {proc.exitcode})") \
                    from None
            if event[0] == "progress":
                if progress:
                    progress(*event[1:])
                continue
            if event[0] == "error":
                cls = getattr(errors, event[1], IngestError)
                raise (cls if isinstance(cls, type) and issubclass(cls, IngestError) else IngestError)(event[2])
            yield event
            if event[0] == "done":
                return
    finally:
        dog.stop()
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent_conn.close()


def warm_up() -> float:
    """Start the fork server now (it imports the main module and the reader once), not at the first document;
    the seconds it took."""
    t = time.perf_counter()
    proc = _context().Process(target=os.getpid, name="rag-parse-warm-up", daemon=True)
    proc.start()  # the server's imports are done once a child of it has run
    proc.join(120)
    return time.perf_counter() - t
