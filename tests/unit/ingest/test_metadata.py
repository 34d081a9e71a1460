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
    assert (m.doc_type, m.fiscal_year, m.fiscal_period, m.year_labels) == ("10-Q", 2024, "Q2", (2023, 2024))
    # Ulta: "Fourth Quarter Fiscal 2022" is the 52 weeks that ended in January 2023.
    cover = ("March 9, 2023\nUlta Beauty Announces Fourth Quarter\nFiscal 2022 Results\nUlta Beauty, Inc. announced "
             "results for the thirteen-week period (\u201cfourth quarter\u201d) and fifty-two-week period "
             "(\u201cfiscal year\u201d) ended January 28, 2023")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.fiscal_year, m.fiscal_period, m.year_labels) == ("earnings release", 2022, "Q4", (2022, 2023))
    assert m.published_date == "2023-03-09"  # the release date, not the PDF's creation date
    # Amcor: no label on the cover; the quarter to December 2022 is in the fiscal year ending June 30, 2023.
    cover = "FORM 10-Q\nFor the Quarterly Period Ended December 31, 2022\nsix months ended December 31, 2022"
    later = ["the Company's fiscal year ending June 30, 2023 ..."]
    m = metadata.detect([cover], {}, "x.pdf", later_pages=later)
    assert (m.fiscal_year, m.year_labels) == (2023, (2022, 2023))


def test_registrant_name_broken_over_lines():
    cover = ("FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event reported): July 1, 2022 (June 30, 2022)\n"
             "AMCOR\nPLC\n(Exact\nname of registrant as specified in its charter)\nJersey")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.company, m.published_date) == ("8-K", "Amcor plc", "2022-07-01")


# Issue 12: fiscal years as issuers label them, document types from the content, issuers' names.

def test_a_52_53_week_year_ending_in_early_january_is_the_year_it_covers():
    cover = ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)\n"
             "For the fiscal year ended January 1, 2023\nCommission File Number 1-1234\nCANDLEWOOD FOODS, INC.\n"
             "(Exact name of registrant as specified in its charter)\n")
    m = metadata.detect([cover], {}, "x.pdf")
    assert (m.doc_type, m.fiscal_year, m.year_labels) == ("10-K", 2022, (2022,))
    # the retailer's year ending late January keeps the year it ends in (Best Buy's fiscal 2023)
    m = metadata.detect([cover.replace("January 1, 2023", "January 28, 2023")], {}, "x.pdf")
    assert m.fiscal_year == 2023
    # the cover's own label wins
    m = metadata.detect([cover.replace("January 1, 2023", "January 2, 2022 (fiscal 2022)")], {}, "x.pdf")
    assert m.fiscal_year == 2022


def test_a_quarter_of_a_52_53_week_year_is_in_the_year_it_covers():
    cover = ("FORM 10-Q\nQUARTERLY REPORT PURSUANT TO SECTION 13\nFor the quarterly period ended April 2, 2023\n"
             "three months ended April 2, 2023")
    later = ["Our fiscal year ended January 1, 2023 was a 52-week year."]
    m = metadata.detect([cover], {}, "x.pdf", later_pages=later)
    assert (m.doc_type, m.fiscal_period, m.fiscal_year, m.year_labels) == ("10-Q", "Q1", 2023, (2023,))


def test_an_earnings_release_that_mentions_its_form_10q_is_a_release():
    page = ("Exhibit 99.1\nCANDLEWOOD FOODS REPORTS SECOND QUARTER 2023 RESULTS\nAUSTIN, Texas--(BUSINESS WIRE)--"
            "Candlewood Foods, Inc. (NYSE: CWF) today reported results for the second quarter of 2023. Further detail "
            "is in our Quarterly Report on Form 10-Q filed with the Securities and Exchange Commission.\n"
            "Commission File Number is listed in the filing.")
    m = metadata.detect([page], {}, "x.pdf")
    assert (m.doc_type, m.company, m.fiscal_period, m.fiscal_year) == ("earnings release", "Candlewood Foods, Inc.",
                                                                        "Q2", 2023)
    assert "CWF" in m.aliases


