"""End to end in a real browser: `streamlit run` headless on its own embedded store, driven by Playwright on
Debian's chromium (installed by .ci/run with apt; no browser download). Screenshots go to tests/artifacts/."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
ART = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("RAG_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.e2e
LOGS: dict[str, Path] = {}  # each app's log, by its URL


def _require_browser():
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package")
    if not Path(CHROMIUM).exists():
        missing.append(f"{CHROMIUM} (apt-get install -y chromium)")
    if missing:
        msg = "browser test needs " + " and ".join(missing)
        if os.environ.get("RAG_REQUIRE_BROWSER") == "1":
            pytest.fail(msg + " and RAG_REQUIRE_BROWSER=1")
        pytest.skip(msg)


def _serve(tmp_path_factory):
    _require_browser()
    data = tmp_path_factory.mktemp("e2e-store")
    port = free_port()
    env = dict(os.environ, RAG_DATA_DIR=str(data), HF_HUB_OFFLINE="1")
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    log_path = tmp_path_factory.mktemp("e2e-log") / "streamlit.log"
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "streamlit_app.py"),
                             "--server.headless", "true", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    # as run.sh does: one ingestion worker next to the app, leaving with it
    worker = subprocess.Popen([sys.executable, "-m", "rag", "worker", "--exit-with", str(proc.pid)], cwd=ROOT,
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_for_port(port, 60)
    for _ in range(120):  # the port opens before the app is healthy
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    LOGS[url] = log_path
    return url, (proc, worker)


def _end(procs) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(timeout=60)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    url, procs = _serve(tmp_path_factory)
    yield url
    _end(procs)


@pytest.fixture
def empty_app(tmp_path_factory):
    url, procs = _serve(tmp_path_factory)
    yield url
    _end(procs)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


def _open(browser, url: str, timeout_ms: int):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(timeout_ms)
    page.goto(url)
    return page


def _shot(page, name: str) -> None:
    ART.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ART / f"{name}.png"), full_page=True)


def _settle(page, timeout: float = 10) -> None:
    """Until the page's scroll position and height have held still for 0.6 s: images load late, and
    Streamlit's stick-to-bottom scroller reacts to height changes, so a click on a moving page races both."""
    js = "() => { const e = document.querySelector('[data-testid=\"stAppScrollToBottomContainer\"]')" \
         " || document.scrollingElement; return [e.scrollTop, e.scrollHeight]; }"
    last, since, deadline = None, time.time(), time.time() + timeout
    while time.time() < deadline:
        now = page.evaluate(js)
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= 0.6:
            return
        page.wait_for_timeout(100)


def _wait_idle(page, timeout: float = 180) -> None:
    """Until Streamlit has finished the run (no 'Running…' status widget)."""
    page.wait_for_timeout(500)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if page.locator('[data-testid="stStatusWidget"]').count() == 0:
            return
        page.wait_for_timeout(300)
    raise AssertionError("the app kept running")


def _cited_document(page, shot: bool = True, click_first_page: bool = False) -> None:
    """The cited document in the pdf.js viewer (its pages drawn, the quote outlined), then the page-image tab.
    `click_first_page`: a click where the first page's links are, as a reader might."""
    dialog = page.locator('[role="dialog"]')
    dialog.get_by_role("tab", name="Document").wait_for()
    assert dialog.get_by_text("Acme Widgets 10-K FY2022").count() >= 1
    viewer = dialog.frame_locator("iframe").first
    viewer.locator("canvas").first.wait_for(timeout=60_000)
    viewer.locator('[id^="annotation-"]').first.wait_for(timeout=30_000)  # the quote's lines, outlined
    page.wait_for_timeout(1500)  # the pages drawn and scrolled to the quote
    if shot:
        _shot(page, "3b_cited_document")
    if click_first_page:
        first = viewer.locator("canvas").first
        first.scroll_into_view_if_needed()
        first.click(position={"x": 100, "y": 60}, force=True)  # on the text layer over it, as a reader clicks
        first.click(position={"x": 100, "y": 140}, force=True)
        page.wait_for_timeout(1000)
    dialog.get_by_role("tab", name="Page image").click()
    dialog.locator("img").first.wait_for()
    if shot:
        _shot(page, "3c_cited_page_image")
    page.keyboard.press("Escape")
    _settle(page)


