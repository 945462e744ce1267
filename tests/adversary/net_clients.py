"""Peers that knock on a table's door the wrong way: a fourth player, another version.

Each is a real handshake over TCP with a fresh identity, so what it gets back
is exactly what an unwelcome peer would see. Also a script, so a test can run
it inside a network namespace:
``python net_clients.py HOST PORT TABLE NAME VERSION`` prints the refusal.
"""

from __future__ import annotations

import asyncio
import os
import sys

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Limits, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.rules import VARIANTS


async def dial_with(
    address: tuple[str, int],
    *,
    table: str,
    name: str,
    version: int = WIRE_VERSION,
    variant: str = "standard",
    identity: Identity | None = None,
) -> None:
    """Dial ``address`` as a new peer (a fresh key unless ``identity``); ProtocolError
    carries the refusal reason.

    Returns only if the peer let us in (then the connection is closed again).
    """
    v = VARIANTS[variant]
    offer = Offer(version, table, tuple(v.to_wire()), v.players, name, 0)
    conn = await connect(
        address[0], address[1], identity=identity or Identity.generate(os.urandom(32)), offer=offer,
        nonce_commit=nonce_commitment(os.urandom(32)), limits=Limits(handshake_timeout=5.0),
    )
    await conn.close("just looking")


def _main(argv: list[str]) -> int:
    host, port, table, name, version = argv
    try:
        asyncio.run(dial_with((host, int(port)), table=table, name=name, version=int(version)))
    except ProtocolError as exc:
        print(f"refused: {exc.message}")
        return 0
    print("admitted")
    return 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
