"""The wire version: peers of different releases never sit together, nobody is blamed.

``Hello.version`` is ``WIRE_VERSION`` (3, from deck protocol version 4 on), apart
from the log's envelope version (2): two lobbies (or a lobby and a watcher) of
different wire versions refuse each other on the Hellos, say so in the person's
language, and form nothing. The older peer here speaks version 2 (the release
before deck version 4, which refuses a v4 commit and blames its honest signer). A
Hello that claims another version (older, 0, huge) is refused; one whose version
is not an integer of 0..65535 is malformed. Everything on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log import canonical
from gleek_p2p.log.envelope import PROTOCOL_VERSION
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, Refused, connect, listen
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Handshake, Offer, RefuseWhy
from gleek_p2p.net.messages import Refuse, RefuseCode, decode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session import watch as watch_module
from gleek_p2p.session.lobby import Lobby, LobbyConfig
from gleek_p2p.session.watch import WatchConfig, watch

STANDARD = VARIANTS["standard"]
LIMITS = Limits(handshake_timeout=2.0, read_timeout=2.0, write_timeout=2.0, ping_interval=None)
ACCUSING = ("cheat", "lied", "caught", "does not match", "does not open", "kept out")

#: The wire version of the release before this one (deck protocol version 3).
OLDER = 2

#: The mismatch words (link_words.mismatch) for a version-2 peer named "old"
#: as a version-3 program reads them, and the reverse, in every language.
WORDS = {
    "en": ("{n} speaks protocol version {t}, this program {o}: update the older one."),
    "fr": ("{n} parle la version {t} du protocole, ce programme la {o} : mettez à jour le "
           "plus ancien."),
    "it": ("{n} parla la versione {t} del protocollo, questo programma la {o}: aggiorna il "
           "più vecchio."),
    "pt": ("{n} fala a versão {t} do protocolo, este programa a {o}: atualize o mais "
           "antigo."),
    "nl": ("{n} spreekt protocolversie {t}, dit programma {o}: werk de oudste bij."),
}


def _plain(text: str) -> str:
    """French typography puts a no-break space (narrow or not) before a colon."""
    return text.replace("\u202f", " ").replace("\u00a0", " ")


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _ident(n: int) -> Identity:
    return Identity.generate(bytes([n]) * 32)


def _offer(version: int = WIRE_VERSION, name: str = "new", watcher: bool = False) -> Offer:
    return Offer(version, "ver/1", tuple(STANDARD.to_wire()), STANDARD.players, name, 0,
                 watcher=watcher)


class Notes(list[str]):
    def __call__(self, text: str) -> None:
        self.append(_plain(text))


def _lobby(n: int, name: str, notes: Notes, version: int = WIRE_VERSION,
           peers: tuple[tuple[str, int], ...] = ()) -> Lobby:
    lobby = Lobby(_ident(n), LobbyConfig(name=name, table="ver/1", variant=STANDARD,
                                         listen=("127.0.0.1", 0), peers=peers,
                                         dial_interval=0.05),
                  notes=notes, random=random.Random(n).randbytes)
    if version != WIRE_VERSION:
        # A peer of another release: everything the same but the version it speaks.
        mine = lobby._offer
        lobby._offer = lambda port: dataclasses.replace(  # type: ignore[method-assign]
            mine(port), version=version)
    return lobby


async def _until(predicate: object, seconds: float = 20.0) -> None:
    assert callable(predicate)
    async with asyncio.timeout(seconds):
        while not predicate():
            await asyncio.sleep(0.01)


# -- the constants -------------------------------------------------------------------


def test_the_wire_version_and_the_logs_are_raised_with_deck_v4() -> None:
    # Deck v4's bodies are refused by the release before it: the wire moved past it
    # (version 3) and its logs are version 2; every log before stays version 1.
    assert PROTOCOL_VERSION == 2
    assert WIRE_VERSION == 3 == OLDER + 1


async def test_the_lobby_offers_and_announces_the_wire_version() -> None:
    lobby = _lobby(1, "new", Notes())
    await lobby.start()
    try:
        assert lobby._offer(lobby.port).version == WIRE_VERSION
        lobby._instance = "new-0"
        assert lobby._announcement().txt()["v"] == str(WIRE_VERSION)
    finally:
        await lobby.close()


# -- the handshake, sans IO --------------------------------------------------------------


@pytest.mark.parametrize("claimed", [0, 1, OLDER, WIRE_VERSION + 1, 0xFFFF])
def test_a_hello_claiming_another_version_is_refused_before_any_proof(claimed: int) -> None:
    ours = Handshake(_ident(1), _offer(), b"c" * 32, bytes([1]) * 32)
    theirs = _offer(claimed, "old").hello(_ident(2).public, b"d" * 32, bytes([2]) * 32)
    out = ours.receive(theirs)
    assert [type(m) for m in out] == [Refuse]
    assert ours.failed and ours.refused_for is RefuseWhy.VERSION
    assert ours.channel is None and ours.h is None and ours.peer_proof is None
    assert f"you speak protocol version {claimed}, this peer speaks {WIRE_VERSION}" \
        in ours.error  # type: ignore[operator]
    # The refusal is signed over the Hellos (so the peer can tell it is ours) and
    # accuses nobody: it carries no code and names no table.
    refusal = out[0]
    assert isinstance(refusal, Refuse) and refusal.signed and not refusal.seated


def test_a_claimed_older_version_gains_no_fallback() -> None:
    """Both sides of one version-2 claim refuse: there is no version to fall back to."""
    new = Handshake(_ident(1), _offer(), b"c" * 32, bytes([1]) * 32)
    liar = Handshake(_ident(2), _offer(OLDER, "liar"), b"d" * 32, bytes([2]) * 32)
    to_liar = new.receive(liar.hello)
    to_new = liar.receive(new.hello)
    assert new.failed and liar.failed and not new.done and not liar.done
    assert new.refused_for is liar.refused_for is RefuseWhy.VERSION
    assert new.channel is None and liar.channel is None
    # Each side's refusal reaches a side already over: nothing more happens.
    for side, refusal in ((new, to_new[0]), (liar, to_liar[0])):
        with pytest.raises(ProtocolError, match="the handshake is over"):
            side.receive(refusal)


@pytest.mark.parametrize("bad", ["2", -1, 65536, 2**63 - 1, True, None, b"\x02"])
def test_a_hello_whose_version_is_not_a_small_integer_is_malformed(bad: object) -> None:
    wire = _offer().hello(_ident(2).public, b"d" * 32, bytes([2]) * 32).to_wire()
    wire[1] = bad
    with pytest.raises(ProtocolError, match="the protocol version must be"):
        decode_message(canonical.encode(wire))


# -- the words, in every language -------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_mismatch_is_worded_in_every_language(lang: str) -> None:
    from gleek_p2p.session.link_words import mismatch

    i18n.set_language(lang, {})
    old = _offer(OLDER, "old").hello(b"k" * 32, b"c" * 32, b"r" * 32)
    assert _plain(mismatch(_offer(), old) or "") == WORDS[lang].format(n="old", t=2, o=3)
    new = _offer(name="new").hello(b"k" * 32, b"c" * 32, b"r" * 32)
    # What the older release says of us, from its side, in the same words.
    assert _plain(mismatch(_offer(OLDER, "old"), new) or "") == WORDS[lang].format(
        n="new", t=3, o=2)


# -- two lobbies of different versions ------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(WORDS))
async def test_lobbies_of_different_versions_refuse_each_other_and_form_nothing(
    lang: str,
) -> None:
    i18n.set_language(lang, {})
    new_notes, old_notes = Notes(), Notes()
    new = _lobby(1, "new", new_notes)
    await new.start()
    old = _lobby(2, "old", old_notes, version=OLDER, peers=(("127.0.0.1", new.port),))
    await old.start()
    try:
        assert old._offer(old.port).version == 2 and new._offer(new.port).version == 3
        # The older one dials (a --peer it was given): both ends word the refusal.
        said_by_new = WORDS[lang].format(n="old", t=2, o=3)
        said_by_old = WORDS[lang].format(n="new", t=3, o=2)
        await _until(lambda: any(said_by_new in n for n in new_notes)
                     and any(said_by_old in n for n in old_notes))
        # It keeps dialling; each refusal is told once, and no table forms.
        await _until(lambda: len(new._refusals_told) == 1)
        assert not new.formation.revealed and not old.formation.revealed
        assert new.status().peers == () and old.status().peers == ()
        for notes in (new_notes, old_notes):
            assert not [n for n in notes if any(w in n for w in ACCUSING)], notes
        assert sum(said_by_new in n for n in new_notes) == 1, new_notes
    finally:
        await old.close()
        await new.close()


# -- a watcher of another version ---------------------------------------------------------


async def test_a_watcher_of_another_version_is_refused_with_the_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    seat_notes, watcher_notes = Notes(), Notes()
    seat = _lobby(1, "seat", seat_notes)
    await seat.start()
    try:
        # A watcher of the older release: its own offer speaks version 2.
        monkeypatch.setattr(watch_module, "WIRE_VERSION", OLDER)
        config = WatchConfig(name="w", table="ver/1", variant=STANDARD,
                             peers=(("127.0.0.1", seat.port),), data_dir=tmp_path,
                             timeout=1.0, retry=0.1, limits=LIMITS)
        result = await asyncio.wait_for(watch(_ident(9), config, watcher_notes), 20)
        said = WORDS["en"].format(n="seat", t=3, o=2)
        assert any(said in _plain(n) for n in watcher_notes), watcher_notes
        assert not any(n.startswith("watching through") for n in watcher_notes)
        assert result.table is None
        await _until(lambda: any(WORDS["en"].format(n="w", t=2, o=3) in n
                                 for n in seat_notes))
        assert seat.status().watchers == ()
    finally:
        await seat.close()


async def test_a_watcher_hello_of_another_version_is_refused_before_admission() -> None:
    seat = _lobby(1, "seat", Notes())
    await seat.start()
    try:
        for claimed in (0, 1, OLDER, 0xFFFF):
            with pytest.raises(Refused) as refused:
                await connect("127.0.0.1", seat.port, identity=_ident(9),
                              offer=_offer(claimed, "w", watcher=True),
                              nonce_commit=b"n" * 32, limits=LIMITS)
            # Refused for the version (by whichever side read the other's Hello first),
            # before admission: not "no watchers" nor "not now".
            assert refused.value.why is RefuseWhy.VERSION or (
                refused.value.by_peer
                and refused.value.refusal.meaning is RefuseCode.NONE), refused.value
            assert refused.value.peer is not None and refused.value.peer.version == WIRE_VERSION
        # The seat is unharmed: a watcher of our version reaches its admission
        # (the table is not playing yet: "not now").
        with pytest.raises(Refused) as later:
            await connect("127.0.0.1", seat.port, identity=_ident(9),
                          offer=_offer(name="w", watcher=True), nonce_commit=b"n" * 32,
                          limits=LIMITS)
        assert later.value.by_peer and later.value.refusal.meaning is RefuseCode.NOT_NOW
    finally:
        await seat.close()


# -- a malformed Hello over TCP crashes nothing --------------------------------------------


@pytest.mark.parametrize("bad", ["2", -1, 70000, True])
async def test_a_malformed_version_closes_the_link_and_the_listener_serves_on(
    bad: object,
) -> None:
    errors: list[str] = []
    accepted: asyncio.Queue[Connection] = asyncio.Queue()

    async def on_connection(conn: Connection) -> None:
        await accepted.put(conn)

    listener = await listen("127.0.0.1", 0, identity=_ident(2), offer=_offer(name="seat"),
                            nonce_commit=b"c" * 32, on_connection=on_connection,
                            on_error=errors.append, limits=LIMITS)
    try:
        wire = _offer().hello(_ident(3).public, b"d" * 32, bytes([3]) * 32).to_wire()
        wire[1] = bad
        reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
        writer.write(encode_frame(canonical.encode(wire)))
        await writer.drain()
        # The listener reads it, refuses it and closes: we read to the end.
        async with asyncio.timeout(10):
            while await reader.read(4096):
                pass
        writer.close()
        await _until(lambda: bool(errors))
        assert any("the protocol version must be" in e for e in errors), errors
        # Nothing broke: an honest peer of our version still gets in.
        conn = await connect("127.0.0.1", listener.port, identity=_ident(4), offer=_offer(),
                             nonce_commit=b"e" * 32, limits=LIMITS)
        served = await asyncio.wait_for(accepted.get(), 10)
        assert conn.peer.version == served.peer.version == WIRE_VERSION
        await conn.close("done")
        await served.close("done")
    finally:
        await listener.close()


# -- gleek tables reads the version of each record ------------------------------------------


def _record(version: str | None, fp: str, name: str) -> dict[str, str]:
    from gleek_p2p.net.discovery import Announcement

    txt = Announcement("i", 1, WIRE_VERSION, "oak/2", fp, 3, tuple(STANDARD.to_wire()),
                       seated=((fp, name),)).txt()
    if version is None:
        del txt["v"]
    else:
        txt["v"] = version
    return txt


TABLE_WORDS = {
    "en": ("its players speak protocol version 2, this program 3: update the older one",
           "its players do not say which protocol version they speak"),
    "fr": ("ses joueurs parlent la version 2 du protocole, ce programme la 3 : mettez à jour "
           "le plus ancien", "ses joueurs ne disent pas quelle version du protocole ils parlent"),
    "it": ("i suoi giocatori parlano la versione 2 del protocollo, questo programma la 3: "
           "aggiorna il più vecchio",
           "i suoi giocatori non dicono quale versione del protocollo parlano"),
    "pt": ("seus jogadores falam a versão 2 do protocolo, este programa a 3: atualize o mais "
           "antigo", "seus jogadores não dizem qual versão do protocolo falam"),
    "nl": ("de spelers spreken protocolversie 2, dit programma 3: werk de oudste bij",
           "de spelers zeggen niet welke protocolversie ze spreken"),
}


@pytest.mark.parametrize("lang", sorted(TABLE_WORDS))
def test_a_table_of_another_version_is_listed_apart_and_not_joinable(lang: str) -> None:
    from gleek_p2p.cli.tables import Chosen, choose_table, listing_lines
    from gleek_p2p.net.tables import group_tables, parse_record

    fps = ("0000-0000-0000-0001", "0000-0000-0000-0002", "0000-0000-0000-0003")
    claims = [parse_record(_record(str(WIRE_VERSION), fps[0], "ann"), ("h", 1)),
              parse_record(_record(str(OLDER), fps[1], "old"), ("h", 2)),
              parse_record(_record(None, fps[2], "mute"), ("h", 3))]
    assert [c.version for c in claims if c is not None] == [3, 2, None]
    tables = group_tables(c for c in claims if c is not None)
    # One name, three tables: a peer of another release never merges with ours.
    assert len(tables) == 3 and {t.table for t in tables} == {"oak"}
    ours = [t for t in tables if t.version == WIRE_VERSION]
    assert len(ours) == 1 and ours[0].joinable and [s.name for s in ours[0].seated] == ["ann"]
    assert all(not t.joinable for t in tables if t is not ours[0])
    i18n.set_language(lang, {})
    text = _plain("\n".join(listing_lines(tables, 3)))
    other, mute = TABLE_WORDS[lang]
    assert other in text and mute in text, text
    # Picking one of them says why not and asks again; ours is taken.
    answers = iter([str(n + 1) for n, t in enumerate(tables) if t is not ours[0]]
                   + [str(tables.index(ours[0]) + 1)])
    said: list[str] = []
    chosen = choose_table(tables, lambda prompt: next(answers), said.append)
    assert chosen == Chosen("oak", 2, "standard")
    assert any(other in _plain(s) for s in said) and any(mute in _plain(s) for s in said)


@pytest.mark.parametrize("v", ["", "x", "-1", "99999", "2.0", "٢"])
def test_a_record_whose_version_is_unreadable_is_listed_not_joinable(v: str) -> None:
    from gleek_p2p.net.tables import group_tables, parse_record

    claim = parse_record(_record(v, "0000-0000-0000-0001", "ann"), ("h", 1))
    assert claim is not None and claim.version is None
    assert not group_tables([claim])[0].joinable


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "'oak': its players speak protocol version 2, this program 3: update the older one"),
    ("fr", "'oak' : ses joueurs parlent la version 2 du protocole, ce programme la 3 : "
           "mettez à jour le plus ancien"),
    ("it", "'oak': i suoi giocatori parlano la versione 2 del protocollo, questo programma "
           "la 3: aggiorna il più vecchio"),
    ("pt", "'oak': seus jogadores falam a versão 2 do protocolo, este programa a 3: "
           "atualize o mais antigo"),
    ("nl", "'oak': de spelers spreken protocolversie 2, dit programma 3: werk de oudste bij"),
])
def test_gleek_watch_says_a_playing_table_of_another_version_cannot_be_watched(
    lang: str, said: str,
) -> None:
    from gleek_p2p.base.errors import GleekError
    from gleek_p2p.cli.watch import choose_watched
    from gleek_p2p.net.tables import SeatClaim, TableListing

    def table(version: int, fp: str) -> TableListing:
        return TableListing("oak", 2, "standard", 3, True, True, (SeatClaim(fp, "ann"),),
                            (("h", 1),), version)

    old = table(OLDER, "0000-0000-0000-0001")
    i18n.set_language(lang, {})
    with pytest.raises(GleekError) as refused:
        choose_watched([old], "oak")
    assert _plain(str(refused.value)) == said
    # Beside a table of ours of the same name, ours is watched: no "impersonated".
    ours = table(WIRE_VERSION, "0000-0000-0000-0002")
    assert choose_watched([old, ours], "oak") is ours
    assert choose_watched([old, ours], None) is ours
