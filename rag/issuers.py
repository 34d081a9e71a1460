"""Issuers as analysts name them. Each issuer in the store has a key, a display name and the names its filings give
it (rag.ingest.names: legal names, short names, trading symbols). A question's mention matches any of them,
tolerant of case, punctuation, possessives, "&" / "and" / "n", the name run together ("bestbuy") and initials
("J&J", "JnJ", "P&G", "AMD"). Ingestion uses the same names to file a new document under an issuer already in the
store ("Adobe Systems Incorporated", which calls itself "Adobe", is the issuer "Adobe Inc.")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rag.domain import SUFFIX, company_key, match_known_company

# First words of issuer names that are common words: never an issuer on their own ("best", "general").
_COMMON_FIRST = {
    "the", "best", "general", "american", "united", "first", "national", "international", "global", "new", "great",
    "southern", "northern", "western", "eastern", "central", "royal", "public", "home", "target", "select", "advanced",
    "applied", "digital", "data", "energy", "health", "capital", "financial", "bank", "world", "universal", "pacific",
    "atlantic", "standard", "federal", "city", "star", "sun", "golden", "silver", "blue", "green", "red", "black",
    "white", "north", "south", "east", "west", "texas", "california", "florida", "delta", "alpha", "omega", "state",
    "crown", "prime", "union", "old", "air", "community", "consolidated", "continental", "industrial",
    "intercontinental", "marathon", "monster", "dollar", "discovery", "progressive", "regions", "simon", "visa",
    "match", "block", "ball", "gap", "apple", "oracle", "amazon", "caterpillar", "corning", "dover", "eaton",
}
# Upper-case words of a question that are not tickers even when an issuer trades under them.
NOT_TICKERS = {"A", "I", "AI", "AN", "AS", "AT", "BE", "BY", "DO", "GO", "IF", "IN", "IS", "IT", "ME", "NO", "OF",
                "ON", "OR", "SO", "TO", "UP", "US", "WE", "ALL", "AND", "ARE", "CAN", "FOR", "HAS", "NEW", "NOT",
                "NOW", "ONE", "OUT", "THE", "YOU", "EPS", "ESG", "CEO", "CFO", "USD", "GAAP", "FY", "YOY", "SEC",
                "KPI", "ROE", "ROA", "EBIT", "CAPEX", "OPEX", "AGM", "EU", "UK", "USA", "Q", "TTM", "LTM", "YTD",
               "NONE", "NYSE", "LLC", "INC", "PLC", "CORP"}


def norm(text: str) -> str:
    """Lower case; possessives, punctuation and legal suffixes' dots gone; "&" and a lone "n" read as "and"."""
    t = text.replace("’", "'").replace("‘", "'")
    t = re.sub(r"(?<=\w)'s\b", "", t)
    t = t.lower().replace("&", " and ")
    t = re.sub(r"[.,()'\"/:;!?\-–—]", " ", t)
    t = re.sub(r"(?<=\s)n(?=\s)", "and", f" {t} ")
    return re.sub(r"\s+", " ", t).strip()


def _core_words(name: str) -> list[str]:
    """A name's words without its legal suffixes, its web domain and a leading "the": "The Boeing Company" →
    ["boeing"], "Amazon.com, Inc." → ["amazon"]."""
    words = norm(re.sub(r"\.(?:com|net|org)\b", "", name, flags=re.I)).split()  # "Amazon.com, Inc.": a web domain
    suffix = re.compile(rf"{SUFFIX}|co|corp|inc|ltd|plc|company", re.I)
    while words and suffix.fullmatch(words[-1]):
        words = words[:-1]
    if words and words[0] == "the" and len(words) > 1:
        words = words[1:]
    return words


def _is_ticker(name: str) -> bool:
    return bool(re.fullmatch(r"[A-Z]{1,5}(?:\.[A-Z])?", name))


def names_issuer(alias: str, legal: list[str]) -> bool:
    """The alias is a name of the issuer called `legal`: a trading symbol, or it shares a word with a legal name, is
    its words run together or its initials ("IBM", "P&G"), or a clipping of its first word ("Amex"). A heading word
    ("Employees") or another company ("Wiener Börse AG", the exchange an issuer lists on) is not."""
    if _is_ticker(alias):
        return True
    mine = [w for w in _core_words(alias) if w != "and"]
    if not mine:
        return False
    letters = re.sub(r"[^a-z]", "", "".join(mine))
    for name in legal:
        words = [w for w in _core_words(name) if w != "and"]
        if not words:
            continue
        if set(mine) & set(words) or letters == "".join(words) or letters == "".join(w[0] for w in words):
            return True
        if len(words[0]) >= 3 and letters[:3] == words[0][:3]:
            return True
    return False


@dataclass
class Issuer:
    key: str
    name: str
    names: list[str] = field(default_factory=list)  # legal names, short names and trading symbols

    def forms(self) -> set[str]:
        """Normalised forms matched case-insensitively, word-bounded: each name with and without "and", run
        together, and its distinctive first word."""
        out: set[str] = set()
        for n in [self.name, self.key, *self.names]:
            if _is_ticker(n):
                continue
            words = _core_words(n)
            if not words:
                continue
            full = " ".join(words)
            out |= {full, " ".join(w for w in words if w != "and")}
            if len(words) > 1:
                out.add("".join(w for w in words if w != "and"))
                if len(words[0]) >= 4 and words[0] not in _COMMON_FIRST and not words[0].isdigit():
                    out.add(words[0])
        return {f for f in out if len(f) >= 2}

    def initials(self) -> list[re.Pattern]:
        """Initials of names of two or more words: "J&J", "JnJ", "JNJ", "P & G", "AMD" (upper case for two
        letters; three or more match in any case)."""
        pats = []
        for n in dict.fromkeys([self.key, self.name, *self.names]):
            if _is_ticker(n):
                continue
            words = _core_words(n)
            letters = [w for w in words if w != "and"]
            if len(letters) < 2 or any(w[0].isdigit() for w in letters):
                continue
            parts: list[str] = []
            after_and = False
            for w in words:
                if w == "and":
                    after_and = True
                    continue
                if parts:
                    parts.append(r"\s?(?:&|[nN]|and)\s?" if after_and else r"\.?\s?")
                parts.append(re.escape(w[0].upper()))
                after_and = False
            flags = re.I if len(letters) >= 3 else 0
            pats.append(re.compile(rf"(?<![\w&]){''.join(parts)}\.?(?:['’]s)?(?![\w&])", flags))
        return pats

    def tickers(self) -> list[str]:
        return [n for n in dict.fromkeys([self.name, *self.names])
                if _is_ticker(n) and n not in NOT_TICKERS and len(n) >= 2]


