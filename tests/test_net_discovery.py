"""Discovery: the in-memory fake, and zeroconf inside private network namespaces.

Zeroconf sends multicast, so it only ever runs here inside namespaces made for
the test: one loopback-only namespace (three announcers on 127.0.0.1), and
three "hosts" (namespaces joined by veth pairs and a bridge) inside an outer
private namespace, so not one packet can reach a real network. These tests
need root and skip with the reason otherwise.

This file is also the script the namespaced processes run:
``python test_net_discovery.py peer IFACE NAME COUNT`` and
``python test_net_discovery.py conflict IFACE``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.net.discovery import (
    SERVICE_TYPE,
    Announcement,
    MemoryDiscovery,
    MemoryRegistry,
    PeerHint,
    ZeroconfDiscovery,
    announced_addresses,
    dialable_addresses,
    instance_name,
)

HERE = Path(__file__).resolve()
TABLE = "oak"


def announcement(name: str, port: int, fp: str | None = None) -> Announcement:
    return Announcement(
        instance=instance_name(name, os.urandom(4)),
        port=port,
        version=1,
        table=TABLE,
        fingerprint=fp or f"fp-{name}",
        seats=3,
        variant=(1, 2),
    )


# -- MemoryDiscovery ---------------------------------------------------------------


async def collect(disc: MemoryDiscovery, n: int) -> list[PeerHint]:
    out: list[PeerHint] = []
    async for hint in disc.hints():
        out.append(hint)
        if len(out) == n:
            break
    return out


async def test_memory_discovery_everyone_hears_of_everyone() -> None:
    registry = MemoryRegistry()
    discs = [MemoryDiscovery(registry, host=f"10.0.0.{i}") for i in range(3)]
    for i, d in enumerate(discs):
        await d.start(announcement(f"p{i}", 4000 + i))
    heard = await asyncio.wait_for(asyncio.gather(*(collect(d, 2) for d in discs)), 2)
    for i, hints in enumerate(heard):
        assert sorted(h.port for h in hints) == sorted({4000, 4001, 4002} - {4000 + i})
        assert all(h.txt["t"] == TABLE and h.txt["var"] == "1,2" for h in hints)
    for d in discs:
        await d.close()
    assert registry.members == {}


async def test_memory_discovery_close_ends_hints_and_names_are_unique() -> None:
    registry = MemoryRegistry()
    a, b = MemoryDiscovery(registry), MemoryDiscovery(registry)
    ann = announcement("a", 1)
    await a.start(ann)
    with pytest.raises(ProtocolError, match="already announced"):
        await b.start(ann)
    await a.close()
    assert [h async for h in a.hints()] == []
    # A restart may reuse the name once the old one left.
    await b.start(ann)
    await b.close()


def test_instance_names_are_dns_safe_and_unique() -> None:
    a = instance_name("Alice Smith!", b"\x01\x02")
    assert a == "alice-smith-0102"
    assert instance_name("", b"\xff") == "gleek-ff"
    assert instance_name("x", os.urandom(8)) != instance_name("x", os.urandom(8))


def test_announcement_txt_and_matching() -> None:
    ann = announcement("a", 5000, fp="abcd")
    assert ann.txt() == {"v": "1", "t": TABLE, "fp": "abcd", "n": "3", "var": "1,2",
                         "st": "forming", "w": "yes"}
    seated = Announcement(ann.instance, 1, 1, TABLE, "abcd", 3, (1, 2), playing=True,
                          seated=(("abcd", "Ann"), ("ef01", "Ben")), watchers=False)
    assert {k: v for k, v in seated.txt().items() if k in ("st", "w", "s0", "s1")} == {
        "st": "playing", "w": "no", "s0": "abcd Ann", "s1": "ef01 Ben"}
    assert ann.matches(PeerHint("h", 1, dict(ann.txt(), fp="other")))
    assert not ann.matches(PeerHint("h", 1, dict(ann.txt(), t="elm")))
    assert not ann.matches(PeerHint("h", 1, {}))


def test_loopback_is_announced_only_when_it_is_all_there_is() -> None:
    assert announced_addresses(["127.0.0.1", "192.168.1.5", "10.0.0.2"]) == [
        "192.168.1.5", "10.0.0.2"]
    assert announced_addresses(["127.0.0.1"]) == ["127.0.0.1"]
    assert announced_addresses(["127.0.0.1", "127.0.1.1", "127.0.0.1"]) == [
        "127.0.0.1", "127.0.1.1"]
    # No address at all (no loopback either): still somewhere to dial on this host.
    assert announced_addresses([]) == ["127.0.0.1"]
    assert announced_addresses(["::1", "fe80::1"]) == ["127.0.0.1"]


def test_a_loopback_record_is_dialled_only_when_it_names_nothing_else() -> None:
    assert dialable_addresses(["127.0.0.1"]) == ["127.0.0.1"]
    assert dialable_addresses(["127.0.0.1", "10.0.0.7"]) == ["10.0.0.7"]
    assert dialable_addresses([]) == []


def test_zeroconf_discovery_requires_interfaces() -> None:
    with pytest.raises(TypeError):
        ZeroconfDiscovery()  # type: ignore[call-arg]


# -- zeroconf in private namespaces -----------------------------------------------


def _netns_unavailable() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create private network namespaces"
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"needs the {tool!r} tool to create private network namespaces"
    probe = subprocess.run(
        ["unshare", "--net", "--mount", "true"], capture_output=True, text=True, check=False
    )
    if probe.returncode != 0:
        return f"cannot create network namespaces here: {probe.stderr.strip()}"
    return None


_NETNS_PROBLEM = _netns_unavailable()


def needs_netns(test: Callable[[Path], None]) -> Callable[[Path], None]:
    """Mark ``netns`` and skip, saying why, where namespaces cannot be made."""
    test = pytest.mark.netns(test)
    return pytest.mark.skipif(_NETNS_PROBLEM is not None, reason=str(_NETNS_PROBLEM))(test)


LOOPBACK_SCRIPT = """
set -eu
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo
for n in alice bob carol; do
  "$PY" "$SCRIPT" peer 127.0.0.1 "$n" 3 > "$OUT/$n.json" &
