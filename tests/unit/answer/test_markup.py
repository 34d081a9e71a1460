"""Document text for a Markdown page (rag/answer/markup.py): shown as written, never as markup."""

import re

from rag.answer.markup import SUPPORTING, answer_markdown, chart_text, neutral
from rag.answer.model import Answer, Evidence

BOMB = ("![x](http://evil.example/t.png) [click](http://evil.example) <img src=http://evil.example/x.png> "
        "<a href=http://evil.example/a>here</a> http://evil.example/bare www.evil.example x@evil.example "
        ":red[alert] :material/warning: :smile: $x^2$ **bold** _it_ `code` ~~gone~~ &#58;smile&#58;")


def _live(md: str) -> list[str]:
    """The markup in md that a Markdown renderer (Streamlit's) would act on; a backslash escapes the next mark."""
    plain = ("![", "](http", "<img", "<a ", "http://", "www.evil", "@evil", ":red[", ":material/", ":smile:")
    marks = (r"\$x", r"\*\*bold", r"_it_", r"`code", r"~~", r"&#58;")
    return [s for s in plain if s in md] + [m for m in marks if re.search(r"(?<!\\)" + m, md)]


def test_neutral_leaves_no_markup_live():
    assert _live(neutral(BOMB)) == []
    assert neutral("# Title\n- item\n1. first\n    code\n===") == "\\# Title\n\\- item\n1\\. first\ncode\n\\==="
    assert neutral("Acme 10-K FY2022, p. 3 (1,577)") == "Acme 10-K FY2022, p. 3 (1,577)"  # plain text unchanged
    assert neutral(None) == ""


def test_answer_markdown_keeps_only_our_own_shapes():
    ev = Evidence(marker=1, document="Acme 10-K FY2022", file_name="a.pdf", document_id=1, pages=[3], chunk_id=7,
                  quote="q", source="Acme 10-K FY2022, p. 3")
    text = (f"**Acme 10-K FY2022**: Net sales were 5 {BOMB} [1].\n\n**{SUPPORTING}**\n- **bold** quote [1] [2]")
    a = Answer(question="q", answer=text, confidence="high", evidence=[ev])
    md = answer_markdown(a, link=lambda n: f"#src-0-{n}" if n == 1 else None)
    assert _live(md.replace("**Acme 10-K FY2022**", "").replace(f"**{SUPPORTING}**", "")) == []
    assert md.startswith("**Acme 10-K FY2022**: Net sales were 5 ")  # the lead-in we write stays bold
    assert f"\n\n**{SUPPORTING}**\n- \\*\\*bold\\*\\* quote [\\[1\\]](#src-0-1) \\[2\\]" in md  # a bullet; [2] no link
    table = Answer(question="q", answer="2 row(s) [r1–r2]:\n\n| # | name |\n|---|---|\n| r1 | <b>x</b> |",
                   confidence="high", mode="sql", rows=[{"name": "<b>x</b>"}, {"name": "y"}])
    assert answer_markdown(table).endswith("|---|---|\n| r1 | &lt;b>x&lt;/b> |")


def test_chart_text_escapes_plotly_tags():
    assert chart_text('<a href="http://evil.example">Acme</a> & Co') == \
        '&lt;a href="http://evil.example"&gt;Acme&lt;/a&gt; &amp; Co'


def test_a_period_prints_the_same_everywhere():
    from rag.answer.labels import period_label

    assert period_label(2023, "Q2") == "Q2 FY2023" and period_label(2023, "FY") == "FY2023"
    assert period_label(2023, None, "10-K") == "FY2023" and period_label(2023, None) == "2023"
    assert period_label(None, None) == ""


