"""The app as run.sh starts it (issue 36): Streamlit with the checkout's .streamlit/config.toml and nothing else on
its command line, one ingestion worker leaving with it, the embedded Postgres of its own data directory. A real
browser opens the Library page so that the app itself holds the database.

- idle, the app logs nothing (no file watcher, no polling page);
- when the app dies (SIGKILL), its worker leaves and the embedded Postgres stops with it;
- a second start on the same data directory, after a crash that left Postgres's pid file behind, starts cleanly;
- Ctrl+C (SIGINT) stops all three."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("RAG_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.e2e


def _require_browser():
    if Path(CHROMIUM).exists():
        try:
            import playwright.sync_api  # noqa: F401

            return
        except ImportError:
            pass
    msg = f"the lifecycle test needs playwright and {CHROMIUM}"
    if os.environ.get("RAG_REQUIRE_BROWSER") == "1":
        pytest.fail(msg + " and RAG_REQUIRE_BROWSER=1")
    pytest.skip(msg)


def _start(data: Path, log: Path) -> tuple[subprocess.Popen, subprocess.Popen, int]:
    """What run.sh runs after its set-up: the worker bound to the app's PID, and the app with no options but its
    port (everything else comes from .streamlit/config.toml)."""
    env = dict(os.environ, RAG_DATA_DIR=str(data), HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    port = free_port()
    out = open(log, "ab")
    app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.port", str(port)],
                           cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    worker = subprocess.Popen([sys.executable, "-m", "rag", "worker", "--exit-with", str(app.pid)], cwd=ROOT, env=env,
                              stdout=out, stderr=subprocess.STDOUT)
    wait_for_port(port, 90)
    return app, worker, port


def _open_library(port: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = b.new_page()
        page.goto(f"http://127.0.0.1:{port}/library")
        page.get_by_text("document(s)").first.wait_for(timeout=120_000)
        b.close()


def _postgres(data: Path) -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["cmdline"])
            if p.info["cmdline"] and "postgres" in p.info["cmdline"][0] and str(data) in " ".join(p.info["cmdline"])]


def _settled(log: Path, quiet_s: float = 10, at_most_s: float = 180) -> int:
    """The log's line count once it has not grown for quiet_s."""
    deadline, last, since = time.time() + at_most_s, -1, time.time()
    while time.time() < deadline:
        n = log.read_bytes().count(b"\n")
        if n != last:
            last, since = n, time.time()
        elif time.time() - since >= quiet_s:
            break
        time.sleep(0.5)
    return last


def _until(predicate, seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


def test_the_app_is_quiet_idle_and_postgres_stops_with_it_even_after_a_crash(tmp_path):
    _require_browser()
    data, log = tmp_path / "store", tmp_path / "app.log"
    app, worker, port = _start(data, log)
    try:
        _open_library(port)
        assert _postgres(data), "the app opened the embedded Postgres"
        lines = _settled(log)  # the worker's model loaded, the page drawn
        time.sleep(20)  # idle, with the page closed: nothing watches files, nothing polls
        text = log.read_text(errors="replace")
        assert text.count("\n") == lines, text.splitlines()[lines:]
        assert "use_container_width" not in text and "Inotify" not in text
        assert "external IP" not in text  # no look-up of this machine's public address (browser.serverAddress)
        app.send_signal(signal.SIGKILL)  # the app dies without cleaning up: its worker leaves, and Postgres stops
        assert worker.wait(timeout=60) is not None
        assert _until(lambda: not _postgres(data), 30), "the embedded Postgres outlived the app and its worker"
    finally:
        for p in (app, worker):
            if p.poll() is None:
                p.kill()
    # a crash of all three (Postgres's pid file left behind), then a second start on the same data directory
    app, worker, port = _start(data, log)
    try:
        _open_library(port)
        for p in [app, worker, *_postgres(data)]:
            os.kill(p.pid, signal.SIGKILL)
        time.sleep(2)
        assert (data / "postmaster.pid").exists()
        app, worker, port = _start(data, log)
        _open_library(port)
        assert "Traceback" not in log.read_text(errors="replace")
        app.send_signal(signal.SIGINT)  # Ctrl+C
        assert app.wait(timeout=60) is not None and worker.wait(timeout=60) is not None
        assert _until(lambda: not _postgres(data), 30), "Ctrl+C left the embedded Postgres running"
    finally:
        for p in (app, worker):
            if p.poll() is None:
                p.kill()
        for p in _postgres(data):
            p.kill()
