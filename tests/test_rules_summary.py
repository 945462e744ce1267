"""The rules summary: in every language, within 80 columns, no word cut, true to the rules."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterator

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.rules import Variant, scoring
from gleek_p2p.rules.engine import MAX_RAISE, MAX_STAKE, OPENING_BID
from gleek_p2p.rules.scoring import ANTE, LAST_TRICK, TIB, TIDDY_PAYMENT, TOM
from gleek_p2p.ui.rules_summary import SECTIONS, facts, rules_summary

TERMS = {
    "en": ("auction", "tricks", "trump"),
    "fr": ("enchères", "plis", "atout"),
    "it": ("asta", "prese", "briscola"),
    "pt": ("leilão", "vazas", "trunfo"),
    "nl": ("veiling", "slagen", "troef"),
}


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("width", [80, 60, 40])
def test_every_line_fits_and_no_word_is_cut(lang: str, width: int) -> None:
    i18n.set_language(lang, {})
    lines = rules_summary(width)
    assert all(len(line) <= width for line in lines), [x for x in lines if len(x) > width]
    assert not [x for x in lines if x.strip()[:1] in tuple(":;,.%?!")], "a line opens on a mark"
    cut = [(a, b) for a, b in itertools.pairwise(lines)
           if re.search(r"\s[AKQJ]$", a) and re.match(r"\s*([AKQJ]\b|\d)", b)]
    assert cut == [], "a run of card labels is cut"
    shown = " ".join(lines).split()
    written = " ".join(
        [i18n._("Gleek: the rules in short")]
        + [i18n._(text).format(**facts()) for pair in SECTIONS for text in pair]
    ).split()
    assert shown == written


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_summary_speaks_the_language_and_its_game_terms(lang: str) -> None:
    i18n.set_language(lang, {})
    text = "\n".join(rules_summary()).lower()
    for term in TERMS[lang]:
        assert term in text, (lang, term)
    if lang != "en":
        i18n.set_language("en", {})
        english = rules_summary()
        i18n.set_language(lang, {})
        assert all(a != b for a, b in zip(rules_summary(), english, strict=False) if a)


@pytest.mark.parametrize(("lang", "letters"), [("en", "A K Q J"), ("fr", "A R D V"),
                                               ("it", "A K Q J"), ("pt", "A K Q J"),
                                               ("nl", "A H V B")])
def test_card_labels_are_each_texts_letters(lang: str, letters: str) -> None:
    """The rules screen ranks the cards as the original text of its language does."""
    i18n.set_language(lang, {})
    text = "\n".join(rules_summary(200))
    assert letters.replace(" ", "\u00a0") + "\u00a010" in text  # held on one line


def test_the_numbers_are_the_engines() -> None:
    """The English text (every translation keeps its numbers) states the rules' constants."""
    text = " ".join(" ".join(rules_summary(1000)).split())
    for fact in (f"{OPENING_BID} pence or more", f"by 1 to {MAX_RAISE}, at most {MAX_STAKE}",
                 f"antes {ANTE} pence", f"Tib {TIB}", f"Tom {TOM}",
                 f"{LAST_TRICK} for the last trick", f"gets {TIDDY_PAYMENT} pence"):
        assert fact in text, fact


@pytest.mark.parametrize("lang", [x for x in i18n.LANGUAGES if x != "en"])
def test_translations_keep_every_number(lang: str) -> None:
    """Every translation says the same numbers: the same fields, and no digit of its own."""
    for heading, paragraph in SECTIONS:
        for text in (heading, paragraph):
            i18n.set_language("en", {})
            english = sorted(re.findall(r"\{\w+\}|\d+", text))
            i18n.set_language(lang, {})
            assert sorted(re.findall(r"\{\w+\}|\d+", i18n._(text))) == english, (lang, text[:30])


def test_the_paragraphs_write_no_game_number_of_their_own() -> None:
    """Past the section numbers and the absent 2s and 3s, every number is a field of facts()."""
    fields = set(facts())
    for heading, paragraph in SECTIONS:
        assert re.findall(r"\d+", paragraph) in ([], ["2", "3"]), paragraph[:30]
        assert set(re.findall(r"\{(\w+)\}", paragraph)) <= fields
        assert re.findall(r"\d+", heading) in ([], [heading[0]])


@pytest.fixture
def changed_rules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A copy of the rules with other numbers: the words must follow them."""
    rules_limits = sys.modules["gleek_p2p.rules.limits"]
    monkeypatch.setattr(rules_limits, "OPENING_BID", 17)
    monkeypatch.setattr(rules_limits, "MAX_RAISE", 6)
    monkeypatch.setattr(rules_limits, "MAX_STAKE", 24)
    monkeypatch.setattr(rules_limits, "ANTE", 3)
    monkeypatch.setattr(rules_limits, "TIDDY_PAYMENT", 5)
    monkeypatch.setattr(scoring, "TIB", 16)
    monkeypatch.setattr(scoring, "TOM", 10)
    monkeypatch.setattr(scoring, "LAST_TRICK", 7)
    monkeypatch.setattr(scoring, "_POINTS", (12, 2, 2, 2, 10, 9, 8, 7, 6, 5, 0))
    monkeypatch.setattr(scoring, "_GLEEK", (9, 5, 5, 5, 10, 9, 8, 7, 6, 5, 4))
    monkeypatch.setattr(Variant, "hand_size", property(lambda self: 11))
    rules_limits.most_paid.cache_clear()
    yield
    rules_limits.most_paid.cache_clear()


@pytest.mark.usefixtures("changed_rules")
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_words_follow_the_rules(lang: str) -> None:
    """Change the numbers in rules/ and every language says the new ones."""
    i18n.set_language(lang, {})
    text = " ".join(" ".join(rules_summary(1000)).split()).replace("\u00a0", " ")
    numbers = {int(x) for x in re.findall(r"\d+", text)}
    # 11 cards each from 44: a talon of 11, 10 discarded, 11 tricks.
    assert numbers >= {17, 24, 6, 3, 5, 16, 10, 7, 12, 2, 9, 18, 11}, lang
    assert not numbers & {13, 20, 15, 8}, (lang, numbers & {13, 20, 15, 8})
    assert "Tib 16" in text and "Tom 10" in text and "A 12" in text, lang
    if lang == "en":
        for fact in ("17 pence or more", "gets 11 cards and the other 11", "discards 10 cards",
                     "There are 11 tricks", "antes 3 pence", "by 1 to 6, at most 24",
                     "Aces 9, Kings", "Aces 18, Kings", "Jacks 10, others",
                     "gets 5 pence", "7 for the last trick", "K Q J 2,"):
            assert fact in text, fact
@pytest.mark.parametrize(("lang", "words"), [
    ("en", "half from each opponent"), ("fr", "la moitié de chaque adversaire"),
    ("it", "metà da ciascun avversario"), ("pt", "metade de cada adversário"),
    ("nl", "de helft van elke tegenstander")])
def test_the_trick_scores_are_received_half_from_each_opponent(lang: str, words: str) -> None:
    # SPEC 1.5 (received_scores): no "mean of the three" any more, in any language.
    i18n.set_language(lang, {})
    text = " ".join(" ".join(rules_summary(1000)).split()).replace("\u00a0", " ")
    assert words in text
    assert not any(mean in text for mean in ("mean of", "moyenne", "media dei", "média",
                                             "gemiddelde"))