def test_a_release_headed_by_a_product_is_filed_under_the_company_that_lists():
    page = ("Quarterly Highlights\nThe Widgetron X2 Drives Record Quarter\nBOSTON--(PR NEWSWIRE)--Northfield Devices "
            "Corp. (NASDAQ: NFD) today announced results for the third quarter of fiscal 2023.\nWidgetron X2 Inc. "
            "partner sales grew.")
    m = metadata.detect([page], {}, "x.pdf")
    assert m.doc_type == "earnings release" and m.company_key == "northfield devices"


def test_an_annual_report_without_the_form_10k_cover_is_an_annual_report():
    page = ("2022 Annual Report to Shareholders\nDear shareholders, ... A copy of our Annual Report on Form 10-K is "
            "available free of charge.\nGreenfield Industries, Inc.")
    assert metadata.detect([page], {}, "x.pdf").doc_type == "annual report"
    cover = ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nANNUAL REPORT PURSUANT TO SECTION 13\n"
             "For the fiscal year ended December 31, 2022\nGREENFIELD INDUSTRIES, INC.\n"
             "(Exact name of registrant as specified in its charter)\n")
    m = metadata.detect([page], {}, "x.pdf", later_pages=["Letter to shareholders", cover])
    assert (m.doc_type, m.fiscal_year) == ("10-K", 2022)


def test_a_subsidiary_on_the_cover_is_filed_under_its_parent_and_keeps_its_name():
    page = ("FORM 8-K\nCURRENT REPORT PURSUANT TO SECTION 13\nDate of Report: June 30, 2022\n"
            "Northfield Capital LLC\n(Exact name of registrant as specified in its charter)\n"
            "Northfield Capital LLC, a wholly-owned subsidiary of Northfield Devices Corp., entered into an indenture.")
    m = metadata.detect([page], {}, "x.pdf")
    assert m.company_key == "northfield devices" and "Northfield Capital LLC" in m.aliases


def test_names_the_filing_gives_itself():
    cover = ("FORM 10-K\nANNUAL REPORT PURSUANT TO SECTION 13\nFor the fiscal year ended December 31, 2022\n"
             "THE BOEING COMPANY\n(Exact name of registrant as specified in its charter)\n"
             "Securities registered pursuant to Section 12(b) of the Act:\n"
             "Common Stock, $5.00 Par Value BA New York Stock Exchange\n"
             "1.500% Notes due 2026 BA26 New York Stock Exchange\n")
    body = ("Item 1. Business\nThe Boeing Company, together with its subsidiaries (herein referred to as “Boeing,” the "
            "“Company,” “we,” “us,” “our”), is one of the largest aerospace companies.")
    m = metadata.detect([cover, body], {}, "x.pdf")
    assert m.company_key == "boeing"
    assert {"Boeing", "BA"} <= set(m.aliases) and "BA26" not in m.aliases
    assert not {"Company", "we", "us", "our"} & set(m.aliases)


def test_a_reports_issuer_is_the_legal_name_its_whole_text_uses_most():
    from rag.ingest.metadata import issuer_of_text

    text = ("Employees 3,458 Group\nSeparate Non-financial Group Report\n" + "Merck KGaA is a science company. " * 5 +
            "The Merck Group grew. " * 4 + "Deloitte GmbH audited the report. " * 2 + "Wiener Börse AG lists us. ")
    assert issuer_of_text(text) == "Merck KGaA"
    assert issuer_of_text("MTU AERO ENGINES AG\n" * 3 + "MTU Aero Engines AG reports. " * 2 + "MTU Group " * 4 +
                          "German Stock Corporation " * 2) == "MTU Aero Engines AG"
    assert issuer_of_text("freenet AG published. " * 3 + "The Group " * 9 + "Media Broadcast Group " * 2) == "freenet AG"
    assert issuer_of_text("1&1 AG grew. " * 4 + "The 1&1 Group grew. " * 2 + "United Internet AG owns it. " * 2) == "1&1 AG"
    assert issuer_of_text("ACME AG once.") is None


