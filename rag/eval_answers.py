"""Answer evaluation (`rag eval --answers`): does the answer's first sentence give the gold number, is a computed
figure right, are unanswerable questions refused and answerable ones answered, does "high" mean right, and how
long does the answer step take — for the system and, in the same run, for the baseline: plain cosine top 5 and the
quotes answer (the extractive answer before table facts: sentences and rows stitched in document order)."""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from rag.eval import Question, load_questions, pct, resolve_documents
from rag.quantities import Num, numbers
from rag.records import CONFIDENCES, StoredChunk

ANSWER_TYPES = ("reported", "computed", "narrative")


@dataclass
class Gold:
    kind: str  # reported | computed | narrative | unanswerable
    value: Num | None  # the gold number, when the answer is one
    others: list[Num] | None = None  # a gold answer's other numbers (labelled without a value: any of them)
    each: list[Num] | None = None  # a comparison's value per entity or period: the lead gives every one


def _lead_number(text: str) -> Num | None:
    """The gold number of a short gold answer: its first number, when the answer starts with it ("$1577.00",
    "16.5% operating margin", "About 16.4B tokens"); None for a narrative answer ("Yes, the margins …")."""
    nums = numbers(text or "")
    if not nums:
        return None
    head = " ".join((text or "").split()[:4])
    return nums[0] if nums[0].raw.strip() in head or nums[0].raw.strip().lstrip("$") in head else None


def gold_of(q: dict, page_texts: list[str]) -> Gold:
    """What kind of answer the question has. Labelled sets say it (answer_type, value); otherwise a gold answer
    that starts with a number is reported when a gold page prints it, computed when none does."""
    if q.get("kind") == "unanswerable":
        return Gold("unanswerable", None)
    each = [n for v in (q.get("values") or []) for n in numbers(str(v))[:1]] or None
    kind = q.get("answer_type")
    value = None
    if q.get("value"):
        got = numbers(str(q["value"]))
        value = got[0] if got else None
    if value is None:
        value = _lead_number(q.get("answer") or "")
    if kind in ANSWER_TYPES:
        if value is None and each and kind != "narrative":
            return Gold(kind, each[0], each=each)
        return Gold(kind, value if kind != "narrative" else None, each=each if kind != "narrative" else None)
    nums = numbers(q.get("answer") or "")
    if value is None and (not nums or not asks_figure(q["question"])):
        return Gold("narrative", None)
    # a gold answer written as prose ("declined from 36.8% in FY 2021 to 34.6% in FY2022"): its numbers
    value = value or nums[0]
    printed = any(number_matches(value, x, tolerance=0.0) for t in page_texts for x in numbers(t))
    return Gold("reported" if printed else "computed", value, nums)


def asks_figure(question: str) -> bool:
    """A question whose answer is a figure: it asks how much or how many, names a metric, or asks what a measure
    was in a period; not one that asks why, or who, or what happened."""
    from rag.domain import periods_in
    from rag.metrics import metric_of
    from rag.retrieve.measure import strip_instructions
    from rag.retrieve.query import understand

    it = understand(question)
    if it.explain:
        return False
    q = strip_instructions(question)
    return bool(it.asks_quantity or metric_of(question) or re.search(r"\b(how much|how many|what percent|ratio|"
                                                                     r"margin|rate|growth|change in)\b", q, re.I)
                or (periods_in(q) and re.match(r"\s*what (is|was|were)\b", q, re.I)))


def number_matches(gold: Num, got: Num, tolerance: float = 0.0) -> bool:
    """got is gold in any format or scale ($8.70 billion ~ 8,700 in a table in millions; 0.66 ~ 66%): the gold is
    brought into got's unit, and they agree within the rounding of either (or the relative tolerance)."""
    g = gold.value
    g_tol = 0.5 * 10 ** -gold.decimals * gold.scale
    if gold.percent and not got.percent:
        g, g_tol = g / 100, g_tol / 100
    elif got.percent and not gold.percent:
        g, g_tol = g * 100, g_tol * 100
    got_tol = 0.5 * 10 ** -got.decimals * got.scale
    scales = (1.0,) if (gold.percent or got.percent) else (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9)
    for f in scales:
        gv = g * f
        tol = max(g_tol * f, got_tol, tolerance * abs(gv))
        if abs(got.value - gv) <= tol + 1e-9 * max(1.0, abs(gv)):
            return True
    return False


