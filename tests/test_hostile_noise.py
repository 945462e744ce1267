"""Pre-authentication noise costs bounded memory and lines, and never hides real news (20.4).

Through real lobbies on 127.0.0.1: Hellos with fresh keys refused by a
seated lobby, and connections that fail their handshake. The per-kind limiter
and the screen's updating lines are tested directly too, in every language.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.base import i18n
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import encode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import REMEMBERED_REFUSALS, Lobby, LobbyConfig
from gleek_p2p.session.notes import Note, NoteKind, NoteLimiter, Severity, kind_of, more_of
from gleek_p2p.table.roster import Roster
from gleek_p2p.ui.app import HumanPlayer

STANDARD = VARIANTS["standard"]
ME, BOB, CAROL = (Identity.generate(bytes([n]) * 32) for n in (7, 8, 9))


@pytest.fixture(autouse=True)
def _english_afterwards() -> object:
    yield
    i18n.set_language("en")


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


async def _seated_lobby(notes: list[str], table: str) -> Lobby:
    roster = Roster(STANDARD, 1, (ME.public, BOB.public, CAROL.public),
                    ("me", "bob", "carol"), b"n" * 32)
    lobby = Lobby(ME, LobbyConfig(name="me", table=table, variant=STANDARD,
                                  listen=("127.0.0.1", 0), dial_interval=3600,
                                  noise_window=3600),
                  roster=roster, notes=notes.append)
    await lobby.start()
    return lobby


async def _knock(port: int, table: str) -> None:
    """One Hello from a key made for it, then wait for the refusal (the socket closing)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    hello = _offer(table, "knock").hello(Identity.generate(os.urandom(32)).public,
                                         os.urandom(32), os.urandom(32))
    writer.write(encode_frame(encode_message(hello)))
    with contextlib.suppress(OSError):
        while await asyncio.wait_for(reader.read(1 << 16), 10):
            pass
    writer.close()


async def test_a_flood_of_refused_hellos_keeps_memory_and_lines_bounded() -> None:
    notes: list[str] = []
    lobby = await _seated_lobby(notes, "noise")
    knocks = 1200
    try:
        for _ in range(0, knocks, 3):  # within one address's handshake slots: none pushed out
            await asyncio.gather(*(_knock(lobby.port, "noise") for _ in range(3)))
        refused = [n for n in notes if kind_of(n) is NoteKind.REFUSED]
        # Memory: the latest keys only. Lines: the burst only, until the window ends.
        assert len(lobby._refusals_told) == REMEMBERED_REFUSALS
        assert len(refused) == 3
        assert all(n.startswith("refused knock (key ") for n in refused)
        # Real news is not limited: a seat connecting is said at once.
        bob = await connect("127.0.0.1", lobby.port, identity=BOB, offer=_offer("noise", "bob"),
                            nonce_commit=nonce_commitment(b"b" * 32))
        async with asyncio.timeout(10):
            while not any(n.startswith("connected to bob") for n in notes):
                await asyncio.sleep(0.01)
        await bob.close()
    finally:
        await lobby.close()
    # Nothing lost: closing says how many were held back.
    assert notes[-1] == f"… and {knocks - 3} more connections refused"
    assert kind_of(notes[-1]) is NoteKind.REFUSED
    assert len([n for n in notes if kind_of(n) is NoteKind.REFUSED]) == 4


async def test_a_refused_peer_that_redials_is_told_once() -> None:
    notes: list[str] = []
    lobby = await _seated_lobby(notes, "redial")
    stranger = Identity.generate(b"x" * 32)
    try:
        for _ in range(5):
            with contextlib.suppress(Exception):
                await connect("127.0.0.1", lobby.port, identity=stranger,
                              offer=_offer("redial", "mallory"),
                              nonce_commit=nonce_commitment(b"m" * 32))
    finally:
        await lobby.close()
    told = [n for n in notes if kind_of(n) is NoteKind.REFUSED]
    assert len(told) == 1 and "mallory" in told[0]
    assert list(lobby._refusals_told) == [stranger.public]


