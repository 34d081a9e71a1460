#!/usr/bin/env python
"""Build and verify the i13 tuning label set.

Every label is checked against the PDFs (re-opened with pymupdf, page text
whitespace-normalised):
  * ev   : {doc: {page: [regex, ...]}} -- every regex must match that page.
           The gold `pages` field is derived from these keys.
  * cov  : coverage searches. Each entry = (regex, docs, exclude) where
           exclude = {doc: {page: reason}}. Every page of `docs` matching the
           regex must be either a gold page or an explicitly excluded page
           (with a reason), and every gold page must be hit by at least one
           coverage regex. This makes sure the page list is complete.
  * calc : for computed labels: inputs, a function and the number of decimals;
           the recomputed value must equal `value` at that rounding.
  * absent: for unanswerable labels: (regex, file-set, expected hits) -- the
           full-text search must return exactly the expected hits (normally
           none); the search summary is appended to notes.
Only if all assertions pass is answers_tune.jsonl written.

Usage: python build.py            (verify + write)
       python build.py --discover (print unexplained coverage hits)
"""
import glob
import json
import os
import re
import sys

import pymupdf

HERE = os.path.dirname(os.path.abspath(__file__))
DEV = "/work/shared/corpus/financebench-dev"
PDF = {
    "vonovia_sustainability_report_2020": "/work/shared/corpus/esg/vonovia_sustainability_report_2020.pdf",
    "kion_nonfinancial_report_2023": "/work/shared/corpus/esg/kion_nonfinancial_report_2023.pdf",
    "AMD_2022_annualreport": "/work/shared/corpus/financebench/AMD_2022_annualreport.pdf",
}
for p in glob.glob(DEV + "/*.pdf"):
    b = os.path.basename(p)[:-4]
    if b.split("_")[0] in ("3M", "ADOBE", "AMCOR", "BESTBUY"):
        PDF[b] = p

ISSUER = {
    "3M": sorted(d for d in PDF if d.startswith("3M_")),
    "ADOBE": sorted(d for d in PDF if d.startswith("ADOBE_")),
    "AMCOR": sorted(d for d in PDF if d.startswith("AMCOR_")),
    "BESTBUY": sorted(d for d in PDF if d.startswith("BESTBUY_")),
    "AMD": ["AMD_2022_annualreport"],
    "KION": ["kion_nonfinancial_report_2023"],
    "VONOVIA": ["vonovia_sustainability_report_2020"],
}
ALLDOCS = sorted(PDF)

_cache = {}


def pages(doc):
    if doc not in _cache:
        d = pymupdf.open(PDF[doc])
        _cache[doc] = [re.sub(r"\s+", " ", pg.get_text()).strip() for pg in d]
        d.close()
    return _cache[doc]


def search(rx, docs, flags=0):
    r = re.compile(rx, flags)
    hits = {}
    for doc in docs:
        for i, t in enumerate(pages(doc)):
            if r.search(t):
                hits.setdefault(doc, []).append(i + 1)
    return hits


def snippet(doc, page, rx, w=90):
    t = pages(doc)[page - 1]
    m = re.search(rx, t)
    return t[max(0, m.start() - w):m.end() + w] if m else ""


def docs_of(x):
    if isinstance(x, str):
        return ISSUER[x] if x in ISSUER else [x]
    out = []
    for y in x:
        out += docs_of(y)
    return out


def r1(x, nd):
    return round(x + (1e-12 if x >= 0 else -1e-12), nd)


L = []


def add(**k):
    L.append(k)


# ---------------------------------------------------------------------------
# REPORTED FACTS
# ---------------------------------------------------------------------------
add(id="t13_01", kind="fact", answer_type="reported",
    question="How much did 3M spend on purchases of property, plant and equipment in 2021?",
    answer="$1,603 million of capital expenditures (purchases of PP&E) in 2021",
    value="1603 USD millions",
    ev={"3M_2021_10K": {30: [r"Total Company 95,000 95,000 \$ 1,603 \$ 1,501"],
                        37: [r"Purchases of property, plant and equipment \(PP&E\) \$ \(1,603\) \$ \(1,501\)"],
                        39: [r"Purchases of property, plant and equipment \(1,603\) \(1,501\)"],
                        49: [r"Purchases of property, plant and equipment \(PP&E\) \(1,603\) \(1,501\) \(1,699\)"],
                        123: [r"Total Company \$ 47,072 \$ 47,344 \$ 1,915 \$ 1,911 \$ 1,593 \$ 1,603 \$ 1,501 \$ 1,699"]},
        "3M_2022_10K": {34: [r"Total Company 92,000 95,000 \$ 1,749 \$ 1,603"],
                        39: [r"Purchases of property, plant and equipment \(PP&E\) \$ \(1,749\) \$ \(1,603\)"],
                        41: [r"Purchases of property, plant and equipment \(1,749\) \(1,603\)"],
                        52: [r"Purchases of property, plant and equipment \(PP&E\) \(1,749\) \(1,603\) \(1,501\)"],
                        123: [r"\$ 1,749 \$ 1,603 \$ 1,501"]}},
    cov=[(r"1,603", "3M", {"3M_2017_10K": {48: "2017 total cash change in debt $1,603"},
                             "3M_2018_10K": {47: "2017 total cash change in debt"},
                             "3M_2019_10K": {46: "2017 total cash change in debt", 49: "2022 debt maturity",
                                             87: "2022 debt maturity"}})],
    notes="Cash-flow statement, MD&A investing table, free-cash-flow table, geographic capex table and segment note "
          "(capex column) of the 2021 10-K; repeated as prior-year column in the 2022 10-K. 3M 2021 10-K/2022 10-K p30/p34 "
          "geographic table columns = employees, capital spending, PP&E net.")

add(id="t13_02", kind="fact", answer_type="reported",
    question="What were MMM's research, development and related expenses for fiscal year 2020?",
    answer="$1,878 million of research, development and related expenses in 2020",
    value="1878 USD millions",
    ev={"3M_2020_10K": {57: [r"Research, development and related expenses 1,878 1,911 1,821"],
                        66: [r"Research, development and related expenses totaled \$1\.878 billion in 2020"]},
        "3M_2021_10K": {45: [r"Research, development and related expenses 1,994 1,878 1,911"],
                        53: [r"totaled \$1\.994 billion in 2021, \$1\.878 billion in 2020"]},
        "3M_2022_10K": {48: [r"Research, development and related expenses 1,862 1,994 1,878"],
                        56: [r"totaled \$1\.9 billion, \$2\.0 billion and \$1\.9 billion in 2022, 2021 and 2020, respectively"]}},
    cov=[(r"1,878|\$1\.878 billion|and \$1\.9 billion in 2022, 2021 and 2020", "3M",
          {"3M_2020_10K": {51: "2023 debt maturity $1,878", 89: "2023 debt maturity"}})],
    notes="Consolidated Statement of Income in the 2020 10-K (current year) and as prior-year columns in the 2021 and 2022 10-Ks; "
          "accounting-policy note states $1.878 billion (2020, 2021 10-K) and rounded $1.9 billion (2022 10-K).")

