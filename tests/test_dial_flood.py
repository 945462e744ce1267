"""A stranger floods the LAN with adverts: a peer keeps at most ``MAX_DIALS`` dials in flight.

Discovery records cost nothing to forge. A stranger announcing many tables,
or this very table at many addresses, used to have a forming peer open up to
64 connections at once (128 counting the dials of hints pushed out of the
book). Now: records of another table, version, variant or seat count are
never dialled; those of the table asked for wait in the hint book, first
come first served, and at most ``HintLimits.dials`` are dialled at once.

In memory: ``MemoryDiscovery`` carries the records, and the lobby's
``connect`` is wrapped so a dial of a forged address (TEST-NET hosts, never
reached) is a fake "tarpit": it answers nothing, and fails after the Hello
timeout as a real tarpit's dial does (or never, in the first test). The
honest peers dial each other for real, on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Limits
from gleek_p2p.net.discovery import (
    Announcement,
    MemoryDiscovery,
    MemoryRegistry,
    PeerHint,
    _HintQueue,
)
from gleek_p2p.net.failures import Failure, LinkError
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.net.hints import MAX_DIALS, HintBook, HintLimits
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session import lobby as lobby_module
from gleek_p2p.session.lobby import Lobby, LobbyConfig

STANDARD = VARIANTS["standard"]
TABLE = "oak/1"


class Stranger:
    """Forged records in the registry, and the fake dials of their addresses."""

    def __init__(self, registry: MemoryRegistry, monkeypatch: pytest.MonkeyPatch,
                 stall_for_good: bool = False) -> None:
        self.registry = registry
        self.stall_for_good = stall_for_good
        self.ours: set[tuple[str, int]] = set()
        """Addresses of records forged for the table the players asked for."""
        self.others: set[tuple[str, int]] = set()
        """Addresses of records of other tables, or of this one's name for another game."""
        self.in_flight: dict[bytes, int] = {}
        self.most: dict[bytes, int] = {}
        """Per dialling peer (its key): the most dials of forged addresses at once."""
        self.dialled: list[tuple[str, int]] = []
        self.first_dial = asyncio.Event()
        self.count = 0
        real = lobby_module.connect

        async def connect(host: str, port: int, **kw: Any) -> Any:
            if (host, port) not in self.ours | self.others:
                return await real(host, port, **kw)
            key = kw["identity"].public
            self.dialled.append((host, port))
            self.in_flight[key] = self.in_flight.get(key, 0) + 1
            self.most[key] = max(self.most.get(key, 0), self.in_flight[key])
            self.first_dial.set()
            try:
                limits: Limits = kw["limits"]
                if self.stall_for_good:
                    await asyncio.Event().wait()
                # A tarpit accepts and says nothing: the dial ends at the Hello timeout.
                try:
                    await asyncio.wait_for(asyncio.Event().wait(), limits.hello_timeout)
                except TimeoutError:
                    raise LinkError("the peer said no Hello", Failure.NO_HELLO) from None
            finally:
                self.in_flight[key] -= 1

        monkeypatch.setattr(lobby_module, "connect", connect)

    def announce(self, table: str, host: str, *, variant: tuple[int, ...] | None = None,
                 version: int = WIRE_VERSION) -> None:
        self.count += 1
        address = (host, 7000 + self.count % 7)
        ours = table == TABLE and variant is None and version == WIRE_VERSION
        (self.ours if ours else self.others).add(address)
        txt = Announcement(f"forged-{self.count}", address[1], version, table,
                           os.urandom(8).hex(), 3, variant or tuple(STANDARD.to_wire())).txt()
        self.registry.join(f"forged-{self.count}", PeerHint(*address, txt, f"forged-{self.count}"),
                           _HintQueue())

    def flood(self, wave: int, ours: int, others: int) -> None:
        """``ours`` records of the players' table and ``others`` of other games, mixed."""
        for i in range(max(ours, others)):
            if i < others:
                kind = i % 3
                if kind == 0:
                    self.announce(f"elm{wave}-{i}/1", f"192.0.2.{i % 250 + 1}")
                elif kind == 1:  # the players' table's name, another variant
                    self.announce(TABLE, f"192.0.2.{i % 250 + 1}",
                                  variant=tuple(VARIANTS["whist"].to_wire()))
                else:  # ... or another wire version
                    self.announce(TABLE, f"192.0.2.{i % 250 + 1}", version=WIRE_VERSION + 1)
            if i < ours:
                self.announce(TABLE, f"198.{18 + wave}.{i // 250}.{i % 250 + 1}")