def lead_of(answer_md: str, kind: str | None) -> str:
    """What the lead is judged on: the first sentence; for a comparison, the first paragraph (one sentence per
    entity, then the comparison)."""
    if kind == "compare":
        text = re.sub(r"^\s*\*\*[^*]{1,120}\*\*:?\s*", "", answer_md or "")
        return text.split("\n\n", 1)[0].strip()
    return lead_sentence(answer_md)


def lead_sentence(answer_md: str) -> str:
    """The answer's first sentence: past a bold document label ("**3M 10-K FY2018**:") and a bullet mark, up to
    the first full stop that ends a sentence or the end of the line."""
    text = re.sub(r"^\s*\*\*[^*]{1,120}\*\*:?\s*", "", answer_md or "")
    for line in text.splitlines():
        line = re.sub(r"^\s*[-*•]\s+", "", line).strip()
        if line:
            m = re.search(r"(?<=[^\d\s][.!?])\s+(?=[A-Z(\"'*])|(?<=\][.!?])\s+|(?<=\d[.!?])\s+(?=[A-Z])", line)
            return line[: m.start()] if m else line
    return ""


class AnswerJudged(TypedDict, total=False):
    """One answer judged against its gold (a row of an answers report's per_question)."""
    id: str
    kind: str | None
    answer_type: str  # reported | computed | unanswerable | … (Gold.kind)
    missing: str | None  # what an unanswerable question lacks: company | period | measure
    refused: bool
    confidence: str
    lead: str  # the answer's first sentence
    page_cited: bool
    lead_correct: bool
    anywhere_correct: bool
    computed_correct: bool
    right: bool
    n_figures: int
    never_shown_kinds: int
    asks_chart: bool
    figure_hit: bool
    figures_right: int
    answer: str
    split: str | None
    reasons: list[str]
    signals: dict[str, Any]


def judge(q: Question, gold: Gold, a, gold_pages: set[tuple[int, int]], names: dict[str, int] | None = None
          ) -> AnswerJudged:
    """One answer against its gold."""
    lead = lead_of(a.answer, q.get("kind")) if not a.insufficient else ""
    lead_nums = numbers(lead)
    all_nums = numbers(a.answer) if not a.insufficient else []
    item: AnswerJudged = {
        "id": q["id"], "kind": q.get("kind"), "answer_type": gold.kind, "missing": q.get("missing"),
        "refused": a.insufficient, "confidence": a.confidence, "lead": lead[:300],
        "page_cited": any((e.document_id, p) in gold_pages for e in a.evidence for p in e.pages),
    }
    if gold.value is not None:
        golds = gold.others or [gold.value]
        item["lead_correct"] = any(number_matches(g, x) for g in golds for x in lead_nums)
        item["anywhere_correct"] = any(number_matches(g, x) for g in golds for x in all_nums)
        item["computed_correct"] = any(number_matches(g, x, tolerance=0.01) for g in golds for x in lead_nums)
        if gold.each:  # a comparison: the lead gives every compared value (or the difference asked)
            every = all(any(number_matches(g, x, tolerance=0.005) for x in lead_nums) for g in gold.each)
            item["lead_correct"] = item["computed_correct"] = every or (
                q.get("value") is not None and item["computed_correct"])
    item.update(judge_figures(q, a, names or {}))
    if gold.kind == "unanswerable":
        item["right"] = a.insufficient
    elif gold.kind == "reported":
        item["right"] = bool(item.get("lead_correct")) if gold.value else item["page_cited"]
    elif gold.kind == "computed":
        item["right"] = bool(item.get("computed_correct"))
    else:
        item["right"] = not a.insufficient and item["page_cited"]
    return item