add(id="t13_03", kind="fact", answer_type="reported",
    question="What was Adobe's Digital Experience segment revenue in fiscal 2022?",
    answer="$4,422 million Digital Experience revenue in fiscal 2022 (year ended Dec 2, 2022)",
    value="4422 USD millions",
    ev={"ADOBE_2022_10K": {39: [r"Digital Experience revenue was \$4\.42 billion in fiscal 2022"],
                           40: [r"Digital Experience revenue of \$4\.42 billion increased by \$555 million"],
                           41: [r"Digital Experience 4,422 3,867 3,125 14 %"],
                           65: [r"4,422"]}},
    cov=[(r"4,422|\$4\.42 billion", "ADOBE", {"ADOBE_2020_10K": {55: "FY2019 operating cash flow $4,422", 66: "FY2019 operating cash flow", 47: "FY2019 operating cash flow $4.42 billion"},
                                "ADOBE_2021_10K": {50: "FY2019 operating cash flow", 59: "FY2019 operating cash flow"},
                                "ADOBE_2019_10K": {42: "FY2019 operating cash flow $4.42 billion", 50: "FY2019 operating cash flow"}})],
    notes="MD&A overview text ($4.42 billion, p39-40), MD&A segment table (p41) and segment note (p65). No later Adobe 10-K in the corpus repeats FY2022.")

add(id="t13_04", kind="fact", answer_type="reported",
    question="Adobe Digital Media revenue for the three months ended June 2, 2023?",
    answer="$3,511 million Digital Media revenue in the quarter ended June 2, 2023 (Q2 fiscal 2023)",
    value="3511 USD millions",
    ev={"ADOBE_2022Q2_10Q": {9: [r"Three months ended June 2, 2023 Revenue \$ 3,511 \$ 1,222 \$ 83 \$ 4,816"],
                             10: [r"Total Digital Media revenue \$ 3,511 \$ 3,200 \$ 6,906 \$ 6,310"],
                             26: [r"Total Digital Media segment revenue grew to \$3\.51 billion in the second quarter of fiscal 2023"],
                             30: [r"Digital Media \$ 3,511 \$ 3,200 10 %", r"Total Digital Media revenue \$ 3,511 \$ 3,200"]}},
    cov=[(r"3,511|\$3\.51 billion", "ADOBE", {"ADOBE_2017_10K": {55: "short-term investments $3.51 billion at Dec 1, 2017"}})],
    notes="The file named ADOBE_2022Q2_10Q is the 10-Q for the quarter ended June 2, 2023 (fiscal Q2 2023). Segment note p9, "
          "revenue-by-offering note p10, MD&A overview p26 ($3.51 billion) and MD&A table p30.")

add(id="t13_05", kind="fact", answer_type="reported",
    question="What adjusted EBIT did Amcor report for fiscal 2023?",
    answer="$1,608 million adjusted EBIT for fiscal year ended June 30, 2023",
    value="1608 USD millions",
    ev={"AMCOR_2023Q4_EARNINGS": {1: [r"Adjusted EBIT of \$1,608 million", r"EBIT 1,701 1,608"],
                                  2: [r"Total Amcor 14,544 1,701 11.7 16.3 14,694 1,608 10.9 15.4",
                                      r"Adjusted EBIT of \$1,608 million"],
                                  12: [r"Adjusted EBITDA, EBIT, Net income and EPS 2,117 1,701 1,224 80.5 2,018 1,608"],
                                  14: [r"Adjusted EBIT 1,517 289 \(105\) 1,701 1,429 265 \(86\) 1,608"]},
        "AMCOR_2023_10K": {35: [r"Adjusted EBIT 1,608 1,701 1,621"],
                           101: [r"Adjusted EBIT 1,608 1,701 1,621"]}},
    cov=[(r"1,608", "AMCOR", {})],
    notes="Non-GAAP adjusted EBIT; earnings release highlights/segment table/reconciliations and 10-K MD&A non-GAAP "
          "reconciliation (p35) and segment note (p101). GAAP operating income was $1,508m.")

add(id="t13_06", kind="fact", answer_type="reported",
    question="Amcor net sales in the December 2022 quarter (second quarter of fiscal 2023)?",
    answer="$3,642 million net sales for the three months ended December 31, 2022",
    value="3642 USD millions",
    ev={"AMCOR_2023Q2_10Q": {5: [r"Net sales \$ 3,642 \$ 3,507 \$ 7,354 \$ 6,927"],
                             28: [r"Net sales \$ 3,642 \$ 3,507 \$ 7,354 \$ 6,927"],
                             29: [r"Net sales \$ 2,812 \$ 830 \$ 3,642 \$ 2,713 \$ 794 \$ 3,507"],
                             33: [r"Net sales \$ 3,642 100.0 %"],
                             36: [r"Net sales \$ 3,642 \$ 3,507"]}},
    cov=[(r"3,642", "AMCOR", {})],
    notes="10-Q for quarter ended Dec 31, 2022: income statement, segment note, geographic disaggregation, MD&A tables.")

add(id="t13_07", kind="fact", answer_type="reported",
    question="What was Best Buy's enterprise revenue in Q2 of fiscal 2024?",
    answer="$9,583 million revenue for the quarter ended July 29, 2023 (Q2 FY24)",
    value="9583 USD millions",
    ev={"BESTBUY_2024Q2_10Q": {4: [r"Revenue \$ 9,583 \$ 10,329 \$ 19,050 \$ 20,976"],
                               13: [r"Total revenue \$ 9,583 \$ 10,329"],
                               16: [r"Revenue \$ 9,583 \$ 10,329", r"we generated \$9.6 billion and \$19.1 billion in revenue"]},
        "BESTBUY_2024Q2_EARNINGS": {1: [r"Enterprise \$ 9,583 \$ 10,329"],
                                    5: [r"Revenue \$ 9,583 \$ 10,329 \$ 19,050 \$ 20,976"]}},
    cov=[(r"9,583|\$9\.6 billion", "BESTBUY", {})],
    notes="Best Buy fiscal 2024 Q2 = 13 weeks ended July 29, 2023. 10-Q income statement, segment note, MD&A; earnings "
          "release summary table and income statement.")

add(id="t13_08", kind="fact", answer_type="reported",
    question="How much revenue did Best Buy generate in the fourth quarter of fiscal 2023?",
    answer="$14,735 million enterprise revenue for Q4 FY23 (quarter ended January 28, 2023)",
    value="14735 USD millions",
    ev={"BESTBUY_2023Q4_EARNINGS": {1: [r"Enterprise \$ 14,735 \$ 16,365 \$ 46,298 \$ 51,761"],
                                    6: [r"Revenue \$ 14,735 \$ 16,365 \$ 46,298 \$ 51,761"]}},
    cov=[(r"14,735|14\.74 billion", "BESTBUY", {})],
    notes="Only the Q4 FY23 earnings release reports the quarter; the FY2023 10-K has no quarterly table.")

add(id="t13_09", kind="fact", answer_type="reported",
    question="Best Buy cash and cash equivalents at the end of fiscal 2023?",
    answer="$1,874 million of cash and cash equivalents at January 28, 2023",
    value="1874 USD millions",
    ev={"BESTBUY_2023_10K": {29: [r"Cash and cash equivalents \$ 1,874 \$ 2,936"],
                             39: [r"Cash and cash equivalents \$ 1,874 \$ 2,936"],
                             44: [r"Cash and cash equivalents \$ 1,874 \$ 2,936 \$ 5,494"]},
        "BESTBUY_2023Q4_EARNINGS": {7: [r"Cash and cash equivalents \$ 1,874 \$ 2,936"]},
        "BESTBUY_2024Q2_10Q": {3: [r"Cash and cash equivalents \$ 1,093 \$ 1,874 \$ 840"],
                               8: [r"Cash and cash equivalents \$ 1,093 \$ 1,874 \$ 840"],
                               20: [r"Cash and cash equivalents \$ 1,093 \$ 1,874 \$ 840"]}},
    cov=[(r"1,874", "BESTBUY", {})],
    notes="Balance sheet Jan 28, 2023 (fiscal 2023 year-end); repeated in the Q4 release balance sheet and as the "
          "Jan 28, 2023 column of the Q2 FY24 10-Q.")

