"""Query understanding: target sections from intent, entities (companies in the store, fiscal years and
periods, document types, 'latest'), comparison detection, and follow-up completion from the conversation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rag.domain import FORM_NAMES, dates_in, is_form_name, is_period_token, periods_in, years_of
from rag.issuers import Issuers
from rag.quantities import ITEM_NO as _ITEM_NO

# The design brief's 7 intent categories → (target sections, related sections).
INTENTS: list[tuple[re.Pattern, list[str], list[str]]] = [
    (re.compile(r"\b(results?|findings?|performance|accuracy|score[sd]?|outperform\w*|improve[sd]?|gains?|f1|"
                r"precision|recall|bleu|rouge|achieve[sd]?|reach(es)?|compare[sd]? (with|to|against)|better than|"
                r"baselines?)\b", re.I),
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
# Analysts' words → the words filings use, added to the full-text query (not to the embedding).
FINANCE_TERMS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\bcap(ital)?[\s-]?ex(penditures?)?\b", re.I), "purchases of property plant and equipment capital spending"),
    (re.compile(r"\bpp&?n?e\b|\bfixed assets\b", re.I), "property plant and equipment net"),
    (re.compile(r"\bquick ratio\b", re.I), "current assets current liabilities cash receivables marketable securities"),
    (re.compile(r"\bcurrent ratio\b|\bworking capital\b", re.I), "total current assets total current liabilities"),
    (re.compile(r"\boperating margin\b", re.I), "operating income net sales revenue"),
    (re.compile(r"\bgross margin\b", re.I), "gross profit gross margin net sales cost of sales"),
    (re.compile(r"\bnet (profit )?margin\b", re.I), "net income net sales revenue"),
    (re.compile(r"\bfree cash ?flow\b|\bfcf\b", re.I), "free cash flow net cash provided by operating activities "
     "capital expenditures"),
    (re.compile(r"\bd&a\b", re.I), "depreciation and amortization"),
    (re.compile(r"\bcogs\b", re.I), "cost of sales cost of revenue cost of goods sold"),
    (re.compile(r"\beps\b", re.I), "earnings per share diluted"),
    (re.compile(r"\br&d\b", re.I), "research and development"),
    (re.compile(r"\b(work ?force|head ?count)\b", re.I), "employees"),
    (re.compile(r"\bagm\b|\bannual general meeting\b", re.I), "annual meeting of stockholders shareholders votes"),
    (re.compile(r"\bcagr\b", re.I), "compound annual growth rate"),
    (re.compile(r"\boperating cash ?flow\b|\bcash from operations\b", re.I), "net cash provided by operating activities"),
    (re.compile(r"\beffective tax rate\b", re.I), "effective tax rate income taxes provision"),
    (re.compile(r"\bdividends?\b", re.I), "dividends paid per share"),
    (re.compile(r"\b(buy ?backs?|repurchases?)\b", re.I), "repurchase of common stock treasury"),
    (re.compile(r"\binventor(y|ies)\b", re.I), "inventories merchandise inventories"),
    (re.compile(r"\bsg&a\b", re.I), "selling general and administrative expenses"),
    (re.compile(r"\bebitda\b", re.I), "ebitda adjusted ebitda depreciation amortization"),
    (re.compile(r"\bleverage|\bdebt\b", re.I), "total debt long-term debt borrowings"),
    (re.compile(r"\bsegments?\b", re.I), "segment business segment net sales operating income"),
    (re.compile(r"\bcustomers?\b", re.I), "customers customer revenue"),
    (re.compile(r"\blegal|litigation|lawsuits?\b", re.I), "legal proceedings litigation contingencies"),
]

STATEMENTS: list[tuple[re.Pattern, list[str]]] = [
    (re.compile(r"cash ?flows? statement|statements? of cash flows", re.I), ["cash flows"]),
    (re.compile(r"balance sheet|statement of financial position|financial position", re.I),
     ["balance sheet", "financial position"]),
    (re.compile(r"income statement|statement of (operations|income|earnings)|p&l|profit and loss", re.I),
     ["operations", "income", "earnings"]),
]

# Metrics whose numbers live in one statement, when the question does not name it.
IMPLIED_STATEMENTS: list[tuple[re.Pattern, list[str]]] = [  # the first that matches decides
    (re.compile(r"\bfree cash ?flow|cap(ital)?[\s-]?ex|operating cash ?flow|cash from operations|dividends paid|"
                r"(share|stock) repurchases?|buy ?backs?|purchases? of (property|pp&?e|fixed assets)|"
                r"additions to property|(operating|investing|financing) activities", re.I), ["cash flows"]),
    (re.compile(r"\b(quick|current) ratio|inventor(y|ies)|pp&?n?e\b|total assets|working capital|"
                r"(total|net) debt|shareholders'? equity|receivables|goodwill\b", re.I), ["balance sheet", "financial position"]),
    (re.compile(r"\b(operating|gross|net|profit) margin|operating income|net income|revenues?\b|net sales|"
                r"\beps\b|earnings per share|cost of (sales|goods)", re.I), ["operations", "income", "earnings"]),
]

STATEMENT_OF_WORD = {"cash flows": "cash flows", "balance sheet": "balance sheet", "financial position": "balance sheet",
                     "operations": "income statement", "income": "income statement", "earnings": "income statement"}
# Full-text queries (websearch syntax) that find a statement's own chunks by their title.
STATEMENT_QUERIES = {
    "cash flows": '"cash flows" or "cash flow"',
    "balance sheet": '"balance sheet" or "balance sheets" or "financial position"',
    "income statement": '"statement of operations" or "statements of operations" or "statement of income" or '
                        '"statements of income" or "statement of earnings" or "statements of earnings" or '
                        '"income statement"',
}


_YEAR = re.compile(r"\b(?:fy\s?'?|fiscal (?:year )?)?((?:19|20)\d{2})\b", re.I)
_QUARTER = re.compile(r"\b(?:q([1-4])|([1-4])q|(first|second|third|fourth) quarter)\b", re.I)
_LATEST = re.compile(r"\b(latest|most recent|newest|current (year|quarter|report|filing|period)|recent(ly)?|"
                     r"last (year|quarter|report))\b", re.I)
_COMPARE = re.compile(r"\b(compare[ds]?|comparison|versus|vs\.?|between|differ\w*|change[sd]? (from|between|over)|"
                      r"year[- ]over[- ]year|trend|over time|relative to)\b", re.I)
_FOLLOWUP = re.compile(r"^\s*(and|what about|how about|same for|and for|and in|in)\b|^\W*(\d{4}|fy\s?\d{2,4})\W*$", re.I)
# a period named relative to the previous turn's
_RELATIVE = re.compile(r"\b(?:the )?(?:same (?:quarter|period|month) )?(?:a|one|two) years? (?:earlier|before|ago|prior)\b|"
                       r"\bthe (?:year|quarter|period) (?:before|earlier|prior)\b|\b(?:the )?(?:previous|prior|preceding) "
                       r"(?:year|fiscal year|period)\b|\b(?:the )?year[- ]earlier (?:quarter|period|figure)\b", re.I)
# "What drove …", "why did …": asks for the narrative. ("… and explain why." asks to justify an answer.)
_EXPLAIN = re.compile(r"\b(what (drove|drives|caused|causes|led to|contributed to)|why (did|does|do|is|are|was|were|has|have)\b|"
                      r"reasons? (for|behind)|drivers? (of|behind)|driven by|factors? behind|"
                      # "… attributable to?" asks why; "net income attributable to 3M" names a measure
                      r"attributable to(?!\s+(?:the\s+)?(?:company|common|non-?controlling|shareholders|stockholders|"
                      r"owners|parent|equity|(?-i:[A-Z0-9])\S*)))", re.I)
_HISTORY = re.compile(r"\b(historically|historical|each year|every year|annual(ly)?|over the (past|last) \w+ years|"
                      r"trends?|year[- ]over[- ]year|multi-?year)\b", re.I)
# Kinds of question → the parts of a 10-K / 10-Q that answer them (matched by heading name, see rerank).
FILING_SECTIONS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\b(risks?|cyclical\w*|seasonal\w*|uncertaint\w*|exposures?|exposed|vulnerab\w*|depend(s|ent|ence)? on|"
                r"rel(y|ies|iance) on|subject to|threats?|concentration)\b", re.I), "risk"),
    (re.compile(r"\b(industry|industries|operates?|operating in|business model|products?|customers?|clients?|"
                r"competitors?|competition|compete|strategy|headquarter\w*|employees|workforce|brands?)\b", re.I),
     "business"),
    (re.compile(r"\b(drove|drivers?|driven|why|reasons?|performance|increase[ds]?|decrease[ds]?|decline[ds]?|"
                r"improv\w*|change[ds]?|outlook|guidance|forecast\w*|expect\w*)\b", re.I), "mdna"),
]
_FORWARD = re.compile(r"\b(forecast\w*|outlook|guidance|expect\w*|plan(s|ned|ning)?|anticipat\w*|project(ed|ing|s|ion)|"
                      r"target(s|ed|ing)?)\b", re.I)
# A question that wants a figure (tables rank higher, units with numbers score higher) ...
_WANTS_NUMBER = re.compile(r"\b(how much|how many|what (is|was|were) the (total|amount|value)|amount|ratio|margin|"
                           r"percent|%|total|rate|in usd|in millions|in billions|average|growth|change)\b")
# ... and one that asks for a quantity outright: an answer without a number is not an answer (confidence).
_ASKS_QUANTITY = re.compile(r"\s*(how (much|many)|what (is|was|were) the (total|amount|number))", re.I)
_QWORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
# Abbreviations analysts write that filings and reports spell out: never "specific terms".
_GENERIC_ABBR = {
    "usd", "eur", "gbp", "chf", "jpy", "us", "usa", "uk", "eu", "gaap", "ifrs", "non-gaap", "ceo", "cfo", "coo", "esg",
    "csr", "eps", "fx", "m&a", "r&d", "sg&a", "pp&e", "ppne", "ppe", "ebit", "ebitda", "capex", "opex", "cogs", "fcf",
    "roe", "roa", "roic", "roi", "yoy", "qoq", "ttm", "ltm", "kpi", "kpis", "ai", "ml", "nlp", "pdf", "fy", "ytd",
    "dpo", "dso", "dio", "ccc", "wacc", "npv", "irr", "ghg", "co2", "co2e", "sec", "llm", "llms", "ok",
    # corporate, governance and reporting
    "agm", "egm", "bod", "cso", "cto", "cio", "chro", "cao", "evp", "svp", "vp", "hq", "ir", "pr", "hr", "it", "q&a",
    "ipo", "spac", "lbo", "llc", "plc", "nyse", "nasdaq", "otc", "adr", "ads", "etf", "reit", "mlp", "esop", "rsu",
    "rsus", "psu", "psus", "ltip", "lti", "sti", "tsr", "mda", "md&a", "asc", "asu", "fasb", "iasb", "pcaob", "sox",
    "icfr", "erm", "covid", "covid-19", "apac", "emea", "latam", "row", "b2b", "b2c", "dtc", "d2c", "saas", "erp",
    # finance and accounting
    "cagr", "bps", "nav", "aum", "ffo", "affo", "noi", "nii", "nim", "arpu", "ltv", "cac", "arr", "mrr", "gmv", "aov",
    "sku", "skus", "fte", "ftes", "ebt", "ebitdar", "oci", "aoci", "rou", "sbc", "d&a", "cfi", "cff", "fcff", "fcfe",
    "dcf", "nwc", "dps", "bvps", "etr", "nol", "nols", "dta", "dtl", "cet1", "rwa", "lcr", "nsfr", "cecl", "nco",
    "npl", "afs", "htm", "ocf", "opm", "gpm", "npm", "ntm", "cpi", "gdp", "libor", "sofr", "fomc", "fdic", "imf",
    "oecd", "comps", "sss", "gla",
    # sustainability
    "ehs", "hse", "ltifr", "trir", "ltir", "dei", "d&i", "sbti", "tcfd", "sasb", "gri", "csrd", "esrs", "cdp", "sdg",
    "sdgs", "un", "nox", "voc", "kwh", "mwh", "gwh", "twh", "gj", "tj", "tco2e", "mtco2e", "ppa", "rec", "recs",
    "ev", "evs", "hvac", "led", "iso", "ohs", "ngo", "ngos",
}
_SPECIFIC = re.compile(r"\b([A-Za-z]*[a-z][A-Z][A-Za-z0-9-]*|[A-Z][A-Z0-9]{2,}[A-Za-z0-9-]*|[A-Za-z]+-\d[\w.]*|"
                       r"[A-Z][a-z]+\s\d{1,2}\b)")


@dataclass(frozen=True)
class Entity:
    """A named company or period that a complete answer must cover."""
    company: str | None = None
    year: int | None = None

    def covers(self, c) -> bool:
        """c: a candidate (or any record with company_key and year labels) about this company / period."""
        if self.company is not None:
            return c.company_key == self.company
        return self.year in years_of(c)


# a figure named by its number: "Figure 3", "Fig. 2", "fig 4b" (not an exhibit: a filing's exhibit is a document)
_NAMED_FIGURE = re.compile(r"\bfig(?:ure|\.)?\s*(\d{1,3})(?!\d|[.,]\d)", re.I)


def named_figure(question: str) -> str | None:
    """The number of the figure a question names ("show Figure 3 of the S2ORC paper" -> "3"), if it names one."""
    m = _NAMED_FIGURE.search(question)
    return m.group(1) if m else None


@dataclass
class QueryIntent:
    question: str
    rewritten: str
    companies: list[str] = field(default_factory=list)  # company keys found in the store
    company_names: list[str] = field(default_factory=list)
    company_terms: list[str] = field(default_factory=list)  # the question's words that name an issuer (MMM's, J&J)
    abbreviations: list[str] = field(default_factory=list)  # generic abbreviations it writes (D&A, FCF, AGM)
    years: list[int] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)  # ISO dates named in the question ("8-K dated 1st July 2022")
    quarters: list[str] = field(default_factory=list)
    doc_types: list[str] = field(default_factory=list)
    latest: bool = False
    compare: bool = False
    target_sections: list[str] = field(default_factory=list)
    related_sections: list[str] = field(default_factory=list)
    statement_words: list[str] = field(default_factory=list)
    key_terms: list[str] = field(default_factory=list)  # specific names/acronyms the evidence must contain
    text_query: str = ""  # the full-text query: the question plus the filings' words for its finance terms
    wants_number: bool = False  # a figure is wanted: tables and units with numbers rank higher
    asks_quantity: bool = False  # "how much / how many …": an answer without a number does not answer
    filing_sections: list[str] = field(default_factory=list)  # risk / business / mdna: a filing's parts
    forward: bool = False  # "forecasting for FY2023": next year's plans are in this year's report
    explain: bool = False  # "what drove / why": the narrative that explains, not the statement's table
    annual: bool = False  # a year's or a history's figures: documents that report whole years
    history: bool = False  # several years' figures ("historically", "trend"): the annual reports that show them
    followup: bool = False
    # what it asks for the facts (rag/retrieve/measure.Ask: measure, unit class, answer type, parts), read once
    measure: Any = field(default=None, repr=False, compare=False)

    @property
    def target_year(self) -> int | None:
        return max(self.years) if self.years else None

    @property
    def entities(self) -> list[Entity]:
        """What a complete answer covers one by one: each named company, or in a comparison of periods each year.
        The one rule behind sub-searches, the diversity pool, the chunks chosen, the plan and the answer's units."""
        if len(self.companies) > 1:
            return [Entity(company=c) for c in self.companies]
        if self.compare and len(self.years) > 1:
            return [Entity(year=y) for y in self.years]
        return []

    @property
    def entity_pairs(self) -> list[Entity]:
        """The same rule for a plan's sub-searches, which cover each named company in each compared year."""
        if not self.entities:
            return []
        years: list[int | None] = list(self.years) if self.compare and len(self.years) > 1 else [None]
        companies: list[str | None] = list(self.companies) or [None]
        return [Entity(company=c, year=y) for c in companies for y in years]

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "measure"}
        if self.measure is not None:
            out["measure"] = self.measure.to_dict()
        return out