def judge_figures(q: dict, a, gold_doc: dict[str, int]) -> dict[str, Any]:
    """The figures shown: the gold chart among them (its document and page), how many are on the gold page, how many
    are of a kind never to be shown (photo, logo, cover, decoration, table: the stored kind)."""
    from rag.ingest.figkind import NEVER_SHOWN

    shown = [(f.document_id, f.page, f.kind) for f in a.figures]
    out: dict[str, Any] = {"n_figures": len(shown), "never_shown_kinds": sum(k in NEVER_SHOWN for _, _, k in shown),
                           "asks_chart": bool(q.get("figure")) or q.get("kind") == "figure"}
    g = q.get("figure")
    if g:
        gid = gold_doc.get(g["doc"])
        on_page = [x for x in shown if x[0] == gid and x[1] == g["page"]]
        out["figure_hit"] = bool(on_page)
        out["figures_right"] = len(on_page)
    return out


def _figure_summary(items: list[AnswerJudged]) -> dict[str, Any]:
    figq = [x for x in items if "figure_hit" in x]
    other = [x for x in items if not x.get("asks_chart")]
    shown = sum(x["n_figures"] for x in figq)
    return {
        "figure_hit": round(sum(x["figure_hit"] for x in figq) / len(figq), 3) if figq else None,
        "figure_questions": len(figq),
        "figure_precision": round(sum(x["figures_right"] for x in figq) / shown, 3) if shown else None,
        "figures_per_other_answer": round(sum(x["n_figures"] for x in other) / len(other), 2) if other else None,
        "never_shown_kinds_shown": sum(x["never_shown_kinds"] for x in items),
    }


def summarise(items: list[AnswerJudged], answer_ms: list[float], total_ms: list[float]) -> dict[str, Any]:
    def rate(xs: list[AnswerJudged], key: str) -> float | None:
        return round(sum(bool(x.get(key)) for x in xs) / len(xs), 3) if xs else None

    reported = [x for x in items if x["answer_type"] == "reported" and "lead_correct" in x]
    computed = [x for x in items if x["answer_type"] == "computed" and "computed_correct" in x]
    unans = [x for x in items if x["answer_type"] == "unanswerable"]
    ans = [x for x in items if x["answer_type"] != "unanswerable"]
    high = [x for x in items if x["confidence"] == "high"]
    facts = [x for x in items if x["answer_type"] in ("reported", "computed") and "lead_correct" in x]
    out = {
        "lead_correct_facts": rate(facts, "lead_correct"), "fact_questions": len(facts),
        "questions": len(items),
        "lead_correct_reported": rate(reported, "lead_correct"), "reported_questions": len(reported),
        "computed_correct": rate(computed, "computed_correct"), "computed_questions": len(computed),
        "gold_number_anywhere": rate(reported + computed, "anywhere_correct"),
        "refusal_unanswerable": rate(unans, "refused"), "unanswerable_questions": len(unans),
        "refusal_answerable": rate(ans, "refused"),
        "high_precision": rate(high, "right"), "high_answers": len(high),
        "gold_page_cited": rate([x for x in ans if not x["refused"]], "page_cited"),
        "answer_step_p50_ms": round(pct(answer_ms, 50), 1) if answer_ms else None,
        "answer_step_p95_ms": round(pct(answer_ms, 95), 1) if answer_ms else None,
        "latency_p50_ms": round(statistics.median(total_ms), 1) if total_ms else None,
        "confidence": {c: sum(1 for x in items if x["confidence"] == c)
                       for c in CONFIDENCES},
        # the reliability table: how often an answer of each confidence is right
        "reliability": {c: {"n": len(xs), "right": rate(xs, "right")}
                        for c in CONFIDENCES
                        for xs in [[x for x in items if x["confidence"] == c]]},
    }
    out.update(_figure_summary(items))
    missing = sorted({x["missing"] for x in unans if x.get("missing")})
    if missing:
        out["refused_by_missing"] = {m: rate([x for x in unans if x.get("missing") == m], "refused") for m in missing}
    return out


KEYS = ["lead_correct_facts", "lead_correct_reported", "computed_correct", "gold_number_anywhere", "refusal_unanswerable",
        "refusal_answerable", "high_precision", "high_answers", "gold_page_cited", "answer_step_p50_ms",
        "latency_p50_ms", "figure_hit", "figure_precision", "figures_per_other_answer", "never_shown_kinds_shown"]