add(id="t13_10", kind="fact", answer_type="reported",
    question="What was AMD's Data Center segment net revenue in 2022?",
    answer="$6,043 million Data Center net revenue in 2022",
    value="6043 USD millions",
    ev={"AMD_2022_annualreport": {3: [r"annual revenue increased 64 percent year- over-year to \$6\.0 billion"],
                                  57: [r"Data Center[ .]*\$ 6,043 \$ 3,694", r"Data Center net revenue of \$6 billion in 2022"],
                                  78: [r"Data Center[ .]*\$ 6,043 \$ 3,694"]}},
    cov=[(r"6,043|revenue increased 64 percent year- over-year to \$6\.0 billion|Data Center net revenue of \$6 billion", "AMD", {})],
    notes="MD&A segment table p57 and segment note p78 give $6,043m; shareholder letter p3 and MD&A text p57 give the "
          "rounded $6.0/$6 billion.")

add(id="t13_11", kind="fact", answer_type="reported",
    question="AMD research and development expense 2022",
    answer="$5,005 million research and development expense in 2022",
    value="5005 USD millions",
    ev={"AMD_2022_annualreport": {58: [r"Research and development[ .]*5,005 2,845",
                                       r"Research and development expenses of \$5\.0 billion in 2022"],
                                  64: [r"Research and development[ .]*5,005 2,845 1,983"]}},
    cov=[(r"5,005|Research and development expenses of \$5\.0 billion", "AMD", {})],
    notes="Statement of operations p64, MD&A table and text p58.")

add(id="t13_12", kind="fact", answer_type="reported",
    question="What were KION Group's direct (Scope 1) greenhouse gas emissions in 2023?",
    answer="110,769 t CO2e Scope 1 emissions in 2023 (about 111 kt)",
    value="110769 t CO2e",
    ev={"kion_nonfinancial_report_2023": {32: [r"Direct \(Scope 1\) 110,769 107,782 \+2\.8 %"],
                                          33: [r"Direct Scope 1 111 108 \+2\.8 %"]}},
    cov=[(r"110,769|Direct Scope 1 111\b", "KION", {})],
    notes="Scope 1 table p32 (t CO2e); total GHG table p33 gives 111 kt (rounded).")

add(id="t13_13", kind="fact", answer_type="reported",
    question="How much water did KION withdraw in 2023?",
    answer="595.9 million liters of water withdrawal in 2023 (shown as 596 million liters water consumption in key figures)",
    value="595.9 million liters",
    ev={"kion_nonfinancial_report_2023": {34: [r"Water withdrawal 595\.9 552\.9 \+7\.8 %"],
                                          5: [r"Water consumption 596 million liters 553 million liters 584 million liters \+7\.8 %"]}},
    cov=[(r"595\.9|596 million liters", "KION", {})],
    notes="Water table p34 (withdrawal, million liters); the selected-figures table p5 shows the same quantity rounded "
          "as 'Water consumption 596 million liters'.")

add(id="t13_14", kind="fact", answer_type="reported",
    question="How many employees did KION have at the end of 2023?",
    answer="42,325 employees (FTE, as at 31 Dec 2023)",
    value="42325 FTE",
    ev={"kion_nonfinancial_report_2023": {1: [r"42,325 Employees"],
                                          5: [r"Number of employees6, \* 42,325 41,149 39,602 \+2\.9 %"]}},
    cov=[(r"42,325", "KION", {})],
    notes="Cover KPI and selected-figures table; footnote 6: full-time equivalents as at balance sheet date 31/12.")

add(id="t13_15", kind="fact", answer_type="reported",
    question="What was Vonovia's fresh water consumption in its residential portfolio in 2020?",
    answer="53.2 million m³ of water consumption in the portfolio in 2020",
    value="53.2 million m3",
    ev={"vonovia_sustainability_report_2020": {110: [r"Water consumption million m³ 43\.8 45\.2 53\.2 44\.4 3\.0 5\.8"]}},
    cov=[(r"53\.2", "VONOVIA", {})],
    notes="Key figures table 'Fresh Water Consumption in the Portfolio' (GRI 303-5). Business-operations water (68,448 m³, p112) is a different scope.")

add(id="t13_16", kind="fact", answer_type="reported",
    question="Vonovia energy consumption in the portfolio 2020 (MWh)?",
    answer="4,548,951 MWh energy consumption in the portfolio in 2020",
    value="4548951 MWh",
    ev={"vonovia_sustainability_report_2020": {108: [r"Energy consumption 2\) MWh 3,565,044 4,318,235 4,548,951 3,619,238 356,616 573,098"]}},
    cov=[(r"4,548,951|4\.5 million MWh", "VONOVIA", {})],
    notes="Portfolio Environmental Figures table; group total across Germany, Austria, Sweden.")

# ---------------------------------------------------------------------------
# COMPUTED
# ---------------------------------------------------------------------------
add(id="t13_17", kind="fact", answer_type="computed",
    question="What was 3M's dividend payout ratio in 2022 (cash dividends paid vs. net income attributable to 3M)?",
    answer="58.3% dividend payout ratio in 2022 (3,369 / 5,777)",
    value="58.3 %",
    formula="dividends paid to shareholders 3,369 (3M_2022_10K p52) / net income attributable to 3M 5,777 (3M_2022_10K p48) * 100",
    calc=({"div": 3369, "ni": 5777}, lambda v: v["div"] / v["ni"] * 100, 1),
    ev={"3M_2022_10K": {24: [r"\$ 6,392 \$ 612 9\.6 % \$ 5,777 \$ 10\.18"],
                        40: [r"Dividends paid to shareholders \(3,369\) \(3,420\)"],
                        41: [r"Net income attributable to 3M \$ 5,777 \$ 5,921"],
                        48: [r"Net income attributable to 3M \$ 5,777 \$ 5,921 \$ 5,449"],
                        51: [r"Net income 5,791 5,777 14", r"Dividends declared \(\$5\.96 per share, Note 8\) \(3,369\) \(3,369\)"],
                        52: [r"Dividends paid to shareholders \(3,369\) \(3,420\) \(3,388\)"],
                        57: [r"Net income attributable to 3M \$ 5,777 \$ 5,921 \$ 5,449"]}},
    cov=[(r"3,369", "3M_2022_10K", {}), (r"5,777", "3M_2022_10K", {})],
    notes="Convention: cash dividends paid (cash-flow statement) / net income attributable to 3M. Per-share basis "
          "(dividends declared $5.96 / diluted EPS $10.18) gives ~58.5%; accept 58-59%.")

