"""The lobby on a LAN (issue 14, items 8-11), in one event loop on 127.0.0.1.

No mDNS and no namespace: the peers only dial addresses they were given or
told about. The namespace scenarios with real processes are in
test_lan_namespace.py.
"""

from __future__ import annotations

import asyncio
import itertools
import time

from gleek_p2p.lobby import Lobby, LobbyConfig
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import VARIANTS

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