def understand(question: str, known_companies: Issuers | dict[str, str] | None = None,
               history: list[str] | None = None) -> QueryIntent:
    """known_companies: the store's issuers with every name they go by (or a plain company_key → display name
    dict). history: earlier user questions."""
    q = question.strip()
    intent = QueryIntent(question=q, rewritten=q)
    known = Issuers.of(known_companies or {})
    _complete_followup(intent, known, [h for h in (history or []) if h.strip()])
    text = intent.rewritten
    _who_and_when(intent, text, known)
    _what_part(intent, text)
    intent.key_terms = key_terms(text, known)
    extra = [words for pat, words in FINANCE_TERMS if pat.search(text)]
    intent.text_query = " ".join([text] + extra)
    intent.forward = bool(_FORWARD.search(text))
    if intent.forward and intent.years:
        # next year's plans are in this year's report: the year before is a target too (a weaker one)
        intent.years = sorted(set(intent.years) | {min(intent.years) - 1})
    intent.history = bool(_HISTORY.search(text))
    intent.annual = intent.history or bool(intent.years and not intent.quarters)
    intent.wants_number = bool(_WANTS_NUMBER.search(text.lower()))
    intent.asks_quantity = bool(_ASKS_QUANTITY.match(q))
    return intent


def _complete_followup(intent: QueryIntent, known: Issuers, history: list[str]) -> None:
    """'and in 2021?' → the previous question with this turn's years / entities swapped in."""
    q = intent.question
    if not (history and (_FOLLOWUP.search(q) or len(q.split()) <= 4 or _RELATIVE.search(q))):
        return
    if not (_FOLLOWUP.search(q) or _RELATIVE.search(q)) and _own_subject(q, history[-1]):
        return
    prev = understand(history[-1], known, history[:-1])
    has_entity = bool(known.find(q))
    if has_entity and len(q.split()) > 4:
        return
    base = prev.rewritten
    rel = _RELATIVE.search(q)
    if rel and not _YEAR.findall(q) and prev.years:
        # "the year before", "the same quarter a year earlier": the previous turn's period, moved back a year;
        # "how does that compare with …" keeps the first period too
        back = 1 if not re.search(r"\btwo years\b", rel.group(0), re.I) else 2
        earlier = " and ".join(str(y - back) for y in prev.years)
        keep = bool(_COMPARE.search(q)) or bool(re.search(r"\bcompare|\bversus\b|\bvs\b|\bchange", q, re.I))
        rest = _RELATIVE.sub(" ", q)
        if keep:
            base = f"{base.rstrip('?. ')} compared with {earlier}"
        else:
            base = _YEAR.sub(lambda m: earlier if m.group(1) == str(max(prev.years)) else "", base)
        intent.rewritten = re.sub(r"\s{2,}", " ", f"{base} {rest if keep else ''}").strip()
        intent.followup = True
        return
    if _YEAR.findall(q):
        base = _YEAR.sub(lambda m: "", base).strip()
        base = re.sub(r"\s{2,}", " ", base)
    if _QUARTER.search(q):  # "and in Q2 2022?": this turn's quarter replaces the previous one's
        base = re.sub(r"\s{2,}", " ", _QUARTER.sub("", base)).strip()
    for m in _NUMBERED.finditer(q):  # "what about Scope 2?": this turn's numbered item replaces the previous one's
        base = re.sub(rf"\b{re.escape(m.group(1))}\s*{_ITEM_NO}(?:\s*(?:and|&|\+|,|/|or)\s*{_ITEM_NO})*\b", "", base,
                      flags=re.I)
        base = re.sub(r"\s{2,}", " ", base).strip()
    intent.rewritten = f"{base} {q}".strip()
    intent.followup = True


