"""Citation verification: numbers in any format, quotes after normalisation, markers."""

from rag.answer.llm import parse_reply
from rag.answer.verify import numbers, quote_in, unsupported_numbers, verify

ROW = "Purchases of property, plant and equipment (PP&E) | (1,577) | (1,373) | (1,420)"


def test_numbers_in_other_formats_and_scales_are_the_same_number():
    assert unsupported_numbers("Capex was $1,577 million [1].", [ROW]) == []
    assert unsupported_numbers("Capex was 1577 [1].", [ROW]) == []
    assert unsupported_numbers("Capex was about $1.6 billion [1].", [ROW]) == []  # rounded, table in millions
    assert unsupported_numbers("Capex was $1.5 billion [1].", [ROW]) == ["$1.5 billion"]
    assert unsupported_numbers("Capex was 1,578 [1].", [ROW]) == ["1,578"]
    assert unsupported_numbers("Margin rose 7 percent [1].", ["an increase of 7% over 2021"]) == []


def test_years_pages_forms_and_markers_are_not_quantities():
    assert numbers("In FY2022 the 10-K (pp. 3–4, Item 7, Note 12) said so [1].") == []
    assert [n.value for n in numbers("Scope 1 emissions were 835 t in 2023")] == [835.0]


def test_quotes_survive_whitespace_hyphenation_and_ligatures():
    text = "The eﬃciency of the sys-\ntem improved signiﬁcantly   in 2022."
    assert quote_in("efficiency of the system improved significantly", text)
    assert not quote_in("efficiency of the system declined", text)


def test_verify_flags_invented_markers_and_numbers():
    ev = {1: {"text": ROW, "quote": "Purchases of property, plant and equipment"}}
    v = verify("Capex was $1,577 million [1]. It was $2,000 million in 2019 [1]. Growth was 9% [4].", ev)
    assert v.quotes_verified == {1: True}
    assert v.bad_markers == [4]
    reasons = {u["sentence"]: u["reason"] for u in v.unsupported}
    assert "numbers not in the cited evidence" in reasons["It was $2,000 million in 2019 [1]."]
    assert "without a valid citation" in reasons["Growth was 9% [4]."]
    assert (v.numbers_total, v.numbers_verified) == (3, 1)


def test_tolerant_reply_parser():
    good = parse_reply('{"answer": "Capex was 1,577 [1].", "citations": [{"marker": 1, "quote": "PP&E"}]}')
    assert good["answer"] == "Capex was 1,577 [1]." and good["citations"] == [{"marker": 1, "quote": "PP&E"}]
    fenced = parse_reply('Sure!\n```json\n{"answer": "A [1].", "citations": [{"marker": "1", "quote": "q"},],}\n```')
    assert fenced["answer"] == "A [1]." and fenced["citations"][0]["marker"] == 1 and not fenced["malformed"]
    cut = parse_reply('{"answer": "Capex was 1,577 [1]", "citations": [{"marker": 1, "quo')
    assert cut["answer"].startswith("Capex was 1,577")
    plain = parse_reply("Capex was 1,577 [1].")
    assert plain["answer"] == "Capex was 1,577 [1]." and plain["malformed"]


def test_a_number_does_not_take_its_unit_from_the_next_line():
    table = "Operating income (millions) | $1,199 | $2,466\nPercent change | (51.4 %) | (4.7 %)"
    assert [(n.value, n.percent) for n in numbers(table)][:2] == [(1199.0, False), (2466.0, False)]
    assert unsupported_numbers("Operating income was $2,466 million [1].", [table]) == []
