"""Three players forming under a flood of adverts: sockets held at once, and the time it costs.

A stranger announces ``--ours`` records of the players' table, each at a
tarpit (a listener on 127.0.0.2, .3, ... that accepts and never says a
word), and ``--others`` records of other tables, before anyone arrives. The
records travel in memory (``MemoryDiscovery``); the dials are real, on
loopback. Each run forms one table of three lobbies and reports the most
tarpit connections open at once (the three peers together) and the time to
the table. The baseline caps the hints' dials at 64 (``HintLimits(dials=64)``,
the old lobby's figure, which counted up to twice as many); the run is
``MAX_DIALS``. Ratios are the run's over the baseline's, measured in the
same process. Nothing leaves the machine.

    .venv/bin/python bench/dial_flood.py [--ours 100] [--others 150] [--hello 1.0] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Limits
from gleek_p2p.net.discovery import (
    Announcement,
    MemoryDiscovery,
    MemoryRegistry,
    PeerHint,
    _HintQueue,
)
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.net.hints import MAX_DIALS, HintLimits
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Lobby, LobbyConfig

STANDARD = VARIANTS["standard"]
TABLE = "flood/1"


class _Tarpits:
    def __init__(self) -> None:
        self.servers: list[asyncio.Server] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.open = 0
        self.most = 0
        self.accepted = 0
        self.tasks: set[asyncio.Task[None] | None] = set()

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        self.accepted += 1
        self.most = max(self.most, self.open)
        self.writers.append(writer)
        self.tasks.add(asyncio.current_task())
        try:
            while await reader.read(4096):
                pass
        except OSError:
            pass
        finally:
            self.open -= 1
            writer.close()

    async def start(self, count: int) -> list[tuple[str, int]]:
        out = []
        for i in range(count):
            host = f"127.0.{2 + i // 250}.{2 + i % 250}"
            server = await asyncio.start_server(self._hold, host, 0)
            self.servers.append(server)
            out.append((host, server.sockets[0].getsockname()[1]))
        return out

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for server in self.servers:
            server.close()
        # Each holder sees its end and returns (none is left for asyncio.run to cancel).
        await asyncio.gather(*(t for t in self.tasks if t is not None), return_exceptions=True)


async def _run(ours: int, others: int, hello: float, dials: int) -> dict[str, float]:
    registry = MemoryRegistry()
    tarpits = _Tarpits()
    wire = tuple(STANDARD.to_wire())
    for n, (host, port) in enumerate(await tarpits.start(ours)):
        txt = Announcement(f"forged-{n}", port, WIRE_VERSION, TABLE, os.urandom(8).hex(), 3,
                           wire).txt()
        registry.join(f"forged-{n}", PeerHint(host, port, txt, f"forged-{n}"), _HintQueue())
    for n in range(others):  # other tables: never dialled, whatever they say
        txt = Announcement(f"other-{n}", 9, WIRE_VERSION, f"elm{n}/1", os.urandom(8).hex(), 3,
                           wire).txt()
        registry.join(f"other-{n}", PeerHint("127.0.9.9", 9, txt, f"other-{n}"), _HintQueue())
    lobbies = [Lobby(Identity.generate(os.urandom(32)),
                     LobbyConfig(name=f"p{n}", table=TABLE, variant=STANDARD,
                                 listen=("127.0.0.1", 0), dial_interval=0.2,
                                 limits=Limits(hello_timeout=hello),
                                 hints=HintLimits(dials=dials)),
                     discovery=MemoryDiscovery(registry)) for n in range(3)]
    loop = asyncio.get_running_loop()
    try:
        began = loop.time()
        for lobby in lobbies:
            await lobby.start()
        await asyncio.gather(*(lobby.formed(120) for lobby in lobbies))
        took = loop.time() - began
    finally:
        for lobby in lobbies:
            await lobby.close()
        await tarpits.close()
    return {"dials": dials, "most_open": tarpits.most, "tarpit_dials": tarpits.accepted,
            "formed_s": round(took, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", type=int, default=100)
    parser.add_argument("--others", type=int, default=150)
    parser.add_argument("--hello", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base = asyncio.run(_run(args.ours, args.others, args.hello, 64))
    run = asyncio.run(_run(args.ours, args.others, args.hello, MAX_DIALS))
    result = {"ours": args.ours, "others": args.others, "hello_timeout_s": args.hello,
              "baseline": base, "run": run,
              "most_open_ratio": round(run["most_open"] / max(1, base["most_open"]), 3),
              "formed_ratio": round(run["formed_s"] / base["formed_s"], 3)}
    if args.json:
        print(json.dumps(result))
        return
    for name, r in (("baseline", base), ("run", run)):
        print(f"{name:>8}: at most {r['dials']} dials: {r['most_open']} tarpit sockets open at "
              f"once, {r['tarpit_dials']} tarpit dials, table formed in {r['formed_s']} s")
    print(f"{args.ours} records at tarpits, {args.others} of other tables, Hello timeout "
          f"{args.hello} s: sockets at once x{result['most_open_ratio']}, time to the table "
          f"x{result['formed_ratio']}")


if __name__ == "__main__":
    main()
