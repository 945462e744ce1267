"""`pybabel compile` finds no error in any catalog: its checks are the ones run here."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from gleek_p2p.base import i18n
from gleek_p2p.tools import arena

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_pybabel_compile_checks_pass(lang: str) -> None:
    """The checks `pybabel compile` runs (placeholders, plural forms) report nothing: a
    bare "95% interval" read as a "% i" placeholder made six false errors that would
    hide a real one among them."""
    path = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
    with open(path, "rb") as fh:
        catalog = read_po(fh, locale=lang)
    errors = [(message.id, [str(e) for e in errs]) for message, errs in catalog.check()]
    assert errors == []


def test_the_checks_do_catch_a_real_placeholder_error() -> None:
    """The test above can fail: a translation that changes a %-placeholder is reported."""
    from babel.messages.catalog import Catalog

    catalog = Catalog(locale="fr")
    catalog.add("%(prog)s: error: %(message)s\n", "%(prog)s : erreur : %(mesage)s\n")
    assert [errs for _m, errs in catalog.check()] != []


@pytest.fixture(scope="module")
def arena_result() -> arena.ArenaResult:
    return arena.run_games(["random", "heuristic"], "standard", 6, "s")


@pytest.mark.parametrize(("lang", "interval", "title"), [
    ("en", "95% interval", "pence per hand, 95% intervals over deals"),
    ("fr", "intervalle à 95\u00a0%", "pence par manche, intervalles à 95\u00a0% sur les donnes"),
    ("it", "intervallo al 95%", "penny per mano, intervalli al 95% sulle distribuzioni"),
    ("pt", "intervalo de 95%", "pence por mão, intervalos de 95% sobre as distribuições"),
    ("nl", "95%-interval", "penny per hand, 95%-intervallen over de gevingen"),
])
def test_arena_headings_say_the_level_in_every_language(
        lang: str, interval: str, title: str, arena_result: arena.ArenaResult) -> None:
    i18n.set_language(lang)
    try:
        text = arena.arena_text(arena_result)
    finally:
        i18n.set_language("en")
    assert interval in text and title in text, text
