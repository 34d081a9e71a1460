"""Table facts written at ingestion, in the document's transaction, linked to their chunk and page; searched by
label and period through match_facts(); read again from stored chunks by `rag facts --rebuild`."""

from rag.ingest.facts import facts_of_table, rebuild


def _doc(store, name):
    return next(d for d in store.list_documents() if d.file_name == name)


def test_facts_are_stored_with_their_chunk_page_period_and_unit(clean_store, ingest, pdfs):
    res = ingest(pdfs["10k_2022"])
    assert res.ok and res.facts > 40
    doc = _doc(clean_store, "report_final_v2.pdf")
    capex = clean_store.match_facts("purchases of property plant equipment", document_ids=[doc.document_id],
                                    fiscal_years=[2022])
    assert capex and capex[0].label.startswith("Purchases of property, plant and equipment")
    f = capex[0]
    assert (f.value, f.scale, f.period, f.fiscal_period) == (-1577, 1e6, "FY2022", "FY")
    assert f.label_path == "Cash Flows from Investing Activities › Purchases of property, plant and equipment (PP&E)"
    hits = clean_store.match_chunks([0.0] * 384, "purchases property plant equipment", 50, 50)
    chunk = next(h for h in hits if h.chunk_id == f.chunk_id)
    assert chunk.page_start <= f.page <= chunk.page_end and "(1,577)" in chunk.content

    # the balance sheet, in millions, by label and year
    inv = clean_store.match_facts("inventories", document_ids=[doc.document_id], fiscal_years=[2021])
    assert [(x.value, x.period) for x in inv] == [(4034, "FY2021")]

    # the cash-flow table runs on into the next chunk: its last rows keep the header's periods and scale
    last = clean_store.match_facts("other operating item 33", document_ids=[doc.document_id], fiscal_years=[2020])
    assert last and last[0].label == "Other operating item 33" and last[0].scale == 1e6
    assert last[0].chunk_id != f.chunk_id


def test_facts_of_chunks_and_rebuild_from_stored_chunks(clean_store, ingest, pdfs):
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["esg"]).ok
    doc = _doc(clean_store, "report_final_v2.pdf")
    every = clean_store.match_facts("", document_ids=[doc.document_id], match_count=5000)
    chunk_ids = {f.chunk_id for f in every}
    one = next(iter(chunk_ids))
    assert {f.chunk_id for f in clean_store.match_facts("", chunk_ids=[one])} == {one}
    n = rebuild(clean_store)
    assert n["documents"] == 2 and n["facts"] >= len(every) - 5
    again = clean_store.match_facts("", document_ids=[doc.document_id], match_count=5000)
    assert {(f.label, f.period, f.value) for f in again} >= {(f.label, f.period, f.value) for f in every
                                                              if f.label.startswith("Purchases")}
    assert clean_store.match_facts("") == []  # no query and no documents: nothing, not the whole table


def test_deleting_a_document_deletes_its_facts(clean_store, ingest, pdfs):
    assert ingest(pdfs["10k_2022"]).ok
    doc = _doc(clean_store, "report_final_v2.pdf")
    assert clean_store.match_facts("inventories", document_ids=[doc.document_id])
    assert clean_store.delete_document(doc.document_id)
    assert clean_store.match_facts("inventories") == []


def test_tables_are_stored_as_records_and_every_fact_derives_from_one(clean_store, ingest, pdfs):
    res = ingest(pdfs["10k_2022"])
    assert res.ok and res.tables >= 2
    doc = _doc(clean_store, "report_final_v2.pdf")
    tables = clean_store.document_tables(doc.document_id)
    assert len(tables) == res.tables and [t.table_no for t in tables] == list(range(len(tables)))
    # the cash-flow statement: title, scale, columns read as periods, a row with its group and its cells
    cash = next(t for t in tables if any(r.label.startswith("Purchases of property") for r in t.rows))
    assert cash.scale == 1e6 and cash.stub == "(Millions)" and cash.title == "Consolidated Statement of Cash Flows"
    assert [c.period for c in cash.columns if not c.is_change][:3] == ["FY2022", "FY2021", "FY2020"]
    row = next(r for r in cash.rows if r.label.startswith("Purchases of property"))
    assert row.groups == ("Cash Flows from Investing Activities",)
    assert row.cells[0].raw == "(1,577)" and row.cells[0].value == -1577 and row.cells[0].column == 0
    # the table runs on into the next chunk and stays one table
    assert len(cash.chunk_indexes) >= 2
    # every stored fact is a cell of a stored table
    cells = {(r.label_path, c.raw, r.page) for t in tables for r in t.rows for c in r.cells}
    facts = clean_store.match_facts("", document_ids=[doc.document_id], match_count=10000)
    assert facts and all((f.label_path, f.raw, f.page) in cells for f in facts)
    # a citation's chunk finds its table; the grid shows each value under its column
    capex = clean_store.match_facts("purchases of property plant equipment", document_ids=[doc.document_id])[0]
    got = clean_store.tables_of_chunks([capex.chunk_id])
    assert any(t.table_no == cash.table_no for t in got)
    head, lines = cash.grid()
    line = next(x for x in lines if x[0].endswith(row.label))
    assert line[1] == "(1,577)" and len(head) == len(line)


def test_rebuild_derives_facts_from_stored_tables_or_reads_them_again(clean_store, ingest, pdfs):
    assert ingest(pdfs["10k_2022"]).ok
    doc = _doc(clean_store, "report_final_v2.pdf")
    def stored():  # in the order of their ids: the reading order, at ingestion and after a rebuild alike
        got = clean_store.match_facts("", document_ids=[doc.document_id], match_count=10000)
        return [(f.label_path, f.period, f.value) for f in sorted(got, key=lambda f: f.fact_id)]

    before = stored()
    assert before == [(f.label_path, f.period, f.value) for t in clean_store.document_tables(doc.document_id)
                      for f in facts_of_table(t)]
    n = rebuild(clean_store)
    assert n["tables_read_from_text"] == 0 and n["facts"] == len(before)
    n = rebuild(clean_store, reread=True)
    assert n["tables_read_from_text"] == 1
    assert stored() == before
    assert clean_store.delete_document(doc.document_id)
    assert clean_store.document_tables(doc.document_id) == []