class Issuers:
    """The store's issuers and every name they go by."""

    def __init__(self, issuers: list[Issuer]):
        self.all = issuers
        firsts: dict[str, int] = {}
        for i in issuers:
            for f in {f for f in i.forms() if " " not in f}:
                firsts[f] = firsts.get(f, 0) + 1
        # each issuer's forms, initials and tickers, built once: find() runs for every question
        self._forms = [(i, sorted({f for f in i.forms() if firsts.get(f, 0) <= 1 or " " in f}, key=len,
                                  reverse=True), i.initials(), i.tickers()) for i in issuers]

    @classmethod
    def of(cls, known: Any) -> Issuers:
        """From an Issuers, a list of Issuer, or a plain {key: display name} dict."""
        if isinstance(known, Issuers):
            return known
        if isinstance(known, dict):
            return cls([Issuer(k, v) for k, v in known.items()])
        return cls(list(known or []))

    @property
    def names(self) -> dict[str, str]:
        return {i.key: i.name for i in self.all}

    def find(self, text: str) -> list[Issuer]:
        """The issuers a text names, in the order it names them. A form that is a common word alone ("target",
        "apple") counts only capitalised, as a name."""
        padded = f" {norm(text)} "
        scale = len(padded) / max(len(text), 1)
        found: list[tuple[float, Issuer]] = []
        for issuer, forms, initials, tickers in self._forms:
            at: list[float] = []
            for f in forms:
                if f in _COMMON_FIRST:
                    at += [m.start() * scale for m in re.finditer(rf"(?<![\w&])(?:{f.capitalize()}|{f.upper()})"
                                                                  rf"(?:['’]s)?(?![\w&])", text)]
                elif (a := padded.find(f" {f} ")) >= 0:
                    at.append(a)
            at += [m.start() * scale for p in initials for m in p.finditer(text)]
            at += [m.start() * scale for t in tickers
                   for m in re.finditer(rf"(?<![\w$]){re.escape(t)}(?:['’]s)?(?![\w])", text)]
            if at:
                found.append((min(at), issuer))
        return [i for _, i in sorted(found, key=lambda x: x[0])]

    def names_term(self, term: str) -> bool:
        """Whether a term of a question is one of an issuer's names (never a term the documents must contain)."""
        t, bare = norm(term), term.strip()
        for _, forms, initials, tickers in self._forms:
            if any(t == f or t.replace(" ", "") == f.replace(" ", "") for f in forms) \
                    or bare.rstrip("'s’") in tickers or any(p.fullmatch(bare) for p in initials):
                return True
        return False

    def same_issuer(self, key: str | None, names: list[str]) -> Issuer | None:
        """The store's issuer a new document belongs to: the same key, a key that is a word-prefix of the other
        ('amcor flexibles north america' → 'amcor'), or a shared name or trading symbol."""
        if not key:
            return None
        by_key = {i.key: i for i in self.all}
        same = match_known_company(key, {k: i.name for k, i in by_key.items()})
        if same:
            return by_key[same[0]]
        mine = {company_key(n) for n in names if not _is_ticker(n)} - {None}
        symbols = {n for n in names if _is_ticker(n)}
        for i in self.all:
            theirs = {company_key(n) for n in [i.name, *i.names] if not _is_ticker(n)} - {None}
            if key in theirs or i.key in mine or mine & theirs or symbols & set(i.tickers()):
                return i
        return None


# Issuers built lately, by exactly what they were built from: building one costs ~0.1 s for a library of 2,000
# issuers (every name's forms and patterns), and the pipeline needs one for every question.
_BUILT: dict[tuple, Issuers] = {}


def issuers_of(store: Any, docs: list[Any]) -> Issuers:
    """The issuers of these documents (their keys and display names) with the names their filings give them. A
    store without the names (a transport or database without sql/functions/issuer_names.sql) still gives each key and display name."""
    shown = display_names(docs)
    try:
        named = {i.key: i for i in store.issuer_names()}
    except Exception:  # noqa: BLE001 - the names are a refinement; without them the keys still match
        named = {}
    triples = tuple((k, v, tuple(n for n in named[k].names if names_issuer(n, [v, k])) if k in named else ())
                    for k, v in shown.items())
    if (built := _BUILT.get(triples)) is None:
        built = Issuers([Issuer(k, v, list(n)) for k, v, n in triples])
        if len(_BUILT) >= 4:
            _BUILT.pop(next(iter(_BUILT)))
        _BUILT[triples] = built
    return built


def display_names(docs: list[Any]) -> dict[str, str]:
    """Issuer key → the display name of its first document (documents without a key keyed by their company)."""
    out: dict[str, str] = {}
    for d in docs:
        k = d.company_key or company_key(d.company)
        if k:
            out.setdefault(k, d.company or k)
    return out
