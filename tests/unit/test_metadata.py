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


def test_quarterly_fiscal_year_is_the_year_the_period_ends():
    cover = ("FORM 10-Q\nFor the quarterly period ended July 29, 2023\nsix months ended July 29, 2023\n"
             "Best Buy Co., Inc. results for the second quarter of fiscal 2024")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.fiscal_year, m.fiscal_period) == ("10-Q", 2023, "Q2")
