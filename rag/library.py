"""What the library holds, said in a sentence, and the sample documents a first run can load.

Samples (samples/; sources and licences in README.md): an excerpt of a research paper (LongEval, EACL 2023,
CC BY 4.0), an excerpt of an SEC filing (3M's Form 10-K for 2022: cover and financial statements; a public
record), and a short sustainability report of a fictional company written for this project
(scripts/make_sample_report.py, CC0)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rag.answer.labels import short_company
from rag.records import DocumentMeta

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
KIND_NAMES = {"10-K": ("10-K", "10-Ks"), "10-Q": ("10-Q", "10-Qs"), "8-K": ("8-K", "8-Ks"),
              "earnings release": ("earnings release", "earnings releases"),
              "sustainability report": ("sustainability report", "sustainability reports"),
              "annual report": ("annual report", "annual reports"),
              "research paper": ("research paper", "research papers"), "other": ("other document", "other documents")}


def sample_files() -> list[Path]:
    return sorted(SAMPLES.glob("*.pdf"))


def load_samples(store, embedder, settings, progress=None) -> list:
    """Ingest every sample document (one transaction each; one already in the library is reported as such)."""
    from rag.ingest.pipeline import ingest_file

    out = []
    for path in sample_files():
        out.append(ingest_file(path, store, embedder, settings,
                               progress=(lambda stage, done, total, p=path: progress(p.name, stage, done, total))
                               if progress else None))
    return out


def _years(docs: list[DocumentMeta]) -> str:
    ys = sorted({d.fiscal_year for d in docs if d.fiscal_year})
    if not ys:
        return ""
    return f" ({ys[0]})" if len(ys) == 1 else f" ({ys[0]}–{ys[-1]})"


def library_summary(docs: list[DocumentMeta]) -> str:
    """'7 documents: 4 10-Ks of 3M and Boeing (2019–2022), 2 research papers (2020–2023), 1 sustainability report
    of Northwind Dairy Cooperative (2023).'"""
    if not docs:
        return "The library is empty."
    by_kind: dict[str, list[DocumentMeta]] = {}
    for d in docs:
        by_kind.setdefault(d.doc_type if d.doc_type in KIND_NAMES else "other", []).append(d)
    parts = []
    for kind, group in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        one, many = KIND_NAMES[kind]
        companies = [c for c, _ in Counter(short_company(d.company) for d in group if d.company).most_common()]
        who = ""
        if companies and kind != "research paper":
            shown = companies[:3]
            who = " of " + (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0])
            who += f" and {len(companies) - 3} more" if len(companies) > 3 else ""
        parts.append(f"{len(group)} {one if len(group) == 1 else many}{who}{_years(group)}")
    n = len(docs)
    return f"{n} document{'s' if n != 1 else ''}: " + ", ".join(parts) + "."
