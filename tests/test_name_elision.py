"""French elides "de" and "que" before a name that opens on a vowel or a mute h ("la place
d'Anne", "ce qu'Hugo envoyait") and keeps them before any other ("la place de Thomas");
Italian, Portuguese and Dutch write their word whole before every name ("di Anne", "de
Anne", "van Anne"), as they should. A translation asks for it with ``{name:de}``."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

import pytest
from babel.messages.pofile import read_po

from gleek_p2p.base import i18n
from gleek_p2p.net.formation import FormationFault
from gleek_p2p.session.abort_words import code_words
from gleek_p2p.session.formation_words import fault_words
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Handover
from gleek_p2p.tools.report import handover_sentence

VOWEL, MUTE_H, CONSONANT = "Anne", "Hugo", "Thomas"


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize(("name", "de", "que"), [
    ("Anne", "d'Anne", "qu'Anne"),
    ("Ève", "d'Ève", "qu'Ève"),
    ("émile", "d'émile", "qu'émile"),
    ("Œdipe", "d'Œdipe", "qu'Œdipe"),
    ("Hugo", "d'Hugo", "qu'Hugo"),
    ("hélène", "d'hélène", "qu'hélène"),
    ("Yves", "d'Yves", "qu'Yves"),
    ("Yann", "de Yann", "que Yann"),
    ("Thomas", "de Thomas", "que Thomas"),
    ("bot-1", "de bot-1", "que bot-1"),
    ("3po", "de 3po", "que 3po"),
    ("", "de ", "que "),
])
def test_french_elides_before_a_vowel_or_an_h_only(name: str, de: str, que: str) -> None:
    assert i18n.before_name("de", name) == de
    assert i18n.before_name("que", name) == que
    assert i18n.Message("la place {name:de}, ce {who:que} dit").format(name=name, who=name) \
        == f"la place {de}, ce {que} dit"


def test_a_message_without_the_field_formats_as_any_string() -> None:
    text = i18n.Message("{n:>3} {name!r} {0}")
    assert text.format(1, n=5, name="Anne") == "  5 'Anne' 1"


NAMES = {"en": ("Anne", "Hugo", "Thomas"), "fr": ("Anne", "Hugo", "Thomas"),
         "it": ("Anna", "Ugo", "Tommaso"), "pt": ("Ana", "Hugo", "Tomás"),
         "nl": ("Anna", "Hugo", "Thomas")}


def _rendered(lang: str, name: str) -> Iterator[tuple[str, str]]:
    """Every message of ``lang``'s catalog that names a person ({name}, {who}), with
    that person called ``name`` and every other field a number."""
    with open(i18n.LOCALE_DIR.parent / "locale" / "gleek.pot", "rb") as fh:
        template = read_po(fh)
    i18n.set_language(lang, {})
    for message in template:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        if not message.id or not any(re.search(r"\{(name|who)\}", i) for i in ids):
            continue
        if message.id == "cannot load strategy {spec}: the module {module} has no {name}":
            continue  # a name in the code (a Python attribute), not a person's
        fields = {f: name if f in ("name", "who") else 7
                  for i in ids for _l, f, _s, _c in string.Formatter().parse(i) if f}
        if isinstance(message.id, tuple):
            texts = [i18n.ngettext(*message.id, n) for n in (1, 2)]
        elif message.context:
            texts = [i18n.pgettext(message.context, message.id)]
        else:
            texts = [i18n._(message.id)]
        for text in texts:
            yield ids[0], text.format(**fields)


def test_no_french_message_leaves_de_or_que_whole_before_a_vowel_or_an_h() -> None:
    for name in (VOWEL, MUTE_H):
        bad = [text for _id, text in _rendered("fr", name)
               if re.search(rf"\b(de|que) {name}\b", text)]
        assert bad == [], name
    elided = [text for _id, text in _rendered("fr", VOWEL) if "d'Anne" in text]
    assert len(elided) >= 8  # the seat, the view, the peer, the table, the leave...
    assert not [text for _id, text in _rendered("fr", CONSONANT)
                if re.search(r"(d|qu)'Thomas", text)]


@pytest.mark.parametrize("lang", ["en", "it", "pt", "nl"])
def test_other_languages_say_every_name_the_same_way(lang: str) -> None:
    """Only the name changes between a vowel, an h and a consonant: no elision is due in
    English, Italian ("di Anna"), Portuguese ("de Ana") or Dutch ("van Anna")."""
    vowel, mute_h, consonant = NAMES[lang]
    by_consonant = list(_rendered(lang, consonant))
    assert len(by_consonant) > 40
    for name in (vowel, mute_h):
        said = [(msgid, text.replace(name, consonant)) for msgid, text in _rendered(lang, name)]
        assert said == by_consonant


SEAT = {
    "en": "From event 57, {name}'s seat was played by a bot (signed by {name}).",
    "fr": "À partir de l'événement 57, la place {of} a été jouée par un bot (signé par {name}).",
    "it": "Dall'evento 57, il posto di {name} è stato giocato da un bot (firmato da {name}).",
    "pt": "A partir do evento 57, o lugar de {name} foi jogado por um bot (assinado por {name}).",
    "nl": "Vanaf gebeurtenis 57 speelde een bot de plaats van {name} (ondertekend door {name}).",
}
PEER = {
    "en": "{name}'s peer failed (an internal error); nobody is to blame",
    "fr": "le pair {of} a échoué (une erreur interne)\u00a0; personne n'est en faute",
    "it": "il peer di {name} ha avuto un guasto (un errore interno); nessuno è da incolpare",
    "pt": "o par de {name} falhou (um erro interno); ninguém é culpado",
    "nl": "de peer van {name} faalde (een interne fout); niemand valt iets te verwijten",
}
A_PEERS_REVEAL = {
    "en": "the signature of a peer's Reveal does not verify",
    "fr": "la signature du Reveal d'un pair n'est pas valide",
    "it": "la firma del Reveal di un nodo non è valida",
    "pt": "a assinatura do Reveal de um par não confere",
    "nl": "de handtekening van het Reveal van een peer klopt niet",
}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize(("name", "of"), [("Anne", "d'Anne"), ("Ève", "d'Ève"),
                                          ("Hugo", "d'Hugo"), ("Thomas", "de Thomas")])
def test_the_sentences_about_a_seat_in_every_language(lang: str, name: str, of: str) -> None:
    names = ("Zoé", name, "Bea")
    i18n.set_language(lang, {})
    assert handover_sentence(Handover(57, 1, "heuristic"), names) == \
        SEAT[lang].format(name=name, of=of)
    assert code_words(ev.LOCAL_FAILURE, 1, names) == PEER[lang].format(name=name, of=of)
    assert fault_words(FormationFault.BAD_SIGNATURE, None) == A_PEERS_REVEAL[lang]