async def test_failed_handshakes_are_counted_not_printed() -> None:
    notes: list[str] = []
    lobby = Lobby(Identity.generate(os.urandom(32)),
                  LobbyConfig(name="host", table="garbage", variant=STANDARD,
                              listen=("127.0.0.1", 0), dial_interval=3600, noise_window=3600),
                  notes=notes.append)
    await lobby.start()
    failures = 60
    try:
        for _ in range(failures):  # one at a time: none is pushed out, each fails once
            reader, writer = await asyncio.open_connection("127.0.0.1", lobby.port)
            writer.write(struct.pack(">I", 0xFFFFFFF0) + b"x" * 64)
            with contextlib.suppress(OSError):
                while await asyncio.wait_for(reader.read(1 << 16), 10):
                    pass
            writer.close()
        async with asyncio.timeout(10):
            while lobby._noise.held_back[NoteKind.HANDSHAKE_FAILED] < failures - 3:
                await asyncio.sleep(0.01)
    finally:
        await lobby.close()
    failed = [n for n in notes if kind_of(n) is NoteKind.HANDSHAKE_FAILED]
    assert len(failed) == 4
    assert failed[-1] == f"… and {failures - 3} more connections failed before their handshake"


def test_the_limiter_shows_a_burst_a_window_then_a_count() -> None:
    limiter = NoteLimiter(burst=2, window=10.0)
    noise = [Note(f"refused #{i}", Severity.INFO, NoteKind.REFUSED) for i in range(7)]
    shown = [n for i, note in enumerate(noise[:5]) for n in limiter.offer(note, float(i))]
    assert shown == ["refused #0", "refused #1"]
    # News is never held back, whatever the noise.
    assert limiter.offer(Note("Bob left the table", Severity.BAD_NEWS), 5.0) == [
        "Bob left the table"]
    assert limiter.offer("a table formed", 5.0) == ["a table formed"]
    # The window is over: first the count of what it held back, then a new burst.
    later = limiter.offer(noise[5], 10.0)
    assert later == ["… and 3 more connections refused", "refused #5"]
    assert limiter.flush(11.0) == []
    assert limiter.offer(noise[6], 12.0) == ["refused #6"]
    assert limiter.flush(0.0, everything=True) == []
    assert limiter.held_back[NoteKind.REFUSED] == 3


def test_each_noise_kind_has_its_own_budget() -> None:
    limiter = NoteLimiter(burst=1, window=60.0)
    kinds = (NoteKind.REFUSED, NoteKind.HANDSHAKE_FAILED, NoteKind.REVEAL_IGNORED)
    out = [n for _ in range(100) for k in kinds
           for n in limiter.offer(Note(k.value, Severity.INFO, k), 0.0)]
    assert out == [k.value for k in kinds]
    counts = limiter.flush(0.0, everything=True)
    assert counts == ["… and 99 more connections refused",
                      "… and 99 more connections failed before their handshake",
                      "… and 99 more Reveals ignored"]
    assert [kind_of(c) for c in counts] == list(kinds)


@pytest.mark.parametrize(("lang", "one", "many"), [
    ("en", "… and 1 more connection refused", "… and 2300 more connections refused"),
    ("fr", "… et 1 autre connexion refusée", "… et 2300 autres connexions refusées"),
    ("it", "… e 1 altra connessione rifiutata", "… e altre 2300 connessioni rifiutate"),
    ("pt", "… e mais 1 conexão recusada", "… e mais 2300 conexões recusadas"),
    ("nl", "… en nog 1 verbinding geweigerd", "… en nog 2300 verbindingen geweigerd"),
])
def test_the_count_is_said_in_every_language(lang: str, one: str, many: str) -> None:
    i18n.set_language(lang)
    assert more_of(NoteKind.REFUSED, 1) == one
    assert more_of(NoteKind.REFUSED, 2300) == many
    for kind in (NoteKind.HANDSHAKE_FAILED, NoteKind.REVEAL_IGNORED):
        singular, plural = more_of(kind, 1), more_of(kind, 7)
        assert "1" in singular and "7" in plural and singular.replace("1", "7") != plural
        if lang != "en":  # translated, not the English words
            i18n.set_language("en")
            assert more_of(kind, 7) != plural
            i18n.set_language(lang)


def test_noise_keeps_one_updating_line_per_kind_and_news_stays() -> None:
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        human.note(Note("the table formed: Anne, Bob, Carol"))
        kinds = (NoteKind.REFUSED, NoteKind.HANDSHAKE_FAILED, NoteKind.REVEAL_IGNORED)
        for i in range(3000):
            kind = kinds[i % 3]
            human.note(Note(f"{kind.value} {i}", Severity.INFO, kind))
        human.note(Note("Bob left the table", Severity.BAD_NEWS))
        texts = [text for _style, text in human.screen.log]
    assert texts[0] == "The table formed: Anne, Bob, Carol"
    assert texts[-1] == "Bob left the table"
    assert texts[1:-1] == ["Refused 2997", "Handshake-failed 2998", "Reveal-ignored 2999"]
