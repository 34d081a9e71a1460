from rag.ingest import metadata


def test_10k_cover():
    cover = ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nANNUAL REPORT PURSUANT TO SECTION 13\n"
             "For the fiscal year ended January 28, 2023\nBEST BUY CO., INC.\n(Exact name of registrant as specified in its charter)\n")
    m = metadata.detect([cover], {}, "report_final_v2.pdf")
    assert m.doc_type == "10-K" and m.fiscal_year == 2023 and m.fiscal_period == "FY"
    assert m.company_key == "best buy"


def test_earnings_release_and_sustainability_report():
    m = metadata.detect(["Ulta Beauty Announces First Quarter Fiscal 2023 Results\nUlta Beauty, Inc. (NASDAQ: ULTA)"], {}, "x.pdf")
    assert m.doc_type == "earnings release" and m.fiscal_period == "Q1" and m.fiscal_year == 2023
    m = metadata.detect(["Greenfield AG\nSustainability Report 2023\nGreenfield AG reports..."], {}, "esg.pdf")
    assert m.doc_type == "sustainability report" and m.fiscal_year == 2023 and m.company == "Greenfield AG"


def test_10q_quarter_from_six_months():
    cover = "FORM 10-Q\nQUARTERLY REPORT\nFor the quarterly period ended June 2, 2023\nsix months ended June 2, 2023"
    m = metadata.detect([cover], {}, "a.pdf")
    assert (m.doc_type, m.fiscal_year, m.fiscal_period) == ("10-Q", 2023, "Q2")


def test_company_keys_and_known_issuers():
    assert metadata.company_key("The Boeing Company") == "boeing"
    assert metadata.company_key("Best Buy Co., Inc.") == metadata.company_key("BEST BUY CO") == "best buy"
    known = {"amcor": "Amcor plc"}
    assert metadata.match_known_company("amcor flexibles north america", known) == ("amcor", "Amcor plc")
    assert metadata.match_known_company("boeing", known) is None


def test_quarterly_documents_carry_every_year_a_reader_may_call_them():
    # Best Buy: the issuer's label (fiscal 2024) is the year its fiscal year ends; the period ends in 2023.
    cover = ("FORM 10-Q\nFor the quarterly period ended July 29, 2023\nsix months ended July 29, 2023\n"
             "Best Buy Co., Inc. results for the second quarter of fiscal 2024")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.fiscal_year, m.fiscal_period, m.year_labels) == ("10-Q", 2024, "Q2", [2023, 2024])
    # Ulta: "Fourth Quarter Fiscal 2022" is the 52 weeks that ended in January 2023.
    cover = ("March 9, 2023\nUlta Beauty Announces Fourth Quarter\nFiscal 2022 Results\nUlta Beauty, Inc. announced "
             "results for the thirteen-week period (\u201cfourth quarter\u201d) and fifty-two-week period "
             "(\u201cfiscal year\u201d) ended January 28, 2023")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.fiscal_year, m.fiscal_period, m.year_labels) == ("earnings release", 2022, "Q4", [2022, 2023])
    assert m.published_date == "2023-03-09"  # the release date, not the PDF's creation date
    # Amcor: no label on the cover; the quarter to December 2022 is in the fiscal year ending June 30, 2023.
    cover = "FORM 10-Q\nFor the Quarterly Period Ended December 31, 2022\nsix months ended December 31, 2022"
    later = ["the Company's fiscal year ending June 30, 2023 ..."]
    m = metadata.detect([cover], {}, "x.pdf", later_pages=later)
    assert (m.fiscal_year, m.year_labels) == (2023, [2022, 2023])


def test_registrant_name_broken_over_lines():
    cover = ("FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event reported): July 1, 2022 (June 30, 2022)\n"
             "AMCOR\nPLC\n(Exact\nname of registrant as specified in its charter)\nJersey")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.company, m.published_date) == ("8-K", "Amcor plc", "2022-07-01")
