"""A watcher reaching a seat listed after stalling addresses: dialled in turn vs raced.

``--stalls`` listeners on 127.0.0.1 accept and never say a word; a real
seat (a ``Listener``) is listed after them. The baseline dials the
addresses in turn, as ``gleek watch`` did, each held until the Hello
timeout (``--hello``); the race is ``net.race.race`` with its 250 ms
stagger. The figure is the time to a completed handshake with the seat,
and the race's ratio to the baseline measured in the same run. Loopback
only; nothing leaves the machine.

    .venv/bin/python bench/dial_race.py [--stalls 5] [--hello 1.0] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, connect, listen
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.race import DIAL_STAGGER, race
from gleek_p2p.rules import VARIANTS

VARIANT = VARIANTS["standard"]
Address = tuple[str, int]


def _offer(name: str, watcher: bool) -> Offer:
    return Offer(WIRE_VERSION, "bench/2", tuple(VARIANT.to_wire()), 3, name, 0, watcher=watcher)


async def _hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while await reader.read(4096):
            pass
    except OSError:
        pass
    writer.close()


async def _run(stalls: int, hello: float) -> dict[str, float]:
    servers = [await asyncio.start_server(_hold, "127.0.0.1", 0) for _ in range(stalls)]
    links: list[Connection] = []

    async def seated(conn: Connection) -> None:
        links.append(conn)

    seat = await listen("127.0.0.1", 0, identity=Identity.generate(bytes([1]) * 32),
                        offer=_offer("seat", watcher=False), nonce_commit=bytes(32),
                        on_connection=seated)
    addresses: list[Address] = [("127.0.0.1", s.sockets[0].getsockname()[1]) for s in servers]
    addresses.append(("127.0.0.1", seat.port))
    me = Identity.generate(bytes([9]) * 32)
    limits = Limits(hello_timeout=hello)

    async def dial(address: Address) -> Connection:
        return await connect(*address, identity=me, offer=_offer("watcher", watcher=True),
                             nonce_commit=bytes(32), limits=limits)

    async def drop(conn: Connection) -> None:
        await conn.close()

    loop = asyncio.get_running_loop()
    try:
        began = loop.time()
        for address in addresses:  # the baseline: in turn
            try:
                conn = await dial(address)
            except ProtocolError:
                continue
            await conn.close()
            break
        in_turn = loop.time() - began
        began = loop.time()
        outcome = await race(addresses, dial, stagger=DIAL_STAGGER, discard=drop,
                             expected=ProtocolError)
        raced = loop.time() - began
        assert outcome.won is not None and outcome.won[0] == addresses[-1]
        await outcome.won[1].close()
    finally:
        await seat.close()
        for link in links:
            await link.close()
        for server in servers:
            server.close()
    return {"stalls": stalls, "hello_timeout_s": hello, "in_turn_s": round(in_turn, 3),
            "raced_s": round(raced, 3), "ratio": round(raced / in_turn, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stalls", type=int, default=5)
    parser.add_argument("--hello", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(_run(args.stalls, args.hello))
    if args.json:
        print(json.dumps(result))
    else:
        print(f"seat after {result['stalls']} stalling addresses (Hello timeout "
              f"{result['hello_timeout_s']} s): in turn {result['in_turn_s']} s, raced "
              f"{result['raced_s']} s, ratio {result['ratio']}")


if __name__ == "__main__":
    main()
