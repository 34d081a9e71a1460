"""File names from outside made safe to store and show; names and messages made safe to print."""

import unicodedata

import pytest

from rag.filenames import FALLBACK_NAME, MAX_NAME_CHARS, clean_file_name, printable

INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _invisible(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) in INVISIBLE]


@pytest.mark.parametrize("raw,expected", [
    ("q3\x1b[31mred\x1b[0m.pdf", "q3[31mred[0m.pdf"),  # no ESC: the rest is plain text
    ("\x1b]0;pwned\x07title.pdf", "]0;pwnedtitle.pdf"),  # OSC title sequence ended by BEL
    ("a\rb.pdf", "a b.pdf"),
    ("report.pdf\nERROR other.pdf: forged.pdf", "report.pdf ERROR other.pdf: forged.pdf"),  # one line
    ("nul\x00byte.pdf", "nulbyte.pdf"),
    ("c1\x85\x9bcontrols.pdf", "c1 controls.pdf"),  # NEL is a line break (a space), CSI is dropped
    ("invoice\u202efdp.exe", "invoicefdp.exe.pdf"),  # the right-to-left override would show "exe.pdf"
    ("\u2066iso\u2069\u202aemb\u202c.pdf", "isoemb.pdf"),
    ("pay\u200dpal\u200b\u200c\ufeff\u00ad.pdf", "paypal.pdf"),  # zero-width joiner, space, non-joiner, BOM, SHY
    ("line\u2028para\u2029.pdf", "line para.pdf"),
    ("cafe\u0301.pdf", "café.pdf"),  # NFC
    ("  many \t  spaces\u00a0\u3000here  .pdf", "many spaces here.pdf"),
    ("../../etc/passwd.pdf", "passwd.pdf"),
    ("C:\\Users\\me\\report.pdf", "report.pdf"),
    ("/abs/dir/x.pdf", "x.pdf"),
    (".hidden.pdf", "hidden.pdf"),
    ("win.ini", "win.ini.pdf"),
    ("Report.PDF", "Report.PDF"),
    ("\x00\x1b\x07\r\n\u202e\u200d", FALLBACK_NAME),
    ("", FALLBACK_NAME), (None, FALLBACK_NAME), ("dir/", FALLBACK_NAME), ("..", FALLBACK_NAME),
    (".pdf", FALLBACK_NAME),
])
def test_clean_file_name(raw, expected):
    got = clean_file_name(raw)
    assert got == expected
    assert not _invisible(got) and "/" not in got and "\\" not in got
    assert clean_file_name(got) == got  # idempotent: the queue's worker cleans the job's name again


def test_a_long_name_is_capped_and_keeps_its_extension():
    got = clean_file_name("annual report " * 50 + "2023.pdf")
    assert len(got) <= MAX_NAME_CHARS and got.endswith(".pdf") and got.startswith("annual report")
    wide = clean_file_name("\U0001f600" * 200 + ".PDF")  # 4 bytes a character: the byte limit applies first
    assert wide.endswith(".PDF") and len(wide.encode("utf-8")) <= 255 and clean_file_name(wide) == wide
    assert clean_file_name("x" * 10_000) == "x" * (MAX_NAME_CHARS - 4) + ".pdf"


def test_an_undecodable_byte_of_a_linux_name_is_dropped():
    import os

    name = os.fsdecode(b"r\xffeport.pdf")  # a lone surrogate: Postgres would refuse it
    assert clean_file_name(name) == "report.pdf"


def test_printable_shows_control_characters_as_visible_escapes():
    assert printable("a\x1b[31mb\x07") == "a\\x1b[31mb\\x07"
    assert printable("x.pdf\nERROR other.pdf\r") == "x.pdf\\nERROR other.pdf\\r"
    assert printable("abc\u202egpj\u200d.pdf") == "abc\\u202egpj\\u200d.pdf"
    assert printable("\x9b\udcff\U000e0001") == "\\x9b\\udcff\\U000e0001"
    assert printable("café 10-K (2023) – ok.pdf") == "café 10-K (2023) – ok.pdf"  # ordinary text unchanged
    assert printable(None) == "" and printable(42) == "42"
