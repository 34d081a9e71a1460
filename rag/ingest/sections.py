"""Section types for paper sections whose heading names a topic ('5 Pretraining BERT on S2ORC'): each such
section takes the type whose prototype description is closest to its chunks in the embedding space.
(Only methods and results: the other types are named by their headings, and a broad 'discussion' prototype
pulled in whole sections of every kind.)"""

from __future__ import annotations

import numpy as np

PROTOTYPES: dict[str, str] = {
    "methods": "We describe our method: the model architecture, how it is trained and fine-tuned, the training data, "
               "the algorithm, implementation details and hyperparameters of our approach.",
    "results": "Experimental results: our model outperforms the baselines; accuracy, F1 and other scores are reported "
               "in the table and figure; evaluation on the benchmark datasets and ablation study.",
}

_cache: dict[str, tuple[list[str], np.ndarray]] = {}


def _prototypes(embedder) -> tuple[list[str], np.ndarray]:
    key = embedder.model_name
    if key not in _cache:
        names = list(PROTOTYPES)
        _cache[key] = (names, embedder.encode([PROTOTYPES[n] for n in names]))
    return _cache[key]


def assign_by_content(chunks: list, vecs: np.ndarray, embedder, min_sim: float = 0.2, margin: float = 0.02) -> int:
    """Relabel 'other' sections (grouped by heading) after the first chunk; returns how many chunks changed."""
    names, protos = _prototypes(embedder)
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(chunks):
        if c.section_type == "other" and c.chunk_index > 0 and c.heading_path:
            groups.setdefault(c.heading, []).append(i)
    changed = 0
    for idx in groups.values():
        centroid = vecs[idx].mean(axis=0)
        centroid /= np.linalg.norm(centroid) or 1.0
        sims = protos @ centroid
        order = np.argsort(-sims)
        if sims[order[0]] >= min_sim and sims[order[0]] - sims[order[1]] >= margin:
            for i in idx:
                chunks[i].section_type = names[order[0]]
                changed += 1
    return changed
