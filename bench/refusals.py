"""Forged "table full" refusals against forming lobbies, and a real fourth player (127.0.0.1).

* ``forming``: three lobbies arriving ``--stagger`` seconds apart, each
  hearing the attackers' addresses first: three strangers answering with a
  plain ``Refuse(TABLE_FULL)`` after a Hello, and one with a key of its own
  that signs its refusal (proven, but one key's word). The figure is the
  time from the first arrival until all three formed, beside the same
  players on a quiet loopback (the baseline), as a ratio.
* ``fourth``: once a table formed, a fourth lobby given one seat's address:
  the time until it stops with ``TableFull`` (it needs two seats' proven
  refusals, so it dials the second seat the first refusal names).

    .venv/bin/python bench/refusals.py [--rounds 3] [--stagger 0.3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import time

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Listener
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Refuse, RefuseCode, encode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Address, Lobby, LobbyConfig, TableFull

STANDARD = VARIANTS["standard"]


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


def _lobby(name: str, table: str, peers: tuple[Address, ...] = ()) -> Lobby:
    return Lobby(Identity.generate(os.urandom(32)),
                 LobbyConfig(name=name, table=table, variant=STANDARD, listen=("127.0.0.1", 0),
                             dial_interval=0.1, peers=peers))


async def _plain(table: str, host: str) -> tuple[asyncio.Server, Address]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hello = _offer(table, "stranger").hello(Identity.generate(os.urandom(32)).public,
                                                os.urandom(32), os.urandom(32))
        writer.write(encode_frame(encode_message(hello)))
        writer.write(encode_frame(encode_message(Refuse("table full", RefuseCode.TABLE_FULL))))
        with contextlib.suppress(Exception):
            await writer.drain()
            await asyncio.wait_for(reader.read(), 5)
        writer.close()

    server = await asyncio.start_server(answer, host, 0)
    return server, (host, server.sockets[0].getsockname()[1])


async def _signed(table: str, host: str) -> tuple[Listener, Address]:
    me = Identity.generate(os.urandom(32))
    seated = tuple(sorted([me.public] + [Identity.generate(os.urandom(32)).public
                                         for _ in range(2)]))
    full = Refuse("table full", RefuseCode.TABLE_FULL, seated, ("",) * 3, (0,) * 3)

    async def never(conn: Connection) -> None:
        await conn.close()

    listener = Listener(identity=me, offer=_offer(table, "mallory"),
                        nonce_commit=nonce_commitment(os.urandom(32)), on_connection=never,
                        admit=lambda hello: full, on_refused=lambda refused: None)
    await listener.start(host, 0)
    return listener, (host, listener.port)


async def _three(table: str, attackers: list[Address], stagger: float) -> list[Lobby]:
    lobbies: list[Lobby] = []
    for name in ("ann", "ben", "cat"):
        lobby = _lobby(name, table)
        await lobby.start()
        for address in attackers:
            lobby._heard(address)
        for other in lobbies:
            lobby._heard(("127.0.0.1", other.port))
            other._heard(("127.0.0.1", lobby.port))
        lobbies.append(lobby)
        await asyncio.sleep(stagger)
    await asyncio.wait_for(asyncio.gather(*(lobby.formed(60) for lobby in lobbies)), 60)
    return lobbies


async def forming(round_: int, stagger: float, attacked: bool) -> float:
    table = f"bench-{round_}-{attacked}"
    servers: list[asyncio.Server] = []
    listener: Listener | None = None
    attackers: list[Address] = []
    if attacked:
        for i in range(3):
            server, address = await _plain(table, f"127.0.0.{2 + i}")
            servers.append(server)
            attackers.append(address)
        listener, address = await _signed(table, "127.0.0.5")
        attackers.append(address)
    began = time.monotonic()
    lobbies = await _three(table, attackers, stagger)
    took = time.monotonic() - began
    for lobby in lobbies:
        await lobby.close()
    for server in servers:
        server.close()
    if listener is not None:
        await listener.close()
    return took


async def fourth(round_: int) -> float:
    table = f"four-{round_}"
    lobbies = await _three(table, [], 0.0)
    dan = _lobby("dan", table, (("127.0.0.1", lobbies[0].port),))
    began = time.monotonic()
    await dan.start()
    try:
        await dan.formed(600)
        raise SystemExit("the fourth player was seated?")
    except TableFull:
        took = time.monotonic() - began
    for lobby in [*lobbies, dan]:
        await lobby.close()
    return took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stagger", type=float, default=0.3)
    args = parser.parse_args()
    quiet, attacked, stops = [], [], []
    for r in range(args.rounds):
        quiet.append(await forming(r, args.stagger, False))
        attacked.append(await forming(r, args.stagger, True))
        stops.append(await fourth(r))
    q, a = statistics.median(quiet), statistics.median(attacked)
    print(f"forming, quiet:            median {q:.2f} s over {args.rounds} rounds")
    print(f"forming, forged refusals:  median {a:.2f} s ({a / q:.2f}x quiet)")
    print(f"fourth player stops after: median {statistics.median(stops):.2f} s "
          f"(max {max(stops):.2f} s)")


if __name__ == "__main__":
    asyncio.run(main())