def _lobby(registry: MemoryRegistry, n: int) -> Lobby:
    return Lobby(Identity.generate(bytes([n + 1]) * 32),
                 LobbyConfig(name=f"p{n}", table=TABLE, variant=STANDARD,
                             listen=("127.0.0.1", 0), dial_interval=0.05,
                             limits=Limits(hello_timeout=1.0)),
                 discovery=MemoryDiscovery(registry))


async def test_a_flood_of_adverts_that_stall_for_good_holds_at_most_the_cap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    registry = MemoryRegistry()
    stranger = Stranger(registry, monkeypatch, stall_for_good=True)
    stranger.flood(0, ours=100, others=150)
    errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, c: errors.append(c))
    lobby = _lobby(registry, 0)
    rounds = 0
    enough = asyncio.Event()
    start_dials = lobby._start_dials

    def counted() -> None:
        nonlocal rounds
        start_dials()
        rounds += 1
        if rounds >= 40:
            enough.set()

    monkeypatch.setattr(lobby, "_start_dials", counted)
    await lobby.start()
    try:
        async with asyncio.timeout(60):
            await stranger.first_dial.wait()
            await enough.wait()  # 40 rounds of the dial loop, every 50 ms and at each hint
        key = lobby.identity.public
        # The cap reached, never passed, though 100 forged hints of this table are due.
        assert stranger.most[key] == MAX_DIALS == HintLimits().dials
        assert stranger.in_flight[key] == MAX_DIALS
        # No record of another table, version or variant was dialled.
        assert set(stranger.dialled) <= stranger.ours and len(stranger.dialled) == MAX_DIALS
        # A second wave while every slot is held: still nothing more.
        stranger.flood(1, ours=100, others=100)
        enough.clear()
        rounds = 0
        async with asyncio.timeout(60):
            await enough.wait()
        assert stranger.most[key] == MAX_DIALS and len(stranger.dialled) == MAX_DIALS
    finally:
        await lobby.close()
    assert stranger.in_flight[lobby.identity.public] == 0  # every stalled dial ended
    assert errors == []


@pytest.mark.parametrize("stall_for_good", [False, True])
async def test_the_honest_table_forms_under_a_flood_with_at_most_the_cap_in_flight(
        monkeypatch: pytest.MonkeyPatch, stall_for_good: bool) -> None:
    """Also when no forged dial ever ends: the players' records, heard after the
    flood, are the newest, and half the dials go to the newest."""
    registry = MemoryRegistry()
    stranger = Stranger(registry, monkeypatch, stall_for_good)
    # Out before any player arrives: 100 records of the players' table at tarpits,
    # 150 of other games (many tables, the table's name for another variant or version).
    stranger.flood(0, ours=100, others=150)
    errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, c: errors.append(c))
    lobbies = [_lobby(registry, n) for n in range(3)]
    try:
        for lobby in lobbies:
            await lobby.start()
        async with asyncio.timeout(60):
            await stranger.first_dial.wait()
        stranger.flood(1, ours=50, others=100)  # a second wave while they dial
        tables = await asyncio.wait_for(
            asyncio.gather(*(lobby.formed(60) for lobby in lobbies)), 90)
        assert len({t.session_nonce for t in tables}) == 1
        for lobby in lobbies:
            assert stranger.most.get(lobby.identity.public, 0) <= MAX_DIALS
        assert max(stranger.most.values()) == MAX_DIALS  # the flood did fill the slots
        assert not set(stranger.dialled) & stranger.others
    finally:
        for lobby in lobbies:
            await lobby.close()
    assert errors == []


def test_the_queue_takes_the_oldest_and_the_newest_in_turn_and_a_repeat_keeps_its_place(
        ) -> None:
    """Discovery repeats standing records: a repeat used to send a hint to the back.

    The newest goes second: a player arriving after a flood of records is
    dialled in the first round, not after every forged one.
    """
    book = HintBook(HintLimits(capacity=8, per_host=8))
    hints = [(f"10.0.0.{n}", 1) for n in range(1, 6)]
    for now, address in enumerate(hints):
        book.heard(address, float(now))
    book.heard(hints[0], 10.0)  # heard again: keeps its place
    book.heard(hints[1], 11.0)
    assert book.due(12.0) == [hints[0], hints[4], hints[1], hints[3], hints[2]]
    book.failed(hints[0], 12.0)  # a failure sends it after every fresh one
    assert book.due(20.0) == [hints[1], hints[4], hints[2], hints[3], hints[0]]
