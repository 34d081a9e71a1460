"""Query understanding: target sections from intent, entities (companies in the store, fiscal years and
periods, document types, 'latest'), comparison detection, and follow-up completion from the conversation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.ingest.metadata import company_key

# The design brief's 7 intent categories → (target sections, related sections).
INTENTS: list[tuple[re.Pattern, list[str], list[str]]] = [
    (re.compile(r"\b(results?|findings?|performance|accuracy|score[sd]?|outperform|improve[sd]?|gains?)\b", re.I),
     ["results"], ["discussion"]),
    (re.compile(r"\b(method|methodology|how (was|were|is|are|do|does|did)|implement\w*|architecture|train(ed|ing)?|pretrain\w*|fine-?tun\w*|algorithm)\b", re.I),
     ["methods"], ["results"]),
    (re.compile(r"\b(what is|what are|background|overview|introduc\w*|motivation|problem)\b", re.I),
     ["introduction", "abstract"], ["related_work"]),
    (re.compile(r"\b(related|prior|existing|previous) (work|approaches|methods|studies|research)\b", re.I),
     ["related_work"], ["introduction"]),
    (re.compile(r"\b(discuss\w*|why|interpret\w*|implications?)\b", re.I), ["discussion"], ["results", "conclusion"]),
    (re.compile(r"\b(conclu\w*|limitations?|future (work|research)|contributions?|acknowledge)\b", re.I),
     ["conclusion", "discussion"], ["results"]),
    (re.compile(r"\b(datasets?|benchmarks?|experiments?|evaluat\w*|corpus|corpora)\b", re.I),
     ["results", "methods"], []),
]

DOC_TYPES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\b10-?k\b|\bannual (report|filing)\b", re.I), "10-K"),
    (re.compile(r"\b10-?q\b|\bquarterly (report|filing)\b", re.I), "10-Q"),
    (re.compile(r"\b8-?k\b", re.I), "8-K"),
    (re.compile(r"\bearnings( release| call| report)?\b", re.I), "earnings release"),
    (re.compile(r"\b(sustainability|esg|non-?financial|csr) report\b", re.I), "sustainability report"),
    (re.compile(r"\b(paper|study|article|authors?)\b", re.I), "research paper"),
]

# Financial statements named in a question → words of the headings that hold them.
STATEMENTS: list[tuple[re.Pattern, list[str]]] = [
    (re.compile(r"cash ?flows? statement|statement of cash flows|cash flow", re.I), ["cash flows"]),
    (re.compile(r"balance sheet|statement of financial position|financial position", re.I),
     ["balance sheet", "financial position"]),
    (re.compile(r"income statement|statement of (operations|income|earnings)|p&l|profit and loss", re.I),
     ["operations", "income", "earnings"]),
]

_YEAR = re.compile(r"\b(?:fy\s?'?|fiscal (?:year )?)?((?:19|20)\d{2})\b", re.I)
_FY2 = re.compile(r"\bfy\s?'?(\d{2})\b", re.I)
_QUARTER = re.compile(r"\b(?:q([1-4])|([1-4])q|(first|second|third|fourth) quarter)\b", re.I)
_LATEST = re.compile(r"\b(latest|most recent|newest|current|recent(ly)?|last (year|quarter|report))\b", re.I)
_COMPARE = re.compile(r"\b(compare[ds]?|comparison|versus|vs\.?|between|differ\w*|change[sd]? (from|between|over)|"
                      r"year[- ]over[- ]year|trend|over time|relative to)\b", re.I)
_FOLLOWUP = re.compile(r"^\s*(and|what about|how about|same for|and for|and in|in)\b|^\W*(\d{4}|fy\s?\d{2,4})\W*$", re.I)
_QWORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


@dataclass
class QueryIntent:
    question: str
    rewritten: str
    companies: list[str] = field(default_factory=list)  # company keys found in the store
    company_names: list[str] = field(default_factory=list)
    years: list[int] = field(default_factory=list)
    quarters: list[str] = field(default_factory=list)
    doc_types: list[str] = field(default_factory=list)
    latest: bool = False
    compare: bool = False
    target_sections: list[str] = field(default_factory=list)
    related_sections: list[str] = field(default_factory=list)
    statement_words: list[str] = field(default_factory=list)
    followup: bool = False

    @property
    def target_year(self) -> int | None:
        return max(self.years) if self.years else None

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def _company_aliases(known: dict[str, str]) -> list[tuple[re.Pattern, str, str]]:
    """Patterns for each company key: the key ('best buy'), its first word when distinctive ('boeing')."""
    out = []
    for key, name in known.items():
        words = key.split()
        forms = {key}
        if len(words) > 1 and len(words[0]) >= 4:
            forms.add(words[0])
        forms.add(re.sub(r"\s+", "", key))  # 'ultabeauty'
        for f in forms:
            out.append((re.compile(rf"(?<![\w-]){re.escape(f)}(?:'s|’s)?(?![\w-])", re.I), key, name))
    return out


def understand(question: str, known_companies: dict[str, str] | None = None,
               history: list[str] | None = None) -> QueryIntent:
    """known_companies: company_key → display name, from the store. history: earlier user questions."""
    q = question.strip()
    intent = QueryIntent(question=q, rewritten=q)
    history = [h for h in (history or []) if h.strip()]
    if history and (_FOLLOWUP.search(q) or len(q.split()) <= 4):
        prev = understand(history[-1], known_companies, history[:-1])
        has_entity = any(p.search(q) for p, _, _ in _company_aliases(known_companies or {}))
        if not has_entity or len(q.split()) <= 4:
            # "and in 2021?" → the previous question with this turn's years / entities swapped in.
            base = prev.rewritten
            new_years = [int(y) for y in _YEAR.findall(q)]
            if new_years:
                base = _YEAR.sub(lambda m: "", base).strip()
                base = re.sub(r"\s{2,}", " ", base)
            intent.rewritten = f"{base} {q}".strip()
            intent.followup = True
    text = intent.rewritten
    low = text.lower()

    for pat, key, name in _company_aliases(known_companies or {}):
        if pat.search(text) and key not in intent.companies:
            intent.companies.append(key)
            intent.company_names.append(name)
    years = [int(y) for y in _YEAR.findall(text)] + [2000 + int(y) for y in _FY2.findall(text)]
    intent.years = sorted(set(y for y in years if 1990 <= y <= 2100))
    for m in _QUARTER.finditer(text):
        n = m.group(1) or m.group(2) or _QWORDS[m.group(3).lower()]
        intent.quarters.append(f"Q{n}")
    for pat, dt in DOC_TYPES:
        if pat.search(text) and dt not in intent.doc_types:
            intent.doc_types.append(dt)
    intent.latest = bool(_LATEST.search(text))
    intent.compare = bool(_COMPARE.search(text)) or len(intent.companies) > 1
    for pat, targets, related in INTENTS:
        if pat.search(low):
            for t in targets:
                if t not in intent.target_sections:
                    intent.target_sections.append(t)
            for r in related:
                if r not in intent.related_sections:
                    intent.related_sections.append(r)
    intent.related_sections = [r for r in intent.related_sections if r not in intent.target_sections]
    for pat, words in STATEMENTS:
        if pat.search(text):
            intent.statement_words.extend(words)
    return intent


def known_companies_of(docs: list[dict]) -> dict[str, str]:
    out: dict[str, str] = {}
    for d in docs:
        if d.get("company_key"):
            out.setdefault(d["company_key"], d.get("company") or d["company_key"])
        elif d.get("company"):
            k = company_key(d["company"])
            if k:
                out.setdefault(k, d["company"])
    return out
