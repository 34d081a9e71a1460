"""rag/answer/compose.py, its pure parts: the evidence block the model reads and a reply without the prompt's
template text. The LLM path end to end (citations checked, sentences dropped, fallbacks) is in
tests/db/test_answer.py, with a stand-in LLM server (tests/fixtures/fake_llm.py: the one remote service)."""

from rag.answer import prompts
from rag.answer.compose import evidence_block, without_template
from rag.answer.model import Evidence


def _ev(marker: int, text: str) -> Evidence:
    return Evidence(marker=marker, document="Acme 10-K FY2022", file_name="acme.pdf", document_id=1, pages=[45],
                    chunk_id=marker, quote="", source=f"Acme 10-K FY2022, p. 45 ({marker})", text=text)


def test_the_evidence_block_numbers_each_passage_with_its_source():
    block = evidence_block([_ev(1, "Net sales were $1,577 million."), _ev(2, "Capex was $210 million.")])
    assert block == (prompts.EVIDENCE_ITEM.format(marker=1, source="Acme 10-K FY2022, p. 45 (1)",
                                                  text="Net sales were $1,577 million.") + "\n" +
                     prompts.EVIDENCE_ITEM.format(marker=2, source="Acme 10-K FY2022, p. 45 (2)",
                                                  text="Capex was $210 million."))


def test_a_reply_field_never_keeps_the_prompts_placeholders():
    assert without_template("<inferences, or empty>") == ""
    assert without_template("  N/A ") == "" and without_template("none.") == ""
    assert without_template("Net sales rose   8% [1].") == "Net sales rose 8% [1]."
    assert without_template(None) == ""  # type: ignore[arg-type]
