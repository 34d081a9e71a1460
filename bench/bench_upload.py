"""Queueing uploads from the Library page (issue 36): four reports (about 13 MB) chosen in a real browser, then
"Ingest 4 file(s)": the seconds from the click until every file's "queued" line is on the page, the app and its
worker started as run.sh starts them, on an empty embedded store. The worker reads the files meanwhile, as it
would for a user. `--code DIR` measures another checkout the same way (the baseline, in the same session).

Usage: python bench/bench_upload.py [--code DIR] [--runs 3] [--out FILE.json]"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ESG = Path(os.environ.get("RAG_SHARED", ROOT.parent / "shared")) / "corpus" / "esg"
FILES = ["sbo_annual_report_2023.pdf", "viscom_annual_report_2023.pdf", "freenet_annual_report_2023.pdf",
         "vonovia_sustainability_report_2020.pdf"]
CHROMIUM = "/usr/bin/chromium"


def _once(code: Path, port: int) -> float:
    from playwright.sync_api import sync_playwright

    data = Path(tempfile.mkdtemp(prefix="rag-upload-"))
    env = {**os.environ, "RAG_DATA_DIR": str(data), "PYTHONPATH": str(code)}
    proc = subprocess.Popen(["bash", "run.sh", "--server.port", str(port)], cwd=code, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = b.new_page()
            for _ in range(120):
                try:
                    page.goto(f"http://127.0.0.1:{port}/")
                    page.get_by_role("link", name="Library").click(timeout=5000)
                    page.get_by_text("Upload PDFs").first.wait_for(timeout=5000)
                    break
                except Exception:
                    time.sleep(1)
            page.wait_for_timeout(3000)
            page.locator('input[type="file"]').set_input_files([str(ESG / f) for f in FILES])
            button = page.get_by_role("button", name=f"Ingest {len(FILES)} file(s)")
            button.wait_for()
            t0 = time.perf_counter()
            try:
                button.click(timeout=60_000)
            except Exception:
                page.screenshot(path="/tmp/upload_fail.png", full_page=True)
                raise
            for f in FILES:
                page.get_by_text(f"{f}: queued").wait_for(timeout=120_000)
            took = time.perf_counter() - t0
            b.close()
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=60)
        shutil.rmtree(data, ignore_errors=True)
    return took


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--code", type=Path, default=ROOT)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=8670)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    mb = sum((ESG / f).stat().st_size for f in FILES) / 1e6
    times = [_once(a.code.resolve(), a.port + i) for i in range(a.runs)]
    out = {"code": str(a.code.resolve()), "files": FILES, "mb": round(mb, 1), "seconds": [round(t, 2) for t in times],
           "median_s": round(statistics.median(times), 2)}
    print(f"{len(FILES)} files, {mb:.1f} MB: queued in {out['median_s']} s (median of {a.runs}: {out['seconds']})")
    if a.out:
        a.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