done
wait
"""

# Three hosts on a bridge. The outer namespace (unshare --net --mount) has no
# link to the real network; /run/netns is a private tmpfs, so no namespace
# name is visible outside and everything vanishes with the outer namespace.
BRIDGE_SCRIPT = """
set -eu
mkdir -p /run/netns
mount -t tmpfs tmpfs /run/netns
cleanup() {
  for i in 1 2 3; do ip netns del "gleek-h$i" 2>/dev/null || true; done
  ip link del br0 2>/dev/null || true
}
trap cleanup EXIT
ip link set lo up
ip link add br0 type bridge
ip link set br0 up
for i in 1 2 3; do
  ip netns add "gleek-h$i"
  ip link add "veth$i" type veth peer name eth0 netns "gleek-h$i"
  ip link set "veth$i" master br0 up
  ip -n "gleek-h$i" link set lo up
  ip -n "gleek-h$i" addr add "10.77.0.$i/24" dev eth0
  ip -n "gleek-h$i" link set eth0 up multicast on
  ip -n "gleek-h$i" route add 224.0.0.0/4 dev eth0
done
for i in 1 2 3; do
  ip netns exec "gleek-h$i" "$PY" "$SCRIPT" peer "10.77.0.$i" "host$i" 3 > "$OUT/host$i.json" &
