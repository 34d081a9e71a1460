"""Named rows of one table compared (rag/answer/rows.py): the sides of a comparison question, the table whose
rows match each side, and the sentence that gives each row's cells under their column names."""

from rag.answer.rows import compare_rows, rows_sentence, sides
from rag.records import Fact


def _fact(chunk: int, title: str, label: str, col: int, header: str, value: float) -> Fact:
    return Fact(fact_id=chunk * 100 + col, document_id=1, chunk_id=chunk, page=9, label=label, label_path=label,
                col_header=header, period=None, fiscal_year=None, fiscal_period=None, is_change=False, value=value,
                raw=f"{value:g}", unit=None, scale=1.0, table_title=title, row_text=f"{label} | …", col=col)


def _table(chunk: int, title: str, rows: dict[str, list[float]], headers: list[str]) -> list[Fact]:
    return [_fact(chunk, title, label, i, h, v) for label, vals in rows.items() for i, (h, v) in
            enumerate(zip(headers, vals, strict=True))]


SELECTOR = _table(7, "Table 3: Results of the selector",
                  {"GPT-4o": [0.96, 0.69, 0.80], "Qwen-2.5-7b": [0.1, 0.88, 0.17],
                   "PaSa-7b-Selector": [0.95, 0.78, 0.85]}, ["Precision", "Recall", "F1"])
CRAWLER = _table(5, "Table 2: Results on AutoScholarQuery",
                 {"Google": [0.2, 0.3], "PaSa-7b": [0.5, 0.7]}, ["Recall@20", "Recall@50"])


def test_the_sides_of_a_comparison_are_its_named_things():
    assert sides("How does PaSa's Selector compare with GPT-4o at judging relevance?") == [{"pasa", "selector"},
                                                                                         {"gpt", "4o"}]
    # "F1" is a name here too: it is dropped once a table is matched, as the name of one of its columns
    assert sides("What F1 does XYLayoutLM reach, and how does that compare with LayoutXLM?") == [
        {"f1", "xylayoutlm"}, {"layoutxlm"}]
    assert sides("What was total revenue in fiscal 2022?") == []  # one thing, nothing compared


def test_the_table_whose_rows_match_each_side_is_picked_with_the_column_named():
    pick = compare_rows("How does PaSa's Selector compare with GPT-4o on F1?", CRAWLER + SELECTOR, {5: 1.0, 7: 0.8})
    assert pick is not None
    assert [r.label for r in pick.rows] == ["PaSa-7b-Selector", "GPT-4o"]
    assert pick.focus == "F1"
    text = rows_sentence(pick, 1, 9)
    assert text.startswith("PaSa-7b-Selector: F1 0.85, Precision 0.95, Recall 0.78; GPT-4o: F1 0.8")
    assert "so PaSa-7b-Selector is higher on F1 [1]." in text


def test_no_pick_when_a_side_has_no_row_of_its_own():
    assert compare_rows("How does PaSa's Selector compare with Claude on F1?", SELECTOR, {7: 1.0}) is None
    assert compare_rows("How do Google and Bing compare?", CRAWLER + SELECTOR, {5: 1.0}) is None


def test_a_numbered_item_is_one_name_and_the_arithmetic_asked_is_computed():
    from rag.answer.rows import operation, sides

    q = "Add up SBO's Scope 1 and market-based Scope 2 emissions for 2023."
    assert sides(q) == [{"sbo", "scope1"}, {"scope2"}] and operation(q) == "sum"
    assert operation("By how many F1 points does A trail B?") == "difference"
    assert operation("How many times larger is A than B?") == "ratio"
    assert operation("How does A compare with B?") is None
    facts = [Fact(i, 1, 7, 53, label, label, year, f"FY{year}", int(year), "FY", False, v, raw, "t", 1.0, "CCF",
                  f"{label} | …") for i, (label, year, v, raw) in enumerate([
                      ("Scope 1, direct", "2023", 4040.9, "4,040.9"), ("Scope 1, direct", "2022", 4180.2, "4,180.2"),
                      ("Scope 2, indirect (market based)", "2023", 9610.2, "9,610.2"),
                      ("Scope 3, indirect", "2023", 102828.4, "102,828.4")])]
    pick = compare_rows(q, facts, {7: 1.0})
    assert [r.label for r in pick.rows] == ["Scope 1, direct", "Scope 2, indirect (market based)"]
    assert "together 13,651.1 t on 2023 (computed)" in rows_sentence(pick, 1, 53)
