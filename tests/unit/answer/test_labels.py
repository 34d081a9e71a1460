"""rag/answer/labels.py: the readable names every surface prints (headings, times)."""

from datetime import datetime, timedelta, timezone

from rag.answer.labels import heading_label, shorten, time_label


def test_a_heading_drops_the_footnote_marks_its_text_layer_glued_on():
    """Walkthrough 5: export source lines read "Staff turnover1, 2" and "GPT- 4o"."""
    assert heading_label("Employees › Staff turnover1, 2") == "Employees › Staff turnover"
    assert heading_label("Results › Comparison with GPT- 4o") == "Results › Comparison with GPT-4o"
    # a digit that is part of the name stays: after a capital, or after a space
    assert heading_label("Emissions of CO2") == "Emissions of CO2"
    assert heading_label("Climate › Scope 3") == "Climate › Scope 3"
    assert heading_label("Energy › Green H2") == "Energy › Green H2"
    assert heading_label("Item 8 › Part II › Notes › Note 12") == "Item 8 › Note 12"


def test_time_label_is_the_clock_today_and_the_day_before():
    now = datetime.now(timezone.utc)
    assert time_label(now) == now.strftime("%H:%M")
    earlier = now - timedelta(days=3)
    assert time_label(earlier.isoformat()) == earlier.strftime("%b %d %H:%M")
    assert time_label(None) == ""


def test_shorten_cuts_at_a_word():
    assert shorten("What were the net sales of the company", 20) == "What were the net…"
    assert shorten("short", 20) == "short"
