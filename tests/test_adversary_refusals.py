"""Forged refusals against forming lobbies (issue 20: delay, never stall or fail), on 127.0.0.1.

Each of the three honest players (ann, ben, cat) hears the attacker's
addresses first, as if from forged mDNS records, and then each other's. The
attacker answers every dial with a refusal: plain (anyone can send one),
signed by one key (proven, but one key's word), signed by two keys that
claim a table while an honest player is forming with the victim, or with
any other code or reason. The three still form one table each time, and a
real fourth player at a formed table still stops at once, saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.net.connection import Connection, Listener, Refused, connect
from gleek_p2p.net.formation import Formation, nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Hello, Refuse, RefuseCode, encode_message
from gleek_p2p.net.refusals import WITNESSES, FullTables
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Address, Lobby, LobbyConfig, TableFull
from gleek_p2p.session.notes import NoteKind, kind_of

STANDARD = VARIANTS["standard"]
NAMES = ("ann", "ben", "cat")


def _offer(table: str, name: str, **kw: object) -> Offer:
    fields: dict[str, object] = dict(version=WIRE_VERSION, table=table,
                                     variant=tuple(STANDARD.to_wire()), seats=3, name=name)
    fields.update(kw)
    return Offer(**fields)  # type: ignore[arg-type]


def _key(n: int) -> Identity:
    return Identity.generate(bytes([n]) * 32)


@dataclass
class Notes:
    said: list[str] = field(default_factory=list)

    def __call__(self, text: str) -> None:
        self.said.append(text)

    def of(self, kind: NoteKind) -> list[str]:
        return [n for n in self.said if kind_of(n) is kind]


def _lobby(n: int, table: str, notes: Notes, peers: tuple[Address, ...] = ()) -> Lobby:
    return Lobby(_key(n + 1), LobbyConfig(name=NAMES[n] if n < 3 else f"p{n}", table=table,
                                          variant=STANDARD, listen=("127.0.0.1", 0),
                                          dial_interval=0.1, peers=peers),
                 notes=notes)


class Plain:
    """A stranger at 127.0.0.x: answers each connection with a plain Refuse (a Hello first?)."""

    def __init__(self, table: str, refusal: Refuse, *, hello: bool) -> None:
        self.table, self.refusal, self.hello = table, refusal, hello
        self.server: asyncio.Server | None = None
        self.answered = 0

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.answered += 1
        if self.hello:
            hello = _offer(self.table, "stranger").hello(
                Identity.generate(os.urandom(32)).public, os.urandom(32), os.urandom(32))
            writer.write(encode_frame(encode_message(hello)))
        writer.write(encode_frame(encode_message(self.refusal)))
        with contextlib.suppress(Exception):
            await writer.drain()
            # Held open until the victim hangs up: a reset would lose the Refuse.
            await asyncio.wait_for(reader.read(), 5)
        writer.close()

    async def start(self, host: str) -> Address:
        self.server = await asyncio.start_server(self._answer, host, 0)
        return (host, self.server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()


class Signed:
    """A stranger with a key of its own: completes the handshake's Hello and signs its refusal."""

    def __init__(self, identity: Identity, offer: Offer,
                 refusal: Callable[[Hello], str | Refuse]) -> None:
        self.identity = identity

        async def never(conn: Connection) -> None:
            await conn.close()

        self.listener = Listener(identity=identity, offer=offer,
                                 nonce_commit=nonce_commitment(os.urandom(32)),
                                 on_connection=never, admit=refusal, on_refused=lambda r: None)

    async def start(self, host: str) -> Address:
        await self.listener.start(host, 0)
        return (host, self.listener.port)

    async def close(self) -> None:
        await self.listener.close()


def _claimed_table(*refusers: Identity, extra: int = 1) -> tuple[bytes, ...]:
    """A table of these keys and ``extra`` made-up ones: 3 seats, none of the victims'."""
    keys = [r.public for r in refusers] + [_key(200 + i).public for i in range(extra)]
    return tuple(sorted(keys))


def _full(seated: tuple[bytes, ...], reason: str = "table full: the table has formed") -> Refuse:
    return Refuse(reason, RefuseCode.TABLE_FULL, seated, ("",) * len(seated),
                  (0,) * len(seated))


