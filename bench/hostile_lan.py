"""A stranger on the LAN against table formation: forged mDNS records at tarpits, and a burst.

Everything runs in a private network namespace (``unshare --net``, loopback
only, multicast on): zeroconf never sees a real network. Needs root.

* ``formation``: three peers (each its own process, a real ``Lobby`` with
  zeroconf, on 127.0.1.1-3) arrive ``--stagger`` seconds apart, first on a
  quiet LAN (the baseline), then with ``--forged`` records of their table
  announced beforehand, each pointing at a "tarpit" (a listener on
  127.0.0.2, .3, ... that accepts and never says a word). The figure is the
  time from the first arrival until all three have formed, and its ratio
  to the quiet one (goal: within 2x).
* ``burst``: a seated peer (its own process) is flooded without pacing from
  32 source addresses (127.0.0.2-33), one connection after another, each
  saying a Hello and then nothing (``--idle``: nothing at all); meanwhile an honest seat connects
  ``--rounds`` times from 127.0.0.1, each given ``--deadline`` seconds.
  The figure is how many got in, beside the same connects unloaded.

    .venv/bin/python bench/hostile_lan.py [--stagger 6] [--forged 150] [--rounds 10] [--idle]
        [--only formation,burst] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Limits, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import encode_message
from gleek_p2p.rules import VARIANTS

STANDARD = VARIANTS["standard"]
HONEST = ("127.0.1.1", "127.0.1.2", "127.0.1.3")
"""Where the three players listen: after every tarpit in (host, port) order."""
FLOOD_SOURCES = tuple(f"127.0.0.{i}" for i in range(2, 34))
SEATS = tuple(bytes([n]) * 32 for n in (1, 2, 3))


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


def _private_loopback() -> None:
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True,
                           check=True).stdout
    names = [line.split(":")[1].strip() for line in links.splitlines()]
    if names != ["lo"]:
        raise SystemExit(f"not in a private namespace (links {names}); refusing")
    for argv in (["ip", "link", "set", "lo", "up"], ["ip", "link", "set", "lo", "multicast", "on"],
                 ["ip", "route", "add", "224.0.0.0/4", "dev", "lo"]):
        subprocess.run(argv, check=True, capture_output=True)


# -- one honest player (its own process) ---------------------------------------------


async def _player(name: str, address: str, table: str, timeout: float) -> dict[str, Any]:
    from gleek_p2p.net.discovery import ZeroconfDiscovery
    from gleek_p2p.session.lobby import Lobby, LobbyConfig

    began = time.monotonic()
    lobby = Lobby(Identity.generate(os.urandom(32)),
                  LobbyConfig(name=name, table=table, variant=STANDARD, listen=(address, 0)),
                  discovery=ZeroconfDiscovery(["127.0.0.1"], addresses=[address]))
    await lobby.start()
    try:
        await lobby.formed(timeout)
        formed: float | None = time.monotonic()
    except Exception:
        formed = None
    await lobby.close()
    return {"began": began, "formed": formed}


class _Tarpits:
    """``count`` silent listeners, one per address, and a forged record for each."""

    def __init__(self) -> None:
        self.servers: list[asyncio.Server] = []
        self.held: list[asyncio.StreamWriter] = []
        self.aiozc: Any = None

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.held.append(writer)
        with contextlib.suppress(Exception):
            await reader.read()  # never a word; wait for the dialler to give up

    async def start(self, count: int, table: str) -> None:
        if count > 250:
            raise SystemExit("at most 250 forged records (one per address 127.0.0.2-251)")
        from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

        from gleek_p2p.net.discovery import SERVICE_TYPE

        self.aiozc = AsyncZeroconf(interfaces=["127.0.0.1"])
        infos = []
        for i in range(count):
            host = f"127.0.0.{2 + i}"
            server = await asyncio.start_server(self._hold, host, 7777)
            self.servers.append(server)
            txt = {"v": str(WIRE_VERSION), "t": table, "fp": os.urandom(8).hex(), "n": "3",
                   "var": ",".join(str(v) for v in STANDARD.to_wire())}
            infos.append(AsyncServiceInfo(SERVICE_TYPE, f"forged-{i}.{SERVICE_TYPE}", port=7777,
                                          properties=txt, server=f"forged-{i}.local.",
                                          parsed_addresses=[host]))
        tasks = [await self.aiozc.async_register_service(info, cooperating_responders=True)
                 for info in infos]
        await asyncio.gather(*tasks)

    async def close(self) -> None:
        for writer in self.held:
            writer.close()
        for server in self.servers:
            server.close()
        if self.aiozc is not None:
            await self.aiozc.async_close()


async def _formation_trial(table: str, forged: int, stagger: float,
                           limit: float) -> dict[str, Any]:
    tarpits = _Tarpits()
    if forged:
        await tarpits.start(forged, table)
        await asyncio.sleep(2.0)  # the records are out before anyone arrives
    procs = []
    try:
        for i, address in enumerate(HONEST):
            if i:
                await asyncio.sleep(stagger)
            procs.append(await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--player", f"p{i}", address, table, str(limit),
                stdout=asyncio.subprocess.PIPE))
        outs = [json.loads((await p.communicate())[0].decode().strip().splitlines()[-1])
                for p in procs]
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
        await tarpits.close()
    first = min(o["began"] for o in outs)
    last = max(o["began"] for o in outs)
    if any(o["formed"] is None for o in outs):
        return {"forged": forged, "formed_s": None, "after_last_s": None, "limit_s": limit}
    done = max(o["formed"] for o in outs)
    return {"forged": forged, "formed_s": round(done - first, 2),
            "after_last_s": round(done - last, 2), "limit_s": limit}


async def measure_formation(forged: int, stagger: float) -> dict[str, Any]:
    limit = 2 * stagger + 40.0
    quiet = await _formation_trial("lan-quiet", 0, stagger, limit)
    attacked = await _formation_trial("lan-forged", forged, stagger, limit)
    ratio = (round(attacked["formed_s"] / quiet["formed_s"], 2)
             if attacked["formed_s"] and quiet["formed_s"] else None)
    return {"stagger_s": stagger, "quiet": quiet, "forged": attacked, "ratio": ratio}


# -- the burst ---------------------------------------------------------------------------


async def _seated_victim(table: str) -> None:
    from gleek_p2p.session.lobby import Lobby, LobbyConfig
    from gleek_p2p.table.roster import Roster

    keys = [Identity.generate(seed).public for seed in SEATS]
    roster = Roster(STANDARD, 1, tuple(keys), ("victim", "b", "c"), b"n" * 32)
    lobby = Lobby(Identity.generate(SEATS[0]),
                  LobbyConfig(name="victim", table=table, variant=STANDARD,
                              listen=("127.0.0.1", 0), dial_interval=3600),
                  roster=roster)
    await lobby.start()
    print(lobby.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await lobby.close()


async def _flood(port: int, table: str, seconds: float, idle: bool) -> None:
    """Connect from every source address at once, again and again, unpaced."""
    made = 0
    stop = time.monotonic() + seconds

    async def one_address(source: str) -> None:
        nonlocal made
        held: list[asyncio.StreamWriter] = []
        while time.monotonic() < stop:
            with contextlib.suppress(OSError):
                _reader, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=(source, 0))
                if not idle:
                    hello = _offer(table, "knock").hello(
                        Identity.generate(os.urandom(32)).public, os.urandom(32),
                        os.urandom(32))
                    writer.write(encode_frame(encode_message(hello)))
                held.append(writer)
                made += 1
            if len(held) > 8:
                held.pop(0).close()
            await asyncio.sleep(0)
        for writer in held:
            writer.close()

    began = time.monotonic()
    await asyncio.gather(*(one_address(s) for s in FLOOD_SOURCES))
    print(json.dumps({"connections": made, "per_s": round(made / (time.monotonic() - began))}),
          flush=True)


async def _honest_connect(port: int, table: str, deadline: float) -> float | None:
    limits = Limits(ping_interval=None, read_timeout=None)
    start = time.perf_counter()
    try:
        conn = await asyncio.wait_for(
            connect("127.0.0.1", port, identity=Identity.generate(SEATS[1]),
                    offer=_offer(table, "b"), nonce_commit=nonce_commitment(b"h" * 32),
                    limits=limits), deadline)
    except (TimeoutError, Exception):
        return None
    took = time.perf_counter() - start
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.close("done"), 2)
    return took


async def measure_burst(rounds: int, deadline: float, idle: bool) -> dict[str, Any]:
    table = "lan-burst"
    victim = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--victim", table,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert victim.stdout is not None and victim.stdin is not None
    port = int((await victim.stdout.readline()).decode())
    try:
        await asyncio.sleep(0.5)
        quiet = [await _honest_connect(port, table, deadline) for _ in range(rounds)]
        flood_s = rounds * (deadline + 0.5) + 2.0
        flood = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--flood", str(port), table, str(flood_s),
            "idle" if idle else "hello", stdout=asyncio.subprocess.PIPE)
        await asyncio.sleep(1.0)  # the burst is on before the honest peer knocks
        loaded = []
        for _ in range(rounds):
            loaded.append(await _honest_connect(port, table, deadline))
            await asyncio.sleep(0.5)
        out, _err = await flood.communicate()
        rate = json.loads(out.decode().strip().splitlines()[-1])
    finally:
        victim.stdin.close()
        try:
            await asyncio.wait_for(victim.wait(), 10)
        except TimeoutError:
            victim.kill()
    ok = [t for t in loaded if t is not None]
    q = [t for t in quiet if t is not None]
    return {"rounds": rounds, "deadline_s": deadline, "addresses": len(FLOOD_SOURCES),
            "flood": "idle" if idle else "hello",
            "burst_per_s": rate["per_s"], "quiet_in": len(q),
            "quiet_median_ms": round(statistics.median(q) * 1000, 1) if q else None,
            "burst_in": len(ok),
            "burst_median_ms": round(statistics.median(ok) * 1000, 1) if ok else None}


# -- driver ----------------------------------------------------------------------------


async def inside(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "formation" in args.only:
        out["formation"] = await measure_formation(args.forged, args.stagger)
    if "burst" in args.only:
        out["burst"] = await measure_burst(args.rounds, args.deadline, args.idle)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stagger", type=float, default=6.0)
    parser.add_argument("--forged", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--deadline", type=float, default=5.0)
    parser.add_argument("--only", default="formation,burst")
    parser.add_argument("--idle", action="store_true",
                        help="flood connections say nothing (default: a Hello, then nothing)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--player", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--victim", help=argparse.SUPPRESS)
    parser.add_argument("--flood", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.player:
        name, address, table, limit = args.player
        print(json.dumps(asyncio.run(_player(name, address, table, float(limit)))))
        return 0
    if args.victim:
        asyncio.run(_seated_victim(args.victim))
        return 0
    if args.flood:
        asyncio.run(_flood(int(args.flood[0]), args.flood[1], float(args.flood[2]),
                           args.flood[3] == "idle"))
        return 0
    if not args.inside:
        # Into a private network namespace: zeroconf must never reach a real network.
        argv = ["unshare", "--net", "--", sys.executable, __file__, "--inside", *sys.argv[1:]]
        return subprocess.run(argv, check=False).returncode
    _private_loopback()
    result = asyncio.run(inside(args))
    if args.json:
        print(json.dumps(result))
        return 0
    if "formation" in result:
        f = result["formation"]

        def said(trial: dict[str, Any]) -> str:
            if trial["formed_s"] is None:
                return f"not formed within {trial['limit_s']:g} s"
            return f"{trial['formed_s']} s ({trial['after_last_s']} s after the last arrival)"

        print(f"formation, 3 players {f['stagger_s']:g} s apart: quiet {said(f['quiet'])}; "
              f"with {f['forged']['forged']} forged records at tarpits {said(f['forged'])}"
              + (f" = {f['ratio']}x quiet" if f["ratio"] else ""))
    if "burst" in result:
        b = result["burst"]
        print(f"honest connects: {b['quiet_in']}/{b['rounds']} unloaded "
              f"(median {b['quiet_median_ms']} ms); {b['burst_in']}/{b['rounds']} under an "
              f"unpaced burst ({b['flood']}) from {b['addresses']} addresses at "
              f"{b['burst_per_s']} conn/s "
              f"(median {b['burst_median_ms']} ms, deadline {b['deadline_s']:g} s each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