def test_a_cover_title_is_never_a_fragment_of_its_lines():
    from rag.ingest.metadata import _title

    assert _title("", "ANNUAL REPORT\nOF THE ACME GROUP 2023\nContents") == "ANNUAL REPORT OF THE ACME GROUP 2023"
    assert _title("", "Sustainability report of\nAcme Group 2023\nContents") == "Sustainability report of Acme Group 2023"
    assert _title("", "OF THE ACME GROUP 2023\nContents") == "ACME GROUP 2023"  # the words before it are drawn


def test_authors_keep_the_printed_order_across_raised_baselines_broken_names_and_affiliation_lines():
    from rag.ingest.titles import Line, authors_after

    def ln(text, size, y, x, parts=None):
        return Line(text, size, y, y + size, x, parts or [text])

    title = ln("A Perspective on Explanations of Molecular Prediction Models", 20.7, 121, 99)
    row = [ln("Aditi Seshadri, and", 14.3, 209, 355, ["Aditi Seshadri,", "and"]), ln("Geemi P. Wellawatte,", 14.3, 211, 87),
           ln("Heta A. Gandhi,", 14.3, 211, 236), ln("Andrew", 14.3, 214, 489), ln("D. White", 14.3, 241, 273),
           ln("Abstract", 10.9, 404, 282), ln("Chemists can be skeptical " * 3, 10.9, 433, 118)]
    assert authors_after([title, *row], 0) == ["Geemi P. Wellawatte", "Heta A. Gandhi", "Aditi Seshadri",
                                               "Andrew D. White"]
    acm = [ln("Paper Plain: Making Medical Research Papers Approachable", 12, 95, 73),
           ln("TAL AUGUST, University of Washington, USA", 10.9, 139, 73),
           ln("LUCY LU WANG, Allen Institute for Artificial Intelligence, USA", 10.9, 155, 73),
           ln("When seeking information not covered in patient-friendly documents, like medical pamphlets", 8, 241, 73)]
    assert authors_after(acm, 0) == ["Tal August", "Lucy Lu Wang"]


def test_a_cover_names_its_own_kind():
    """'ANNUAL FINANCIAL REPORT 2023' on the cover makes an annual report, though its sustainability statement is
    in the first pages' text; a sentence that mentions a report is not a cover title."""
    later = "Our sustainability report and non-financial statement are part of this report."
    m = metadata.detect(["ENERGY.\nLEADERSHIP.\nANNUAL FINANCIAL REPORT 2023\n", later], {"title": "Berichte"}, "a.pdf")
    assert m.doc_type == "annual report"
    m = metadata.detect(["23\nAnnual Report\nExample Engines AG\nFISCAL YEAR 2023\n", later], {}, "a.pdf")
    assert m.doc_type == "annual report"
    m = metadata.detect(["Sustainability Report 2023\nExample AG\n", "Annual report 2023 pages 10-40"], {}, "s.pdf")
    assert m.doc_type == "sustainability report"
    m = metadata.detect(["Example AG\nThis sustainability report is published alongside the annual report of the "
                         "Group for the financial year 2023 and covers every site.\n"], {}, "s.pdf")
    assert m.doc_type == "sustainability report"  # no title line: the text decides, as before


def test_a_slogan_is_not_a_title():
    from rag.ingest.titles import REPORT_TITLE, slogan

    assert slogan("ENERGY.") and slogan("Progress") and slogan("2023")
    assert not slogan("Annual Financial Report 2023") and not slogan("LongEval: Guidelines")
    assert REPORT_TITLE.search("ANNUAL FINANCIAL REPORT 2023").group(0) == "ANNUAL FINANCIAL REPORT 2023"