def test_upload_ask_see_chart_inline_debug_and_switch_pages(app, browser, pdfs, tmp_path):
    import make_pdfs

    # the report carries scripts where it is shown (on opening, in links, attached): the viewer runs none
    make_pdfs.with_scripts(pdfs["10k_2022"], tmp_path / "acme_10k_2022.pdf")
    shutil.copy(pdfs["encrypted"], tmp_path / "board_memo.pdf")
    page = _open(browser, app, 180_000)
    ran: list[str] = []
    outside: list[str] = []  # no request leaves this machine (the app works offline)
    page.context.on("request", lambda r: outside.append(r.url) if not r.url.startswith(
        (app, "data:", "blob:", "about:")) else None)
    page.on("dialog", lambda d: (ran.append(f"dialog {d.message}"), d.dismiss()))
    page.context.on("page", lambda p: ran.append(f"window {p.url}"))
    page.get_by_role("link", name="Library").click()
    page.get_by_text("Upload PDFs").first.wait_for()
    _wait_idle(page)
    page.locator('input[type="file"]').set_input_files([str(tmp_path / "acme_10k_2022.pdf"),
                                                        str(tmp_path / "board_memo.pdf")])
    page.get_by_role("button", name="Ingest 2 file(s)").click()
    page.get_by_text("acme_10k_2022.pdf: queued (job 1)").wait_for()  # queued at once: the page is not held
    page.get_by_text("Ingestion jobs").wait_for()
    _shot(page, "1a_library_queued")
    page.get_by_text("1 done").wait_for(timeout=180_000)  # the worker's job, followed by the jobs table
    page.get_by_text("1 document(s)").wait_for()  # and the page redrawn with its document
    _wait_idle(page)
    page.get_by_text("board_memo.pdf is protected by a password").wait_for()
    page.get_by_label("Password", exact=True).fill("secret")
    page.get_by_role("button", name="Open with this password").click()
    page.get_by_text("2 document(s)").wait_for()
    _wait_idle(page)
    assert page.get_by_text("password you entered is wrong").count() == 0  # no stale question after the right one
    assert page.get_by_text("board_memo.pdf:").count() == 1  # its result, once
    _shot(page, "1_library")
    # the documents and jobs tables wrap to the page: no column off-screen, no cell cut (walkthrough 5)
    for table in page.locator('[data-testid="stTable"]').all():
        assert table.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "a Library table is wider than the page"

    page.get_by_role("link", name="Ask").click()
    page.get_by_placeholder("Ask about the documents…").wait_for()
    page.get_by_placeholder("Ask about the documents…").fill("How did Acme Widgets' net sales develop in 2022?")
    page.keyboard.press("Enter")
    page.get_by_text("[1] Acme Widgets 10-K FY2022").first.wait_for()
    _wait_idle(page)
    _shot(page, "2_ask")
    # the chart is inline, right after the paragraph that cites its chunk (before the sources)
    msg = page.locator('[data-testid="stChatMessage"]').last
    img = msg.locator('[data-testid="stImage"] img').first
    assert img.count() == 1
    first_source = msg.get_by_text("[1] Acme Widgets 10-K FY2022").first
    assert img.bounding_box()["y"] < first_source.bounding_box()["y"]
    cited = msg.get_by_text("Net sales were $12,345 million in 2022").first
    assert cited.bounding_box()["y"] < img.bounding_box()["y"]
    # the [1] marker links to its citation; the citation opens its page, rendered, with the quote marked
    link = msg.locator('a[href^="#src-"]').first
    marker = link.get_attribute("href").rsplit("-", 1)[1]
    link.scroll_into_view_if_needed()  # a reader scrolls up to the answer, then clicks a marker
    _settle(page)
    link.click()
    _settle(page)
    box = msg.get_by_text(f"[{marker}] Acme Widgets 10-K FY2022").first.bounding_box()
    assert box is not None and 60 <= box["y"] <= 800, box  # scrolled to that citation, clear of the header
    _shot(page, "3_citation")
    msg.get_by_role("button", name="Open page").first.click()
    _cited_document(page, click_first_page=True)
    assert not ran, ran  # no alert, no new window: the PDF's scripts and links did nothing
    # each [n] marker has its chip under the paragraph: it opens the same viewer
    msg.locator('[data-testid="stButtonGroup"] button').first.click()
    _cited_document(page, shot=False)
    ask_url = page.url

    page.get_by_text("Developer mode (Debug page)").click()
    _wait_idle(page)
    _shot(page, "debug_toggle")
    page.get_by_role("link", name="Debug").wait_for()
    page.get_by_role("link", name="Debug").click()
    page.wait_for_timeout(5000)
    _shot(page, "debug_after_click")
    page.get_by_role("heading", name="Corpus").wait_for()
    _wait_idle(page)
    page.wait_for_timeout(1500)  # plotly draws after the run
    assert page.locator(".js-plotly-plot").count() >= 1  # per-document chunk, figure and OCR-page counts
    assert page.get_by_text("Acme Widgets 10-K FY2022").count() >= 1  # documents by name (the chart's axis)
    assert page.get_by_text("Top 10 candidates, every score").count() == 1
    _debug_is_readable(page)
    _shot(page, "4_debug")
    page.reload()  # F5 on Debug: a new session; the URL keeps developer mode, so the page is still there
    page.get_by_role("heading", name="Corpus").wait_for()
    _wait_idle(page)
    assert page.get_by_text("Page not found").count() == 0 and "dev=1" in page.url

    _compare(page)
    _demo(page)
    _facts(page)
    page.get_by_role("link", name="Library").click()
    page.get_by_text("Upload PDFs").first.wait_for()
    _wait_idle(page)
    _shot(page, "5_library")

    # the conversation is in the database: a reload keeps it, and it is listed
    assert "?c=" in ask_url
    page.goto(ask_url)
    page.get_by_text("[1] Acme Widgets 10-K FY2022").first.wait_for()
    _wait_idle(page)
    assert page.get_by_text("Past conversations").count() == 1
    _shot(page, "3c_after_reload")
    assert not outside, outside[:5]
    log = LOGS[app].read_text(errors="replace")  # no traceback anywhere in the app's log (a table's mixed column
    assert "Traceback" not in log and "Serialization of dataframe" not in log, log[-3000:]  # logged one per draw)


