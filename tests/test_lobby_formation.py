"""Formation races through real lobbies on 127.0.0.1: everyone agrees, nobody is accused."""

from __future__ import annotations

import asyncio
import random

import pytest

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.formation import Formation
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Lobby, LobbyConfig

STANDARD = VARIANTS["standard"]
ACCUSING = ("does not open", "does not match", "ignored a Reveal", "lied", "cheat")


class Notes(list[str]):
    def __call__(self, text: str) -> None:
        self.append(text)


def _lobby(n: int, table: str, notes: Notes, seed: int = 0) -> Lobby:
    rnd = random.Random(seed * 100 + n)
    return Lobby(Identity.generate(bytes([n]) * 32),
                 LobbyConfig(name=f"p{n}", table=table, variant=STANDARD,
                             listen=("127.0.0.1", 0), dial_interval=0.05,
                             formation_grace=0.3),
                 notes=notes, random=rnd.randbytes)


def _hint(lobby: Lobby, *others: Lobby) -> None:
    for other in others:
        lobby._heard(("127.0.0.1", other.port))


async def _all_formed(lobbies: list[Lobby]) -> list[Formation]:
    return list(await asyncio.wait_for(
        asyncio.gather(*(lobby.formed(20) for lobby in lobbies)), 25))


async def _a_reveals_while_b_and_c_wait(a: Lobby, b: Lobby, c: Lobby) -> None:
    """Only a knows both others: a reveals, b and c wait to meet each other."""
    for lobby in (a, b, c):
        await lobby.start()
    _hint(a, b, c)
    _hint(b, a)
    _hint(c, a)
    async with asyncio.timeout(10):
        while not a.formation.revealed:
            await asyncio.sleep(0.01)


def _no_accusation(notes: Notes) -> None:
    bad = [n for n in notes if any(word in n for word in ACCUSING)]
    assert not bad, bad


@pytest.mark.parametrize("seed", range(3))
async def test_simultaneous_dials_between_every_pair_form_one_table(seed: int) -> None:
    notes = Notes()
    lobbies = [_lobby(n, "race", notes, seed) for n in range(3)]
    try:
        for lobby in lobbies:
            await lobby.start()
        # Every pair dials each other at the same moment, in both directions.
        for lobby in lobbies:
            _hint(lobby, *(o for o in lobbies if o is not lobby))
        formations = await _all_formed(lobbies)
        assert formations[0] == formations[1] == formations[2]
        _no_accusation(notes)
    finally:
        for lobby in lobbies:
            await lobby.close()


async def test_a_peer_restarted_after_the_reveal_moves_everyone_to_one_new_attempt() -> None:
    notes = Notes()
    a, b, c = (_lobby(n, "restart", notes) for n in range(3))
    b2: Lobby | None = None
    try:
        await _a_reveals_while_b_and_c_wait(a, b, c)
        first = a.formation.attempt
        # b's process dies and starts again: same key, a new nonce.
        await b.close()
        b2 = _lobby(1, "restart", notes, seed=7)
        await b2.start()
        _hint(b2, a, c)
        _hint(a, b2)
        formations = await _all_formed([a, b2, c])
        assert formations[0] == formations[1] == formations[2]
        # Attempts are each peer's own: a, whose nonce was out, moved on. With
        # dials running at once, c may reveal with a's old Hello just before
        # a moves; c's start-over then moves a once more. The cascade is
        # bounded: each step spends a nonce that was revealed, never a fresh one.
        assert first < a.formation.attempt <= first + 3
        assert a.formation.attempt != b2.formation.attempt
        _no_accusation(notes)
    finally:
        for lobby in (a, b, c, b2):
            if lobby is not None:
                await lobby.close()


async def test_a_lost_link_after_the_reveal_is_healed_not_restarted() -> None:
    notes = Notes()
    lobbies = [_lobby(n, "heal", notes) for n in range(3)]
    a, b, c = lobbies
    try:
        await _a_reveals_while_b_and_c_wait(a, b, c)
        attempts = [lobby.formation.attempt for lobby in lobbies]
        # a's link to b drops (as when a duplicate is closed); b and c then meet.
        await a.conns[b.identity.public].close("duplicate connection")
        _hint(b, c)
        formations = await _all_formed(lobbies)
        assert formations[0] == formations[1] == formations[2]
        assert [lobby.formation.attempt for lobby in lobbies] == attempts
        assert not any("starting the table over" in n for n in notes)
        _no_accusation(notes)
    finally:
        for lobby in lobbies:
            await lobby.close()