add(id="t13_18", kind="fact", answer_type="computed",
    question="3M capex as a percentage of net sales in 2021?",
    answer="4.5% capex-to-sales in 2021 (1,603 / 35,355)",
    value="4.5 %",
    formula="purchases of PP&E 1,603 (3M_2021_10K p49) / net sales 35,355 (3M_2021_10K p45) * 100",
    calc=({"capex": 1603, "sales": 35355}, lambda v: v["capex"] / v["sales"] * 100, 1),
    ev={"3M_2021_10K": {21: [r"Total Company \$ 35,355 100\.0 %"], 22: [r"Worldwide Net sales \(millions\) \$ 18,097 \$ 10,600 \$ 6,660 \$ \(2\) \$ 35,355"],
                        30: [r"Total Company 95,000 95,000 \$ 1,603"], 37: [r"\(PP&E\) \$ \(1,603\)"], 39: [r"equipment \(1,603\) \(1,501\)"],
                        45: [r"Net sales \$ 35,355 \$ 32,184 \$ 32,136"],
                        49: [r"Purchases of property, plant and equipment \(PP&E\) \(1,603\) \(1,501\) \(1,699\)"],
                        60: [r"Worldwide \$ 35,355 \$ 32,184 \$ 32,136"], 123: [r"Total Company \$ 35,355 \$ 32,184 \$ 32,136", r"\$ 1,603 \$ 1,501 \$ 1,699"]},
        "3M_2022_10K": {25: [r"\$ 35,355 100\.0 %"], 34: [r"\$ 1,749 \$ 1,603"], 39: [r"\(PP&E\) \$ \(1,749\) \$ \(1,603\)"],
                        41: [r"\(1,749\) \(1,603\)"], 48: [r"Net sales \$ 34,229 \$ 35,355 \$ 32,184"],
                        52: [r"Purchases of property, plant and equipment \(PP&E\) \(1,749\) \(1,603\) \(1,501\)"],
                        60: [r"Total Company \$ 34,229 \$ 35,355 \$ 32,184"], 123: [r"Total Company \$ 34,229 \$ 35,355 \$ 32,184", r"\$ 1,749 \$ 1,603 \$ 1,501"]}},
    cov=[(r"1,603", ["3M_2021_10K", "3M_2022_10K"], {}), (r"35,355", ["3M_2021_10K", "3M_2022_10K"], {})],
    notes="Inputs from the 2021 10-K income statement (p45) and cash-flow statement (p49); both repeated in MD&A/segment/geographic "
          "tables and as prior-year columns of the 2022 10-K (all such pages listed). 1,603/35,355 = 4.53%.")

add(id="t13_19", kind="fact", answer_type="computed",
    question="Compute Adobe's quick ratio as of fiscal year-end 2022.",
    answer="1.00 quick ratio at December 2, 2022 ((4,236 + 1,860 + 2,065) / 8,128)",
    value="1.00 ratio",
    formula="(cash and cash equivalents 4,236 + short-term investments 1,860 + trade receivables 2,065) / total current liabilities 8,128 (all ADOBE_2022_10K p53)",
    calc=({"cash": 4236, "sti": 1860, "ar": 2065, "cl": 8128}, lambda v: (v["cash"] + v["sti"] + v["ar"]) / v["cl"], 2),
    ev={"ADOBE_2022_10K": {47: [r"Cash and cash equivalents \$ 4,236 \$ 3,844 Short-term investments \$ 1,860 \$ 1,954"],
                           57: [r"Cash and cash equivalents at end of year \$ 4,236 \$ 3,844"],
                           69: [r"Total cash and cash equivalents 4,236 — — 4,236", r"Total short-term investments 1,901 — \(41\) 1,860"],
                           70: [r"Total \$ 1,860"],
                           53: [r"Cash and cash equivalents \$ 4,236 \$ 3,844", r"Short-term investments 1,860 1,954",
                                r"Trade receivables, net of allowances for doubtful accounts of \$23 and of \$16, respectively 2,065 1,878",
                                r"Total current liabilities 8,128 6,932"]}},
    cov=[(r"2,065", "ADOBE_2022_10K", {}), (r"8,128", "ADOBE_2022_10K", {})],
    notes="Convention: quick ratio = (cash + short-term investments + receivables) / current liabilities, balance sheet "
          "Dec 2, 2022. = 8,161 / 8,128 = 1.004.")

add(id="t13_20", kind="fact", answer_type="computed",
    question="What was Adobe's effective tax rate for fiscal 2021?",
    answer="15.5% effective tax rate in fiscal 2021 (883 / 5,705)",
    value="15.5 %",
    formula="provision for income taxes 883 (ADOBE_2021_10K p56) / income before income taxes 5,705 (ADOBE_2021_10K p56) * 100",
    calc=({"tax": 883, "pbt": 5705}, lambda v: v["tax"] / v["pbt"] * 100, 1),
    ev={"ADOBE_2021_10K": {48: [r"Provision for \(benefit from\) income taxes \$ 883 \$ \(1,084\) \$ 254", r"Effective tax rate 15 % \(26\)"],
                           56: [r"Income before income taxes 5,705 4,176 3,205", r"Provision for \(benefit from\) income taxes 883 \(1,084\) 254"],
                           80: [r"5,705"],
                           81: [r"Provision for \(benefit from\) income taxes \$ 883 \$ \(1,084\) \$ 254"]},
        "ADOBE_2022_10K": {45: [r"Provision for \(benefit from\) income taxes \$ 1,252 \$ 883 \$ \(1,084\)", r"Effective tax rate 21 % 15 %"],
                           54: [r"Income before income taxes 6,008 5,705 4,176", r"Provision for \(benefit from\) income taxes 1,252 883 \(1,084\)"],
                           77: [r"5,705"]}},
    xin={"ADOBE_2021_10K": {55: "balance sheet 'Other assets 883' (unrelated)"},
         "ADOBE_2022_10K": {53: "balance sheet 'Other assets 841 883' (unrelated)"}},
    cov=[(r"5,705", ["ADOBE_2021_10K", "ADOBE_2022_10K"], {})],
    notes="Income statement of FY2021 10-K and prior-year column of FY2022 10-K; income-tax note (p80 / p77) repeats the "
          "pre-tax income. The MD&A tax tables print the rounded rate '15 %' (2021 10-K p48, 2022 10-K p45).")

add(id="t13_21", kind="fact", answer_type="computed",
    question="Amcor current ratio at June 30, 2023?",
    answer="1.19 current ratio at June 30, 2023 (5,308 / 4,476)",
    value="1.19 ratio",
    formula="total current assets 5,308 (AMCOR_2023_10K p52) / total current liabilities 4,476 (AMCOR_2023_10K p52)",
    calc=({"ca": 5308, "cl": 4476}, lambda v: v["ca"] / v["cl"], 2),
    ev={"AMCOR_2023_10K": {52: [r"Total current assets 5,308 5,853", r"Total current liabilities 4,476 5,103"]}},
    cov=[(r"5,308", "AMCOR_2023_10K", {}), (r"4,476", "AMCOR_2023_10K", {})],
    notes="Balance sheet as of June 30, 2023 (fiscal 2023 year-end).")