def format_answer_report(rep: dict) -> str:
    s, b = rep["system"], rep.get("baseline", {})
    head = (f"{rep['questions']} questions: {s['reported_questions']} reported numbers, {s['computed_questions']} "
            f"computed, {s['unanswerable_questions']} unanswerable")
    lines = [head, f"{'metric':26} {'system':>10} {'baseline':>10}"]
    fmt = lambda v: "—" if v is None else (f"{v:.3f}" if isinstance(v, float) and v <= 1.0 else str(v))
    for k in KEYS:
        lines.append(f"{k:26} {fmt(s.get(k)):>10} {fmt(b.get(k)):>10}")
    lines.append(f"{'confidence':26} {s['confidence']}  (baseline {b.get('confidence')})")
    lines.append(f"{'right by confidence':26} " + ", ".join(f"{c} {v['right']} of {v['n']}"
                                                             for c, v in s["reliability"].items() if v["n"]))
    for part, reps in sorted(rep.get("splits", {}).items()):
        p = reps["system"]
        lines.append(f"[{part}] {p['questions']} q: lead(facts) {fmt(p['lead_correct_facts'])}, refused unanswerable "
                     f"{fmt(p['refusal_unanswerable'])}, refused answerable {fmt(p['refusal_answerable'])}, high "
                     f"right {fmt(p['high_precision'])} of {p['high_answers']}")
    if s.get("refused_by_missing"):
        lines.append(f"{'refused by missing kind':26} {s['refused_by_missing']}  (baseline {b.get('refused_by_missing')})")
    return "\n".join(lines)


def _page_texts(store, q: Question, names: dict[str, int], cache: dict[int, list[StoredChunk]]) -> list[str]:
    out = []
    for name, pages in (q.get("pages") or {}).items():
        did = names.get(name)
        if did is None:
            continue
        if did not in cache:
            cache[did] = store.document_chunks(did)
        out.extend(c["content"] for c in cache[did] if any(c["page_start"] <= p <= c["page_end"] for p in pages))
    return out


def run_answer_eval(store, embedder, questions_path: Path, settings=None, baseline: bool = True,
                    progress=None) -> dict:
    from rag.assistant import answer
    from rag.assistant.baseline import baseline_answer
    from rag.config import Settings

    settings = settings or Settings()
    questions = load_questions(questions_path)
    names = resolve_documents(store, questions, questions_path)
    docs = store.list_documents()
    embedder.load()
    cache: dict[int, list[StoredChunk]] = {}
    runs: dict[str, tuple[list, list, list]] = {"system": ([], [], []), "baseline": ([], [], [])}
    for i, q in enumerate(questions):
        gold = gold_of(q, _page_texts(store, q, names, cache))
        gold_pages = {(names[n], p) for n, ps in (q.get("pages") or {}).items() if n in names for p in ps}
        for which in ("system", "baseline") if baseline else ("system",):
            embedder._cache.clear()
            t = time.perf_counter()
            if which == "system":
                a = answer(store, embedder, q["question"], settings, documents=docs, history=q.get("history") or None)
            else:
                a = baseline_answer(store, embedder, q["question"], settings, docs)
            items, ans_ms, tot_ms = runs[which]
            tot_ms.append((time.perf_counter() - t) * 1000)
            ans_ms.append(a.timings_ms.get("answer", 0.0))
            item = judge(q, gold, a, gold_pages, names)
            item["answer"] = a.answer[:500]
            item["split"] = q.get("split")
            item["reasons"] = list(a.reasons)[:10]
            item["signals"] = dict(a.signals)
            items.append(item)
        if progress:
            progress(i + 1, len(questions))
    rep: dict[str, Any] = {"questions_file": str(questions_path), "questions": len(questions),
                           "mode": "llm" if settings.llm.base_url else "extractive"}
    for which, (items, ans_ms, tot_ms) in runs.items():
        if items:
            rep[which] = summarise(items, ans_ms, tot_ms)
            rep[f"{which}_per_question" if which != "system" else "per_question"] = items
            splits = sorted({x["split"] for x in items if x.get("split")})
            for part in splits:  # a labelled set split by document: each part on its own
                keep = [i for i, x in enumerate(items) if x.get("split") == part]
                rep.setdefault("splits", {}).setdefault(part, {})[which] = summarise(
                    [items[i] for i in keep], [ans_ms[i] for i in keep], [tot_ms[i] for i in keep])
    return rep