def test_exports_are_named_after_the_question_with_the_day_and_captions_are_cut_at_a_word():
    from datetime import date

    from rag.answer.export import export_name
    from rag.answer.labels import shorten

    day = date(2026, 11, 29)
    assert export_name("What were Acme Widgets' purchases of property, plant and equipment in 2022?", "md", day) == \
        "2026-11-29_acme-widgets-purchases-property-plant-and-equipment-2022.md"
    assert export_name("???", "json", day) == "2026-11-29_answer.json"
    # an answer and its conversation, under one title: two names (the walkthrough's second download replaced the first)
    assert export_name("What was Costco's net income in fiscal 2021?", "md", day) == \
        "2026-11-29_costcos-net-income-fiscal-2021.md"
    assert export_name("What was Costco's net income in fiscal 2021?", "md", day, "conversation") == \
        "2026-11-29_costcos-net-income-fiscal-2021_conversation.md"
    assert shorten("What are the main results of A ubiquitous GC content signature", 45) == \
        "What are the main results of A ubiquitous GC…"
    assert shorten("short title", 45) == "short title"


def test_a_quoted_sentence_loses_the_pdfs_own_bullet_and_a_code_prompt_stays_readable():
    """Issue 36 walkthrough: "• Membership fee revenue…" showed a doubled bullet in a list of ours, and an export
    showed `&gt;&gt;&gt;` for a quoted code prompt. A `>` opens a blockquote only at a line's start."""
    from rag.answer.export import untrusted
    from rag.answer.extractive import Unit
    from rag.answer.offline import _render

    assert _render(Unit("\u2022 Membership fee revenue increased 9%.", "sentence"), {}) == \
        "Membership fee revenue increased 9%"
    assert _render(Unit("-5% in 2023.", "sentence"), {}) == "-5% in 2023"  # a minus is not a bullet
    assert untrusted(">>> import papermage as pm\n1 >>> x") == "\\>>> import papermage as pm\n1 >>> x"
    assert neutral("a > b").endswith("a > b") and "&lt;script>" in neutral("<script>")


def test_a_paper_is_named_by_its_titles_short_name_else_its_first_author():
    from rag.answer.suggest import questions_for
    from rag.records import DocumentMeta

    def paper(title, authors):
        return DocumentMeta(document_id=1, file_name="p.pdf", title=title, doc_type="research paper", authors=authors)

    assert questions_for(paper("PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating "
                               "Visually-Rich Scientific Documents", ["Kyle Lo", "Zejiang Shen"])) == \
        ["What is PaperMage about?", "What are the main findings of PaperMage?"]
    assert questions_for(paper("A ubiquitous GC content signature underlies multimodal transcriptional regulation",
                               ["Ada Lovelace", "Alan Turing"]))[1] == "What data do Lovelace et al. use?"


def test_a_document_without_an_issuer_is_named_by_its_titles_short_name():
    """Issue 36's fourth walkthrough: a paper read as "other" was offered as "What is Paper Plain: Making Medical
    Research Papers Approachable to Healthcare Consumers with Natural Language Processing about?"."""
    from rag.answer.suggest import questions_for
    from rag.records import DocumentMeta

    d = DocumentMeta(document_id=1, file_name="p.pdf", doc_type="other", title="Paper Plain: Making Medical Research "
                     "Papers Approachable to Healthcare Consumers with Natural Language Processing")
    assert questions_for(d) == ["What is Paper Plain about?"]
    long = DocumentMeta(document_id=2, file_name="q.pdf", doc_type="other",
                        title="Guidelines for the responsible handling of personal data in municipal archives")
    assert len(questions_for(long)[0]) <= 60


def test_an_export_name_is_ascii_whatever_the_question_writes():
    """Walkthrough 7: "…roisin-et-al-β-multiplier-sensor.md"."""
    from datetime import date

    from rag.answer.export import export_name

    assert export_name("What is Roisin et al.'s β multiplier of the sensor?", "md", date(2026, 11, 29)) == \
        "2026-11-29_roisin-et-al-s-multiplier-sensor.md"
    assert export_name("Café revenue?", "json", date(2026, 11, 29), "conversation-12") == \
        "2026-11-29_cafe-revenue_conversation-12.json"
