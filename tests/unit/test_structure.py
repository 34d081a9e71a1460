"""The shape of the code a newcomer reads: no import cycles in rag/, no function over 60 lines, types checked, each SQL
function defined in one file."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

RAG = Path(__file__).resolve().parents[2] / "rag"
MAX_LINES = 60


def _module(path: Path) -> str:
    parts = path.relative_to(RAG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module → the rag modules it imports, at module level or inside functions (a lazy import is still an edge)."""
    modules = {_module(p): p for p in RAG.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                           for a in node.names]
            graph[mod] |= {t for t in targets if t in modules and t != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_in_rag():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_function_in_rag_or_the_pages_is_over_60_lines():
    long = []
    for path in [*RAG.rglob("*.py"), *(RAG.parent / "pages").rglob("*.py"), RAG.parent / "streamlit_app.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_LINES:
                    long.append(f"{path.relative_to(RAG.parent)}:{node.lineno} {node.name} ({n} lines)")
    assert long == []


def test_rag_never_imports_streamlit():
    assert not [m for m, deps in import_graph().items() if "streamlit" in
                {a for p in [RAG.parent / (m.replace(".", "/") + ".py")] if p.exists()
                 for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, (ast.Import, ast.ImportFrom))
                 for a in ([x.name for x in n.names] if isinstance(n, ast.Import) else [n.module or ""])}]


@pytest.mark.slow
def test_the_typed_modules_pass_mypy():
    """records, domain, retrieval and answers (the files listed under [tool.mypy] in pyproject.toml)."""
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=RAG.parent, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


def _answer_layer_store_uses() -> list[str]:
    """Where a module of rag/answer reads the store: a name or parameter called store, a call of a Store method, or
    an import of the store or of the assistant that gathers the evidence."""
    from rag.store import Store

    methods = {m for m in vars(Store) if not m.startswith("_")} - {"close", "reader"}
    found = []
    for path in sorted((RAG / "answer").rglob("*.py")):
        where = path.relative_to(RAG.parent)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.arg) and node.arg == "store" or isinstance(node, ast.Name) and node.id == "store" \
                    or isinstance(node, ast.Attribute) and node.attr == "store":
                found.append(f"{where}:{node.lineno} the name 'store'")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods:
                found.append(f"{where}:{node.lineno} .{node.func.attr}()")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("rag.store", "rag.assistant")):
                found.append(f"{where}:{node.lineno} imports {node.module}")
    return found


def test_the_answer_layer_never_reads_the_store():
    """rag/answer writes the answer from what retrieval gathered (its passages, figures and the Facts stage's
    FactBook); the store is read by the retrieval pipeline and the assistant's tools only (issue 33, point 3)."""
    assert _answer_layer_store_uses() == []


def test_the_store_check_sees_a_store_call(tmp_path, monkeypatch):
    """The check above finds a store call when one is there (it reads rag/answer's files: a copy with one added)."""
    fake = tmp_path / "rag"
    (fake / "answer").mkdir(parents=True)
    (fake / "answer" / "x.py").write_text("def f(book, ids):\n    return book.match_facts('', chunk_ids=ids)\n")
    monkeypatch.setattr(sys.modules[__name__], "RAG", fake)
    assert _answer_layer_store_uses() == ["rag/answer/x.py:2 .match_facts()"]


def test_no_test_imports_the_name_tests():
    """streamlit-pdf-viewer's wheel installs a top-level `tests` package into site-packages, which shadows ours:
    test helpers are imported as `conftest`, `make_pdfs` and by module name, never as `tests.…`."""
    root = Path(__file__).resolve().parents[2]
    bad = [f"{p.relative_to(root)}:{i}" for d in ("tests", "bench") for p in (root / d).rglob("*.py")
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if line.lstrip().startswith(("from tests.", "import tests."))]
    assert not bad, bad


SQL = RAG.parent / "sql"
_CREATE_FUNCTION = re.compile(r"^\s*create\s+(?:or\s+replace\s+)?function\s+(?:public\.)?(\w+)\s*\(", re.I | re.M)