add(id="t13_22", kind="fact", answer_type="computed",
    question="What was Amcor's return on assets for fiscal 2023?",
    answer="6.1% return on average total assets in FY2023 (1,048 / ((17,003 + 17,426) / 2))",
    value="6.1 %",
    formula="net income attributable to Amcor plc 1,048 (AMCOR_2023_10K p50) / average total assets ((17,003 + 17,426)/2 = 17,214.5) (AMCOR_2023_10K p52) * 100",
    calc=({"ni": 1048, "ta1": 17003, "ta0": 17426}, lambda v: v["ni"] / ((v["ta1"] + v["ta0"]) / 2) * 100, 1),
    ev={"AMCOR_2023_10K": {29: [r"Net income attributable to Amcor plc \$ 1,048 7\.1 %"],
                           32: [r"Net income attributable to Amcor plc \$ 1,048 \$ 805"],
                           35: [r"Net income attributable to Amcor plc, as reported \$ 1,048 \$ 805 \$ 939"],
                           50: [r"Net income attributable to Amcor plc \$ 1,048 \$ 805 \$ 939"],
                           52: [r"Total assets \$ 17,003 \$ 17,426"],
                           54: [r"Net income 1,048 10 1,058"],
                           98: [r"Net income attributable to Amcor plc \$ 1,048 \$ 805 \$ 939"]}},
    cov=[(r"17,003", "AMCOR_2023_10K", {})],
    notes="Convention: net income attributable to Amcor plc / average of June 30, 2023 and June 30, 2022 total assets = "
          "6.09%. Using ending assets gives 6.16%; using net income incl. NCI (1,058) gives 6.15%; accept 6.1-6.2%. Total assets appear only on the balance sheet.")

add(id="t13_23", kind="fact", answer_type="computed",
    question="Calculate BBY's days payable outstanding for fiscal 2023.",
    answer="57.0 days payable outstanding in FY2023 (5,687 / 36,386 * 365)",
    value="57.0 days",
    formula="accounts payable 5,687 (BESTBUY_2023_10K p39) / cost of sales 36,386 (BESTBUY_2023_10K p40) * 365",
    calc=({"ap": 5687, "cogs": 36386}, lambda v: v["ap"] / v["cogs"] * 365, 1),
    ev={"BESTBUY_2023_10K": {39: [r"Accounts payable \$ 5,687 \$ 6,803"],
                             40: [r"Cost of sales 36,386 40,121 36,689"]},
        "BESTBUY_2023Q4_EARNINGS": {6: [r"Cost of sales 11,795 13,052 36,386 40,121"],
                                    7: [r"Accounts payable \$ 5,687 \$ 6,803"]}},
    cov=[(r"5,687", ["BESTBUY_2023_10K", "BESTBUY_2023Q4_EARNINGS"], {}),
         (r"36,386", ["BESTBUY_2023_10K", "BESTBUY_2023Q4_EARNINGS"], {})],
    notes="Convention: year-end accounts payable (Jan 28, 2023) / cost of sales * 365. With average AP ((5,687+6,803)/2) "
          "it would be 62.6 days.")

add(id="t13_24", kind="fact", answer_type="computed",
    question="What was Best Buy's inventory turnover in fiscal 2023?",
    answer="6.55x inventory turnover in FY2023 (36,386 / ((5,140 + 5,965) / 2))",
    value="6.55 times",
    formula="cost of sales 36,386 (BESTBUY_2023_10K p40) / average merchandise inventories ((5,140 + 5,965)/2 = 5,552.5) (BESTBUY_2023_10K p39)",
    calc=({"cogs": 36386, "i1": 5140, "i0": 5965}, lambda v: v["cogs"] / ((v["i1"] + v["i0"]) / 2), 2),
    ev={"BESTBUY_2023_10K": {39: [r"Merchandise inventories 5,140 5,965"],
                             40: [r"Cost of sales 36,386 40,121 36,689"]},
        "BESTBUY_2023Q4_EARNINGS": {6: [r"Cost of sales 11,795 13,052 36,386 40,121"],
                                    7: [r"Merchandise inventories 5,140 5,965"]}},
    cov=[(r"5,140", ["BESTBUY_2023_10K", "BESTBUY_2023Q4_EARNINGS"], {}),
         (r"36,386", ["BESTBUY_2023_10K", "BESTBUY_2023Q4_EARNINGS"], {})],
    notes="Convention: cost of sales / average of beginning and ending merchandise inventories. Ending-inventory basis: 7.08x.")

add(id="t13_25", kind="fact", answer_type="computed",
    question="By what percentage did AMD's net revenue grow in 2022 compared with 2021?",
    answer="43.6% revenue growth in 2022 ($23,601m vs $16,434m)",
    value="43.6 %",
    formula="(net revenue 2022 23,601 - net revenue 2021 16,434) / 16,434 * 100 (AMD_2022_annualreport p64)",
    calc=({"r1": 23601, "r0": 16434}, lambda v: (v["r1"] - v["r0"]) / v["r0"] * 100, 1),
    ev={"AMD_2022_annualreport": {51: [r"Net revenue for 2022 was \$23\.6 billion, an increase of 44% compared to 2021 net revenue of \$16\.4 billion"],
                                  57: [r"Total net revenue[ .]*\$23,601 \$16,434"],
                                  58: [r"Net revenue[ .]*\$23,601 \$16,434"],
                                  64: [r"Net revenue[ .]*\$23,601 \$16,434 \$ 9,763"],
                                  78: [r"\$23,601 \$16,434"],
                                  79: [r"23,601"]}},
    cov=[(r"23,601|Net revenue for 2022 was \$23\.6 billion", "AMD", {})],
    notes="Statement of operations p64; MD&A p57/p58, segment note p78, geographic table p79; MD&A overview p51 states the rounded 44%.")

add(id="t13_26", kind="fact", answer_type="computed",
    question="What were Vonovia's combined Scope 1 and Scope 2 emissions from its portfolio in 2020?",
    answer="877,217 t CO2e Scope 1 + Scope 2 portfolio emissions in 2020 (466,848 + 410,369)",
    value="877217 t CO2e",
    formula="Scope 1 combustion at stationary plants 466,848 + Scope 2 energy delivery 410,369 (vonovia_sustainability_report_2020 p115)",
    calc=({"s1": 466848, "s2": 410369}, lambda v: v["s1"] + v["s2"], 0),
    ev={"vonovia_sustainability_report_2020": {115: [r"Scope 1 \(direct carbon emissions\) Combustion processes at stationary plants t CO2e 522,421 571,744 466,848",
                                                     r"Scope 2 \(indirect carbon emissions\) Energy delivery t CO2e 406,913 466,892 410,369"]}},
    cov=[(r"466,848|410,369|877,217", "VONOVIA", {})],
    notes="Portfolio (not business operations) emissions, group total 2020. The sum 877,217 is not printed anywhere in the report "
          "(searched). Business-operations Scope 1+2 (p116) is a separate, much smaller figure.")

add(id="t13_27", kind="fact", answer_type="computed",
    question="What were KION's Scope 1 and 2 (market-based) emissions per employee in 2023?",
    answer="3.45 t CO2e per employee (FTE) in 2023 (146,107 t / 42,325 FTE)",
    value="3.45 t CO2e per FTE",
    formula="Scope 1+2 market-based 146,107 t CO2e (kion p32) / employees 42,325 FTE (kion p5)",
    calc=({"e": 146107, "n": 42325}, lambda v: v["e"] / v["n"], 2),
    ev={"kion_nonfinancial_report_2023": {1: [r"42,325 Employees"],
                                          5: [r"Greenhouse gas emissions \(Scope 1\+2\)5 146 kt CO₂e", r"Number of employees6, \* 42,325"],
                                          32: [r"\(GHG emissions – Scope 1 and 2, market-based\) \(146,107\) \(143,100\)"]}},
    cov=[(r"146,107|\(Scope 1\+2\)5 146 kt", "KION", {}), (r"42,325", "KION", {})],
    notes="Convention: market-based Scope 1+2 (the headline KPI on p5) / year-end FTE. Location-based (188,231 t) would give 4.45.")

