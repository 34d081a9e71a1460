"""Is a question in English? The embedding model (all-MiniLM-L6-v2) reads English; a question in another language
gets one line that says so instead of a confident answer about something else. Decided by the language's closed
class of function words (articles, prepositions, question words) and by the script, never by topic words."""

from __future__ import annotations

import re

__all__ = ["not_english"]

_EN = set("""the a an of in on for to and or by with from at as is are was were be been what which who how much many
does did do has have had this that these those its their than per about between during any all each will would can
could should may might why when where there it our your my""".split())
# the commonest function words of the languages a European report or its reader may use (none is an English word)
_OTHER = {
    "German": set("""der die das den dem des ein eine einen einem einer und oder ist sind war waren wie hoch viel viele
welche welcher welches wer wann warum wo im vom zum zur für mit auf aus bei nach über unter von zu nicht auch hat
haben wurde wurden gibt es sich im jahr""".split()),
    "French": set("""le la les un une des du et ou est sont était quel quelle quels quelles combien pourquoi comment où
dans pour avec sur par pas aussi ont été au aux ce cette ces leur""".split()),
    "Spanish": set("""el la los las un una unos unas y o es son fue fueron cuál cuáles cuánto cuántos cómo por qué
dónde en para con sobre del al también han sido este esta estos""".split()),
    "Italian": set("""il lo la gli le un una e o è sono era quale quali quanto quanti come perché dove nel nella per
con sul della degli anche hanno stato""".split()),
    "Dutch": set("""de het een en of is zijn was waren hoeveel welke wie hoe waarom waar in voor met op uit bij naar
van te niet ook heeft hebben werd""".split()),
}
_OTHER_ONLY = {lang: words - _EN - {"in", "a", "o", "e", "es", "is", "was", "war"} for lang, words in _OTHER.items()}
_LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]")
_LETTER = re.compile(r"[^\W\d_]")


def not_english(question: str) -> str | None:
    """The language a question is written in when it is clearly not English (a name, or 'a non-Latin script'),
    else None. Terse English ('Scope 1 emissions 2023?') has no function words at all and stays English."""
    letters = _LETTER.findall(question)
    if letters and sum(1 for ch in letters if not _LATIN.match(ch)) > 0.3 * len(letters):
        return "a non-Latin script"
    words = [w.lower() for w in re.findall(r"[^\W\d_][\w'’-]*", question)]
    if not words:
        return None
    en = sum(w in _EN for w in words)
    best, count = max(((lang, sum(w in ws for w in words)) for lang, ws in _OTHER_ONLY.items()), key=lambda x: x[1])
    return best if count >= 2 and count > en else None
