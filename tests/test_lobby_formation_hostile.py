"""A stranger against formation, through real lobbies on 127.0.0.1 (issues 19.3, 20.1, 20.3).

Three honest lobbies (ann, ben, cat) and a stranger driven by hand: it lies
to two of them, floods them with Hellos, or takes a seat and never reveals.
Each time the three honest peers form one table, the stranger is named or
dropped, and no honest peer is ever named.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random

import pytest

from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.net.connection import Connection, Refused, connect
from gleek_p2p.net.formation import MAX_ATTEMPT, Formation, nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import encode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Lobby, LobbyConfig

STANDARD = VARIANTS["standard"]
NAMES = ("ann", "ben", "cat")


class Notes(list[str]):
    def __call__(self, text: str) -> None:
        self.append(str(text))


def _lobby(n: int, table: str, notes: Notes) -> Lobby:
    rnd = random.Random(n)
    return Lobby(Identity.generate(bytes([n + 1]) * 32),
                 LobbyConfig(name=NAMES[n], table=table, variant=STANDARD,
                             listen=("127.0.0.1", 0), dial_interval=0.05,
                             formation_grace=0.3, reveal_deadline=1.0),
                 notes=notes, random=rnd.randbytes)


def _hint(lobby: Lobby, *others: Lobby) -> None:
    for other in others:
        lobby._heard(("127.0.0.1", other.port))


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


async def _stranger(lobby: Lobby, me: Identity, table: str, name: str, commit: bytes,
                    attempt: int = 7) -> Connection:
    return await connect("127.0.0.1", lobby.port, identity=me, offer=_offer(table, name),
                         nonce_commit=commit, attempt=attempt)


async def _counted(lobby: Lobby, public: bytes) -> None:
    async with asyncio.timeout(10):
        while public not in lobby.formation.peers:
            await asyncio.sleep(0.01)


async def _formed(lobbies: list[Lobby]) -> list[Formation]:
    return list(await asyncio.wait_for(
        asyncio.gather(*(lobby.formed(30) for lobby in lobbies)), 35))


def _names_honest(notes: Notes, lobbies: list[Lobby]) -> list[str]:
    keys = [fingerprint(lobby.identity.public) for lobby in lobbies]
    return [n for n in notes if any(k in n for k in keys)
            and ("told the players" in n or "did not reveal" in n)]


async def _close(lobbies: list[Lobby], conns: list[Connection]) -> None:
    for conn in conns:
        with contextlib.suppress(Exception):
            await conn.close("done")
    await asyncio.gather(*(lobby.close() for lobby in lobbies))


@pytest.mark.parametrize("lie", ["name", "nonce"])
async def test_a_stranger_telling_two_peers_different_things_is_caught_and_named(
    lie: str,
) -> None:
    notes = Notes()
    ann, ben, cat = lobbies = [_lobby(n, f"lie-{lie}", notes) for n in range(3)]
    mal = Identity.generate(b"m" * 32)
    conns: list[Connection] = []
    try:
        await ann.start()
        await ben.start()
        # The stranger sits down with ann and ben first, telling each another story.
        first, second = (("mal-a", "mal-b") if lie == "name" else ("mal", "mal"))
        commits = ((nonce_commitment(b"a" * 32, 7), nonce_commitment(b"b" * 32, 7))
                   if lie == "nonce" else (nonce_commitment(b"a" * 32, 7),) * 2)
        conns.append(await _stranger(ann, mal, f"lie-{lie}", first, commits[0]))
        conns.append(await _stranger(ben, mal, f"lie-{lie}", second, commits[1]))
        await _counted(ann, mal.public)
        await _counted(ben, mal.public)
        _hint(ann, ben)
        # ann and ben reveal a table with the stranger, each with what it told
        # them: each one's Reveal proves the stranger lied to the other.
        async with asyncio.timeout(10):
            while sum("told the players different things" in n for n in notes) < 2:
                await asyncio.sleep(0.01)
        # Both start over without it, and keep it out for a while.
        for lobby in (ann, ben):
            with pytest.raises(Refused, match="dropped from this table's formation"):
                await _stranger(lobby, mal, f"lie-{lie}", "mal", commits[0])
        await cat.start()
        _hint(cat, ann, ben)
        formations = await _formed(lobbies)
        assert formations[0] == formations[1] == formations[2]
        assert sorted(formations[0].names) == sorted(NAMES)
        # ann and ben each caught the stranger, by its key, with proof.
        caught = [n for n in notes if "told the players different things" in n]
        mine = fingerprint(mal.public)
        assert len(caught) >= 2 and all(mine in n for n in caught), notes
        assert any(("'mal-a'" in n and "'mal-b'" in n) if lie == "name"
                   else "two nonce commitments" in n for n in caught)
        assert _names_honest(notes, lobbies) == []
    finally:
        await _close(lobbies, conns)


async def _hello_flood(ports: list[int], table: str, stop: asyncio.Event,
                       sent: list[int]) -> None:
    """Plaintext Hellos from throw-away keys, attempts rising to the last one."""
    writers: list[asyncio.StreamWriter] = []
    attempt = 1
    while not stop.is_set():
        for port in ports:
            with contextlib.suppress(OSError):
                _reader, writer = await asyncio.open_connection("127.0.0.1", port)
                hello = _offer(table, "knock").hello(
                    Identity.generate(os.urandom(32)).public, os.urandom(32), os.urandom(32),
                    min(attempt, MAX_ATTEMPT))
                writer.write(encode_frame(encode_message(hello)))
                writers.append(writer)
                sent.append(hello.attempt)
        attempt = attempt * 7 + 1 if attempt < MAX_ATTEMPT else MAX_ATTEMPT
        if len(writers) > 30:
            for writer in writers[:-30]:
                writer.close()
            writers = writers[-30:]
        await asyncio.sleep(0.1)
    for writer in writers:
        writer.close()


async def test_an_unsigned_hello_flood_with_rising_attempts_moves_nothing() -> None:
    notes = Notes()
    lobbies = [_lobby(n, "flood", notes) for n in range(3)]
    stop = asyncio.Event()
    sent: list[int] = []
    flood: asyncio.Task[None] | None = None
    try:
        for lobby in lobbies:
            await lobby.start()
        attempts = [lobby.formation.attempt for lobby in lobbies]
        flood = asyncio.create_task(
            _hello_flood([lobby.port for lobby in lobbies], "flood", stop, sent))
        async with asyncio.timeout(10):
            while MAX_ATTEMPT not in sent:
                await asyncio.sleep(0.02)
        # Everyone has seen Hellos up to 2^32-1; now they meet, the flood still on.
        for lobby in lobbies:
            _hint(lobby, *(o for o in lobbies if o is not lobby))
        formations = await _formed(lobbies)
        await asyncio.sleep(0.3)  # a late knock at the last attempt changes nothing either
        assert formations[0] == formations[1] == formations[2]
        assert [lobby.formation.attempt for lobby in lobbies] == attempts
        assert not [n for n in notes if "starting the table over" in n], notes
        assert all(not t.done() or t.cancelled() or t.exception() is None
                   for lobby in lobbies for t in lobby._tasks)
    finally:
        stop.set()
        if flood is not None:
            await flood
        await _close(lobbies, [])


async def test_a_squatter_that_never_reveals_is_dropped_and_the_third_gets_in() -> None:
    notes = Notes()
    ann, ben, cat = lobbies = [_lobby(n, "squat", notes) for n in range(3)]
    squatter = Identity.generate(b"q" * 32)
    conns: list[Connection] = []
    try:
        await ann.start()
        await ben.start()
        commit = nonce_commitment(b"q" * 32, 0)
        conns.append(await _stranger(ann, squatter, "squat", "squatter", commit, 0))
        conns.append(await _stranger(ben, squatter, "squat", "squatter", commit, 0))
        await _counted(ann, squatter.public)
        await _counted(ben, squatter.public)
        _hint(ann, ben)
        # ann and ben reveal a table with the squatter, which never reveals.
        async with asyncio.timeout(10):
            while not (ann.formation.revealed and ben.formation.revealed):
                await asyncio.sleep(0.01)
        await cat.start()
        _hint(cat, ann, ben)  # refused "table full" at first: cat keeps dialling
        loop = asyncio.get_running_loop()
        began = loop.time()
        formations = await _formed(lobbies)
        waited = loop.time() - began
        assert formations[0] == formations[1] == formations[2]
        assert sorted(formations[0].names) == sorted(NAMES)
        # Dropped after the 1 s deadline, far from the 30 s formation timeout.
        assert waited < 15, waited
        dropped = [n for n in notes if "did not reveal within 1 s" in n]
        assert dropped and all(fingerprint(squatter.public) in n for n in dropped), notes
        assert _names_honest(notes, lobbies) == []
    finally:
        await _close(lobbies, conns)


EXPECTED = {
    "en": ("told the players different things", "the names 'mal-a' and 'mal-b'", "120 s"),
    "fr": ("a dit des choses différentes", "les noms 'mal-a' et 'mal-b'", "120 s"),
    "it": ("ha detto cose diverse", "i nomi 'mal-a' e 'mal-b'", "120 s"),
    "pt": ("disse coisas diferentes", "os nomes 'mal-a' e 'mal-b'", "120 s"),
    "nl": ("vertelde de spelers verschillende dingen", "de namen 'mal-a' en 'mal-b'", "120 s"),
}


@pytest.mark.parametrize("language", sorted(EXPECTED))
async def test_the_caught_note_names_the_liar_in_every_language(language: str) -> None:
    from gleek_p2p.base.i18n import current_language, set_language
    from gleek_p2p.net.formation import Caught, Equivocation, Evidence
    from gleek_p2p.net.handshake import transcript, transcript_hash

    mal, ann, ben = (Identity.generate(bytes([n]) * 32) for n in (9, 1, 2))

    def told(to: Identity, name: str) -> Evidence:
        theirs = _offer("t", name).hello(mal.public, b"c" * 32, b"e" * 32, 7)
        mine = _offer("t", "x").hello(to.public, b"d" * 32, b"f" * 32, 3)
        return Evidence(theirs, mine, mal.sign(transcript(transcript_hash(theirs, mine))))

    proof = Equivocation(mal.public, told(ann, "mal-a"), told(ben, "mal-b"))
    notes = Notes()
    lobby = Lobby(ann, LobbyConfig(name="ann", table="t", variant=STANDARD), notes=notes)
    before = current_language()
    set_language(language)
    try:
        lobby._moved_on(Caught("caught", 4, mal.public, proof))
    finally:
        set_language(before)
    [note] = notes
    for words in EXPECTED[language]:
        assert words in note, note
    assert fingerprint(mal.public) in note and fingerprint(ben.public) not in note
    assert lobby._kept_out.holds(mal.public, asyncio.get_running_loop().time())


async def test_a_lobby_at_the_last_attempt_stops_moving_and_crashes_nothing() -> None:
    """The old code packed attempt + 1 into a u32 and its start-over task died there."""
    from gleek_p2p.net.formation import TableFormation

    notes = Notes()
    ann, ben = lobbies = [_lobby(n, "last", notes) for n in range(2)]
    ann.formation = TableFormation(ann.identity.public, "ann", b"l" * 32, 3, MAX_ATTEMPT,
                                   ann.identity.sign)
    squatter = Identity.generate(b"z" * 32)
    conns: list[Connection] = []
    try:
        await ann.start()
        await ben.start()
        commit = nonce_commitment(b"z" * 32, 0)
        conns.append(await _stranger(ann, squatter, "last", "squatter", commit, 0))
        conns.append(await _stranger(ben, squatter, "last", "squatter", commit, 0))
        _hint(ann, ben)
        async with asyncio.timeout(15):
            while not any("no formation attempt is left" in n for n in notes):
                await asyncio.sleep(0.02)
        assert ann.formation.attempt == MAX_ATTEMPT
        assert all(not t.done() or t.cancelled() or t.exception() is None
                   for lobby in lobbies for t in lobby._tasks)
    finally:
        await _close(lobbies, conns)
