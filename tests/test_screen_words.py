"""The words people read, in every language, where English used to stay on screen
(issue 23 item 1): the rulings of ``gleek verify``, a goodbye's reason, the commands' output."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prepared import aces_to_declare, verify_file_once

from gleek_p2p.base import i18n
from gleek_p2p.cli.gleek import main
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, LinkDown
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import Bye, ByeCode, Hello
from gleek_p2p.rules import RULINGS, VARIANTS, rulings_in_force
from gleek_p2p.session.link_words import link_down
from gleek_p2p.session.lobby import Lobby, LobbyConfig
from gleek_p2p.tools.arena import ArenaResult, arena_text, run_games
from gleek_p2p.tools.report import RECEIVED_WORDS, RULING_WORDS, ruling_words

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"
LANGS = i18n.LANGUAGES
TRANSLATED = [lang for lang in LANGS if lang != i18n.SOURCE_LANGUAGE]
ENGLISH_RULINGS = [*RULING_WORDS.values(), *RECEIVED_WORDS.values(),
                   "bids for the talon rise", "no table ceiling", "each seat receives"]


def french(text: str) -> str:
    """French typography, as the catalog writes it: a no-break space before : ; % »."""
    for plain, typeset in ((" :", "\xa0:"), (" ;", "\xa0;"), (" %", "\xa0%")):
        text = text.replace(plain, typeset)
    return text


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
    "fr": [french("déclarer les combinaisons est facultatif ; une combinaison non déclarée "
                  "n'est pas payée"),
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


@pytest.fixture
def each_log_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``gleek verify`` reads the same vectors in every language here: each log is
    verified once (its report holds no words), and worded anew each time."""
    from gleek_p2p.cli import commands

    monkeypatch.setattr(commands, "verify_file", verify_file_once)


@pytest.mark.parametrize("lang", LANGS)
def test_verify_says_the_rulings_in_the_chosen_language(
        lang: str, capsys: pytest.CaptureFixture[str], each_log_verified_once: None) -> None:
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
        capsys: pytest.CaptureFixture[str], each_log_verified_once: None) -> None:
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


# ------------------------------------------------------------ a goodbye's reason