def _debug_is_readable(page) -> None:
    """Point 8: per-stage diversity figures, the threshold on the histogram, baseline bars, no collapsed {...}."""
    page.get_by_text("Pipeline: chunks, documents and pages at each stage").wait_for()
    page.get_by_text("Pipeline: chunks, documents and pages at each stage").scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    _shot(page, "4b_debug_pipeline")
    table = page.locator('[data-testid="stTable"]').first  # the pipeline: every column within the page
    assert table.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the pipeline table is cut off"
    assert page.get_by_text("Diversity: plain top-k by relevance (before)").count() == 1
    for label in ("Distinct documents", "Distinct pages", "Near-duplicates set aside", "Capped / location merged"):
        assert page.get_by_text(label, exact=True).count() == 1, label
    assert page.locator('[data-testid="stJson"]').count() == 0
    assert page.get_by_text("relevance threshold 0.").count() == 1  # the line on the similarity histogram
    page.get_by_text("baseline: plain cosine top-k").first.wait_for()  # the eval chart's baseline bars
    bars = page.locator(".js-plotly-plot").last.locator("g.trace.bars")
    assert bars.count() == 2  # system and baseline, each a full set of bars
    page.locator(".js-plotly-plot").last.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    _shot(page, "4c_debug_eval")


def _compare(page) -> None:
    """Point 7: sources by title on each side, the whole time, and why 'Without retrieval' is off."""
    page.get_by_role("link", name="Compare").click()
    page.get_by_text("Compare settings").first.wait_for()
    _wait_idle(page)
    assert page.get_by_text("“Without retrieval” is unavailable").count() == 1
    page.get_by_label("Question").fill("What were Acme Widgets' net sales in 2022?")
    page.get_by_role("button", name="Compare", exact=True).click()
    page.get_by_text("Sources").first.wait_for()
    _wait_idle(page)
    assert page.get_by_text("[1] Acme Widgets 10-K FY2022").count() >= 2  # both sides cite by name
    times = page.locator('[data-testid="stMetric"]').filter(has_text="Time").locator('[data-testid="stMetricValue"]')
    assert times.count() == 2
    for i in range(2):
        value = times.nth(i)
        assert value.inner_text().strip().endswith(("ms", " s"))
        assert value.evaluate("e => e.scrollWidth <= e.clientWidth + 1")  # shown whole, never cut to "84 …"
    page.get_by_text("Sources").first.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    _shot(page, "5_compare")


