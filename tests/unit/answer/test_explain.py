"""What the Debug, Compare and demo pages show, as plain data: eval bars with their baseline, whole durations."""

from rag.answer.explain import eval_series
from rag.answer.labels import duration_label


def test_debug_eval_chart_draws_baseline_bars_for_every_metric():
    rep = {"system": {"questions": 9, "doc@k": 1.0, "page@k": 0.8, "mrr": 0.7, "figures_per_answer": 1.4,
                      "latency_p50_ms": 120.0, "section@k": None},
           "baseline": {"questions": 9, "doc@k": 0.9, "page@k": 0.5, "mrr": 0.4, "latency_p50_ms": 40.0}}
    metrics, system, baseline = eval_series(rep)
    assert metrics == ["doc@k", "page@k", "mrr"] and system == [1.0, 0.8, 0.7] and baseline == [0.9, 0.5, 0.4]
    assert eval_series({"system": rep["system"]})[2] == [None, None, None]  # no baseline: the page says so


def test_durations_are_shown_whole():
    assert [duration_label(x) for x in (84.2, 1250, 64_000)] == ["84 ms", "1.25 s", "1 min 04 s"]