async def _form_despite(table: str, attackers: list[Address], notes: Notes) -> list[Formation]:
    """ann, ben, cat each hear the attackers first, then each other, once they were refused."""
    lobbies: list[Lobby] = []
    try:
        for n in range(3):
            lobby = _lobby(n, table, notes)
            await lobby.start()
            for address in attackers:
                lobby._heard(address)
            # The attackers answer before anyone else is here: each has refused this
            # lobby's dial (a failure on its hint) before the others are heard.
            async with asyncio.timeout(20):
                while not all(lobby._hints.failures(a) for a in attackers):
                    await asyncio.sleep(0.01)
            for other in lobbies:
                lobby._heard(("127.0.0.1", other.port))
                other._heard(("127.0.0.1", lobby.port))
            lobbies.append(lobby)
        tables = list(await asyncio.wait_for(
            asyncio.gather(*(lobby.formed(60) for lobby in lobbies)), 60))
    finally:
        for lobby in lobbies:
            await lobby.close()
    assert len({(t.publics, t.session_nonce) for t in tables}) == 1
    assert sorted(tables[0].names) == sorted(NAMES)
    return tables


@pytest.mark.parametrize("hello", [False, True], ids=["refuse-only", "hello-then-refuse"])
async def test_a_plain_table_full_refusal_stops_nobody(hello: bool) -> None:
    """The single forged mDNS record of the report: a plain Refuse(TABLE_FULL), now not believed."""
    strangers = [Plain("plain", _full(()), hello=hello) for _ in range(3)]
    addresses = [await s.start(f"127.0.0.{2 + i}") for i, s in enumerate(strangers)]
    notes = Notes()
    try:
        await _form_despite("plain", addresses, notes)
    finally:
        for s in strangers:
            await s.close()
    assert all(s.answered for s in strangers)
    said = notes.of(NoteKind.REFUSED_US)
    told = [n for n in said if "says the table is full but does not prove who it is" in n]
    assert told, "\n".join(notes.said)
    # Rate limited: at most the burst per lobby and window, the rest only counted
    # ("… and 7 more refusals of this peer", said as each lobby closes).
    assert len(told) <= 3 * LobbyConfig("x", "x", STANDARD).noise_burst
    assert all(n.startswith("… and ") for n in said if n not in told), said


async def test_a_refusal_signed_by_one_key_stops_nobody() -> None:
    """Proven, and naming a table it sits at: still one key's word."""
    me = _key(90)
    stranger = Signed(me, _offer("lone", "mallory"), lambda h: _full(_claimed_table(me, extra=2)))
    notes = Notes()
    try:
        await _form_despite("lone", [await stranger.start("127.0.0.2")], notes)
    finally:
        await stranger.close()
    said = notes.of(NoteKind.REFUSED_US)
    assert any(f"mallory (key {fingerprint(me.public)}) says the table is full; still forming"
               in n for n in said), said


async def test_two_keys_claiming_a_table_do_not_stop_a_peer_that_forms_with_another() -> None:
    """Two keys of one attacker, each proving it refused and naming one made-up table.

    Two seated keys of a table is what makes a real fourth player stop; a
    peer that is forming with someone outside that table is not alone, so
    it keeps forming (a peer alone, with nobody yet, would believe them:
    SPEC 5 says so).
    """
    x1, x2 = _key(91), _key(92)
    claimed = _claimed_table(x1, x2)
    sybils = [Signed(x, _offer("sybil", f"x{i}"), lambda h: _full(claimed))
              for i, x in enumerate((x1, x2))]
    sybil_at = [await s.start(f"127.0.0.{2 + i}") for i, s in enumerate(sybils)]
    notes = Notes()
    ann, ben = _lobby(0, "sybil", notes), _lobby(1, "sybil", notes)
    cat: Lobby | None = None
    try:
        for lobby in (ann, ben):
            await lobby.start()
        ann._heard(("127.0.0.1", ben.port))
        async with asyncio.timeout(20):
            while not all(lobby._live_addresses() for lobby in (ann, ben)):
                await asyncio.sleep(0.02)
        for lobby in (ann, ben):
            for address in sybil_at:
                lobby._heard(address)
        async with asyncio.timeout(20):  # both sybils refused both, with proof
            while min(len(ann._full_tables), len(ben._full_tables)) < WITNESSES:
                await asyncio.sleep(0.02)
        assert ann._forming() and ben._forming()
        cat = _lobby(2, "sybil", notes)
        await cat.start()
        cat._heard(("127.0.0.1", ann.port))
        tables = await asyncio.wait_for(
            asyncio.gather(*(lobby.formed(60) for lobby in (ann, ben, cat))), 60)
    finally:
        for lobby in (ann, ben, cat):
            if lobby is not None:
                await lobby.close()
        for s in sybils:
            await s.close()
    assert len({t.session_nonce for t in tables}) == 1


FORGED_OTHERS = {
    # Every other refusal a stranger may send: none may make a forming peer quit.
    "code-none-plain": ("plain", Refuse("you want table 'x', this peer is at table 'y'")),
    "unknown-code-plain": ("plain", Refuse("from a newer peer", 999)),
    "wrong-table-signed": ("signed", "you want table 'elsewhere', this peer is at table 'x'"),
    "wrong-hands-signed": ("signed", "you want table 'x/12', this peer is at table 'x/1'"),
    "wrong-variant-signed": ("signed", "you play variant [1], this table plays [2]"),
    "wrong-seats-signed": ("signed", "you want 4 seats, this table has 3"),
    "wrong-version-signed": ("signed", "you speak protocol version 1, this peer speaks 99"),
    "kept-out-signed": ("signed", "you were dropped from this table's formation; try again later"),
    "unknown-code-signed": ("signed", Refuse("a newer refusal", 999)),
}