def sql_functions() -> dict[str, set[str]]:
    """Function name → the sql/ files that define it."""
    found: dict[str, set[str]] = {}
    for p in SQL.rglob("*.sql"):
        for name in _CREATE_FUNCTION.findall(p.read_text()):
            found.setdefault(name.lower(), set()).add(str(p.relative_to(SQL)))
    return found


def test_no_sql_function_is_defined_in_two_files():
    """Issue 37: the current definition of a function is in one file (sql/README.md)."""
    twice = {n: sorted(f) for n, f in sql_functions().items() if len(f) > 1}
    assert not twice, twice


def test_each_function_file_defines_its_own_name_with_a_fixed_search_path():
    for p in sorted((SQL / "functions").glob("*.sql")):
        text = p.read_text()
        names = {n.lower() for n in _CREATE_FUNCTION.findall(text)}
        assert names == {p.stem}, (p.name, names)
        heads = text.lower().split("create or replace function")[1:]
        assert all("set search_path" in h.split(" as $")[0] for h in heads), f"{p.name}: set search_path"
        code = "\n".join(line for line in text.lower().splitlines() if not line.lstrip().startswith("--"))
        assert "security definer" not in code, p.name
        assert f"revoke all on function public.{p.stem}(" in text.lower(), f"{p.name}: revoke from PUBLIC"


def test_the_checks_above_see_a_function_defined_twice(tmp_path, monkeypatch):
    (tmp_path / "functions").mkdir()
    (tmp_path / "migrations").mkdir()
    (tmp_path / "functions" / "f.sql").write_text("-- f\ncreate or replace function f() returns int as $$ 1 $$;\n")
    (tmp_path / "migrations" / "003_x.sql").write_text("-- x\nCREATE FUNCTION public.f() RETURNS int AS $$ 2 $$;\n")
    monkeypatch.setattr(sys.modules[__name__], "SQL", tmp_path)
    assert sql_functions() == {"f": {"functions/f.sql", "migrations/003_x.sql"}}


def test_the_readme_fits_in_two_minutes_and_the_rest_is_in_docs():
    """Issue 37: the README says what the tool is, the two commands, the pages, the CLI and API, the main settings
    and links, in under 250 lines; everything else is a page of docs/ that mkdocs.yml lists."""
    root = RAG.parent
    readme = (root / "README.md").read_text()
    assert len(readme.splitlines()) < 250
    assert "bash run.sh" in readme and "bash test.sh" in readme
    nav = (root / "mkdocs.yml").read_text()
    for page in ("architecture", "retrieval", "answers", "security", "scale-and-deployment", "benchmarks"):
        assert (root / "docs" / f"{page}.md").exists() and f"{page}.md" in nav and f"docs/{page}.md" in readme, page


def underscore_imports(root: Path) -> list[str]:
    """Places where rag/ or pages/ reach into another module's underscore names: `from rag.x import _y`, or
    `x._y` on an imported rag module."""
    hits = []
    for p in [*(root / "rag").rglob("*.py"), *(root / "pages").rglob("*.py")]:
        tree = ast.parse(p.read_text())
        mods: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("rag", "pages"):
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        hits.append(f"{p.relative_to(root)}:{node.lineno} {full}")
                    elif (root / (full.replace(".", "/") + ".py")).exists():
                        mods[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                mods.update({a.asname or a.name: a.name for a in node.names if a.name.split(".")[0] == "rag"})
        hits += [f"{p.relative_to(root)}:{node.lineno} {mods[node.value.id]}.{node.attr}" for node in ast.walk(tree)
                 if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                 and isinstance(node.value, ast.Name) and node.value.id in mods]
    return hits


def test_no_module_reaches_into_another_modules_underscore_names():
    """Issue 37: an underscore means private. A name another module needs is promoted, or the code moves."""
    assert not underscore_imports(RAG.parent), underscore_imports(RAG.parent)


def test_the_underscore_check_sees_both_kinds(tmp_path):
    (tmp_path / "rag").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "rag" / "a.py").write_text("_X = 1\n")
    (tmp_path / "rag" / "b.py").write_text("from rag.a import _X\nfrom rag import a\nprint(a._X)\n")
    assert underscore_imports(tmp_path) == ["rag/b.py:1 rag.a._X", "rag/b.py:3 rag.a._X"]


