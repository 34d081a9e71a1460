"""python -m rag: migrate, ingest, search, ask, eval, docs, delete, doctor, reindex, serve."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time
from pathlib import Path

from rag.config import Settings, settings_from_env
from rag.errors import RagError, redact, redact_logs
from rag.filenames import clean_file_name, printable


def _settings(args) -> Settings:
    s = settings_from_env()
    if args.data_dir:
        s.db.data_dir = Path(args.data_dir)
    if getattr(args, "no_ocr", False):
        s.ingest.ocr = False
    return s


def _store(args, settings: Settings):
    from rag.store import open_store

    return open_store(settings, migrate=None)


def _embedder(settings: Settings):
    from rag.embed import Embedder

    return Embedder(settings.embedding)


def _pdfs(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(x for x in p.rglob("*") if x.is_file() and x.suffix.lower() == ".pdf"))
        else:
            out.append(p)
    return out


def cmd_migrate(args) -> int:
    if args.print:
        from rag.store.migrations import script

        sys.stdout.write(script())
        return 0
    settings = _settings(args)
    from rag.store import open_store

    store = open_store(settings, migrate=False)
    applied = store.migrate()
    print(f"applied {len(applied)} migration(s)" + (": " + ", ".join(applied) if applied else " (up to date)"))
    return 0


def cmd_ingest(args) -> int:
    from tqdm import tqdm

    from rag.ingest.pipeline import ingest_file

    settings = _settings(args)
    store = _store(args, settings)
    embedder = _embedder(settings)
    files = _pdfs(args.paths)
    if not files:
        print("no PDF files found", file=sys.stderr)
        return 2
    if args.queue:
        return cmd_enqueue(args, settings, store, files)
    failures = 0
    results = []
    for path in files:
        bar = tqdm(total=1, desc=clean_file_name(path.name)[:40], unit="page", leave=False,
                   disable=args.json or not sys.stderr.isatty())

        def progress(stage: str, done: int, total: int, bar=bar) -> None:
            if stage == "pages":
                bar.total = total
                bar.n = done
                bar.refresh()
            else:  # "figures" (pages rendered) or "embedding" (texts embedded): they run side by side
                bar.set_postfix_str(f"{stage} {done}/{total}")

        if not path.exists():
            from rag.ingest.pipeline import IngestResult

            res = IngestResult(file=clean_file_name(path.name), error=f"no such file: {path}")
        else:
            res = ingest_file(path, store, embedder, settings, password=args.password, progress=progress)
        bar.close()
        results.append(res)
        if res.error:
            failures += 1
            hint = " (give it with --password)" if res.error.endswith("the PDF is encrypted") else ""
            line = f"ERROR {res.file}: {res.error}{hint}"
        elif res.already_ingested:
            line = f"skip  {res.file}: already ingested (document {res.document_id})"
        else:
            line = (f"ok    {res.file}: {res.pages} pages, {res.chunks} chunks, {res.figures} figures, "
                    f"{res.ocr_pages} OCR pages, {res.seconds:.1f} s")
        if args.json:
            print(json.dumps(res.to_dict()), flush=True)  # JSON escapes control characters itself
        else:
            print(printable(line), flush=True)  # an error can quote the path as given
    if not args.json and len(files) > 1:
        ok = sum(1 for r in results if r.ok)
        print(f"{ok} of {len(files)} file(s) ingested or already present, {failures} failed")
    return 1 if failures else 0


def _filters(args):
    from rag.domain import company_key
    from rag.retrieve.search import SearchFilters

    return SearchFilters(
        document_ids=args.doc or None,
        companies=[company_key(c) for c in args.company] if args.company else None,
        year_min=args.year_min, year_max=args.year_max,
        doc_types=args.type or None, section_types=args.section or None)


def cmd_enqueue(args, settings, store, files) -> int:
    """`ingest --queue`: each file queued for a worker; one line each; exit 1 if any was refused."""
    from rag import jobs

    if args.password:
        print("a password-protected PDF is ingested directly, not queued (its password is never stored): "
              "drop --queue", file=sys.stderr)
        return 2
    failures = 0
    for path in files:
        try:
            out = jobs.enqueue(store, path.read_bytes(), path.name, settings)
        except OSError as exc:
            out = jobs.Enqueued(clean_file_name(path.name), None, "failed",
                                error=f"cannot read the file: {exc.strerror or exc}")
        if args.json:
            print(json.dumps(out.__dict__))
        elif out.error:
            print(printable(f"ERROR {out.file}: {out.error}"))
        elif out.duplicate == "document":
            print(printable(f"skip  {out.file}: already ingested (document {out.document_id})"))
        elif out.duplicate == "job":
            print(printable(f"skip  {out.file}: queued already (job {out.job_id}, {out.status})"))
        else:
            print(printable(f"queued {out.file}: job {out.job_id}"))
        failures += bool(out.error)
    if not args.json and not jobs.workers_alive(store):
        print("no worker is running: start one with `python -m rag worker`", file=sys.stderr)
    return 1 if failures else 0


def cmd_worker(args) -> int:
    from rag import jobs

    # until the queue's own handlers take over (after the model loads), SIGTERM ends the worker through exit
    # handlers too, so the embedded Postgres it shares is released (stopped when it was the last user)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    settings = _settings(args)
    _store(args, settings)  # migrated (the embedded store) before the workers start
    if args.exit_with:
        jobs.exit_with(args.exit_with)
    print(f"worker: {args.concurrency} process(es) on queue '{jobs.QUEUE}'; Ctrl+C stops", file=sys.stderr)
    return jobs.run_workers(settings, args.concurrency, wait=not args.once)


def cmd_search(args) -> int:
    from rag.retrieve.pipeline import retrieve
    from rag.retrieve.search import hybrid_search

    settings = _settings(args)
    store = _store(args, settings)
    embedder = _embedder(settings)
    store.check_model(embedder.model_name)
    embedder.load()  # before timing the first question
    if args.questions_file:
        questions = [q.strip() for q in Path(args.questions_file).read_text().splitlines() if q.strip()]
    else:
        if not args.query:
            print("give a question or --questions-file", file=sys.stderr)
            return 2
        questions = [args.query]
    cfg = settings.retrieval.model_copy(update={"k": args.k} if args.k else {})
    docs = store.list_documents()
    for q in questions:
        if args.raw:
            out = hybrid_search(store, embedder, q, k=args.k or 5, filters=_filters(args),
                                cfg=settings.retrieval.raw).to_json()
        else:
            out = retrieve(store, embedder, q, cfg, filters=_filters(args),
                           documents=docs).to_json(with_trace=args.trace)
        if args.json or args.questions_file or args.trace:
            print(json.dumps(out, ensure_ascii=False), flush=True)
            continue
        print(f"# {q}  ({out['timings_ms'].get('total', 0):.0f} ms)")
        if out.get("refused"):
            print(f"   {out['message']}")
        for i, r in enumerate(out["results"], 1):
            snippet = " ".join(r["text"].split())[:160]
            print(printable(f"{i}. {r['document']} p.{r['page']} [{r['section']}] {r['heading'][:60]}  "
                            f"score={r['score']:.4f}"))
            print(f"   {printable(snippet)}")
        for f in out["figures"]:
            print(printable(f"   figure {f['figure_id']}: {f['document']} p.{f['page']} {f['caption'][:60]} "
                            f"({f['score']:.2f})"))
    return 0


def cmd_eval(args) -> int:
    from rag.eval import format_report, run_eval

    settings = _settings(args)
    store = _store(args, settings)
    embedder = _embedder(settings)
    store.check_model(embedder.model_name)
    if args.answers:
        from rag.eval_answers import format_answer_report, run_answer_eval

        rep = run_answer_eval(store, embedder, Path(args.questions), settings, baseline=args.baseline,
                              progress=lambda i, n: print(f"\r{i}/{n}", end="", file=sys.stderr, flush=True))
        print(file=sys.stderr)
        print(format_answer_report(rep))
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(rep, indent=1, default=str))
            print(f"wrote {printable(args.json)}")
        return 0
    rep = run_eval(store, embedder, Path(args.questions), k=args.k, baseline=args.baseline,
                   cfg=settings.retrieval,
                   progress=lambda i, n: print(f"\r{i}/{n}", end="", file=sys.stderr, flush=True))
    print(file=sys.stderr)
    print(format_report(rep))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rep, indent=1, default=str))
        print(f"wrote {printable(args.json)}")
    return 0


def cmd_ask(args) -> int:
    from rag.answer.export import to_markdown
    from rag.assistant import answer as answer_fn
    from rag.assistant.structured import sql_answer

    settings = _settings(args)
    if args.offline:
        settings.llm.base_url = None
    store = _store(args, settings)
    if args.sql:
        a = sql_answer(store, args.question or args.sql, args.sql, settings)
        print(json.dumps(a.to_json(), ensure_ascii=False) if args.json else a.answer)
        return 0
    embedder = _embedder(settings)
    store.check_model(embedder.model_name)
    embedder.load()
    if args.questions_file:
        questions = [q.strip() for q in Path(args.questions_file).read_text().splitlines() if q.strip()]
        questions = [json.loads(q)["question"] if q.startswith("{") else q for q in questions]
    elif args.question:
        questions = [args.question]
    else:
        print("give a question, --questions-file or --sql", file=sys.stderr)
        return 2
    docs = store.list_documents()
    md_parts = []
    for q in questions:
        stream = (lambda t: print(t, end="", file=sys.stderr, flush=True)) if args.stream else None
        a = answer_fn(store, embedder, q, settings, filters=_filters(args), on_token=stream, documents=docs)
        if args.markdown:
            md_parts.append(to_markdown(a, store.figure_image))
        if args.json or args.questions_file:
            print(json.dumps(a.to_json(with_trace=args.trace), ensure_ascii=False), flush=True)
            continue
        print(f"# {q}\n\n{a.answer}\n")
        print(f"confidence: {a.confidence} ({redact('; '.join(a.reasons))})")
        for e in a.evidence:
            print(printable(f"[{e.marker}] {e.source}{'' if e.verified else '  (quote not verified)'}"))
        for f in a.figures:
            print(printable(f"figure {f.figure_id}: {f.document} p.{f.page} {f.caption or ''} "
                            f"(after paragraph {f.after_paragraph + 1})"))
        for u in a.unsupported:
            print(f"{u.get('action', 'flagged')}: {u.get('sentence', '')[:80]} — {redact(u['reason'])}")
    if args.markdown:
        Path(args.markdown).write_text("\n\n---\n\n".join(md_parts))
        print(f"wrote {printable(args.markdown)}", file=sys.stderr)
    return 0


def cmd_serve(args) -> int:
    from rag.api import serve

    settings = _settings(args)
    serve(settings, host=args.host, port=args.port, announce=lambda: print(
        f"serving on http://{args.host}:{args.port} (POST /api/answer, POST /api/search; docs at /docs)",
        file=sys.stderr, flush=True))
    return 0


def cmd_docs(args) -> int:
    from rag.answer.labels import period_label

    settings = _settings(args)
    store = _store(args, settings)
    docs = store.list_documents()
    if args.json:
        print(json.dumps([d.to_json() for d in docs], ensure_ascii=False, indent=1))
        return 0
    if not docs:
        print("no documents")
        return 0
    print(f"{'id':>4}  {'file':40} {'company':22} {'type':22} {'period':>10} {'pages':>5} {'chunks':>6} {'figs':>5} "
          f"{'ocr':>4}")
    show = printable  # a name stored before names were cleaned, a company read from the PDF: one line each
    for d in docs:
        period = show(period_label(d.fiscal_year, d.fiscal_period, d.doc_type))
        print(f"{d.document_id:>4}  {show(d.file_name)[:40]:40} {show(d.company)[:22]:22} {show(d.doc_type)[:22]:22} "
              f"{period:>10} {d.page_count:>5} {d.chunks:>6} {d.figures:>5} {d.ocr_pages:>4}")
    return 0


def cmd_delete(args) -> int:
    settings = _settings(args)
    store = _store(args, settings)
    rc = 0
    for ident in args.ids:
        if store.delete_document(ident):
            print(f"deleted document {ident}")
        else:
            print(f"no document {ident}", file=sys.stderr)
            rc = 1
    return rc


def cmd_doctor(args) -> int:
    settings = _settings(args)
    store = _store(args, settings)
    embedder = _embedder(settings)
    checks = store.doctor(embedder.model_name, embedder.dim)
    for c in checks:
        print(f"{'ok  ' if c['ok'] else 'FAIL'} {c['check_name']}: {printable(c['detail'])}")
    return 0 if all(c["ok"] for c in checks) else 1


def cmd_reindex(args) -> int:
    from rag.ingest.reindex import reindex

    settings = _settings(args)
    store = _store(args, settings)
    embedder = _embedder(settings)
    n = reindex(store, embedder, progress=lambda done, total: print(f"\r{done}/{total}", end="", file=sys.stderr))
    print(f"\nre-embedded {n['chunks']} chunks and {n['figures']} figures with {embedder.model_name}")
    return 0


def cmd_redetect(args) -> int:
    from rag.ingest.redetect import redetect_issuers

    settings = _settings(args)
    store = _store(args, settings)
    changes = redetect_issuers(store, apply=not args.dry_run)
    for did, name, old, new in changes:
        show = printable
        print(f"{did:>5}  {show(name)[:44]:44}  {show(old or '—')[:30]:30} -> {show(new)}")
    print(f"{'would change' if args.dry_run else 'changed'} the issuer of {len(changes)} document(s)")
    return 0


def cmd_tables(args) -> int:
    settings = _settings(args)
    store = _store(args, settings)
    tables = [t for t in store.document_tables(args.doc)
              if args.page is None or t.page_start <= args.page <= t.page_end]
    if args.json:
        print(json.dumps([t.to_json() for t in tables], ensure_ascii=False, indent=1))
        return 0
    if not tables:
        print("no tables")
        return 0
    show = printable
    for t in tables:
        pages = f"p.{t.page_start}" + (f"–{t.page_end}" if t.page_end != t.page_start else "")
        unit = f"{t.unit or ''} ×{t.scale:g}".strip()
        print(f"\n#{t.table_no} {pages}  {show(t.title)[:80]}  [{unit}]")
        head, lines = t.grid()
        print("  " + " | ".join(show(h)[:24] for h in head))
        for line in lines:
            print("  " + " | ".join(show(c)[:48 if j == 0 else 16] for j, c in enumerate(line)))
    return 0


def cmd_facts(args) -> int:
    settings = _settings(args)
    store = _store(args, settings)
    if args.rebuild:
        from rag.ingest.facts import rebuild

        n = rebuild(store, progress=lambda done, total: print(f"\r{done}/{total}", end="", file=sys.stderr),
                    reread=args.reread)
        print(f"\nderived {n['facts']} table facts from the tables of {n['documents']} documents "
              f"({n['tables_read_from_text']} read again from their chunks)")
        return 0
    if args.company or args.report is not None:
        return _workpaper(args, settings, store)
    facts = store.match_facts(" ".join(args.query), document_ids=args.doc, fiscal_years=args.year,
                              match_count=args.k)
    if args.json:
        print(json.dumps([f.to_json() for f in facts], ensure_ascii=False, indent=1))
        return 0
    if not facts:
        print("no facts")
        return 0
    names = {d.document_id: d.file_name for d in store.list_documents()}
    show = printable
    for f in facts:
        print(f"{show(names.get(f.document_id, f.document_id))[:28]:28} p.{f.page:<4} {show(f.label_path)[:50]:50} "
              f"{show(f.period or f.col_header)[:16]:16} {show(f.raw):>14} {show(f.unit)} ×{f.scale:g}")
    return 0


def _workpaper(args, settings: Settings, store) -> int:
    """An issuer's (or a report's) fact history, restatements and footing checks; with --export, the workbook."""
    from rag.workpaper import load_workpaper
    from rag.workpaper.workbook import write_workbook

    emb = _embedder(settings)
    wp = load_workpaper(store, lambda texts: emb.encode(texts), company=args.company, document_id=args.report)
    if args.export:
        try:
            write_workbook(wp.history, wp.checks, wp.computed, args.export)
        except OSError as exc:
            raise RagError(f"cannot write {args.export}: {exc.strerror or exc}") from None
    summary = wp.summary()
    if args.json:
        print(json.dumps(summary | {"restatements": [
            {"measure": m.label_path, "topic": m.topic, "period": c.period, "later": c.value.raw,
             "later_source": c.value.source.label(), "earlier": [(v.raw, v.source.label()) for v in c.restated]}
            for m, c in wp.history.restatements()], "failed": [c.to_json() for c in wp.checks if not c.ok]},
            ensure_ascii=False, indent=1))
        return 0
    show = printable
    print(f"{show(summary['title'])}: {summary['measures']} measures, {summary['values']} values over "
          f"{len(summary['periods'])} periods from {len(summary['documents'])} documents")
    print(f"restated: {summary['restated']} values; footing: {summary['checks']} checks on "
          f"{summary['tables_checked']} tables, {summary['checks_failed']} fail "
          f"({summary['failed_as_printed']} as printed, {summary['failed_likely_misread']} likely misread)")
    if args.export:
        print(f"wrote {show(args.export)}")
    return 0


def _add_filter_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--doc", type=int, action="append", help="document id filter (repeatable)")
    s.add_argument("--company", action="append", help="company filter (repeatable)")
    s.add_argument("--year-min", type=int)
    s.add_argument("--year-max", type=int)
    s.add_argument("--type", action="append", help="document type filter, e.g. 10-K (repeatable)")
    s.add_argument("--section", action="append", help="section type filter, e.g. results (repeatable)")


def cmd_figures(args) -> int:
    settings = _settings(args)
    store = _store(args, settings)
    from rag.ingest.refigure import reclassify, recrop, reread

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total}", end="", file=sys.stderr)

    if args.reclassify:
        n = reclassify(store, settings, progress=progress)
        print(f"\nread the kind of {n['figures']} figures in {n['documents']} documents"
              + (f"; {n['skipped']} documents without their PDF kept theirs" if n["skipped"] else ""))
    if args.recrop:
        n = recrop(store, settings, progress=progress)
        print(f"\ncropped {n['figures']} figures in {n['documents']} documents again"
              + (f"; {n['skipped']} documents without their PDF kept theirs" if n["skipped"] else ""))
    if args.reread:
        embedder = _embedder(settings)
        embedder.load()
        n = reread(store, embedder, settings, progress=progress)
        print(f"\nread {n['figures']} figures of {n['documents']} documents again"
              + (f"; {n['skipped']} documents without their PDF kept theirs" if n["skipped"] else ""))
        for e in n["errors"]:
            print(f"failed (its figures kept): {redact(e)}")
    if not (args.reclassify or args.recrop or args.reread):
        print("error: say what to do: --reread, --reclassify, --recrop (or several)", file=sys.stderr)
        return 2
    return 0


def _add_redetect_parser(sub) -> None:
    s = sub.add_parser("redetect", help="read every stored report's issuer again from its whole text")
    s.add_argument("--dry-run", action="store_true", help="only list what would change")
    s.set_defaults(fn=cmd_redetect)


def _add_figures_parser(sub) -> None:
    s = sub.add_parser("figures", help="read stored figures again from their PDFs: all of them, their kind, their crop")
    s.add_argument("--reclassify", action="store_true",
                   help="each figure's kind (chart, table, photo …) with the current classifier")
    s.add_argument("--recrop", action="store_true",
                   help="each figure's crop: graphic, labels and caption or title, without prose or neighbours")
    s.add_argument("--reread", action="store_true",
                   help="find, crop, classify and read every document's figures again (after the finder changed)")
    s.set_defaults(fn=cmd_figures)


def _add_facts_parser(sub) -> None:
    s = sub.add_parser("facts", help="search the table facts read at ingestion (label, period, value, unit)")
    s.add_argument("query", nargs="*", help="words of the row label, e.g. total net sales")
    s.add_argument("--doc", type=int, action="append", help="document id (repeatable)")
    s.add_argument("--year", type=int, action="append", help="fiscal year (repeatable)")
    s.add_argument("-k", type=int, default=20)
    s.add_argument("--json", action="store_true")
    s.add_argument("--rebuild", action="store_true",
                   help="derive every document's facts again from its stored tables")
    s.add_argument("--reread", action="store_true",
                   help="with --rebuild: read every document's tables again from its chunks first")
    s.add_argument("--company", help="an issuer's workpaper: its values by period across its documents, "
                   "restatements and footing checks")
    s.add_argument("--report", type=int, help="one document's workpaper (a sustainability report's KPIs)")
    s.add_argument("--export", metavar="FILE.xlsx", help="with --company or --report: write the Excel workbook")
    s.set_defaults(fn=cmd_facts)
    t = sub.add_parser("tables", help="a document's tables as read at ingestion: title, unit, columns, rows")
    t.add_argument("doc", type=int, help="document id")
    t.add_argument("--page", type=int, help="only the tables printed on this page")
    t.add_argument("--json", action="store_true")
    t.set_defaults(fn=cmd_tables)


def _add_ask_parser(sub) -> None:
    s = sub.add_parser("ask", help="answer with verified citations (extractive offline, or the configured LLM)")
    s.add_argument("question", nargs="?")
    s.add_argument("--json", action="store_true", help="print the answer object")
    s.add_argument("--questions-file", help="one question (or JSON object with 'question') per line; JSON lines out")
    s.add_argument("--markdown", help="also write the answer(s) as Markdown with figure images to this file")
    s.add_argument("--sql", help="a read-only SELECT over v_documents / v_chunks / v_figures")
    s.add_argument("--offline", action="store_true", help="extractive answer even when an LLM is configured")
    s.add_argument("--stream", action="store_true", help="stream the LLM's text to stderr")
    s.add_argument("--trace", action="store_true", help="include the retrieval trace in the JSON")
    _add_filter_args(s)
    s.set_defaults(fn=cmd_ask)


def _add_serve_parser(sub) -> None:
    s = sub.add_parser("serve", help="HTTP API for answers and search (needs RAG_API_KEY)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000)
    s.set_defaults(fn=cmd_serve)


def _migrate_parser(sub) -> None:
    mig = sub.add_parser("migrate", help="apply sql/ migrations (sql/README.md)")
    mig.add_argument("--print", action="store_true",
                     help="print the whole schema as one SQL script for a blank database (a SQL editor) and exit")
    mig.set_defaults(fn=cmd_migrate)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rag", description="Ingest PDFs and search them (Postgres + pgvector).")
    p.add_argument("--data-dir", help="embedded database folder (default .rag-data, or RAG_DATA_DIR)")
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command", required=True)

    _migrate_parser(sub)

    s = sub.add_parser("ingest", help="ingest PDF files or folders")
    s.add_argument("paths", nargs="+")
    s.add_argument("--password", help="password for encrypted PDFs")
    s.add_argument("--no-ocr", action="store_true", help="skip OCR of figures and scanned pages")
    s.add_argument("--json", action="store_true", help="one JSON object per file")
    s.add_argument("--queue", action="store_true", help="queue the files for workers (`rag worker`) and return")
    s.set_defaults(fn=cmd_ingest)

    s = sub.add_parser("worker", help="run queued ingestion jobs until stopped (Ctrl+C)")
    s.add_argument("--concurrency", type=int, default=1, help="worker processes (one job each at a time)")
    s.add_argument("--once", action="store_true", help="stop once the queue is empty")
    s.add_argument("--exit-with", type=int, metavar="PID", help="stop when process PID ends (run.sh: the app)")
    s.set_defaults(fn=cmd_worker)

    s = sub.add_parser("search", help="hybrid search")
    s.add_argument("query", nargs="?")
    s.add_argument("-k", type=int, default=None, help="chunks to return (default: dynamic 3/5/7)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--trace", action="store_true", help="JSON with the detected intent and every stage's trace")
    s.add_argument("--raw", action="store_true", help="plain hybrid SQL search, no reranking or diversity")
    s.add_argument("--questions-file", help="one question per line; prints one JSON object per line")
    _add_filter_args(s)
    s.set_defaults(fn=cmd_search)

    s = sub.add_parser("eval", help="retrieval metrics on labelled questions, with the cosine baseline")
    s.add_argument("questions")
    s.add_argument("--k", type=int, default=5)
    s.add_argument("--json", help="write the full report (plot-ready) to this file")
    s.add_argument("--baseline", action="store_true", help="also run plain cosine top-k in the same run")
    s.add_argument("--answers", action="store_true", help="evaluate answers (numbers verified, refusals, gold "
                   "answer contained, page cited) instead of retrieval")
    s.set_defaults(fn=cmd_eval)

    _add_ask_parser(sub)

    s = sub.add_parser("docs", help="list documents with chunk, figure and OCR-page counts")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_docs)

    s = sub.add_parser("delete", help="delete documents by id")
    s.add_argument("ids", nargs="+", type=int)
    s.set_defaults(fn=cmd_delete)

    _add_facts_parser(sub)
    _add_figures_parser(sub)

    _add_serve_parser(sub)
    _add_redetect_parser(sub)
    for name, fn, text in (("doctor", cmd_doctor, "consistency checks; non-zero exit when one fails"),
                           ("reindex", cmd_reindex, "re-embed the store with the configured model")):
        sub.add_parser(name, help=text).set_defaults(fn=fn)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    redact_logs()  # no log line, nor its traceback, prints a secret of a URL or a key
    for noisy in ("sentence_transformers", "transformers", "httpx", "RapidOCR", "pgserver", "psycopg.pool"):
        logging.getLogger(noisy).setLevel(logging.WARNING if args.verbose else logging.ERROR)
    t = time.perf_counter()
    try:
        rc = args.fn(args)
    except RagError as exc:
        print(f"error: {printable(' '.join(redact(str(exc)).split()))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback for a user: one line (the trace with -v)
        from rag.store.transports import one_line

        logging.getLogger("rag").debug("unexpected error", exc_info=True)
        print(f"error: {type(exc).__name__}: {printable(one_line(exc))}", file=sys.stderr)
        return 2
    if args.verbose:
        print(f"({time.perf_counter() - t:.1f} s)", file=sys.stderr)
    return rc
