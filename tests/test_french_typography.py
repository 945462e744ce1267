"""French puts a no-break space before ; : ? ! (docs/translations.md): in the catalog, in
the parts the report joins in code, and in argparse's own headings.

The other languages' help headings are translated too, never argparse's English.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from prepared import verified

from gleek_p2p.base import i18n
from gleek_p2p.cli.gleek import main
from gleek_p2p.tools.report import text_report

FRENCH = Path(i18n.__file__).resolve().parent.parent / "locale" / "fr" / "LC_MESSAGES" / \
    "gleek.po"
NO_BREAK = "\u00a0\u202f"


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def misplaced(text: str) -> list[str]:
    """Each ; : ? ! of ``text`` that lacks its no-break space, with what stands around it.

    A colon glued on both sides is code (``HOST:PORT``, ``module:Class``, ``{host}:{port}``);
    a lone ``?`` opening a line or ``??`` is a key or the mark of an unknown card."""
    text = re.sub(r"\{[^{}]*\}", "{}", text)
    bad = []
    for found in re.finditer(r"[;:?!]", text):
        i, mark = found.start(), found.group()
        before, after = text[i - 1:i], text[i + 1:i + 2]
        if before and before in NO_BREAK:
            continue
        if mark == ":" and before.strip() and after.strip():
            continue
        if mark == "?" and before != " " and (not before.strip() or before in "(?"
                                              or after == "?"):
            continue
        bad.append(text[max(0, i - 15):i + 1])
    return bad


def test_the_checker_catches_each_mark_without_its_space() -> None:
    assert [bad[-1] for bad in misplaced("Verdict : ÉQUITABLE ; fin ? oui !")] == [
        ":", ";", "?", "!"]
    assert misplaced("Verdict\u00a0: fin\u202f; oui\u00a0? non\u00a0!") == []
    assert misplaced("--peer HOTE:{port}, module:Class, (??)") == []
    assert misplaced("? aide  q quitter") == misplaced("?? jamais ouverte") == []
    assert misplaced("fin: oui;") == ["fin:", "fin: oui;"]
    assert misplaced("quoi ?") == ["quoi ?"]


def test_every_french_message_puts_a_no_break_space_before_its_marks() -> None:
    catalog = read_po(FRENCH.open("rb"), locale="fr")
    wrong = {}
    for message in catalog:
        if not message.id:
            continue
        strings = [message.string] if isinstance(message.string, str) else message.string
        for text in strings:
            if misplaced(text):
                wrong[text] = misplaced(text)
    assert not wrong, wrong


def test_the_reports_joined_parts_keep_french_typography() -> None:
    # The parts joined in code: the ruff's shows (claim-only: "…; random-0 shows ♠
    # worth 40"), and the Tiddy after the trump (valid-standard-rulings).
    i18n.set_language("fr", {})
    texts = [text_report(verified(name)) for name in ("claim-only", "valid-standard-rulings")]
    lines = [line.strip() for text in texts for line in text.splitlines()]
    assert any(line.startswith("ruff\u00a0:") and "\u00a0; " in line for line in lines), texts
    assert any(line.startswith("atout\u00a0:") and "\u00a0; " in line for line in lines), texts
    assert not [line for line in lines if misplaced(line)], [
        (line, misplaced(line)) for line in lines if misplaced(line)]


HEADINGS = {"fr": ("arguments positionnels\u00a0:", "options\u00a0:"),
            "it": ("argomenti posizionali:", "opzioni:"),
            "pt": ("argumentos posicionais:", "opções:"),
            "nl": ("positionele argumenten:", "opties:"),
            "en": ("positional arguments:", "options:")}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_argparse_headings_in_each_language(lang: str, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    with pytest.raises(SystemExit):
        main(["--lang", lang, "verify", "--help"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    for heading in HEADINGS[lang]:
        assert heading in lines, out
    if lang != "en":
        assert "positional arguments" not in out and "options:" not in out
    if lang == "fr":
        assert lines[0].startswith("usage\u00a0: gleek verify")
        assert not [line for line in lines if misplaced(line)], [
            (line, misplaced(line)) for line in lines if misplaced(line)]