# ---------------------------------------------------------------------------
# COMPARE
# ---------------------------------------------------------------------------
add(id="t13_28", kind="compare", answer_type="computed",
    question="How much higher was Adobe's gross margin than 3M's in fiscal 2022, in percentage points?",
    answer="43.9 percentage points higher at Adobe (Adobe 87.7% = 15,441/17,606 vs 3M 43.8% = (34,229-19,232)/34,229)",
    value="43.9 pp",
    formula="Adobe gross profit 15,441 / total revenue 17,606 (ADOBE_2022_10K p54) - 3M (net sales 34,229 - cost of sales 19,232) / 34,229 (3M_2022_10K p48)",
    calc=({"ag": 15441, "ar": 17606, "ms": 34229, "mc": 19232},
          lambda v: (v["ag"] / v["ar"] - (v["ms"] - v["mc"]) / v["ms"]) * 100, 1),
    ev={"ADOBE_2022_10K": {40: [r"Total revenue \$ 17,606 \$ 15,785"], 41: [r"Total revenue \$ 17,606 \$ 15,785"],
                           42: [r"Total revenue \$ 17,606 \$ 15,785"],
                           54: [r"Total revenue 17,606 15,785 12,868", r"Gross profit 15,441 13,920 11,146"],
                           65: [r"15,441", r"17,606"]},
        "3M_2022_10K": {25: [r"Total Company \$ 34,229 100\.0 %"], 60: [r"Total Company \$ 34,229 \$ 35,355"],
                        123: [r"Total Company \$ 34,229 \$ 35,355"],
                        48: [r"Net sales \$ 34,229 \$ 35,355 \$ 32,184", r"Cost of sales 19,232 18,795 16,605"],
                        90: [r"effects of derivatives are recorded \$ 19,232 \$ 18,795 \$ 16,605"]}},
    cov=[(r"15,441", "ADOBE_2022_10K", {}), (r"19,232", "3M_2022_10K", {})],
    notes="Adobe FY2022 (ended Dec 2, 2022) gross margin 87.70%; 3M 2022 gross margin 43.81% (3M reports no gross profit "
          "line; computed as net sales - cost of sales). Difference 43.89 pp.")

add(id="t13_29", kind="compare", answer_type="computed",
    question="How did Amcor's operating margin change between fiscal 2022 and fiscal 2023?",
    answer="+1.7 percentage points: 10.3% in FY2023 (1,508/14,694) vs 8.5% in FY2022 (1,239/14,544)",
    value="1.7 pp",
    formula="operating income 1,508 / net sales 14,694 (FY2023) - operating income 1,239 / net sales 14,544 (FY2022), AMCOR_2023_10K p50",
    calc=({"oi1": 1508, "s1": 14694, "oi0": 1239, "s0": 14544},
          lambda v: (v["oi1"] / v["s1"] - v["oi0"] / v["s0"]) * 100, 1),
    ev={"AMCOR_2023_10K": {50: [r"Net sales \$ 14,694 \$ 14,544 \$ 12,861", r"Operating income 1,508 1,239 1,321"],
                           29: [r"1,508", r"14,694", r"1,239"], 32: [r"1,508", r"Operating income as a percentage of net sales 10\.3 % 8\.5 %"],
                           101: [r"Net sales \$ 14,694 \$ 14,544 \$ 12,861"], 102: [r"Net sales \$ 14,694 \$ 14,544 \$ 12,861"],
                           103: [r"Net sales \$ 11,154 \$ 3,540 \$ 14,694", r"Net sales \$ 11,151 \$ 3,393 \$ 14,544"]},
        "AMCOR_2022_10K": {49: [r"Net sales \$ 14,544 \$ 12,861", r"Operating income 1,239 1,321"],
                           28: [r"1,239", r"14,544"], 31: [r"1,239"],
                           98: [r"Total sales including intersegment sales 14,544 12,863 12,471"],
                           99: [r"Net sales \$ 14,544 \$ 12,861 \$ 12,468"], 100: [r"Net sales \$ 11,151 \$ 3,393 \$ 14,544"]}},
    cov=[(r"1,508", "AMCOR_2023_10K", {}), (r"1,239", ["AMCOR_2022_10K", "AMCOR_2023_10K"], {})],
    notes="GAAP operating income / net sales: FY2023 10.26%, FY2022 8.52%; change +1.74 pp. FY2022 inputs also in the "
          "FY2022 10-K. (Adjusted EBIT margin moved the other way: 11.7% -> 10.9%.)")

add(id="t13_30", kind="compare", answer_type="computed",
    question="Which spent more on R&D in 2022, AMD or Adobe, and by how much?",
    answer="$2,018 million more at AMD (AMD $5,005m in 2022 vs Adobe $2,987m in fiscal 2022)",
    value="2018 USD millions",
    formula="AMD R&D 5,005 (AMD_2022_annualreport p64) - Adobe R&D 2,987 (ADOBE_2022_10K p54)",
    calc=({"amd": 5005, "adbe": 2987}, lambda v: v["amd"] - v["adbe"], 0),
    ev={"AMD_2022_annualreport": {58: [r"Research and development[ .]*5,005 2,845"],
                                  64: [r"Research and development[ .]*5,005 2,845 1,983"]},
        "ADOBE_2022_10K": {43: [r"Research and development \$ 2,987 \$ 2,540 \$ 2,188"],
                           54: [r"Research and development 2,987 2,540 2,188"]}},
    cov=[(r"5,005", "AMD", {}), (r"2,987", "ADOBE_2022_10K", {})],
    notes="AMD calendar 2022 vs Adobe fiscal 2022 (ended Dec 2, 2022).")

# ---------------------------------------------------------------------------
# NARRATIVE
# ---------------------------------------------------------------------------
add(id="t13_31", kind="fact", answer_type="narrative",
    question="Why did AMD's gross margin decline in 2022?",
    answer="Primarily amortization of intangible assets from the Xilinx acquisition; gross margin fell to 45% in 2022 from 48% in 2021.",
    value=None,
    ev={"AMD_2022_annualreport": {51: [r"Gross margin, as a percentage of net revenue for 2022, was 45%, compared to 48% in 2021\. The decrease in gross margin was pr"],
                                  58: [r"The decrease in gross margin was primarily due to amortization of intangible assets associated with the Xilinx acquisition"]}},
    cov=[(r"decrease in gross margin was primarily", "AMD", {})],
    notes="MD&A overview p51 and gross-margin discussion p58 give the same reason.")

add(id="t13_32", kind="fact", answer_type="narrative",
    question="What caused Best Buy's comparable sales decline in fiscal 2023?",
    answer="Lapping strong pandemic-era (stay-at-home and stimulus-driven) sales in FY22/FY21, consumer spending shifting back to services such as travel and entertainment, and macroeconomic pressure incl. high inflation softening consumer-electronics demand (comparable sales -9.9%).",
    value=None,
    ev={"BESTBUY_2023_10K": {25: [r"our comparable sales declined 9\.9%\. Our comparable sales decline was due to multiple factors",
                                  r"the lapping of strong sales in fiscal 2022 and fiscal 2021",
                                  r"the shift of consumer spending back into service areas such as travel and entertainment",
                                  r"macroeconomic pressures, including high inflation"]}},
    cov=[(r"comparable sales decline was due to multiple factors", "BESTBUY", {})],
    notes="MD&A Consolidated Results, FY2023 10-K. Segment text (p25) adds declines in computing, home theater, mobile phones, appliances.")

