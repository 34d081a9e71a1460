"""Financial statement titles, shared by ingestion (statement titles are headings) and retrieval (the statement
a chunk belongs to)."""

from __future__ import annotations

import re

# The statement a chunk belongs to, from its heading or a title line of its own, compared letters-only so
# that "Consolidated Balance Shee t" (broken kerning) and "AMCOR PLC AND SUBSIDIARIES CONSOLIDATED BALANCE
# SHEETS" match, and "Amounts recognized in the Consolidated Balance Sheet" (a sentence) does not.
_TITLE = re.compile(
    r"^(?:[a-z0-9&]{0,40}andsubsidiaries)?(?:the)?(?:condensed|unaudited|interim)*(consolidated|combined)?"
    r"(?:condensed|unaudited|interim)*"
    r"(balancesheets?|statements?offinancialposition|statements?of(?:consolidated)?cashflows?|cashflowstatements?"
    r"|statements?of(?:consolidated)?(?:operations|income|earnings)|incomestatements?|profitandlossaccount"
    r"|statements?ofcomprehensive(?:income|loss|earnings)|statements?of(?:changesin)?(?:shareholders|stockholders|"
    r"shareowners)?equity)(.*)$")


def statement_of_title(line: str) -> str | None:
    """'Consolidated Statements of Cash Flows (continued)' → 'cash flows'; a sentence → None."""
    if line.rstrip().endswith((".", ",", ";", ":")):
        return None  # the end of a sentence ("… recorded in our Consolidated Balance Sheets.")
    letters = re.sub(r"[^a-z0-9&]", "", line.lower())
    if not letters or len(letters) > 120:
        return None
    m = _TITLE.match(letters)
    if not m:
        return None
    rest = m.group(3)
    if not m.group(1) and (len(rest) > 12 or re.search(r"information|data|items|note|impact", rest)):
        return None  # "Balance sheet information", "Statement of Income for Obligor Group": not the statement
    t = m.group(2)
    if "comprehensive" in t:
        return "comprehensive income"
    if "equity" in t:
        return "equity"
    if "cashflow" in t:
        return "cash flows"
    if "balance" in t or "financialposition" in t:
        return "balance sheet"
    return "income statement"
