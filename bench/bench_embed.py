"""Embedding benchmark: the old path (torch fp32, sentence-transformers) against torch bf16 (the default where the
CPU multiplies bf16 natively) and int8 ONNX, in the same run.

Texts are what ingestion embeds: each chunk's context line and text, from a real 10-K (the 3M 2022 filing in
../shared when present, else the repo's 10-K excerpt). Speed is chunks per second with one thread (per core) and
with all cores, the median of `--repeats` interleaved runs. Agreement is the cosine between the two backends'
vectors of the same texts (each against fp32), and the overlap of each text's five nearest neighbours among the
others. The CPU's model and matrix features are recorded: the ratios depend on them.

Usage: python bench/bench_embed.py [--pages 120] [--repeats 3] [--out bench/results/embed.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import bench_ingest  # noqa: E402  (its cpu_name)

SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
SOURCES = [SHARED / "corpus/financebench-dev/3M_2022_10K.pdf", ROOT / "samples/3m_2022_10k_excerpt.pdf"]


def chunk_texts(pages: int) -> tuple[str, list[str]]:
    """The texts ingestion would embed for the first `pages` pages of the first source found."""
    from rag.config import Settings
    from rag.ingest.pdf import open_pdf
    from rag.ingest.pipeline import parse_pdf

    src = next(p for p in SOURCES if p.exists())
    doc = open_pdf(src)
    doc.select(list(range(min(pages, doc.page_count))))
    chunks, _, _, _ = parse_pdf(doc, Settings())
    return src.name, [f"3M 10-K FY2022 | {c.heading}\n{c.text}" if c.heading else f"3M 10-K FY2022\n{c.text}"
                      for c in chunks]


BACKENDS = {"torch fp32": ("torch", "fp32"), "torch bf16": ("torch", "bf16"), "onnx int8": ("onnx-int8", "auto")}


def embedder(name: str, threads: int):
    import torch

    from rag.config import EmbeddingSettings
    from rag.embed import Embedder

    backend, precision = BACKENDS[name]
    torch.set_num_threads(threads)
    return Embedder(EmbeddingSettings(backend=backend, precision=precision, threads=threads)).load()


def rate(emb, texts: list[str], threads: int) -> float:
    import torch

    torch.set_num_threads(threads)
    t = time.perf_counter()
    emb.encode(texts)
    return len(texts) / (time.perf_counter() - t)


def agreement(a: np.ndarray, b: np.ndarray) -> dict:
    cos = (a * b).sum(axis=1)
    def top5(v):
        sim = v @ v.T
        np.fill_diagonal(sim, -2)
        return np.argsort(-sim, axis=1)[:, :5]
    ta, tb = top5(a), top5(b)
    overlap = np.mean([len(set(x) & set(y)) / 5 for x, y in zip(ta, tb, strict=True)])
    return {"cosine_mean": round(float(cos.mean()), 5), "cosine_min": round(float(cos.min()), 5),
            "top5_neighbour_overlap": round(float(overlap), 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=120)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench/results/embed.json"))
    args = ap.parse_args()
    source, texts = chunk_texts(args.pages)
    cores = os.cpu_count() or 1
    runs: dict[tuple[str, int], list[float]] = {}
    models = {(b, t): embedder(b, t) for b in BACKENDS for t in sorted({1, cores})}
    for emb in models.values():
        emb.encode(texts[:8])  # warm up
    for _ in range(args.repeats):  # interleaved, so that load on the machine falls on all alike
        for key, emb in models.items():
            runs.setdefault(key, []).append(rate(emb, texts, key[1]))
    rows = []
    for t in sorted({1, cores}):
        old = statistics.median(runs[("torch fp32", t)])
        for b in BACKENDS:
            new = statistics.median(runs[(b, t)])
            rows.append({"threads": t, "backend": b, "label": models[(b, t)].label, "chunks_per_s": round(new, 1),
                         "speedup": round(new / old, 2)})
    ref = models[("torch fp32", 1)].encode(texts)
    agree = {b: agreement(ref, models[(b, 1)].encode(texts)) for b in BACKENDS if b != "torch fp32"}
    tokens = models[("torch fp32", 1)].count_tokens(texts)
    cpu = bench_ingest.cpu_name()
    print(f"{len(texts)} chunk texts from {source} ({args.pages} pages), median of {args.repeats} runs; {cpu}")
    print(f"{'threads':>7} | {'backend':<11} | {'runs as':<11} | {'chunks/s':>8} | {'x fp32':>6}")
    for r in rows:
        print(f"{r['threads']:>7} | {r['backend']:<11} | {r['label']:<11} | {r['chunks_per_s']:>8} | "
              f"{r['speedup']:>5}x")
    for b, a in agree.items():
        print(f"{b} against fp32: cosine mean {a['cosine_mean']}, least {a['cosine_min']}; "
              f"top-5 neighbours shared {a['top5_neighbour_overlap']:.1%}")
    out = {"source": source, "pages": args.pages, "texts": len(texts), "median_tokens": int(np.median(tokens)),
           "repeats": args.repeats, "cores": cores, "cpu": cpu, "rates": rows, "agreement": agree,
           "runs": {f"{b}/{t}": [round(x, 2) for x in v] for (b, t), v in runs.items()}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