def test_the_package_and_each_subpackage_declare_a_small_public_api():
    """Issue 37: rag/__init__.py and every subpackage say what they offer (`__all__`, at most 16 names)."""
    for init in sorted(RAG.rglob("__init__.py")):
        tree = ast.parse(init.read_text())
        names = [n for node in tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name) and t.id == "__all__"
                 for n in ast.literal_eval(node.value)]
        assert names and len(names) <= 16, (str(init.relative_to(RAG.parent)), names)


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """The string constants of a module's code, docstrings left out (they describe; they do not decide)."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def literal_uses(root: Path, pattern: str, home: str) -> list[str]:
    """Where code outside `home` spells out a string the one constant in `home` holds."""
    out = []
    for path in sorted([*(root / "rag").rglob("*.py"), *(root / "pages").rglob("*.py")]):
        rel = path.relative_to(root).as_posix()
        if rel == home:
            continue
        out += [f"{rel}:{line}" for line, s in _strings(ast.parse(path.read_text())) if re.search(pattern, s)]
    return out


def test_a_refusal_is_worded_and_recognised_in_one_place():
    """Issue 37: "Insufficient data" and the confidence "insufficient_data" live in rag/records.py (REFUSAL_OPENING,
    INSUFFICIENT, refusal_text, refusal_reason, Answer.refusal); no other code spells them out or parses them."""
    assert not literal_uses(RAG.parent, r"(?i)insufficient[ _]data", "rag/records.py")


def test_the_literal_check_skips_docstrings_only(tmp_path):
    (tmp_path / "rag").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "rag" / "a.py").write_text('"""Says "Insufficient data"."""\nX = "insufficient data: none"\n')
    assert literal_uses(tmp_path, r"(?i)insufficient[ _]data", "rag/records.py") == ["rag/a.py:2"]


def test_months_and_scale_words_are_spelled_out_once():
    """Issue 37: the month names live in rag/domain.py (MONTH_NAMES, MONTH, DATE_WRITTEN, month_number, dates_in);
    the names of scale factors in rag/quantities.py (SCALE_WORDS, scale_name); the citation marker's pattern too
    (quantities.MARKER)."""
    assert not literal_uses(RAG.parent, r"(?i)\bseptember\b|\bsept?\|", "rag/domain.py")
    assert not literal_uses(RAG.parent, r"\{1e3: ", "rag/quantities.py")
    assert not literal_uses(RAG.parent, r"^\\\[\(\\d\{1,2\}\)\\\]$", "rag/quantities.py")


def untyped_row_lists(root: Path) -> list[str]:
    """Every `list[dict` annotation in rag/: a list of untyped rows."""
    return [f"{p.relative_to(root)}:{i}" for p in sorted((root / "rag").rglob("*.py"))
            for i, line in enumerate(p.read_text().splitlines(), 1) if "list[dict" in line]


# The ones left, each raw rows passed straight through (issue 37): the name for a query's raw rows, a data file's
# TSV rows (csv.DictReader's), and the documents the API returns as JSON (DocumentMeta.to_json).
ROW_LISTS_LEFT = {"rag/records.py", "rag/metrics.py", "rag/api.py"}


def test_rows_are_typed_records_with_at_most_five_untyped_lists_left():
    """Issue 37: figures and ingestion rows are typed records (rag.records: ChunkRow, FigureRow, FactRow, …;
    rag.ingest.pdf.Drawing); at most 5 `list[dict]` are left, each raw rows passed straight through."""
    left = untyped_row_lists(RAG.parent)
    assert len(left) <= 5 and {x.split(":")[0] for x in left} <= ROW_LISTS_LEFT, left


def test_the_row_check_sees_an_untyped_list(tmp_path):
    (tmp_path / "rag").mkdir()
    (tmp_path / "rag" / "a.py").write_text("def f() -> list[dict]:\n    return []\n")
    assert untyped_row_lists(tmp_path) == ["rag/a.py:1"]


def _mirror(root: Path, module: Path) -> Path:
    """rag/answer/labels.py → tests/unit/answer/test_labels.py; rag/quantities.py → tests/unit/test_quantities.py."""
    parts = module.relative_to(root / "rag").with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1] or ("rag",)
    return root / "tests" / "unit" / Path(*parts[:-1]) / f"test_{parts[-1]}.py"


def _imports(text: str) -> set[str]:
    """The rag modules a test file imports ("rag.answer", "rag.answer.labels" for `from rag.answer import labels`)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rag":
            out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "rag"}
    return out