_FULL_QUESTION = re.compile(r"^\s*(?:what|who|which|how|why|where|when)\s+(?:is|are|was|were|does|do|did|has|have|"
                            r"can|wrote|made|built|runs?)\b", re.I)
_BACK_REFERENCE = re.compile(r"\b(?:it|its|that|this|they|them|their|those|these|he|she|his|her)\b", re.I)


def _own_subject(q: str, previous: str) -> bool:
    """A short question asked in full that names something the previous turn did not ("What does PaperMage do?"
    after questions about a company's revenue) stands alone: it is a new subject, not a follow-up of the last one.
    A question without a name of its own ("What was revenue?") or pointing back ("What is it?") is a follow-up."""
    if not _FULL_QUESTION.search(q) or _BACK_REFERENCE.search(q):
        return False
    seen = previous.lower()
    names = [w for w in re.findall(r"[A-Za-z][\w&.'’-]*", q)[1:]
             if w[0].isupper() and len(w) > 2 and w.lower().strip(".'’s") not in seen]
    return any(not re.search(rf"\b{re.escape(w)}\s*{_ITEM_NO}", q) for w in names)  # "Scope 2": an item, swapped


_NAME_NOTE = re.compile(r"\b([A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*){0,3})\s*\(\s*(?:formerly|previously|now|also)\s+"
                        r"(?:known as|called|named)\s+([^)]{2,60})\)")