def test_a_paper_in_acm_format_has_no_abstract_heading_but_is_a_paper():
    """ACM's format prints "ACM Reference Format" and "CCS Concepts" where other formats print "Abstract"."""
    page = ("Paper Plain: Making Medical Research Papers Approachable\nTAL AUGUST, University of Washington, USA\n"
            "When seeking information, healthcare consumers may turn to the research literature.\n"
            "CCS Concepts: • Human-centered computing → Empirical studies.\nACM Reference Format:\nTal August. 2022.\n"
            "1 INTRODUCTION\n")
    assert metadata.detect([page], {}, "p.pdf").doc_type == "research paper"


def test_a_cover_title_set_a_word_or_two_per_line_is_read_whole():
    """Walkthrough 5: Merck's cover sets "2023" / "Sustainability" / "Report" one word per line, and its title
    came out as a contents line; KION's names itself in lower case in a sentence's end."""
    from rag.ingest.titles import report_title

    assert report_title(["2023\nSustainability\nReport\n", "TABLE OF CONTENTS\nStrategy & management\n4"]) == \
        "2023 Sustainability Report"
    assert report_title(["Foreword to the non-financial report 2023\n"]) == "Non-Financial Report 2023"
    assert report_title(["ANNUAL REPORT ON FORM 10-K 2023\n"]) == "Annual Report on Form 10-K 2023"
    assert report_title(["Acme Sustainability Report 2023\n"]) == "Sustainability Report 2023"
    # a sentence of more than twelve words that names a report is not its title
    assert report_title(["In this year we have published our first sustainability report 2023 with all the "
                         "figures that matter\n"]) is None


def test_a_title_set_in_emulated_small_caps_reads_in_its_own_case():
    """Walkthrough 6: LongEval's title prints "LongEval" in small caps (capitals set smaller), and read
    "LONGEVAL"."""
    import pymupdf

    from rag.ingest.titles import paper_title

    doc = pymupdf.open()
    page = doc.new_page()
    x = 72.0
    for text, size in (("L", 14.3), ("ONG", 11.5), ("E", 14.3), ("VAL", 11.5), (": Guidelines for Human Evaluation",
                                                                                 14.3)):
        page.insert_text((x, 100), text, fontsize=size, fontname="hebo")
        x += pymupdf.get_text_length(text, fontname="hebo", fontsize=size)
    page.insert_text((72, 130), "Kalpesh Krishna   Erin Bransom", fontsize=11)
    page.insert_text((72, 200), "Abstract", fontsize=11, fontname="hebo")
    page.insert_text((72, 215), "While human evaluation remains best practice for accurately judging the "
                     "faithfulness of long-form summaries.", fontsize=10)
    title, _ = paper_title(page)
    assert title == "LongEval: Guidelines for Human Evaluation"


def test_a_filing_is_titled_in_its_covers_words():
    """Walkthroughs 6 and 7: every 10-K read "Form 10-K"; the cover says which year it is for."""
    from rag.ingest.titles import filing_title

    cover = "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\n(Mark One)\nANNUAL REPORT PURSUANT TO " \
            "SECTION 13\nFor the fiscal year ended December 31,\n2017\nor\n"
    assert filing_title("10-K", [cover]) == "Form 10-K for the fiscal year ended December 31, 2017"
    assert filing_title("10-Q", ["FORM 10-Q\nFor the quarterly period ended June 2, 2023\n"]) == \
        "Form 10-Q for the quarterly period ended June 2, 2023"
    assert filing_title("8-K", ["FORM 8-K\nCURRENT REPORT\nDate of Report (Date of earliest event reported): "
                                "May 20, 2022\n"]) == "Form 8-K dated May 20, 2022"
    assert filing_title("8-K", ["FORM 8-K\nCURRENT REPORT\n"]) == "Form 8-K"  # no date on the cover: the form