done
wait
"""


def _run_isolated(script: str, tmp_path: Path, timeout: float) -> None:
    env = dict(os.environ, PY=sys.executable, SCRIPT=str(HERE), OUT=str(tmp_path))
    done = subprocess.run(
        ["unshare", "--net", "--mount", "--", "bash", "-c", textwrap.dedent(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _results(tmp_path: Path, names: list[str]) -> dict[str, dict[str, object]]:
    return {n: json.loads((tmp_path / f"{n}.json").read_text()) for n in names}


@needs_netns
def test_zeroconf_three_announcers_on_private_loopback(tmp_path: Path) -> None:
    _run_isolated(LOOPBACK_SCRIPT, tmp_path, 60)
    names = ["alice", "bob", "carol"]
    results = _results(tmp_path, names)
    for name, res in results.items():
        assert sorted(res["seen"]) == sorted(f"fp-{n}" for n in names if n != name)  # type: ignore[call-overload]
        assert all(host == "127.0.0.1" for host in res["hosts"])  # type: ignore[attr-defined]


@needs_netns
def test_zeroconf_three_hosts_on_a_private_bridge(tmp_path: Path) -> None:
    _run_isolated(BRIDGE_SCRIPT, tmp_path, 60)
    names = ["host1", "host2", "host3"]
    results = _results(tmp_path, names)
    for name, res in results.items():
        assert sorted(res["seen"]) == sorted(f"fp-{n}" for n in names if n != name)  # type: ignore[call-overload]
        i = name[-1]
        assert sorted(res["hosts"]) == sorted(f"10.77.0.{j}" for j in "123" if j != i)  # type: ignore[call-overload]


@needs_netns
def test_zeroconf_stale_name_does_not_block_a_restart(tmp_path: Path) -> None:
    script = """
    set -eu
    ip link set lo up
    ip link set lo multicast on
    ip route add 224.0.0.0/4 dev lo
    "$PY" "$SCRIPT" conflict 127.0.0.1 > "$OUT/conflict.json"
    """
    _run_isolated(script, tmp_path, 60)
    res = json.loads((tmp_path / "conflict.json").read_text())
    assert res["first"] != res["second"]
    assert res["second_found_first"]


# -- the script run inside the namespaces ------------------------------------------


async def _peer(iface: str, name: str, count: int, timeout: float = 20.0) -> dict[str, object]:
    """Announce, and report the fingerprints and hosts heard of (same table only)."""
    server = await asyncio.start_server(lambda r, w: None, iface, 0)
    port = server.sockets[0].getsockname()[1]
    ann = announcement(name, port)
    disc = ZeroconfDiscovery(interfaces=[iface])
    seen: dict[str, str] = {}
    try:
        await disc.start(ann)
        async with asyncio.timeout(timeout):
            async for hint in disc.hints():
                if ann.matches(hint) and hint.txt["fp"] != ann.fingerprint:
                    seen[hint.txt["fp"]] = hint.host
                if len(seen) == count - 1:
                    break
        # Stay announced a little so slower peers finish resolving us.
        await asyncio.sleep(2.0)
    finally:
        await disc.close()
        server.close()
    return {"seen": sorted(seen), "hosts": sorted(seen.values())}


async def _conflict(iface: str) -> dict[str, object]:
    """A killed run leaves its record: a restart with the same name still announces."""
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    stale = AsyncZeroconf(interfaces=[iface])
    instance = "stale-gleek"
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        f"{instance}.{SERVICE_TYPE}",
        port=1,
        properties={"t": "stale"},
        server="stale-gleek.local.",
        parsed_addresses=[iface],
    )
    await stale.async_register_service(info)
    ann = Announcement(instance, 2, 1, TABLE, "fp-new", 3, (1, 2))
    fresh = ZeroconfDiscovery(interfaces=[iface])
    try:
        await fresh.start(ann)  # would raise NonUniqueNameException without renaming
        second = fresh._info.name
        found = False
        async with asyncio.timeout(10):
            async for hint in fresh.hints():
                if hint.txt.get("t") == "stale":
                    found = True
                    break
    finally:
        await fresh.close()
        await stale.async_close()
    return {"first": info.name, "second": second, "second_found_first": found}


def _main(argv: list[str]) -> None:
    if argv[0] == "peer":
        out = asyncio.run(_peer(argv[1], argv[2], int(argv[3])))
    elif argv[0] == "conflict":
        out = asyncio.run(_conflict(argv[1]))
    else:
        raise SystemExit(f"unknown scenario {argv[0]!r}")
    print(json.dumps(out))


if __name__ == "__main__":
    _main(sys.argv[1:])
