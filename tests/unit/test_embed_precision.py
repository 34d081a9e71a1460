"""torch embeddings in bf16 against fp32, with the real MiniLM weights (no stand-ins): same vector space, checked
when the model loads, fp32 when the check fails or the CPU has no native bf16."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from rag import embed
from rag.config import EmbeddingSettings
from rag.embed import Embedder, native_bf16

TEXTS = [
    "Total net sales were $34.2 billion in 2022, up 1.2% from 2021.",
    "Our Scope 3 emissions from purchased goods fell by 7% against the 2019 baseline.",
    "We fine-tune BERT on SQuAD and report exact match and F1 on the development set.",
    "Capital expenditures | 2022 | 2021\nPurchases of property, plant and equipment | (1,749) | (1,603)",
    "word " * 400,  # longer than the model's 256 tokens: truncated alike
]
QUERIES = ["How much revenue in 2022?", "scope 3 emissions reduction", "SQuAD F1 score",
           "purchases of property and equipment"]


@pytest.fixture(scope="module")
def pair():
    return (Embedder(EmbeddingSettings(backend="torch", precision="fp32")),
            Embedder(EmbeddingSettings(backend="torch", precision="bf16")))


def test_bf16_vectors_are_the_fp32_vectors(pair):
    fp32, bf16 = pair
    assert (fp32.label, bf16.label) == ("torch-fp32", "torch-bf16")
    a, b = fp32.encode(TEXTS), bf16.encode(TEXTS)
    assert b.dtype == np.float32 and b.shape == a.shape == (5, 384)
    assert np.allclose(np.linalg.norm(b, axis=1), 1, atol=1e-5)
    assert (a * b).sum(axis=1).min() > 0.999
    # queries of either precision find the same passages in the other's vectors (a store built in fp32 stays usable)
    for q_emb, docs in ((bf16, a), (fp32, b), (bf16, b)):
        q = np.stack([q_emb.encode_query(x) for x in QUERIES])
        assert list(np.argmax(q @ docs[:4].T, axis=1)) == [0, 1, 2, 3]


def test_auto_takes_bf16_only_where_the_cpu_multiplies_it_natively():
    e = Embedder(EmbeddingSettings(backend="torch"))
    assert e.cfg.precision == "auto"
    assert e.label == ("torch-bf16" if native_bf16() else "torch-fp32")


def test_a_failed_probe_check_falls_back_to_fp32(monkeypatch, caplog):
    monkeypatch.setattr(embed, "MIN_BF16_MEAN_COSINE", 1.01)  # a bar no real model clears
    e = Embedder(EmbeddingSettings(backend="torch", precision="bf16"))
    with caplog.at_level(logging.WARNING, logger="rag.embed"):
        assert e.label == "torch-fp32"
    assert "drifted from fp32" in caplog.text
    import torch

    assert next(e.model.parameters()).dtype == torch.float32


def test_threads_setting_reaches_torch():
    import torch

    before = torch.get_num_threads()
    try:
        Embedder(EmbeddingSettings(backend="torch", precision="fp32", threads=1)).load()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