add(id="t13_33", kind="fact", answer_type="narrative",
    question="What drove the increase in Adobe's Digital Media revenue in fiscal 2022?",
    answer="Higher revenue from Creative Cloud and Document Cloud subscription offerings, on continued demand in an increasingly digital environment and strong customer acquisition and engagement, partly offset by FX; Digital Media revenue rose $1.32 billion (to $12,842m).",
    value=None,
    ev={"ADOBE_2022_10K": {42: [r"Revenue from Digital M ?edia increased \$1\.32 billion during fiscal 2022 as compared to fiscal 2021, driven by increases in revenue associated with our Creative and Document Cloud subscription offerings",
                                r"strong customer acquisition and engagement, partially offset by the impact of foreign currency"]}},
    cov=[(r"Digital M ?edia increased \$1\.32 billion", "ADOBE", {})],
    notes="MD&A segment discussion, FY2022 10-K.")

add(id="t13_34", kind="fact", answer_type="narrative",
    question="What explains the fall in KION's total greenhouse gas emissions in 2023?",
    answer="A decrease in Scope 3 (largest categories, notably use of sold products) e.g. because of a higher share of electric vehicles sold in the ITS segment; total fell 18.1% to 14,940 kt while Scope 1+2 actually rose as energy use grew with activity.",
    value=None,
    ev={"kion_nonfinancial_report_2023": {29: [r"In scope 3, the largest categories de- ?creased, for example due to an increase of the share of electric vehicles sold in the ITS segment",
                                               r"In scope 1 and 2 the GHG emissions increased compared to the previous year"],
                                          33: [r"Total greenhouse gas emissions – Scope 1, 2, 3 14,940 18,239 –18\.1 %"]}},
    cov=[(r"electric vehicles sold in the ITS segment", "KION", {}), (r"14,940", "KION", {})],
    notes="Climate management text p29; total GHG table p33 (use of sold products + downstream leased assets -21.4%).")

# ---------------------------------------------------------------------------
# UNANSWERABLE
# ---------------------------------------------------------------------------
CORPUS_NAMES = sorted(os.path.basename(p) for p in glob.glob("/work/shared/corpus/*/*.pdf"))


def una(id, question, missing, absent, notes, name_rx=None):
    add(id=id, kind="unanswerable", answer_type=None, question=question, answer=None, value=None,
        missing=missing, absent=absent, notes=notes, name_rx=name_rx, ev={}, cov=[])


una("t13_35", "What was Microsoft's total revenue in fiscal 2022?", "entity",
    [(r"(?i)microsoft corporation[^.]{0,80}(total )?revenue", ALLDOCS, {}), (r"Microsoft", ALLDOCS, None)],
    "Microsoft has no filing in the library.", name_rx=r"(?i)microsoft|msft")
una("t13_36", "How much did Johnson & Johnson spend on research and development in 2021?", "entity",
    [(r"(?i)johnson ?& ?johnson", ALLDOCS, {"AMCOR_2022_10K": {27: "named only as a member of Amcor's stock-performance peer group"},
                                            "AMCOR_2023_10K": {28: "named only as a member of Amcor's stock-performance peer group"}})],
    "Johnson & Johnson has no filing in the library.", name_rx=r"(?i)johnson|jnj|j&j")
una("t13_37", "What was Target's comparable sales growth in fiscal 2022?", "entity",
    [(r"Target Corporation|Target Corp\b", ALLDOCS,
      {"BESTBUY_2020_10K": {19: "executive biography (former Target employer)"},
       "BESTBUY_2021_10K": {20: "executive biography"}, "BESTBUY_2022_10K": {21: "executive biography"}}),
     (r"(?i)\btarget'?s (comparable|net) sales", ALLDOCS, {})],
    "Target Corp. has no filing in the library; 'Target Corp.' appears only in Best Buy executive biographies.", name_rx=r"(?i)target")
una("t13_38", "What were Siemens AG's Scope 1 emissions in fiscal 2023?", "entity",
    [(r"Siemens", ALLDOCS, None), (r"(?i)siemens[^.]{0,80}(scope|emission)", ALLDOCS, {})],
    "Siemens has no report in the library.", name_rx=r"(?i)siemens")

una("t13_39", "How much did Best Buy spend on research and development in fiscal 2023?", "measure",
    [(r"(?i)research and development (expense|cost|spend)|R&D (expense|cost|spend)", "BESTBUY", {}),
     (r"(?i)research and development", "BESTBUY",
      {"BESTBUY_2022_10K": {85: "exhibit: confidentiality clause of an employment agreement ('research and development plans')",
                            103: "exhibit: same confidentiality clause"}})],
    "Best Buy reports no R&D line (income statement has cost of sales, SG&A, restructuring only).")
una("t13_40", "What were AMD's Scope 1 greenhouse gas emissions in 2022?", "measure",
    [(r"(?i)scope 1|scope 2|co2|carbon dioxide|tons? of co", "AMD", {}),
     (r"(?i)greenhouse", "AMD", {"AMD_2022_annualreport": {88: "revolving credit agreement: interest rate linked to GHG targets, no figure"}})],
    "The AMD 2022 annual report (10-K) contains no emissions figures.")
una("t13_41", "What were Vonovia's Scope 3 emissions from purchased goods and services in 2020?", "measure",
    [(r"(?i)purchased goods|goods and services|category 1\b|cat\. ?1\b", "VONOVIA",
      {"vonovia_sustainability_report_2020": {120: "'employee category 1)' footnote marker in HR table"}})],
    "Vonovia's Scope 3 covers only commodities leased downstream, fuel- and energy-related emissions and business travel "
    "(key figures p115-116); purchased goods and services are not reported.")
una("t13_42", "What was KION Group's gender pay gap in 2023?", "measure",
    [(r"(?i)pay gap|gender pay|equal pay|pay equity|remuneration ratio", "KION", {})],
    "KION reports share of female employees (18.2%) but no gender pay gap.")

una("t13_43", "What were 3M's net sales for full-year 2023?", "period",
    [(r"(?i)(net )?sales[^.]{0,40}\b2023\b[^.]{0,40}\$ ?\d", "3M", {}),
     (r"(?i)fiscal year ended December 31, 2023|year ended December 31, 2023", "3M", {})],
    "Latest 3M filing is the FY2022 10-K (year ended Dec 31, 2022); it gives no 2023 sales or sales guidance "
    "(only 2023 capex/pension expectations).")
una("t13_44", "What was Adobe's total revenue in fiscal 2010?", "period",
    [(r"(?i)fiscal 2010[^.]{0,60}revenue|revenue[^.]{0,60}fiscal 2010", "ADOBE", {}),
     (r"(?i)\b2011 2010\b|\b2010 2009\b", "ADOBE", {})],
    "Earliest Adobe filing is the FY2015 10-K whose five-year selected data starts at fiscal 2011; 'fiscal 2010' occurs "
    "only for tax examinations/notes issuance/stock-graph base date.")
una("t13_45", "What were KION's Scope 1 emissions in 2020?", "period",
    [(r"\b2020\b[^.]{0,80}(scope|emission|CO2|t CO)", "KION", {}),
     (r"(?i)(scope|emission|CO2)[^.]{0,80}\b2020\b", "KION", {})],
    "KION 2023 report gives emissions for 2023, 2022 and base year 2021 only; '2020' occurs only for battery plant start, "
    "sponsorship policy and Taxonomy Regulation (EU) 2020/852.")

