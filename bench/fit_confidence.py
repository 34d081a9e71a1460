"""Fit the offline answer's confidence policy (rag/answer/confidence.py) on the TUNING part of the broad labelled
sets, from `rag eval --answers --json` reports: a logistic model of "the answer is right" over the answer's signals
(L2-regularised, plain numpy, with the signs of the checks fixed), then the thresholds: "high" where the tuning part is right at least 0.90 of the time,
"medium" where at least 0.60. The held-back part is never read. Writes rag/answer/data/confidence.json and prints the
reliability table of the tuning part.

Usage: python bench/fit_confidence.py REPORT.json [REPORT.json …] [--out rag/answer/data/confidence.json]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.answer.confidence import FEATURES, features  # noqa: E402


def rows(reports: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    X, y = [], []
    for p in reports:
        for x in json.loads(p.read_text())["per_question"]:
            if x.get("split") != "tune" or x.get("refused") or not x.get("signals"):
                continue
            X.append(features(x["signals"]))
            y.append(1.0 if x["right"] else 0.0)
    return np.array(X), np.array(y)


# a check that holds never lowers the confidence, a rival row or an unsupported number never raises it: the signs are
# fixed, so a few hundred tuning answers cannot teach the policy that a matched period is a bad sign
AT_LEAST_ZERO = {"verified", "entity", "measure", "period", "fit"}
AT_MOST_ZERO = {"rivals", "unsupported"}


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 20000, lr: float = 0.05) -> np.ndarray:
    """Logistic regression by projected gradient descent (L2, the sign constraints above)."""
    w = np.zeros(X.shape[1])
    lo = np.array([0.0 if n in AT_LEAST_ZERO else -np.inf for n in FEATURES])
    hi = np.array([0.0 if n in AT_MOST_ZERO else np.inf for n in FEATURES])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-X @ w))
        grad = X.T @ (p - y) / len(y) + l2 * np.r_[0.0, w[1:]] / len(y)
        w = np.clip(w - lr * grad, lo, hi)
    return w


def threshold(p: np.ndarray, y: np.ndarray, target: float, upper: float = 1.01, min_n: int = 5) -> float:
    """The lowest probability from which the answers up to `upper` are right at least `target` of the time."""
    for t in sorted(set(np.round(p, 3))):
        sel = (p >= t) & (p < upper)
        if sel.sum() >= min_n and y[sel].mean() >= target:
            return float(t)
    return upper


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "rag" / "answer" / "data" / "confidence.json")
    args = ap.parse_args()
    X, y = rows(args.reports)
    w = fit(X, y)
    p = 1 / (1 + np.exp(-X @ w))
    high = threshold(p, y, 0.90)
    medium = threshold(p, y, 0.60, upper=high)
    model = {"weights": {n: round(float(v), 4) for n, v in zip(FEATURES, w)}, "high": high, "medium": medium,
             "fitted_on": [str(r.name) for r in args.reports], "answers": int(len(y)),
             "note": "fitted on the tune split only by bench/fit_confidence.py"}
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    for name, lo, hi in (("high", high, 9), ("medium", medium, high), ("low", -1, medium)):
        sel = (p >= lo) & (p < hi)
        print(f"{name:7} n={int(sel.sum()):4}  right={y[sel].mean() if sel.any() else float('nan'):.3f}")
    print(f"wrote {args.out} from {len(y)} tuning answers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
