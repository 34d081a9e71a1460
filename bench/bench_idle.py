"""An idle soak of the app as run.sh starts it (issue 36): the Streamlit server, its ingestion worker and the
embedded Postgres, with one document in the library and a browser tab left open on the Library page, nobody
touching it. Every minute it samples each part's CPU (share of one core over the minute), RSS, and the lines the
app has logged; it reports the first and the last five minutes, and the whole run.

`--code DIR` soaks another checkout (the baseline: the code before issue 36, run the same way in the same session).

Usage: python bench/bench_idle.py [--minutes 60] [--code DIR] [--port 8650] [--out FILE.json]"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDF = Path(os.environ.get("RAG_SHARED", ROOT.parent / "shared")) / "corpus" / "papers"
CHROMIUM = "/usr/bin/chromium"


def _parts(app, data_dir: Path) -> dict[str, list]:
    """The app's process, its worker (and the worker's children), and the embedded Postgres (postmaster and its
    backends)."""
    import psutil

    worker = [c for c in app.children(recursive=True) if "worker" in " ".join(c.cmdline())]
    pg = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] and "postgres" in p.info["cmdline"][0]
          and str(data_dir) in " ".join(p.info["cmdline"])]
    return {"app": [app], "worker": worker, "postgres": pg + [c for p in pg for c in p.children(recursive=True)]}


def _cpu(procs: list) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system + getattr(t, "children_user", 0) + getattr(t, "children_system", 0)
        except Exception:  # a backend that ended between listing and reading
            pass
    return total


def _rss(procs: list) -> float:
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except Exception:
            pass
    return round(total / 2**20, 1)


def _sample(app, data_dir: Path, log: Path) -> dict:
    parts = _parts(app, data_dir)
    lines = log.read_bytes().count(b"\n")
    return {"t": time.time(), "cpu": {k: _cpu(v) for k, v in parts.items()},
            "rss_mb": {k: _rss(v) for k, v in parts.items()}, "log_lines": lines}


def _window(a: dict, b: dict) -> dict:
    secs = max(1e-6, b["t"] - a["t"])
    return {"minutes": round(secs / 60, 1),
            "cpu_share_of_a_core": {k: round((b["cpu"][k] - a["cpu"][k]) / secs, 4) for k in a["cpu"]},
            "rss_mb_at_end": b["rss_mb"], "log_lines_added": b["log_lines"] - a["log_lines"]}


def _seed(code: Path, data_dir: Path, env: dict) -> None:
    """One small paper in the library (read by `rag ingest`) before the soak starts."""
    paper = min(PDF.glob("*.pdf"), key=lambda p: p.stat().st_size)
    subprocess.run([sys.executable, "-m", "rag", "--data-dir", str(data_dir), "ingest", str(paper)], cwd=code,
                   env=env, check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--code", type=Path, default=ROOT)
    ap.add_argument("--port", type=int, default=8650)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    import psutil
    from playwright.sync_api import sync_playwright

    code = a.code.resolve()
    data_dir = Path(tempfile.mkdtemp(prefix="rag-idle-"))
    log = data_dir.parent / f"{data_dir.name}.log"
    env = {**os.environ, "RAG_DATA_DIR": str(data_dir), "PYTHONPATH": str(code)}
    _seed(code, data_dir, env)
    with open(log, "wb") as out:
        proc = subprocess.Popen(["bash", "run.sh", "--server.port", str(a.port)], cwd=code, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    app = psutil.Process(proc.pid)
    samples = []
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = b.new_page()
            time.sleep(25)
            page.goto(f"http://127.0.0.1:{a.port}/")
            page.get_by_role("link", name="Library").click(timeout=60_000)
            page.get_by_text("Upload PDFs").first.wait_for(timeout=60_000)
            time.sleep(30)  # the page drawn, the worker's model loaded
            end = time.time() + a.minutes * 60
            samples.append(_sample(app, data_dir, log))
            while time.time() < end:
                time.sleep(min(60, max(1, end - time.time())))
                samples.append(_sample(app, data_dir, log))
            b.close()
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=60)
    time.sleep(5)
    left = [p.pid for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"]
            and str(data_dir) in " ".join(p.info["cmdline"])]
    five = min(5, len(samples) - 1)
    result = {"code": str(code), "minutes": a.minutes, "machine": platform.processor() or platform.machine(),
              "cores": os.cpu_count(), "first_5_min": _window(samples[0], samples[five]),
              "last_5_min": _window(samples[-1 - five], samples[-1]), "whole": _window(samples[0], samples[-1]),
              "rss_mb_at_start": samples[0]["rss_mb"], "log_lines_at_start": samples[0]["log_lines"],
              "log_lines_at_end": samples[-1]["log_lines"], "processes_left_after_stop": left,
              "log_tail": log.read_text(errors="replace").splitlines()[-5:]}
    print(f"{'window':<12}{'app CPU':>10}{'worker':>10}{'postgres':>10}{'app RSS MB':>12}{'log lines':>11}")
    for k in ("first_5_min", "last_5_min", "whole"):
        w = result[k]
        c = w["cpu_share_of_a_core"]
        print(f"{k:<12}{c['app']:>10.2%}{c['worker']:>10.2%}{c['postgres']:>10.2%}{w['rss_mb_at_end']['app']:>12}"
              f"{w['log_lines_added']:>11}")
    print(f"processes left after stop: {left or 'none'}")
    if a.out:
        a.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