una("t13_46", "How much revenue did Best Buy generate in Texas in fiscal 2023?", "breakdown",
    [(r"(?i)texas[^.]{0,80}(revenue|sales) of|revenue[^.]{0,40}texas", "BESTBUY", {})],
    "FY2023 10-K gives revenue only by segment (Domestic/International) and product category; Texas appears in the store "
    "count table (100 stores, p19), as one of the three largest states by sales with no figure (p10), and a subsidiary name.")
una("t13_47", "What were 3M's net sales in Germany in 2022?", "breakdown",
    [(r"(?i)german[^.]{0,80}(net sales|revenue)|(net sales|revenue)[^.]{0,80}german", "3M", {})],
    "3M's 2022 10-K reports sales by business segment and by United States / international / geographic area (Americas, "
    "Asia Pacific, EMEA) only; Germany appears only in PFAS, Iran-related, equity-plan and subsidiary-list text.")
una("t13_48", "What was Vonovia's water consumption in Berlin in 2020?", "breakdown",
    [(r"(?i)berlin[^.]{0,120}water|water[^.]{0,120}berlin", "VONOVIA", {})],
    "Water consumption (p110, p112) is broken down only by region Germany / Austria / Sweden; no city-level split.")


# ---------------------------------------------------------------------------
# VERIFY
# ---------------------------------------------------------------------------
def main():
    discover = "--discover" in sys.argv
    errors = []
    out = []
    for lab in L:
        lid = lab["id"]
        # evidence regexes
        for doc, pg in lab["ev"].items():
            for p, rxs in pg.items():
                t = pages(doc)[p - 1]
                for rx in rxs:
                    if not re.search(rx, t):
                        errors.append(f"{lid}: regex not found {doc} p{p}: {rx}")
        gold = {(d, p) for d, pg in lab["ev"].items() for p in pg}
        covered = set()
        for rx, docs, excl in lab["cov"]:
            dl = docs_of(docs)
            hits = search(rx, dl)
            for d, ps in hits.items():
                for p in ps:
                    if (d, p) in gold:
                        covered.add((d, p))
                    elif p in excl.get(d, {}):
                        pass
                    else:
                        msg = f"{lid}: unexplained coverage hit {d} p{p} for /{rx}/: ...{snippet(d, p, rx)}..."
                        errors.append(msg)
            for d, pg in excl.items():
                for p in pg:
                    if p not in hits.get(d, []):
                        errors.append(f"{lid}: excluded page {d} p{p} not hit by /{rx}/")
        if lab["cov"] and lab["answer_type"] in ("reported", "narrative"):
            miss = gold - covered
            if miss:
                errors.append(f"{lid}: gold pages not reached by coverage regex: {sorted(miss)}")
        # computed arithmetic
        if lab["answer_type"] == "computed":
            inputs, fn, nd = lab["calc"]
            got = r1(fn(inputs), nd)
            want = float(lab["value"].split()[0])
            if abs(got - want) > 1e-9:
                errors.append(f"{lid}: computed {got} != gold {want}")
            # every input number must be printed on a gold page, and every page of the gold docs that
            # prints an input number must be a gold page or explicitly excluded (lab["xin"]) with a reason
            xin = lab.get("xin", {})
            for k, v in inputs.items():
                s = f"{v:,}"
                rx = r"(?<![\d,.])" + re.escape(s) + r"(?![\d,]|\.\d)"
                if not any(re.search(rx, pages(d)[p - 1]) for d, p in gold):
                    errors.append(f"{lid}: input {k}={s} not found on any gold page")
                hits = search(rx, sorted(lab["ev"]))
                for d, ps in hits.items():
                    for p in ps:
                        if (d, p) not in gold and p not in xin.get(d, {}):
                            errors.append(f"{lid}: input {k}={s} also on {d} p{p} (add as gold or exclude): ...{snippet(d, p, rx)}...")
        # unanswerable
        absent_log = []
        if lab["kind"] == "unanswerable":
            if lab.get("name_rx"):
                bad = [n for n in CORPUS_NAMES if re.search(lab["name_rx"], n)]
                if bad:
                    errors.append(f"{lid}: corpus file names match entity: {bad}")
                absent_log.append(f"no corpus file name (all {len(CORPUS_NAMES)} PDFs under /work/shared/corpus) matches /{lab['name_rx']}/")
            for rx, docs, expect in lab["absent"]:
                dl = docs_of(docs)
                hits = search(rx, dl)
                got = {(d, p) for d, ps in hits.items() for p in ps}
                if expect is None:  # informational only
                    if got:
                        absent_log.append(f"(info) /{rx}/ occurs on {len(got)} page(s) in {len(hits)} doc(s) "
                                          f"({', '.join(sorted(hits))}) only as incidental mentions (partner/customer/"
                                          f"competitor), none with that company's own figures")
                    else:
                        absent_log.append(f"(info) /{rx}/ occurs nowhere in the {len(dl)} permitted library docs")
                    continue
                exp = {(d, p) for d, pg in expect.items() for p in pg}
                if got != exp:
                    for d, p in sorted(got - exp):
                        errors.append(f"{lid}: unexpected hit {d} p{p} /{rx}/: ...{snippet(d, p, rx)}...")
                    for d, p in sorted(exp - got):
                        errors.append(f"{lid}: expected hit missing {d} p{p} /{rx}/")
                scope = docs if isinstance(docs, str) else "+".join(docs) if len(docs) < 4 else f"all {len(dl)} permitted library docs"
                if isinstance(docs, str) and docs in ISSUER:
                    scope = f"all {len(dl)} {docs} files"
                if exp:
                    why = "; ".join(f"{d} p{p}: {r}" for d, pg in expect.items() for p, r in pg.items())
                    absent_log.append(f"full-text /{rx}/ over {scope}: {len(got)} hit(s), all irrelevant ({why})")
                else:
                    absent_log.append(f"full-text /{rx}/ over {scope}: 0 hits")
        notes = lab["notes"]
        if absent_log:
            notes = notes + " Searches (pymupdf text, whitespace-normalised): " + " | ".join(absent_log) + "."
        docs = sorted(lab["ev"].keys())
        rec = {
            "id": lid,
            "question": lab["question"],
            "kind": lab["kind"],
            "docs": docs,
            "pages": {d: sorted(lab["ev"][d].keys()) for d in docs},
            "answer": lab["answer"],
            "answer_type": lab["answer_type"],
            "value": lab["value"],
            "formula": lab.get("formula"),
            "missing": lab.get("missing"),
            "notes": notes,
        }
        if rec["answer"] is not None:
            v0 = rec["value"].split()[0] if rec["value"] else None
            # answer must start with the gold value (formatted with separators)
            if v0 is not None:
                num = float(v0)
                fmt = [v0, f"{num:,.0f}" if num == int(num) else f"{num:,}", f"${num:,.0f}", f"+{v0}"]
                if not any(rec["answer"].startswith(f) for f in fmt):
                    errors.append(f"{lid}: answer does not start with gold value {v0}: {rec['answer'][:40]}")
        out.append(rec)
    ids = [r["id"] for r in out]
    assert len(ids) == len(set(ids))
    if errors:
        print("\n".join(errors))
        print(f"{len(errors)} ERRORS - not writing")
        sys.exit(1)
    with open(os.path.join(HERE, "answers_tune.jsonl"), "w") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    from collections import Counter
    print(f"wrote {len(out)} labels")
    print("kind", Counter(r["kind"] for r in out))
    print("answer_type", Counter(r["answer_type"] for r in out))
    print("missing", Counter(r["missing"] for r in out))


if __name__ == "__main__":
    main()