def _facts(page) -> None:
    """Issue 38: the Facts page: the history grid, the workbook offered, a value's source, and its page opened in the
    citation viewer."""
    page.get_by_role("link", name="Facts").click()
    page.get_by_role("heading", name="Facts").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Export to Excel (.xlsx)").wait_for()
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    page.get_by_text("Or choose a value to see its source").click()
    _wait_idle(page)
    page.get_by_text("Source: acme_10k_2022.pdf, page").first.wait_for()
    page.wait_for_timeout(800)
    _shot(page, "6_facts")
    page.get_by_role("button", name=re.compile(r"^Open acme_10k_2022\.pdf, p\. \d+")).first.click()
    _cited_document(page, shot=False)


def _demo(page) -> None:
    """Point 9: an example question from the library, every step readable without JSON."""
    page.get_by_role("link", name="RAG demo").click()
    page.get_by_text("Example question (built from the library)").wait_for()
    _wait_idle(page)
    question = "What were Acme Widgets' net sales in 2022?"
    page.get_by_label("Question that runs").fill(question)
    page.get_by_label("Question that runs").press("Enter")
    _wait_idle(page)
    page.get_by_role("button", name="Run").click()
    page.get_by_text("Step 1 of 8").wait_for()
    assert page.get_by_text(question).count() >= 1  # the steps are the typed question's
    took = []
    for k in range(2, 9):
        t = time.time()
        page.get_by_role("button", name="Next step →").click()
        page.get_by_text(f"Step {k} of 8").wait_for()
        _wait_idle(page)
        took.append(round(time.time() - t, 2))
    ART.mkdir(parents=True, exist_ok=True)
    (ART / "demo_step_seconds.json").write_text(json.dumps(took))  # the note quotes them; no speed is asserted
    assert page.locator('[data-testid="stJson"]').count() == 0
    assert page.get_by_text("Quotes verified").count() == 1
    _shot(page, "5_rag_demo")


def test_first_run_loads_the_samples_then_shows_a_summary_and_examples(empty_app, browser):
    """Point 4: an empty library offers the samples; after them, a summary and example questions of each kind."""
    page = _open(browser, empty_app, 300_000)
    page.get_by_role("button", name="Load sample documents").click()
    page.get_by_text("3 documents").first.wait_for()
    _wait_idle(page)
    for name in ("3M", "Northwind", "LONGEVAL"):  # a paper by its title's short name, which its text repeats
        assert page.get_by_role("button", name=name).count() >= 1, name  # an example question about it
    _shot(page, "0_first_run")
