"""The confidence policy of the offline answer: a small logistic model over the checks the answer made (what kind of
lead, whether its value is printed in its cited passage, whether entity, measure and period match the question, how
well the lead fits the question by meaning and type, rival rows, unsupported numbers), fitted on the tuning part of
`bench/questions/broad_*.jsonl` by `bench/fit_confidence.py` (coefficients and thresholds in
`data/confidence.json`). "high" and "medium" are the probabilities of being right above which the tuning part was
right at least 0.90 and 0.60 of the time; an answer about another entity or period is never above "low"."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

__all__ = ["FEATURES", "features", "probability", "label"]

KINDS = ("fact", "metric", "compare", "rows", "sentence", "chart")
FEATURES = (["bias"] + [f"kind_{k}" for k in KINDS] +
            ["verified", "entity", "measure", "period", "fit", "has_fit", "rivals", "unsupported"])
_STATE = {"match": 1.0, "inferred": 0.0, "mismatch": -1.0}
_DATA = Path(__file__).resolve().parent / "data" / "confidence.json"


def features(signals: dict) -> list[float]:
    """The model's inputs from an answer's signals."""
    fit = signals.get("fit")
    return ([1.0] + [1.0 if signals.get("kind") == k else 0.0 for k in KINDS] +
            [1.0 if signals.get("verified") else 0.0] +
            [_STATE.get(signals.get(k) or "inferred", 0.0) for k in ("entity", "measure", "period")] +
            [float(fit) if fit is not None else 0.0, 0.0 if fit is None else 1.0,
             1.0 if signals.get("rivals") else 0.0, float(min(3, signals.get("unsupported") or 0))])


@lru_cache(maxsize=1)
def _model() -> dict:
    return json.loads(_DATA.read_text())


def probability(signals: dict) -> float:
    w = _model()["weights"]
    z = sum(w.get(name, 0.0) * x for name, x in zip(FEATURES, features(signals)))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def label(signals: dict) -> str:
    """high | medium | low, from the probability of being right; never above low about another entity or period,
    or when the lead's value is not printed in its cited passage."""
    m = _model()
    p = probability(signals)
    if signals.get("entity") == "mismatch" or signals.get("period") == "mismatch" or not signals.get("verified"):
        return "low"
    return "high" if p >= m["high"] else "medium" if p >= m["medium"] else "low"
