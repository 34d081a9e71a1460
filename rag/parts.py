"""The named parts a question asks a figure for: a place ("in Texas"), a customer ("to PepsiCo"), a product
("Adobe's Photoshop product"), a site ("at its Aschaffenburg plant"), a country by its adjective ("Japanese
revenue"). The answer must give that part's figure, or say that the documents do not break the figure down."""

from __future__ import annotations

import re

from rag.domain import MONTH_NAMES
from rag.issuers import norm

# "in Texas", "in the Americas", "in Berlin", "to PepsiCo", "at its Aschaffenburg plant": a place (or a named part)
# the figure is asked for
_CAP = r"(?:[A-Z][\w\-]*[a-zA-Z][\w\-]*)(?:\s+[A-Z][\w\-]*[a-zA-Z][\w\-]*){0,2}"
_WHERE = re.compile(rf"\b(?:in|within|across|from|to|at|for)\s+(?:the\s+|its\s+|their\s+)?({_CAP})")
# "Adobe's Photoshop product", "its Dresden portfolio", "Apple products": a named product, site, customer or market
_NAMED_PART = re.compile(rf"(?<![.?!]\s)\b({_CAP})\s+(?:products?|product line|brand|brands|plants?|factory|factories|"
                         rf"sites?|portfolio|customers?|stores?|region|market|franchise|subsidiary|branch|office)\b")
# "3M's Post-it Notes sales": a named line of the company's sales
_OWN_PART = re.compile(rf"['’]s\s+({_CAP})\s+(?:sales|revenues?)\b")
_DEMONYMS = {"american": "Americas", "canadian": "Canada", "mexican": "Mexico", "brazilian": "Brazil",
             "british": "United Kingdom", "german": "Germany", "french": "France", "italian": "Italy",
             "spanish": "Spain", "dutch": "Netherlands", "swiss": "Switzerland", "swedish": "Sweden",
             "austrian": "Austria", "polish": "Poland", "russian": "Russia", "chinese": "China", "japanese": "Japan",
             "korean": "Korea", "indian": "India", "australian": "Australia", "european": "Europe",
             "asian": "Asia", "african": "Africa", "croatian": "Croatia", "slovenian": "Slovenia", "serbian": "Serbia"}
_DEMONYM = re.compile(r"\b(" + "|".join(k.capitalize() for k in _DEMONYMS) + r")\s+(?:net\s+)?(?:sales|revenues?|"
                      r"operations|customers|employees|workforce|emissions|market)\b")
PART_NOUNS = re.compile(r"\b(?:products?|product line|brands?|plants?|factory|factories|sites?|portfolio|customers?|"
                        r"stores?|region|market|franchise|subsidiary|branch|office)\b", re.I)
# capitalised words that name a measure, a period or a kind of figure, not a part
_NOT_PLACES = set(MONTH_NAMES) | set("""q1 q2 q3 q4 h1 h2 fy fiscal scope usd eur gbp us u.s. gaap non-gaap non ifrs total net gross operating adjusted consolidated
annual quarterly organic reported comparable core diluted basic free cash flow flows income revenue revenues sales
ebit ebitda eps r&d sg&a capex opex cogs roa roe roic segment segments region regions product products geography
geographic category categories business businesses group company corporation inc the its their year years quarter
what how which was were is are did does do percent percentage share ratio margin growth change kpi esg ghg co2e
greenhouse emissions energy water waste employees""".split())


def breakdown_terms(question: str, company_words: set[str]) -> list[str]:
    """The named parts a question asks the figure for ('revenue in Texas' → ['Texas'], 'net sales to PepsiCo' →
    ['PepsiCo'], 'Canadian revenue' → ['Canada']): not periods, not measures, not the company."""
    out = []
    # a reportable segment ("in its Domestic segment") is a part every filing of the company reports
    found = [m.group(1) for rx in (_WHERE, _NAMED_PART, _OWN_PART) for m in rx.finditer(question)
             if not re.match(r"\s+(?:reportable\s+|operating\s+|business\s+)?segments?\b", question[m.end(1):], re.I)]
    found += [_DEMONYMS[m.group(1).lower()] for m in _DEMONYM.finditer(question)]
    for phrase in found:
        words = [_DEMONYMS.get(w.lower(), w) for w in phrase.split() if _part_word(w, company_words)]
        if words:
            out.append(" ".join(words))
    return list(dict.fromkeys(out))


def _part_word(w: str, company_words: set[str]) -> bool:
    from rag.quantities import class_of_unit

    if w.lower() in _NOT_PLACES or norm(w) in company_words or re.search(r"\d", w):
        return False
    if class_of_unit(w) is not None:
        return False  # "in GWh", "in EUR": the unit asked, not a part of the whole
    return not (w.isupper() and len(w) <= 5)  # an acronym (GAAP, EBIT, EMEA): a measure or a reported region


def part_forms(term: str) -> list[str]:
    """A part's names: 'Canada' and 'Canadian'."""
    forms = [term]
    forms += [k for k, v in _DEMONYMS.items() if v.lower() == term.lower()]
    return forms


