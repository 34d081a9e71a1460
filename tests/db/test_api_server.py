"""`python -m rag serve` as a real server on a port, attacked with raw sockets: clients that send half their headers,
drip them a byte at a time, say nothing, or send a slow body are cut off at the deadlines of settings.api
(RAG_API__*, set small here), idle keep-alive connections are closed, connections beyond the cap get 503; a normal
request is answered afterwards."""

import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest
from conftest import ROOT, free_port, wait_for_port

KEY = "test-key-0123456789"
HEADER_S, BODY_S, KEEP_ALIVE_S, MAX_CONNECTIONS = 1.0, 2.0, 1, 12
SLACK = 3.0  # seconds past a deadline the server may take to close a connection (a loaded 2-core machine)
HALF_HEADERS = b"POST /api/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthoriz"


@pytest.fixture
def server(store, settings):
    port = free_port()
    env = {**os.environ, "RAG_API_KEY": KEY, "RAG_API__HEADER_TIMEOUT_S": str(HEADER_S),
           "RAG_API__BODY_TIMEOUT_S": str(BODY_S), "RAG_API__KEEP_ALIVE_S": str(KEEP_ALIVE_S),
           "RAG_API__MAX_CONNECTIONS": str(MAX_CONNECTIONS)}
    proc = subprocess.Popen([sys.executable, "-m", "rag", "--data-dir", str(settings.db.data_dir), "serve", "--port",
                             str(port)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        try:
            wait_for_port(port, 180)
        except TimeoutError:
            proc.kill()
            pytest.fail(f"the server did not start: {proc.communicate()[0][-2000:]}")
        time.sleep(HEADER_S + 0.5)  # wait_for_port's own connections are closed by now
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _body_request(key: str | None) -> bytes:
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    return (f"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}"
            "Content-Length: 1000\r\n\r\n").encode() + b'{"question": "capex'


class Client(threading.Thread):
    """One raw connection: sends `first`, then `drip` one byte every 0.3 s while it may, and records how many seconds
    the server took to close it (None: still open after `wait` s) and what the server sent."""

    def __init__(self, port: int, first: bytes = b"", drip: bytes = b"", wait: float = 15.0):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.first, self.drip, self.wait = first, drip, wait
        self.closed_after: float | None = None
        self.got = b""

    def run(self) -> None:
        t0 = time.monotonic()
        self.sock.settimeout(0.3)
        try:
            if self.first:
                self.sock.sendall(self.first)
            drip = iter(self.drip)
            while time.monotonic() - t0 < self.wait:
                try:
                    chunk = self.sock.recv(4096)
                except TimeoutError:
                    byte = next(drip, None)
                    if byte is not None:
                        self.sock.sendall(bytes([byte]))
                    continue
                if not chunk:
                    break
                self.got += chunk
            else:
                return
        except OSError:  # reset by the server, or a byte sent after it closed
            pass
        finally:
            self.sock.close()
        self.closed_after = time.monotonic() - t0


def _ok(port: int) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{port}/api/health", headers={"Authorization": f"Bearer {KEY}"}, timeout=30)


def test_slow_and_silent_clients_are_cut_off_and_the_server_still_answers(server):
    port = server
    header_clients = [Client(port, HALF_HEADERS) for _ in range(5)] + [Client(port)] + \
                     [Client(port, HALF_HEADERS[:10], drip=HALF_HEADERS[10:])]
    body_clients = [Client(port, _body_request(KEY)), Client(port, _body_request(None))]
    clients = header_clients + body_clients
    for c in clients:
        c.start()
    for c in clients:
        c.join(20)
    for c in header_clients:
        assert c.closed_after is not None, f"a client with unfinished headers was held open: {c.got!r}"
        assert HEADER_S - 0.5 <= c.closed_after <= HEADER_S + SLACK, c.closed_after
        assert c.got.startswith(b"HTTP/1.1 408"), c.got
    slow_body, refused = body_clients
    assert slow_body.closed_after is not None and BODY_S - 0.5 <= slow_body.closed_after <= BODY_S + SLACK
    assert slow_body.got.startswith(b"HTTP/1.1 408") and b"body" in slow_body.got, slow_body.got
    assert refused.got.startswith(b"HTTP/1.1 401"), refused.got  # answered at once, without the body
    assert refused.closed_after is not None and refused.closed_after <= BODY_S + SLACK
    assert _ok(port).status_code == 200


def test_idle_connections_are_closed_and_connections_are_capped(server):
    port = server
    done = Client(port, f"GET /api/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n\r\n".encode())
    done.start()
    done.join(20)
    assert done.got.startswith(b"HTTP/1.1 200") and done.closed_after is not None
    assert done.closed_after <= KEEP_ALIVE_S + SLACK  # idle after its response: keep-alive ends
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.3)
        assert _ok(port).status_code == 503  # beyond the cap: refused at once, not queued
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)
    assert _ok(port).status_code == 200


def test_serve_without_a_key_says_only_why_it_will_not_start(settings):
    """`rag serve` without RAG_API_KEY: one line saying why, and never "serving on …" before it (issue 36)."""
    env = {k: v for k, v in os.environ.items() if k != "RAG_API_KEY"}
    out = subprocess.run([sys.executable, "-m", "rag", "--data-dir", str(settings.db.data_dir), "serve", "--port",
                          str(free_port())], env=env, capture_output=True, text=True, timeout=120)
    lines = [ln for ln in out.stderr.splitlines() if ln.strip() and "RuntimeDirWarning" not in ln
             and "user_runtime_dir" not in ln]
    assert out.returncode != 0 and "serving on" not in out.stderr + out.stdout
    assert lines == ["error: RAG_API_KEY is not set: the API needs a key (export RAG_API_KEY=... and send it as a "
                     "Bearer token)"], lines