def _covers(name: str, tests: list[Path], how: str) -> bool:
    """The tests exist, and each imports the module, or the tests named in `how` (test_…) are defined in them."""
    if not tests or not all(t.exists() for t in tests):
        return False
    texts = [t.read_text() for t in tests]
    named = re.findall(r"\btest_\w+", how)
    if named:
        return all(any(re.search(rf"^def {n}\(", x, re.M) for x in texts) for n in named)
    return all(name in _imports(x) or (name in ("rag.cli", "rag.__main__") and '"-m", "rag"' in x) for x in texts)


def untested_modules(root: Path) -> list[str]:
    """Modules of rag/ with neither a test file of their own (the mirror) nor a line in tests/COVERAGE.tsv naming
    the tests that cover them."""
    table = root / "tests" / "COVERAGE.tsv"
    rows = [ln.split("\t") for ln in table.read_text().splitlines() if ln and not ln.startswith("#")] \
        if table.exists() else []
    covered = {r[0]: ([root / t for t in r[1].split()], r[2]) for r in rows if len(r) >= 3}
    out = []
    for p in sorted((root / "rag").rglob("*.py")):
        name = ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        if not _mirror(root, p).exists() and not _covers(name, *covered.get(name, ([], ""))):
            out.append(name)
    return out


def test_tests_mirror_the_package_and_every_module_has_its_tests():
    """Issue 37: tests/unit mirrors rag/ (tests/unit/answer/…, tests/unit/ingest/…, tests/unit/retrieve/…), and a
    module without a test file of its own has a line in tests/COVERAGE.tsv naming the tests that cover it."""
    assert not untested_modules(RAG.parent), untested_modules(RAG.parent)
    assert {p.name for p in (RAG.parent / "tests" / "unit").iterdir() if p.is_dir()} >= {"answer", "ingest", "retrieve"}


def test_the_coverage_check_sees_a_module_without_tests(tmp_path):
    (tmp_path / "rag" / "answer").mkdir(parents=True)
    (tmp_path / "tests" / "unit" / "answer").mkdir(parents=True)
    (tmp_path / "rag" / "answer" / "a.py").write_text("")
    (tmp_path / "rag" / "answer" / "b.py").write_text("")
    (tmp_path / "rag" / "answer" / "c.py").write_text("")
    (tmp_path / "tests" / "unit" / "answer" / "test_a.py").write_text("")
    (tmp_path / "tests" / "db.py").write_text("from rag.answer import b\n")
    (tmp_path / "tests" / "db2.py").write_text("def test_c_through_its_caller():\n    pass\n")
    (tmp_path / "rag" / "answer" / "d.py").write_text("")
    (tmp_path / "tests" / "COVERAGE.tsv").write_text("rag.answer.b\ttests/db.py\timports and tests it\n"
                                                     "rag.answer.c\ttests/db2.py\ttest_c_through_its_caller\n"
                                                     "rag.answer.d\ttests/db2.py\ttest_gone\n")
    assert untested_modules(tmp_path) == ["rag.answer.d"]
