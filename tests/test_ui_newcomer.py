"""What a newcomer and a player met in a session of ``gleek local`` (s30): the words and
numbers of the screens, the per-hand lines and the commands' help, in every language."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.rules import Variant
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.rules.summary import hand_summary

LANGS = i18n.LANGUAGES


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _a_hand_with_a_ruff(seed: int = 2) -> object:
    for s in range(seed, seed + 50):
        final, _events = random_session(Variant(), 1, random.Random(s))
        if hand_summary(final).ruff is not None:
            return final
    raise AssertionError("no hand with a ruff winner in 50 seeds")


@pytest.mark.parametrize("lang", LANGS)
def test_the_hand_line_gives_the_ruff_pot_in_whole_pence(lang: str) -> None:
    # gleek bot's line per hand (and the seat a bot finishes) said "Mary won 11½"
    # for a pot of 23 pence: the pot, in pence, was read as halfpence.
    from gleek_p2p.ui.narrate import hand_line

    final = _a_hand_with_a_ruff()
    winner, pot, _suit = hand_summary(final).ruff  # type: ignore[attr-defined,misc]
    i18n.set_language(lang, {})
    line = hand_line(final, ["Anne", "Ben", "Cat"])  # type: ignore[arg-type]
    ruff = next(p for p in line.split(";") if "Anne Ben Cat".split()[winner] in p
                and ("ruff" in p.lower()))
    assert f" {pot} " in ruff or ruff.rstrip().endswith(f" {pot}"), (pot, ruff)
    assert "½" not in ruff, ruff
