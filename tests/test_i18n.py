"""The player's language: selection from the locale and --lang, and the catalogs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gleek_p2p import i18n
from gleek_p2p.cli import _lang_option


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "it_IT"}, "it"),
        ({"LANG": "pt_BR.UTF-8"}, "pt"),
        ({"LANG": "nl_BE.UTF-8@euro"}, "nl"),
        ({"LC_MESSAGES": "nl_NL.UTF-8", "LANG": "fr_FR.UTF-8"}, "nl"),
        ({"LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "nl_NL", "LANG": "fr_FR"}, "it"),
        ({"LC_ALL": "", "LANG": "pt_PT.UTF-8"}, "pt"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        # The first variable set decides, as in POSIX: an unknown LC_ALL is English.
        ({"LC_ALL": "de_DE.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANG": "garbage-!"}, "en"),
    ],
)
def test_language_from_the_locale(environ: dict[str, str], expected: str) -> None:
    assert i18n.choose_language(None, environ) == expected


@pytest.mark.parametrize(
    ("override", "expected"),
    [("fr", "fr"), ("pt_BR", "pt"), ("NL", "nl"), ("it-IT", "it"), ("en", "en"),
     ("xx", "en"), ("de", "en")],
)
def test_lang_option_overrides_the_locale(override: str, expected: str) -> None:
    assert i18n.choose_language(override, {"LC_ALL": "fr_FR.UTF-8"}) == expected


def test_lang_option_is_read_before_the_full_parse() -> None:
    assert _lang_option(["--lang", "it", "verify", "x.log"]) == "it"
    assert _lang_option(["--lang=nl", "replay", "x.log"]) == "nl"
    assert _lang_option(["verify", "x.log", "--json"]) is None
    assert _lang_option(["-h"]) is None