@pytest.mark.parametrize("case", sorted(FORGED_OTHERS))
async def test_no_other_forged_refusal_stops_anybody(case: str) -> None:
    how, refusal = FORGED_OTHERS[case]
    table = f"other-{case}"
    stranger: Plain | Signed
    if how == "plain":
        assert isinstance(refusal, Refuse)
        stranger = Plain(table, refusal, hello=True)
    else:
        stranger = Signed(_key(93), _offer(table, "mallory"), lambda h: refusal)
    notes = Notes()
    try:
        await _form_despite(table, [await stranger.start("127.0.0.2")], notes)
    finally:
        await stranger.close()


async def test_a_fourth_player_stops_within_seconds_naming_two_seats_that_proved_it() -> None:
    """Given one seat's address only, the fourth learns the others' from its signed refusal."""
    notes = Notes()
    first = _lobby(0, "four", notes)
    await first.start()
    here = ("127.0.0.1", first.port)
    others = [_lobby(n, "four", notes, (here,)) for n in (1, 2)]
    lobbies = [first, *others]
    dan: Lobby | None = None
    for lobby in others:
        await lobby.start()
    try:
        tables = await asyncio.wait_for(
            asyncio.gather(*(lobby.formed(60) for lobby in lobbies)), 60)
        dan = _lobby(3, "four", notes, (here,))
        began = time.monotonic()
        await dan.start()
        with pytest.raises(TableFull) as full:
            await dan.formed(600)
        took = time.monotonic() - began
    finally:
        for lobby in [*lobbies, *([dan] if dan else [])]:
            await lobby.close()
    assert took < 20, took  # generous on a loaded machine; the formation timeout is 600 s
    witnesses = full.value.table.witnesses
    assert len({w.peer.public for w in witnesses}) >= WITNESSES
    assert set(full.value.table.seated) == set(tables[0].publics)
    assert full.value.address == here and full.value.refusal.meaning is RefuseCode.TABLE_FULL
    said = str(full.value)
    assert said.startswith("the table is full: ") and "refused this peer" in said
    assert "table full:" not in said  # the refusers' English reason is not shown
    for w in witnesses:
        assert f"{w.peer.name} (key {fingerprint(w.peer.public)})" in said


async def test_refusals_from_seats_that_dial_us_count_too_and_only_proven_ones() -> None:
    """A seat whose link dropped dials hints, so a forming peer may be refused by a dialler.

    Such a refusal is believed on the same terms: here two keys prove one
    table to a peer that has nobody yet, which is the residual case SPEC 5
    names (two keys can make a lone peer give up, as they could take two
    seats). One key's refusals before them, however many, change nothing.
    """
    notes = Notes()
    lone = _lobby(0, "dialled", notes)
    await lone.start()
    x1, x2 = _key(94), _key(95)
    claimed = _claimed_table(x1, x2)

    async def refuse_from(identity: Identity, refusal: Refuse) -> None:
        with pytest.raises(Refused):
            await connect("127.0.0.1", lone.port, identity=identity,
                          offer=_offer("dialled", "seat"),
                          nonce_commit=nonce_commitment(os.urandom(32)),
                          admit=lambda hello: refusal)

    try:
        await refuse_from(x1, _full(claimed))
        async with asyncio.timeout(10):
            while len(lone._full_tables) < 1:
                await asyncio.sleep(0.01)
        assert lone._forming()
        await refuse_from(x1, _full(claimed))  # the same key again: still one key's word
        await asyncio.sleep(0.2)
        assert lone._forming() and len(lone._full_tables) == 1
        await refuse_from(x2, _full(claimed))
        with pytest.raises(TableFull) as full:
            await lone.formed(10)
    finally:
        await lone.close()
    assert {w.peer.public for w in full.value.table.witnesses} == {x1.public, x2.public}
    assert full.value.address is None  # it dialled us


# -- the verdict, sans-IO -----------------------------------------------------------------

ME = _key(1).public
SEATS = [_key(n).public for n in (10, 11, 12)]


def _hello(public: bytes, name: str = "x") -> Hello:
    return _offer("t", name).hello(public, bytes(32), bytes([9]) * 32)