async def _pair(anne_hello: Hello, mary_hello: Hello,
                anne_limits: Limits | None = None) -> tuple[Connection, Connection]:
    """Both ends of a real 127.0.0.1 connection: Anne's (whose peer is Mary) and Mary's."""
    accepted: asyncio.Queue[Any] = asyncio.Queue()

    async def on_accept(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await accepted.put((r, w))

    server = await asyncio.start_server(on_accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = await asyncio.open_connection("127.0.0.1", port)
    other = await accepted.get()
    server.close()
    limits = Limits(read_timeout=5.0, write_timeout=2.0, ping_interval=None)
    mary = Connection(*client, anne_hello, dialled=True, limits=limits, channel=None)
    anne = Connection(*other, mary_hello, dialled=False, limits=anne_limits or limits,
                      channel=None,
                      own_hello=anne_hello, peer_proof=b"p" * 64)
    return anne, mary


TABLE_FULL_WORDS = {
    "en": "Anne closed the link: its table is full, with no seat for you.",
    "fr": french("Anne a fermé la liaison : sa table est complète, sans place pour vous."),
    "it": "Anne ha chiuso il collegamento: il suo tavolo è al completo, senza posto per te.",
    "pt": "Anne fechou a conexão: a mesa está cheia, sem lugar para você.",
    "nl": "Anne sloot de verbinding: de tafel is vol, zonder plaats voor jou.",
}


@pytest.mark.parametrize("lang", LANGS)
async def test_a_peer_not_counted_reads_why_in_its_own_language(lang: str) -> None:
    """Anne's table is full when Mary's handshake ends (``add_peer`` refuses): Anne closes
    with a code, and Mary's screen words it; Anne's English is never shown."""
    notes: list[str] = []
    anne = Lobby(Identity.generate(b"\x01" * 32),
                 LobbyConfig(name="Anne", table="oak/2", variant=VARIANTS["standard"],
                             listen=("127.0.0.1", 0)),
                 notes=notes.append, random=random.Random(1).randbytes)
    offer = Offer(1, "oak/2", tuple(VARIANTS["standard"].to_wire()), 3, "x")
    for n in (2, 3):  # two others already counted: every seat is taken
        other = Identity.generate(bytes([n]) * 32).public
        anne.formation.add_peer(offer.hello(other, b"c" * 32, b"r" * 32))
    anne_hello = offer.hello(anne.identity.public, anne.formation.commitment, b"r" * 32)
    mary_hello = Offer(1, "oak/2", offer.variant, 3, "Mary").hello(
        Identity.generate(b"\x04" * 32).public, b"m" * 32, b"r" * 32)
    anne_end, mary_end = await _pair(anne_hello, mary_hello)
    assert await anne._count(anne_end) is False
    async for _message in mary_end:
        pass
    assert mary_end.close_why is LinkDown.PEER_BYE and mary_end.farewell is not None
    assert mary_end.farewell.meaning is ByeCode.TABLE_FULL
    assert "table full" in mary_end.farewell.reason  # for the logs of an older version
    i18n.set_language(lang, {})
    said = link_down("Anne", mary_end)
    assert said == TABLE_FULL_WORDS[lang]
    assert "full" not in said or lang == "en"


CODED_BYES = {
    ByeCode.CLOSING: {"en": "Anne closed the link.", "fr": "Anne a fermé la liaison.",
                      "it": "Anne ha chiuso il collegamento.", "pt": "Anne fechou a conexão.",
                      "nl": "Anne sloot de verbinding."},
    ByeCode.STARTING_OVER: {"en": "Anne is starting the table over.",
                            "fr": "Anne recommence la table.",
                            "it": "Anne ricomincia il tavolo.",
                            "pt": "Anne está recomeçando a mesa.",
                            "nl": "Anne begint de tafel opnieuw."},
    ByeCode.DUPLICATE: {"en": "Anne closed a second link between you; the other one stays.",
                        "fr": french("Anne a fermé une seconde liaison entre vous ; l'autre "
                                     "reste."),
                        "it": "Anne ha chiuso un secondo collegamento tra voi; l'altro resta.",
                        "pt": "Anne fechou uma segunda conexão entre vocês; a outra continua.",
                        "nl": "Anne sloot een tweede verbinding tussen jullie; de andere "
                              "blijft."},
}


@pytest.mark.parametrize("lang", LANGS)
async def test_a_coded_goodbye_never_shows_the_senders_english(lang: str) -> None:
    """The goodbye of a session stopped short ("goodbye") and a start-over's: worded by code."""
    offer = Offer(1, "oak/2", tuple(VARIANTS["standard"].to_wire()), 3, "Anne")
    hello = offer.hello(b"a" * 32, b"c" * 32, b"r" * 32)
    for code, reason in ((ByeCode.CLOSING, "goodbye"),
                         (ByeCode.STARTING_OVER, "starting the table over"),
                         (ByeCode.DUPLICATE, "duplicate connection")):
        anne_end, mary_end = await _pair(hello, hello)
        anne_end.send(Bye(reason, code))
        await anne_end.close("")
        async for _message in mary_end:
            pass
        i18n.set_language(lang, {})
        assert link_down("Anne", mary_end) == CODED_BYES[code][lang]
        i18n.set_language("en", {})
    # A code this version does not know: the peer's words, quoted as its own.
    anne_end, mary_end = await _pair(hello, hello)
    anne_end.send(Bye("see you", 99))
    await anne_end.close("")
    async for _message in mary_end:
        pass
    i18n.set_language(lang, {})
    said = link_down("Anne", mary_end)
    assert "see you" in said and said.startswith("Anne")
    assert said == i18n._("{name} closed the link, saying: “{reason}”.").format(
        name="Anne", reason="see you")


LINK_ABORTS = {
    "silent": {
        "en": "Anne closed the link: it heard nothing from this program for too long.",
        "fr": french("Anne a fermé la liaison : il n'a rien reçu de ce programme depuis trop "
                     "longtemps."),
        "it": "Anne ha chiuso il collegamento: non ha ricevuto nulla da questo programma per "
              "troppo tempo.",
        "pt": "Anne fechou a conexão: não recebeu nada deste programa por tempo demais.",
        "nl": "Anne sloot de verbinding: hoorde te lang niets van dit programma."},
    "malformed": {
        "en": "Anne closed the link: it could not read what this program sent.",
        "fr": french("Anne a fermé la liaison : il n'a pas pu lire ce que ce programme a "
                     "envoyé."),
        "it": "Anne ha chiuso il collegamento: non ha potuto leggere ciò che questo programma "
              "ha inviato.",
        "pt": "Anne fechou a conexão: não conseguiu ler o que este programa enviou.",
        "nl": "Anne sloot de verbinding: kon niet lezen wat dit programma stuurde."},
}


@pytest.mark.parametrize("lang", LANGS)
async def test_a_link_the_other_end_drops_is_worded_from_its_code(lang: str) -> None:
    """Anne's end closes the link itself (silence, bytes it cannot read): its goodbye
    carries a code, and Mary reads why in her language, never Anne's English."""
    offer = Offer(1, "oak/2", tuple(VARIANTS["standard"].to_wire()), 3, "Anne")
    hello = offer.hello(b"a" * 32, b"c" * 32, b"r" * 32)
    quick = Limits(read_timeout=0.2, write_timeout=2.0, ping_interval=None)
    anne_end, mary_end = await _pair(hello, hello, quick)
    async for _message in anne_end:  # Mary says nothing: Anne's read times out
        pass
    async for _message in mary_end:
        pass
    assert anne_end.close_why is LinkDown.SILENT
    assert mary_end.farewell is not None and mary_end.farewell.meaning is ByeCode.SILENT
    silent = mary_end
    anne_end, mary_end = await _pair(hello, hello)
    mary_end.writer.write(b"\x00\x00\x00\x03abc")  # a frame that is no message
    async for _message in anne_end:
        pass
    async for _message in mary_end:
        pass
    assert anne_end.close_why is LinkDown.BROKE_PROTOCOL
    assert mary_end.farewell is not None and mary_end.farewell.meaning is ByeCode.MALFORMED
    i18n.set_language(lang, {})
    assert link_down("Anne", silent) == LINK_ABORTS["silent"][lang]
    assert link_down("Anne", mary_end) == LINK_ABORTS["malformed"][lang]


# ------------------------------------------------------------ the commands' own words

ARENA_WORDS = {
    "en": ("6 hands (1 deal in every seating), standard; pence per hand, 95% intervals over "
           "deals", "strategy", "head to head (row minus column, pence per hand):"),
    "fr": (french("6 manches (1 donne dans chaque placement), standard ; pence par manche, "
                  "intervalles à 95 % sur les donnes"), "stratégie",
           french("face à face (ligne moins colonne, pence par manche) :")),
    "it": ("6 mani (1 distribuzione in ogni disposizione), standard; penny per mano, "
           "intervalli al 95% sulle distribuzioni", "strategia",
           "testa a testa (riga meno colonna, penny per mano):"),
    "pt": ("6 mãos (1 distribuição em cada disposição), standard; pence por mão, intervalos "
           "de 95% sobre as distribuições", "estratégia",
           "confronto direto (linha menos coluna, pence por mão):"),
    "nl": ("6 handen (1 gift in elke zitorde), standard; penny per hand, 95%-intervallen "
           "over de gevingen", "strategie", "onderling (rij min kolom, penny per hand):"),
}


@pytest.fixture(scope="module")
def arena_result() -> ArenaResult:
    return run_games(["random", "heuristic"], "standard", 6, "words")


@pytest.mark.parametrize("lang", LANGS)
def test_the_arena_table_is_in_the_chosen_language(lang: str,
                                                   arena_result: ArenaResult) -> None:
    i18n.set_language("en", {})
    english = arena_text(arena_result).splitlines()
    i18n.set_language(lang, {})
    lines = arena_text(arena_result).splitlines()
    title, strategy, head_to_head = ARENA_WORDS[lang]
    assert lines[0] == title
    assert lines[2].startswith(strategy + " ")
    assert head_to_head in lines
    # the numbers are the same in every language, each under its header
    numbers = [line.split()[1:] for line in lines[3:5]]
    assert numbers == [line.split()[1:] for line in english[3:5]]
    for row in lines[3:5]:
        assert len(row) == len(lines[2]), (row, lines[2])


ARGPARSE_WORDS = {
    "en": ("argument --quiet: not allowed with argument --verbose",
           "show program's version number and exit", "(default: standard)"),
    "fr": (french("argument --quiet : pas permis avec l'argument --verbose"),
           "afficher la version du programme et quitter", french("(par défaut : standard)")),
    "it": ("argomento --quiet: non permesso con l'argomento --verbose",
           "mostra la versione del programma ed esci", "(predefinito: standard)"),
    "pt": ("argumento --quiet: não permitido com o argumento --verbose",
           "mostrar a versão do programa e sair", "(padrão: standard)"),
    "nl": ("argument --quiet: niet toegestaan samen met argument --verbose",
           "toon het versienummer van het programma en stop", "(standaard: standard)"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_argparse_own_words_follow_the_language(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    clash, version, default = ARGPARSE_WORDS[lang]
    with pytest.raises(SystemExit) as done:
        main(["--lang", lang, "bot", "--verbose", "--quiet"])
    assert done.value.code == 2
    assert clash in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--lang", lang, "--help"])
    assert version in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["--lang", lang, "simulate", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert " ".join(default.split()) in said  # the help is wrapped: compare words
    if lang != "en":
        assert "(default:" not in said
    with pytest.raises(SystemExit):
        main(["--lang", lang, "bot", "--p", "x"])
    err = capsys.readouterr().err
    assert "--peer, --pick" in err and ("ambiguous" in err) == (lang == "en")


REPLAY_REFUSALS = {
    "en": ("{file} is not a readable session log: it is not a gleek-p2p log file",
           "{file} is not a readable session log: it holds no event"),
    "fr": (french("{file} n'est pas un journal de session lisible : ce n'est pas un journal "
                  "gleek-p2p"),
           french("{file} n'est pas un journal de session lisible : il ne contient aucun "
                  "événement")),
    "it": ("{file} non è un registro di sessione leggibile: non è un registro gleek-p2p",
           "{file} non è un registro di sessione leggibile: non contiene alcun evento"),
    "pt": ("{file} não é um registro de sessão legível: não é um registro do gleek-p2p",
           "{file} não é um registro de sessão legível: não contém nenhum evento"),
    "nl": ("{file} is geen leesbaar sessielogboek: het is geen gleek-p2p-logboek",
           "{file} is geen leesbaar sessielogboek: het bevat geen enkele gebeurtenis"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_replay_says_why_a_file_is_no_log_in_the_chosen_language(
        lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello, world\n")
    empty = tmp_path / "empty.gleeklog"
    empty.write_bytes(b"GLEEKLOG")  # the magic, and no record
    for path, words in zip((text, empty), REPLAY_REFUSALS[lang], strict=True):
        assert main(["--lang", lang, "replay", str(path)]) == 2
        err = capsys.readouterr().err
        assert err == "gleek: " + words.format(file=path) + "\n"


DISCARDS = {  # the replay's transcript of a discard the viewer cannot see (one line, its last)
    "en": "random-0 discards 7 of 7 cards face down.",
    "fr": "random-0 écarte 7 sur 7 cartes, face cachée.",
    "it": "random-0 scarta 7 su 7 carte, coperte.",
    "pt": "random-0 descarta 7 de 7 cartas, viradas para baixo.",
    "nl": "random-0 legt 7 van 7 kaarten gedekt af.",
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_face_down_discard_counts_in_every_language(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", lang, "replay", "--seat", "1",
                 str(VECTORS / "valid-standard.gleeklog")]) == 0
    assert DISCARDS[lang] in capsys.readouterr().out.splitlines()


NO_TABLE = {  # the count is of the seats: the words must not agree with those present
    "en": ("no table formed within 2 s (1 of 3 players here)",
           "no table formed within 2 s (2 of 3 players here)"),
    "fr": (french("aucune table formée en 2 s (joueurs présents : 1 sur 3)"),
           french("aucune table formée en 2 s (joueurs présents : 2 sur 3)")),
    "it": ("nessun tavolo formato entro 2 s (giocatori presenti: 1 su 3)",
           "nessun tavolo formato entro 2 s (giocatori presenti: 2 su 3)"),
    "pt": ("nenhuma mesa formada em 2 s (1 de 3 jogadores aqui)",
           "nenhuma mesa formada em 2 s (2 de 3 jogadores aqui)"),
    "nl": ("geen tafel gevormd binnen 2 s (1 van 3 spelers hier)",
           "geen tafel gevormd binnen 2 s (2 van 3 spelers hier)"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_no_table_counts_the_players_present_in_every_language(lang: str) -> None:
    from gleek_p2p.session.lobby import NoTable

    i18n.set_language(lang, {})
    alone, two = NO_TABLE[lang]
    assert str(NoTable(2.0, (), 3, ())) == alone
    assert str(NoTable(2.0, ("Mary",), 3, ())) == two


EXEC_BOT_WORDS = {  # (a reply that is no move, a move of no known kind, no such program)
    "en": ("gleek: bot program '{p}' answered 'hello': expected the index of a legal move or "
           "a move object",
           "gleek: bot program '{p}' sent a malformed move: unknown move kind 'resign'",
           "gleek: cannot start bot program '{p}': no such file or folder: {p}"),
    "fr": (french("gleek: le programme robot '{p}' a répondu 'hello' : il fallait l'indice "
                  "d'un coup légal ou un objet coup"),
           french("gleek: le programme robot '{p}' a envoyé un coup mal formé : type de coup "
                  "inconnu 'resign'"),
           french("gleek: impossible de démarrer le programme robot '{p}' : fichier ou "
                  "dossier introuvable : {p}")),
    "it": ("gleek: il programma bot '{p}' ha risposto 'hello': serviva l'indice di una mossa "
           "legale o un oggetto mossa",
           "gleek: il programma bot '{p}' ha inviato una mossa malformata: tipo di mossa "
           "sconosciuto 'resign'",
           None),
    "pt": ("gleek: o programa robô '{p}' respondeu 'hello': era esperado o índice de uma "
           "jogada legal ou um objeto de jogada",
           "gleek: o programa robô '{p}' enviou uma jogada malformada: tipo de jogada "
           "desconhecido 'resign'",
           None),
    "nl": ("gleek: het botprogramma '{p}' antwoordde 'hello': verwacht werd de index van een "
           "geldige zet of een zet-object",
           "gleek: het botprogramma '{p}' stuurde een misvormde zet: onbekend soort zet "
           "'resign'",
           None),
}


@pytest.mark.parametrize("lang", LANGS)
def test_an_exec_bot_that_answers_wrong_is_told_in_the_chosen_language(
        lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hello, resign, missing = EXEC_BOT_WORDS[lang]
    for name, reply, said in (("hello.sh", "hello", hello),
                              ("resign.sh", '{"kind": "resign", "seat": 0}', resign)):
        script = tmp_path / name
        script.write_text(f"#!/bin/sh\nwhile read line; do echo '{reply}'; done\n")
        script.chmod(0o755)
        assert main(["--lang", lang, "simulate", "--bots", f"exec:{script}",
                     "--hands", "1"]) == 1
        assert capsys.readouterr().err.strip().splitlines()[-1] == said.format(p=script)
    nowhere = tmp_path / "no-such-bot"
    assert main(["--lang", lang, "simulate", "--bots", f"exec:{nowhere}", "--hands", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    if missing is not None:
        assert err == missing.format(p=nowhere)
    assert "No such file" not in err


NOT_NOW_WORDS = {
    "en": ("the peer does not take this connection now; it may later",
           "the peer refused the connection: its table is full"),
    "fr": (french("le pair ne prend pas cette connexion maintenant ; il le pourra plus tard"),
           french("le pair a refusé la connexion : sa table est complète")),
    "it": ("il peer non accetta questa connessione ora; potrà farlo più tardi",
           "il peer ha rifiutato la connessione: il suo tavolo è al completo"),
    "pt": ("o par não aceita esta conexão agora; poderá aceitar mais tarde",
           "o par recusou a conexão: a mesa está cheia"),
    "nl": ("de peer neemt deze verbinding nu niet aan; later misschien wel",
           "de peer weigerde de verbinding: de tafel is vol"),
}


@pytest.mark.parametrize("lang", LANGS)
async def test_a_not_now_refusal_is_coded_and_worded_in_the_diallers_language(
        lang: str) -> None:
    """A watcher come too early, a player while the table forms full: refused with
    ``NOT_NOW``, which the dialler words; the refuser's English is never shown."""
    from gleek_p2p.net.connection import Refused
    from gleek_p2p.net.messages import Refuse, RefuseCode
    from gleek_p2p.session.link_words import dial_failure
    from gleek_p2p.session.watchers import Watchers, WatchLimits

    early = Watchers(True, WatchLimits(), lambda text: None).admit(
        Offer(1, "oak/2", (), 3, "w", watcher=True).hello(b"w" * 32, b"c" * 32, b"r" * 32),
        0.0)
    anne = Lobby(Identity.generate(b"\x01" * 32),
                 LobbyConfig(name="Anne", table="oak/2", variant=VARIANTS["standard"],
                             listen=("127.0.0.1", 0)),
                 random=random.Random(1).randbytes)
    offer = Offer(1, "oak/2", tuple(VARIANTS["standard"].to_wire()), 3, "x")
    for n in (2, 3):
        anne.formation.add_peer(offer.hello(Identity.generate(bytes([n]) * 32).public,
                                            b"c" * 32, b"r" * 32))
    full = anne._admit(offer.hello(Identity.generate(b"\x05" * 32).public, b"c" * 32,
                                   b"r" * 32))
    i18n.set_language(lang, {})
    not_now, table_full = NOT_NOW_WORDS[lang]
    for refusal in (early, full):
        assert isinstance(refusal, Refuse) and refusal.meaning is RefuseCode.NOT_NOW
        refused = Refused("refused", refusal, by_peer=True, peer=None)
        assert dial_failure(refused) == not_now
    formed = Refused("refused", Refuse("table full: the table has formed",
                                       RefuseCode.TABLE_FULL), by_peer=True, peer=None)
    assert dial_failure(formed) == table_full


YOU = {"en": "you", "fr": "vous", "it": "tu", "pt": "você", "nl": "jij"}
HAND_LINE_WORDS = {  # gleek bot's line per hand: the combinations and the auction
    "en": ("combinations: gleek of Aces (Anne), gleek of Eights (Ben)",
           "auction: Ben took the talon for 448"),
    "fr": (french("combinaisons : gleek d'As (Anne), gleek de Huit (Ben)"),
           french("enchères : Ben a pris le talon pour 448")),
    "it": ("combinazioni: gleek di Assi (Anne), gleek di Otto (Ben)",
           "asta: Ben ha preso il tallone per 448"),
    "pt": ("combinações: gleek de Ases (Anne), gleek de Oitos (Ben)",
           "leilão: Ben levou o monte por 448"),
    "nl": ("combinaties: gleek van Azen (Anne), gleek van Achten (Ben)",
           "veiling: Ben nam de stok voor 448"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_hand_line_names_combinations_and_the_talon_in_each_texts_words(
        lang: str) -> None:
    from gleek_p2p.rules import Variant
    from gleek_p2p.rules.simulate import random_session
    from gleek_p2p.ui.narrate import hand_line

    final, _events = random_session(Variant(), 1, random.Random(2))
    i18n.set_language(lang, {})
    parts = hand_line(final, ["Anne", "Ben", "Cat"]).split(";" if lang != "fr" else "\xa0;")
    combinations, auction = HAND_LINE_WORDS[lang]
    assert combinations in [p.strip() for p in parts]
    assert any(p.strip().endswith(auction) for p in parts)
    # Seen by Anne: her own gleek is hers in brackets ("vous gleek d'As" read as a verb).
    parts = hand_line(final, ["Anne", "Ben", "Cat"], 0).split(";" if lang != "fr" else "\xa0;")
    yours = combinations.replace("(Anne)", f"({YOU[lang]})")
    assert yours in [p.strip() for p in parts]


DECLARED = {  # a gleek of Aces, said as it is declared and as the choice offers it
    "en": ("Bob declares a gleek of Aces (8 pence from each).", "gleek of Aces"),
    "fr": ("Bob déclare un gleek d'As (8 pence de chacun).", "gleek d'As"),
    "it": ("Bob dichiara un gleek di Assi (8 penny da ciascuno).", "gleek di Assi"),
    "pt": ("Bob declara um gleek de Ases (8 pence de cada um).", "gleek de Ases"),
    "nl": ("Bob meldt een gleek van Azen (8 penny van elk).", "gleek van Azen"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_gleek_of_aces_is_elided_as_each_language_does(lang: str) -> None:
    from gleek_p2p.rules import Declare, apply
    from gleek_p2p.ui.choices import _declare_option
    from gleek_p2p.ui.narrate import narrate

    s, aces = aces_to_declare()
    i18n.set_language(lang, {})
    said, offered = DECLARED[lang]
    assert narrate(Declare(1, aces), s, apply(s, Declare(1, aces)),
                   ("Anne", "Bob", "Carol")) == said
    assert _declare_option(None, Declare(1, aces), s).label == offered  # type: ignore[arg-type]
