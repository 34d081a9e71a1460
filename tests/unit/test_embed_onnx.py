"""The int8 ONNX embedding backend against the torch one, with the real MiniLM weights (no stand-ins)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from rag.config import EmbeddingSettings
from rag.embed import Embedder, resolve_model_path
from rag.errors import RagError

TEXTS = [
    "Total net sales were $34.2 billion in 2022, up 1.2% from 2021.",
    "Our Scope 3 emissions from purchased goods fell by 7% against the 2019 baseline.",
    "We fine-tune BERT on SQuAD and report exact match and F1 on the development set.",
    "Capital expenditures | 2022 | 2021\nPurchases of property, plant and equipment | (1,749) | (1,603)",
]
QUERIES = ["How much revenue in 2022?", "scope 3 emissions reduction", "SQuAD F1 score",
           "purchases of property and equipment"]


@pytest.fixture(scope="module")
def both():
    return Embedder(EmbeddingSettings(backend="torch")), Embedder(EmbeddingSettings(backend="onnx-int8"))


def test_default_model_runs_int8_and_agrees_with_torch(both):
    torch_e, onnx_e = both
    assert Embedder().backend == "torch"  # the default until int8 answers as well (issue 16)
    assert Embedder(EmbeddingSettings(backend="auto")).backend == "onnx-int8"
    a, b = torch_e.encode(TEXTS), onnx_e.encode(TEXTS)
    assert b.shape == (4, 384) and b.dtype == np.float32
    assert np.allclose(np.linalg.norm(b, axis=1), 1, atol=1e-5)
    assert (a * b).sum(axis=1).min() > 0.98
    # each query finds the same passage with either backend, and queries from one backend search the other's vectors
    for q_emb, d_vecs in ((onnx_e, a), (onnx_e, b), (torch_e, b)):
        q = np.stack([q_emb.encode_query(x) for x in QUERIES])
        assert list(np.argmax(q @ d_vecs.T, axis=1)) == [0, 1, 2, 3]


def test_token_counts_match_the_torch_tokenizer(both):
    torch_e, onnx_e = both
    long = ["word " * 700, *TEXTS]
    assert onnx_e.count_tokens(long) == torch_e.count_tokens(long)
    assert onnx_e.count_tokens(long)[0] == 700  # no truncation when counting


def test_built_model_is_verified_on_load(both, tmp_path, monkeypatch):
    from pathlib import Path

    from rag import embed_onnx

    built = embed_onnx.ensure_model(Path(resolve_model_path(EmbeddingSettings().model)))
    info = __import__("json").loads(built.with_suffix(".json").read_text())
    assert info["probe_cosine_mean"] >= embed_onnx.MIN_MEAN_COSINE and info["source_sha256"]
    monkeypatch.setenv("RAG_MODEL_CACHE", str(tmp_path))
    copy = tmp_path / built.name
    shutil.copy(built, copy)
    shutil.copy(built.with_suffix(".json"), copy.with_suffix(".json"))
    with open(copy, "r+b") as f:  # one byte changed in the middle of the weights
        f.seek(copy.stat().st_size // 2)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(RagError, match="does not match its recorded sha256"):
        Embedder(EmbeddingSettings(backend="onnx-int8")).load()


def test_another_model_runs_on_torch():
    path = resolve_model_path(EmbeddingSettings().model)  # a local sentence-transformers folder given by path
    other = Embedder(EmbeddingSettings(model=path))
    assert other.backend == "torch"
    assert other.encode(TEXTS[:1]).shape == (1, 384)
