

def test_a_currency_written_with_its_scale_is_one_unit():
    """Issue 36's walkthrough: Viscom's revenue row "Revenues | K€ | 118,780" was read as €118,780. A thousand is
    "k" in English and "T" (Tausend) in German-language reports, before or after the currency."""
    from rag.quantities import currency_of, scale_of

    for text, scale in [("in K€", 1e3), ("K€", 1e3), ("TEUR", 1e3), ("in kEUR", 1e3), ("EUR k", 1e3), ("€k", 1e3),
                        ("Mio. EUR", 1e6), ("Mrd. EUR", 1e9), ("in € thousand", 1e3), ("EUR m", 1e6)]:
        assert scale_of(text) == scale and currency_of(text) == "EUR", text
    for text in ("10-K", "k", "T", "2023", "in EUR", "Teuro", "t CO2e"):
        assert scale_of(text) is None, text
