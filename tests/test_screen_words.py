"""The words people read, in every language, where English used to stay on screen
(issue 23 item 1): the rulings of ``gleek verify``, a goodbye's reason, the commands' output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.cli.gleek import main
from gleek_p2p.rules import RULINGS, VARIANTS, rulings_in_force
from gleek_p2p.tools.report import RECEIVED_WORDS, RULING_WORDS, ruling_words

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"
LANGS = i18n.LANGUAGES
TRANSLATED = [lang for lang in LANGS if lang != i18n.SOURCE_LANGUAGE]
ENGLISH_RULINGS = [*RULING_WORDS.values(), *RECEIVED_WORDS.values(),
                   "bids for the talon rise", "no table ceiling", "each seat receives"]


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _rulings_lines(text: str) -> list[str]:
    """The lines under the report's 'Variant ...' line, up to the first hand."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Vari"))
    out = []
    for line in lines[start + 1:]:
        if not line.startswith("  - "):
            break
        out.append(line[4:])
    return out


CURRENT_MODERN = {
    # valid-modern-rulings-21: the modern game under the current rulings
    "en": ["declaring combinations is optional; an undeclared one is not paid",
           "bids for the talon rise by at least 1 penny with no table ceiling (at most 394 "
           "pence, the most a hand's other phases can pay one seat)",
           "each seat receives its whole trick score and its combination values, half from "
           "each opponent"],
    "fr": ["déclarer les combinaisons est facultatif ; une combinaison non déclarée n'est "
           "pas payée",
           "les enchères pour le talon montent d'au moins 1 penny, sans plafond de table (au "
           "plus 394 pence, le plus que les autres phases d'une manche peuvent payer à un "
           "joueur)",
           "chaque joueur reçoit tout son score de plis et la valeur de ses combinaisons, la "
           "moitié de chaque adversaire"],
    "it": ["dichiarare le combinazioni è facoltativo; una non dichiarata non viene pagata",
           "le offerte per il tallone salgono di almeno 1 penny, senza tetto al tavolo (al "
           "massimo 394 penny, il massimo che le altre fasi di una mano possono pagare a un "
           "giocatore)",
           "ogni giocatore riscuote tutto il suo punteggio di prese e il valore delle sue "
           "combinazioni, metà da ciascun avversario"],
    "pt": ["declarar combinações é opcional; uma não declarada não é paga",
           "os lances pelo monte sobem pelo menos 1 penny, sem teto na mesa (no máximo 394 "
           "pence, o máximo que as outras fases de uma mão podem pagar a um jogador)",
           "cada jogador recebe toda a sua pontuação de vazas e o valor das suas combinações, "
           "metade de cada adversário"],
    "nl": ["combinaties melden is vrijwillig; een niet gemelde wordt niet betaald",
           "biedingen op de stok stijgen met minstens 1 penny, zonder plafond aan tafel "
           "(hoogstens 394 penny, het meeste dat de andere fasen van een hand één speler "
           "kunnen betalen)",
           "elke speler int zijn hele slagscore en de waarde van zijn combinaties, de helft "
           "van elke tegenstander"],
}

FIRST_STANDARD = {
    # valid-standard: a log of the first rulings
    "en": "bids for the talon from 13 to 99 pence",
    "fr": "enchères pour le talon de 13 à 99 pence",
    "it": "offerte per il tallone da 13 a 99 penny",
    "pt": "lances pelo monte de 13 a 99 pence",
    "nl": "biedingen op de stok van 13 tot 99 penny",
}


@pytest.mark.parametrize("lang", LANGS)
def test_verify_says_the_rulings_in_the_chosen_language(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", lang, "verify", "--no-progress",
                 str(VECTORS / "valid-modern-rulings-21.gleeklog")]) == 0
    assert _rulings_lines(capsys.readouterr().out) == CURRENT_MODERN[lang]
    assert main(["--lang", lang, "verify", "--no-progress",
                 str(VECTORS / "valid-standard.gleeklog")]) == 0
    first = _rulings_lines(capsys.readouterr().out)
    assert len(first) == 3 and first[2] == FIRST_STANDARD[lang]
    assert main(["--lang", lang, "verify", "--no-progress",
                 str(VECTORS / "valid-two-rulings-21.gleeklog")]) == 0
    two = _rulings_lines(capsys.readouterr().out)
    # two players: the whole score comes from the one opponent
    assert two[-1] == {"en": "each seat receives its whole trick score, from its opponent",
                       "fr": "chaque joueur reçoit tout son score de plis, de son adversaire",
                       "it": "ogni giocatore riscuote tutto il suo punteggio di prese, dal "
                             "suo avversario",
                       "pt": "cada jogador recebe toda a sua pontuação de vazas, do seu "
                             "adversário",
                       "nl": "elke speler int zijn hele slagscore, van zijn tegenstander"}[lang]
    if lang != "en":
        for line in [*first, *two]:
            assert not any(english in line for english in ENGLISH_RULINGS), line


def test_verify_json_names_the_rulings_by_switch_in_every_language(
        capsys: pytest.CaptureFixture[str]) -> None:
    said = set()
    for lang in LANGS:
        assert main(["--lang", lang, "verify", "--json",
                     str(VECTORS / "valid-modern-rulings.gleeklog")]) == 0
        said.add(capsys.readouterr().out)
    assert len(said) == 1  # the machine's form speaks no language
    rulings = json.loads(said.pop())["rulings"]
    assert rulings == {"score_sheet_tricks": True, "optional_declaring": True,
                       "score_sheet_combinations": True, "open_auction": False,
                       "received_scores": False}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_reading_of_every_ruling_is_worded_and_translated(lang: str) -> None:
    seen = set()
    for preset in VARIANTS.values():
        for variant in (preset.first_rulings(), preset.rulings_of(12), preset.game()):
            for switch, on in rulings_in_force(variant):
                seen.add((switch, on))
                i18n.set_language("en", {})
                english = ruling_words(variant, switch, on)
                i18n.set_language(lang, {})
                said = ruling_words(variant, switch, on)
                assert said and "{" not in said and said != english, (switch, on)
    # each switch is said both ways, but a superseding one only when on
    assert seen == {(r.switch, on) for r in RULINGS for on in (True, False)
                    if on or not r.supersedes}