_NUMBERED = re.compile(rf"\b([A-Za-z]{{3,}})\s*{_ITEM_NO}\b")  # "Scope 2", "category 3.11", "Tier 1": a named item


def _who_and_when(intent: QueryIntent, text: str, known: Issuers) -> None:
    """Companies of the store (by any name they go by), dates, fiscal years and quarters in any form, document
    types, 'latest', comparisons."""
    for issuer in known.find(text):
        if issuer.key not in intent.companies:
            intent.companies.append(issuer.key)
            intent.company_names.append(issuer.name)
    # "Block (formerly known as Square)": the name before a name note is the issuer the note names
    renamed = {m.group(1).lower() for m in _NAME_NOTE.finditer(text) if known.find(m.group(2))}
    for token in re.findall(r"[\w&.'’-]+", text):
        bare = re.sub(r"['’]s$", "", token).strip(".'’-")
        if bare and intent.companies and (known.names_term(bare) or bare.lower() in renamed):
            intent.company_terms.append(bare.lower())
        elif bare.lower() in _GENERIC_ABBR and (bare.isupper() or "&" in bare):
            intent.abbreviations.append(bare.lower())
    intent.dates = _dates(text)
    named = periods_in(text)  # FY2023Q1, Q1 FY23, 1Q23, "first quarter of fiscal 2023", FY22, 2021 …
    intent.years = sorted({p.year for p in named})
    intent.quarters = list(dict.fromkeys(p.quarter for p in named if p.quarter))
    for m in _QUARTER.finditer(text):  # a quarter named without its year ("the fourth quarter")
        n = m.group(1) or m.group(2) or _QWORDS[m.group(3).lower()]
        if f"Q{n}" not in intent.quarters:
            intent.quarters.append(f"Q{n}")
    for pat, dt in DOC_TYPES:
        if pat.search(text) and dt not in intent.doc_types:
            intent.doc_types.append(dt)
    intent.latest = bool(_LATEST.search(text))
    intent.compare = bool(_COMPARE.search(text)) or len(intent.companies) > 1


