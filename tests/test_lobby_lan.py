"""The lobby on a LAN (issue 14, items 8-11), in one event loop on 127.0.0.1.

No mDNS and no namespace: the peers only dial addresses they were given or
told about. The namespace scenarios with real processes are in
test_lan_namespace.py.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.net.connection import connect
from gleek_p2p.net.formation import Formation, nonce_commitment
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Addresses, RefuseCode
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Address, Lobby, LobbyConfig, NoTable, TableFull
from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
from gleek_p2p.ui.app import HumanPlayer

VARIANT = VARIANTS["standard"]


def identity(i: int) -> Identity:
    return Identity.generate(bytes([i + 1]) * 32)


def config(name: str, table: str, **kw: object) -> LobbyConfig:
    return LobbyConfig(name=name, table=table, variant=VARIANT, listen=("127.0.0.1", 0),
                       dial_interval=0.1, **kw)  # type: ignore[arg-type]


async def test_a_lonely_peer_says_what_is_going_on_and_not_too_often() -> None:
    said: list[tuple[float, str]] = []
    third = asyncio.Event()

    def note(text: str) -> None:
        if text.startswith("nobody found yet"):
            said.append((time.monotonic(), text))
            if len(said) == 3:
                third.set()

    lobby = Lobby(identity(0), config("solo", "alone", searching_note_after=0.05), notes=note)
    began = time.monotonic()
    await lobby.start()
    port = lobby.port
    try:
        async with asyncio.timeout(20):
            await third.wait()
    finally:
        await lobby.close()
    assert "mDNS is off and no --peer was given" in said[0][1]
    assert f"--peer HOST:{port}" in said[0][1]
    # Sparingly: each wait is three times the one before (0.05 s, 0.15 s, 0.45 s).
    times = [began] + [t for t, _ in said]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert gaps[0] >= 0.05 and gaps[1] >= 0.15 and gaps[2] >= 0.45, gaps


async def start(i: int, name: str, table: str, peers: tuple[Address, ...] = (),
                listen: Address = ("127.0.0.1", 0), notes: list[str] | None = None) -> Lobby:
    cfg = replace(config(name, table), peers=peers, listen=listen)
    lobby = Lobby(identity(i), cfg,
                  notes=(lambda t: notes.append(f"{name}: {t}")) if notes is not None
                  else lambda t: None)
    await lobby.start()
    return lobby


async def formed_all(lobbies: list[Lobby], timeout: float = 60) -> list[Formation]:
    return list(await asyncio.gather(*(lobby.formed(timeout) for lobby in lobbies)))


async def close_all(lobbies: list[Lobby]) -> None:
    await asyncio.gather(*(lobby.close() for lobby in lobbies))


async def test_a_fourth_peer_stops_at_once_with_the_real_reason() -> None:
    notes: list[str] = []
    first = await start(0, "ann", "four", notes=notes)
    here = ("127.0.0.1", first.port)
    second = await start(1, "ben", "four", (here,), notes=notes)
    third = await start(2, "cat", "four", (here, ("127.0.0.1", second.port)), notes=notes)
    lobbies = [first, second, third]
    dan = None
    try:
        tables = await formed_all(lobbies)
        assert len({t.session_nonce for t in tables}) == 1
        dan = await start(3, "dan", "four", (here,), notes=notes)
        # The formation timeout is far away: only the refusal can end this early.
        async with asyncio.timeout(30):
            with pytest.raises(TableFull, match=r"the table is full: ann .*, ben ") as full:
                await dan.formed(600)
        assert full.value.refusal.meaning is RefuseCode.TABLE_FULL
        assert full.value.address == here
        assert "could not reach" not in str(full.value)
    finally:
        await close_all(lobbies + ([dan] if dan else []))
    told = [n for n in notes if n.startswith("ann: refused dan")]
    assert len(told) == 1, notes


LAYOUTS = {
    # who dials whom, by index, with every player listening on a fixed port
    "star": {1: (0,), 2: (0,)},
    "ring": {0: (1,), 1: (2,), 2: (0,)},
    "mesh": {0: (1, 2), 1: (0, 2), 2: (0, 1)},
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
async def test_direct_addresses_form_a_table_as_a_star_ring_or_mesh(
    layout: str, unused_tcp_port_factory: Callable[[], int],
) -> None:
    ports = [unused_tcp_port_factory() for _ in range(3)]
    notes: list[str] = []
    lobbies = [
        await start(i, name, layout,
                    tuple(("127.0.0.1", ports[j]) for j in LAYOUTS[layout].get(i, ())),
                    listen=("127.0.0.1", ports[i]), notes=notes)
        for i, name in enumerate(("ann", "ben", "cat"))
    ]
    try:
        tables = await formed_all(lobbies)
    finally:
        await close_all(lobbies)
    assert len({(t.publics, t.session_nonce) for t in tables}) == 1
    assert sorted(tables[0].names) == ["ann", "ben", "cat"]


def test_every_player_connected_is_not_called_a_full_table() -> None:
    stuck = NoTable(60, ("ben", "cat"), 3, ())
    assert "3 of 3" not in str(stuck) and "did not all reach each other" in str(stuck)
    assert stuck.connected == ("ben", "cat")
    alone = NoTable(60, ("ben",), 3, ((("10.0.0.9", 7000), "no route"),))
    assert str(alone) == ("no table formed within 60 s (2 of 3 players here); "
                          "10.0.0.9:7000: no route")


async def test_the_lobby_says_who_is_connected_until_and_after_the_table_forms() -> None:
    said: dict[str, list[LobbyStatus]] = {"ann": [], "ben": []}
    ann = Lobby(identity(0), config("ann", "status"), on_status=said["ann"].append)
    await ann.start()
    here = ("127.0.0.1", ann.port)
    ben = Lobby(identity(1), replace(config("ben", "status"), peers=(here,)),
                on_status=said["ben"].append)
    await ben.start()
    cat = await start(2, "cat", "status", (here,))
    lobbies = [ann, ben, cat]
    try:
        await formed_all(lobbies)
        after = ann.status()
    finally:
        await close_all(lobbies)
    first = said["ann"][0]
    assert first.peers == () and first.missing == 2 and first.port == here[1]
    assert first.me.fingerprint == fingerprint(identity(0).public)
    # Someone connected: named, with its fingerprint, before the table formed.
    partial = next(s for s in said["ann"] if s.peers and not s.formed)
    assert {p.fingerprint for p in partial.peers} <= {
        fingerprint(identity(i).public) for i in (1, 2)}
    assert said["ann"][-1].formed and said["ben"][-1].formed
    # Once formed every seat is listed, with its fingerprint, and stays reachable.
    assert after.formed and after.missing == 0
    seats = sorted([after.me, *after.peers], key=lambda p: p.seat or 0)
    assert [p.seat for p in seats] == [0, 1, 2]
    assert {p.name: p.fingerprint for p in seats} == {
        n: fingerprint(identity(i).public) for i, n in enumerate(("ann", "ben", "cat"))}


def test_the_lobby_screen_shows_names_and_fingerprints_at_80x24() -> None:
    status = LobbyStatus(
        "oak/4", 3, PeerStatus("ann", fingerprint(identity(0).public)),
        (PeerStatus("ben", fingerprint(identity(1).public), ("127.0.0.1", 7001)),),
        port=7000)
    with create_pipe_input() as pipe:
        human = HumanPlayer(input=pipe, output=DummyOutput())
        human.show_lobby(status)
        screen = human.screen.dump(80, 24)
    assert "nobody yet" not in screen
    assert "waiting for 1 more player." in screen
    assert f"ann (you)  key {fingerprint(identity(0).public)}" in screen
    assert f"ben  key {fingerprint(identity(1).public)}" in screen
    assert "--peer HOST:7000" in screen
    print(screen)  # the capture for the resolution note (pytest -s)


async def test_passed_on_addresses_are_bounded_and_never_point_at_ourselves() -> None:
    """A connected peer may lie about addresses: it costs a dial, never memory or a seat."""
    ann = await start(0, "ann", "gossip")
    liar = identity(1)
    offer = Offer(WIRE_VERSION, "gossip", tuple(VARIANT.to_wire()), VARIANT.players,
                  "liar", 0)
    conn = await connect("127.0.0.1", ann.port, identity=liar, offer=offer,
                         nonce_commit=nonce_commitment(bytes(32)))
    try:
        ours = ("127.0.0.1", ann.port)
        for n in range(50):
            keys = tuple(bytes([n, i]) * 16 for i in range(8))
            conn.send(Addresses(keys, ("10.9.9.9",) * 8, tuple(range(7000, 7008))))
        conn.send(Addresses((identity(0).public,), ours[:1], ours[1:]))
        async with asyncio.timeout(10):
            while not ann._told or next(iter(ann._told.values()))[0][1] != ours:
                await asyncio.sleep(0.01)
        # Only the latest list of the one sender is kept, and it names ann herself.
        assert list(ann._told) == [liar.public]
        assert ann._told_targets() == []
    finally:
        await conn.close()
        await ann.close()