def test_the_verdict_needs_two_seated_keys_of_one_table_without_us() -> None:
    book = FullTables(ME, 3)
    table = tuple(sorted(SEATS))
    assert book.heard(_hello(SEATS[0]), _full(table), None, 0.0)
    assert book.verdict([], 0.0) is None  # one key's word
    assert book.heard(_hello(SEATS[0]), _full(table), None, 1.0)  # the same key again
    assert book.verdict([], 1.0) is None
    # Not counted: a table it does not sit at, one with us, one of another size, another code.
    outsider = _key(13).public
    assert not book.heard(_hello(outsider), _full(table), None, 1.0)
    with_us = tuple(sorted([ME, *SEATS[:2]]))
    assert not book.heard(_hello(SEATS[1]), _full(with_us), None, 1.0)
    assert not book.heard(_hello(SEATS[1]), _full(table[:2]), None, 1.0)
    plain = Refuse("no", RefuseCode.NONE, table, ("",) * 3, (0,) * 3)
    assert not book.heard(_hello(SEATS[1]), plain, None, 1.0)
    assert book.verdict([], 1.0) is None
    # A second seat of that table: believed, unless someone outside it forms with us.
    assert book.heard(_hello(SEATS[1], "ben"), _full(table), ("10.0.0.2", 5), 2.0)
    assert book.verdict([outsider], 2.0) is None
    verdict = book.verdict([SEATS[2]], 2.0)
    assert verdict is not None and verdict.seated == table
    assert [w.peer.public for w in verdict.witnesses] == [SEATS[0], SEATS[1]]
    # Old refusals are forgotten: the table may have ended since.
    assert book.verdict([], 2.0 + book.max_age + 1.5) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sets(st.integers(0, 6), min_size=3,
                                                       max_size=3), st.booleans()),
                max_size=12),
       st.sets(st.integers(0, 6), max_size=2))
def test_a_verdict_always_rests_on_two_seated_witnesses_of_a_table_without_us(
        refusals: list[tuple[int, set[int], bool]], around: set[int]) -> None:
    keys = [_key(20 + n).public for n in range(6)] + [ME]
    book = FullTables(ME, 3, memory=4)
    for at, (who, seats, full) in enumerate(refusals):
        seated = tuple(sorted(keys[s] for s in seats))
        refusal = _full(seated) if full else Refuse("x", RefuseCode.NONE, seated,
                                                    ("",) * 3, (0,) * 3)
        book.heard(_hello(keys[who]), refusal, None, float(at))
        assert len(book) <= 4
    verdict = book.verdict([keys[a] for a in around], float(len(refusals)))
    if verdict is not None:
        assert ME not in verdict.seated and len(verdict.seated) == 3
        witnesses = {w.peer.public for w in verdict.witnesses}
        assert len(witnesses) >= WITNESSES and witnesses <= set(verdict.seated)
        assert {keys[a] for a in around} <= set(verdict.seated)
        assert all(w.refusal.meaning is RefuseCode.TABLE_FULL for w in verdict.witnesses)


# -- what the person reads, in every language ---------------------------------------------

SAID = {
    # (the verdict's opening, key, "… and 3 more refusals")
    "en": ("the table is full: ben (key {k0}), cat (key {k1}) sit at it",
           "… and 3 more refusals of this peer"),
    "fr": ("la table est complète\u00a0: ben (clé {k0}), cat (clé {k1}) y sont assis",
           "… et 3 autres refus de ce pair"),
    "it": ("il tavolo è al completo: ben (chiave {k0}), cat (chiave {k1}) vi siedono",
           "… e altri 3 rifiuti di questo nodo"),
    "pt": ("a mesa está cheia: ben (chave {k0}), cat (chave {k1}) estão sentados nela",
           "… e mais 3 recusas deste par"),
    "nl": ("de tafel is vol: ben (sleutel {k0}), cat (sleutel {k1}) zitten eraan",
           "… en nog 3 weigeringen van deze peer"),
}


@pytest.mark.parametrize("lang", sorted(SAID))
def test_the_verdict_and_the_count_of_refusals_read_in_every_language(lang: str) -> None:
    from gleek_p2p.base import i18n
    from gleek_p2p.session.notes import more_of

    table = tuple(sorted(SEATS))
    book = FullTables(ME, 3)
    book.heard(_hello(SEATS[0], "ben"), _full(table, "table full: the table has formed"),
               ("10.0.0.2", 4000), 0.0)
    book.heard(_hello(SEATS[1], "cat"), _full(table), None, 1.0)
    verdict = book.verdict([], 1.0)
    assert verdict is not None
    i18n.set_language(lang, {})
    try:
        said = str(TableFull(verdict))
        counted = more_of(NoteKind.REFUSED_US, 3)
    finally:
        i18n.set_language("en", {})
    opening, more = SAID[lang]
    assert said.startswith(opening.format(k0=fingerprint(SEATS[0]), k1=fingerprint(SEATS[1])))
    assert "table full" not in said  # the refusers' English reason is never shown
    assert counted == more
