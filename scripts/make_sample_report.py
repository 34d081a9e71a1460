"""Builds samples/northwind_sustainability_report_2023.pdf: a short sustainability report of a fictional company,
written for this project (CC0): a cover, a KPI table of emissions, energy and water, a vector bar chart of
emissions by year with its caption, and a page on people. Run: python scripts/make_sample_report.py"""

from __future__ import annotations

from pathlib import Path

import pymupdf

OUT = Path(__file__).resolve().parents[1] / "samples" / "northwind_sustainability_report_2023.pdf"
COMPANY = "Northwind Dairy AG"
EMISSIONS = {"2020": (41.2, 18.9), "2021": (39.8, 16.1), "2022": (37.5, 12.4), "2023": (34.9, 9.8)}


def _text(page, x, y, s, size=10, bold=False, color=(0, 0, 0)):
    page.insert_text((x, y), s, fontsize=size, fontname="hebo" if bold else "helv", color=color)


def _para(page, y, text, size=10, width=88):
    words, line = text.split(), ""
    for w in words:
        if len(line) + len(w) + 1 > width:
            _text(page, 60, y, line, size)
            y, line = y + size * 1.45, w
        else:
            line = f"{line} {w}".strip()
    if line:
        _text(page, 60, y, line, size)
        y += size * 1.45
    return y + 6


def _cover(doc):
    p = doc.new_page()
    p.draw_rect(pymupdf.Rect(0, 0, 595, 300), color=None, fill=(0.13, 0.42, 0.36))
    _text(p, 60, 140, "Growing within limits", 30, True, (1, 1, 1))
    _text(p, 60, 380, COMPANY, 16, True)
    _text(p, 60, 410, "Sustainability Report 2023", 22, True, (0.13, 0.42, 0.36))
    _text(p, 60, 440, "Reporting period: 1 January to 31 December 2023", 11)
    _para(p, 500, "This report covers the environmental and social performance of the group's four dairies "
                  "and its collection fleet. Figures are for the calendar year, which is the group's "
                  "financial year.")


def _kpis(doc):
    p = doc.new_page()
    _text(p, 60, 70, "Climate and resources", 16, True)
    y = _para(p, 100, "Scope 1 emissions fell to 34.9 thousand t CO2e in 2023 from 37.5 thousand t CO2e in 2022, as "
                      "two dairies replaced oil-fired boilers with heat pumps. Scope 2 emissions (market-based) fell "
                      "to 9.8 thousand t CO2e because 71 percent of the electricity bought was renewable.")
    _text(p, 60, y + 10, "Table 1: Key environmental figures", 10, True)
    y += 30
    xs = [60, 330, 420, 500]
    for i, h in enumerate(["", "2023", "2022", "Change"]):
        _text(p, xs[i], y, h, 9, True)
    rows = [("Scope 1 emissions (thousand t CO2e)", "34.9", "37.5", "-6.9 %"),
            ("Scope 2 emissions, market-based (thousand t CO2e)", "9.8", "12.4", "-21.0 %"),
            ("Energy use (GWh)", "212.4", "219.8", "-3.4 %"),
            ("Share of renewable electricity (%)", "71", "58", "+13 pp"),
            ("Water withdrawal (million m3)", "3.12", "3.30", "-5.5 %"),
            ("Milk processed (million kg)", "1,046", "1,018", "+2.8 %")]
    for r in rows:
        y += 16
        for i, c in enumerate(r):
            _text(p, xs[i], y, c, 9)
    y += 50
    _text(p, 60, y, "Scope 1 and Scope 2 emissions, 2020-2023 (thousand t CO2e)", 10, True)
    base, top = y + 190, y + 20
    scale = 150 / 60.0
    for i, (year, (s1, s2)) in enumerate(EMISSIONS.items()):
        x = 90 + i * 110
        p.draw_rect(pymupdf.Rect(x, base - s1 * scale, x + 40, base), color=None, fill=(0.13, 0.42, 0.36))
        p.draw_rect(pymupdf.Rect(x, base - (s1 + s2) * scale, x + 40, base - s1 * scale), color=None,
                    fill=(0.55, 0.77, 0.55))
        _text(p, x + 6, base - (s1 + s2) * scale - 4, f"{s1 + s2:.1f}", 8)
        _text(p, x + 8, base + 12, year, 9)
    p.draw_line((80, base), (520, base), color=(0.3, 0.3, 0.3), width=0.6)
    p.draw_rect(pymupdf.Rect(440, top, 448, top + 8), color=None, fill=(0.13, 0.42, 0.36))
    _text(p, 452, top + 7, "Scope 1", 8)
    p.draw_rect(pymupdf.Rect(440, top + 14, 448, top + 22), color=None, fill=(0.55, 0.77, 0.55))
    _text(p, 452, top + 21, "Scope 2", 8)
    _text(p, 60, base + 32, "Figure 1: Scope 1 and Scope 2 emissions fell by 25 percent between 2020 and 2023.", 9)


def _people(doc):
    p = doc.new_page()
    _text(p, 60, 70, "People", 16, True)
    y = _para(p, 100, "At the end of 2023 the group employed 1,284 people, 3 percent more than a year "
                      "earlier. The lost-time injury rate fell to 4.1 per million hours worked from 5.6 in 2022, "
                      "after forklift training was extended to every dairy. Employee turnover was 8.7 percent.")
    _para(p, y, "Our target is to cut Scope 1 and Scope 2 emissions by 50 percent by 2030 from 2020, and to reach "
                "net zero in our own operations by 2040. Progress is reviewed by the board every quarter.")


def main() -> None:
    doc = pymupdf.open()
    _cover(doc)
    _kpis(doc)
    _people(doc)
    doc.set_metadata({"title": f"{COMPANY} Sustainability Report 2023", "author": COMPANY,
                      "creationDate": "D:20240315000000"})
    OUT.parent.mkdir(exist_ok=True)
    doc.save(OUT, garbage=4, deflate=True)
    print(OUT)


if __name__ == "__main__":
    main()