def _what_part(intent: QueryIntent, text: str) -> None:
    """Target and related sections (papers), the financial statement named or implied, the filing's part."""
    low = text.lower()
    for pat, targets, related in INTENTS:
        if pat.search(low):
            intent.target_sections += [t for t in targets if t not in intent.target_sections]
            intent.related_sections += [r for r in related if r not in intent.related_sections]
    intent.related_sections = [r for r in intent.related_sections if r not in intent.target_sections]
    for pat, words in STATEMENTS:
        if pat.search(text):
            intent.statement_words.extend(words)
    intent.explain = bool(_EXPLAIN.search(text))
    if not intent.statement_words and not intent.explain:
        for pat, words in IMPLIED_STATEMENTS:
            if pat.search(text):
                intent.statement_words.extend(w for w in words if w not in intent.statement_words)
    intent.filing_sections = [name for pat, name in FILING_SECTIONS if pat.search(text)]


def _dates(text: str) -> list[str]:
    """The calendar dates a question names, as ISO dates (numeric dates such as 1/2/2022 are ambiguous: left out)."""
    return [d.isoformat() for d in dates_in(text, numeric=False)]


def key_terms(text: str, known: Issuers | dict[str, str]) -> list[str]:
    """Specific terms of a question: CamelCase and acronyms (DocVQA, XFUN, GPT-4o), 'Scope 1'-style names.
    Issuers' names, periods, document types and generic finance abbreviations are left out."""
    known = Issuers.of(known)
    company_words = {w for k in known.names for w in k.split()}
    text = re.sub(rf"(?<![\w-])(?:{FORM_NAMES.pattern})(?![\w-])", " ", text, flags=re.I)  # "DEF 14A", "10-K"
    out: list[str] = []
    for m in _SPECIFIC.finditer(text):
        t = m.group(1).strip()
        t = re.sub(r"-(based|style|like|specific|level|wide|only|related|driven|aware)$", "", t)
        low = t.lower().rstrip("s") if t.isupper() and len(t) > 3 else t.lower()
        if low in _GENERIC_ABBR or t.lower() in _GENERIC_ABBR or low in company_words or t.lower() in company_words \
                or known.names_term(t) or is_period_token(t) or is_form_name(t):
            continue
        if re.fullmatch(r"(fy|q[1-4]|h[12])\s?'?\d{0,4}|\d{1,2}-[kq]|(figure|fig|table|item|page|part|section|chapter|note|"
                        r"exhibit|appendix|chart|step|phase|quarter|year)\s\d{1,2}|[a-z]+\s\d{1,2}", t.lower()) \
                and not re.match(r"scope\s\d", t.lower()):
            continue
        if t not in out:
            out.append(t)
    return out

