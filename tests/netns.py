"""Private network namespaces, bridges, veths and netem for process-level tests.

Nothing here may touch the real network. A test runs a *scenario script*
under ``unshare --net --mount`` (``run_isolated``): that outer namespace has
no link to the outside, and ``/run/netns`` is a private tmpfs in it, so every
namespace, bridge and qdisc the script makes vanishes with it. Inside, the
script calls ``loopback()`` (one host: the loopback with multicast) or
``Bridge(n)`` (n hosts, each its own namespace with ``10.77.0.i/24`` on a
veth enslaved to one bridge), starts ``gleek bot`` processes with ``Bot``,
plays its faults, and prints a JSON summary that the test checks.

Also here: ``check_logs``, the one judgement every fault test makes: the
session either completed with byte-identical logs that verify fair, or ended
with a signed abort that blames the absent seat, and nothing stored was lost.
"""

from __future__ import annotations

import contextlib
import fcntl
import heapq
import json
import os
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

SUBNET = "10.77.0"
PORT = 7000
"""Every bridged host listens on this port of its own address."""

F = TypeVar("F", bound=Callable[..., Any])


# -- may we? -------------------------------------------------------------------------


def _problem() -> str | None:
    if sys.platform != "linux":
        return "network namespaces are a Linux feature"
    if os.geteuid() != 0:
        return "needs root to create private network namespaces"
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"needs the {tool!r} tool to create private network namespaces"
    probe = subprocess.run(["unshare", "--net", "--mount", "true"], capture_output=True,
                           text=True, check=False)
    if probe.returncode != 0:
        return f"cannot create network namespaces here: {probe.stderr.strip()}"
    if not os.path.exists("/dev/net/tun"):
        return "needs /dev/net/tun for the impairing hub"
    return None


PROBLEM = _problem()


def needs_netns(test: F) -> F:
    """Mark ``netns`` and skip, saying why, where namespaces cannot be made."""
    marked = pytest.mark.netns(test)
    skip = pytest.mark.skipif(PROBLEM is not None, reason=str(PROBLEM))
    return skip(marked)  # type: ignore[no-any-return]


def run_isolated(script: Path, args: Sequence[str], timeout: float) -> dict[str, Any]:
    """Run ``python SCRIPT ARGS`` in a fresh private namespace; its JSON summary."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    done = subprocess.run(
        ["unshare", "--net", "--mount", "--", sys.executable, str(script), *args],
        env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert done.returncode == 0, f"scenario failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# -- inside the outer namespace ----------------------------------------------------


def sh(*argv: str) -> None:
    """Run one network command; fail loudly."""
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")


def _assert_private() -> None:
    # The outer namespace of run_isolated has only a loopback: refuse to
    # build anything in a namespace that has a real interface.
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True,
                           check=True).stdout
    names = [line.split(":")[1].strip().split("@")[0] for line in links.splitlines()]
    foreign = [n for n in names if n != "lo" and not n.startswith(("veth", "br-gleek"))]
    if foreign:
        raise RuntimeError(f"not in a private namespace (links {foreign}); refusing")


def loopback() -> None:
    """Make this (private) namespace's loopback carry multicast, for mDNS."""
    _assert_private()
    sh("ip", "link", "set", "lo", "up")
    sh("ip", "link", "set", "lo", "multicast", "on")
    sh("ip", "route", "add", "224.0.0.0/4", "dev", "lo")


class Hub:
    """A userspace Ethernet hub over TAP devices: loss, delay and partitions.

    The VM kernels we run on lack ``sch_netem``, so ``tc netem`` is not an
    option: this hub plays its part. Every frame one port sends goes to
    every other port, each copy dropped with probability ``loss`` and
    delivered ``delay`` seconds later; a port in ``cut`` neither sends nor
    receives. One thread, started by ``Bridge``.
    """

    TUNSETIFF = 0x400454CA
    IFF_TAP = 0x0002
    IFF_NO_PI = 0x1000

    def __init__(self, seed: int = 0) -> None:
        self.fds: list[int] = []
        self.loss = 0.0
        self.delay = 0.0
        self.cut: set[int] = set()
        self.frames = 0
        self.dropped = 0
        self.resent = 0
        """Most times one TCP segment to or from a cut-off port was sent again
        (retransmitted) while cut."""
        self._macs: dict[int, bytes] = {}
        self._sent: dict[bytes, int] = {}
        self._random = random.Random(seed)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def tap(self, name: str) -> None:
        """Create the TAP device ``name`` (this process holds its one fd)."""
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(fd, self.TUNSETIFF,
                    struct.pack("16sH", name.encode(), self.IFF_TAP | self.IFF_NO_PI))
        self.fds.append(fd)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _count_resent(self, src: int, frame: bytes) -> None:
        """Count a TCP segment with data crossing a cut again (same addresses,
        ports and sequence number): the kernel retransmitting it."""
        cut = src in self.cut or any(frame[:6] == self._macs.get(c) for c in self.cut)
        if not cut or frame[12:14] != b"\x08\x00" or frame[23] != 6:  # IPv4, TCP
            return
        ip = (frame[14] & 0x0F) * 4
        tcp = 14 + ip
        data = int.from_bytes(frame[16:18], "big") - ip - (frame[tcp + 12] >> 4) * 4
        if data <= 0:
            return
        key = frame[26:34] + frame[tcp:tcp + 8]  # addresses, ports, sequence number
        again = self._sent[key] = self._sent.get(key, -1) + 1
        self.resent = max(self.resent, again)

    def _run(self) -> None:
        queue: list[tuple[float, int, int, bytes]] = []
        count = 0
        while not self._stop.is_set():
            wait = 0.05 if not queue else max(0.0, min(0.05, queue[0][0] - time.monotonic()))
            ready, _, _ = select.select(self.fds, [], [], wait)
            for fd in ready:
                src = self.fds.index(fd)
                with contextlib.suppress(OSError):
                    while True:
                        frame = os.read(fd, 65536)
                        self.frames += 1
                        self._macs[src] = frame[6:12]
                        if self.cut:
                            self._count_resent(src, frame)
                        for dst in range(len(self.fds)):
                            if dst == src or src in self.cut or dst in self.cut:
                                continue
                            if self.loss and self._random.random() < self.loss:
                                self.dropped += 1
                                continue
                            count += 1
                            heapq.heappush(queue, (time.monotonic() + self.delay, count, dst,
                                                   frame))
            now = time.monotonic()
            while queue and queue[0][0] <= now:
                _, _, dst, frame = heapq.heappop(queue)
                with contextlib.suppress(OSError):
                    os.write(self.fds[dst], frame)


class Bridge:
    """``n`` hosts ``gleek-h1..n`` with ``10.77.0.i/24`` on one segment.

    By default the segment is the kernel bridge ``br-gleek`` (veth pairs);
    with ``impaired=True`` it is a ``Hub`` (TAP devices), which can lose,
    delay and partition.
    """

    def __init__(self, n: int, *, impaired: bool = False) -> None:
        _assert_private()
        self.n = n
        self.hub = Hub() if impaired else None
        os.makedirs("/run/netns", exist_ok=True)
        sh("mount", "-t", "tmpfs", "tmpfs", "/run/netns")
        sh("ip", "link", "set", "lo", "up")
        if self.hub is None:
            sh("ip", "link", "add", "br-gleek", "type", "bridge")
            sh("ip", "link", "set", "br-gleek", "up")
        for i in range(1, n + 1):
            ns = self.ns(i)
            sh("ip", "netns", "add", ns)
            if self.hub is None:
                sh("ip", "link", "add", f"veth{i}", "type", "veth", "peer", "name", "eth0",
                   "netns", ns)
                sh("ip", "link", "set", f"veth{i}", "master", "br-gleek", "up")
            else:
                self.hub.tap(f"tap{i}")
                sh("ip", "link", "set", f"tap{i}", "netns", ns)
                sh("ip", "-n", ns, "link", "set", f"tap{i}", "name", "eth0")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "addr", "add", f"{self.addr(i)}/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up", "multicast", "on")
            sh("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
        if self.hub is not None:
            self.hub.start()

    @staticmethod
    def ns(i: int) -> str:
        return f"gleek-h{i}"

    @staticmethod
    def addr(i: int) -> str:
        return f"{SUBNET}.{i}"

    def wrap(self, i: int, argv: Sequence[str]) -> list[str]:
        """``argv`` run on host ``i`` (``ip netns exec`` execs it: same pid)."""
        return ["ip", "netns", "exec", self.ns(i), *argv]

    def impair(self, loss: float, delay: float) -> None:
        """Lose ``loss`` of the frames crossing the segment, delay the rest ``delay`` s."""
        assert self.hub is not None, "impairments need Bridge(impaired=True)"
        self.hub.loss, self.hub.delay = loss, delay

    def partition(self, i: int) -> None:
        """Cut host ``i`` off: every frame to or from it is dropped."""
        assert self.hub is not None, "partitions need Bridge(impaired=True)"
        self.hub.resent = 0
        self.hub._sent.clear()
        self.hub.cut.add(i - 1)

    def heal(self, i: int) -> None:
        assert self.hub is not None
        self.hub.cut.discard(i - 1)


@dataclass
class Bot:
    """One ``gleek bot`` process; restartable with the very same flags."""

    name: str
    argv: list[str]
    out: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    snapshots: list[str] = field(default_factory=list)
    """Copies of its log taken the moment it was killed."""

    def start(self) -> None:
        self.starts += 1
        stdout = open(self.out / f"{self.name}.{self.starts}.out", "wb")  # noqa: SIM115
        stderr = open(self.out / f"{self.name}.{self.starts}.err", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(self.argv, stdout=stdout, stderr=stderr,
                                     stdin=subprocess.DEVNULL)
        stdout.close()
        stderr.close()

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL, wait, and keep a copy of the log as it was left."""
        self.signal(signal.SIGKILL)
        assert self.proc is not None
        self.proc.wait()
        for log in sorted((self.data_dir / "sessions").glob("*.gleeklog")):
            copy = self.out / f"{self.name}.kill{self.starts}.gleeklog"
            shutil.copyfile(log, copy)
            self.snapshots.append(str(copy))

    @property
    def data_dir(self) -> Path:
        return Path(self.argv[self.argv.index("--data-dir") + 1])

    def wait(self, timeout: float) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """End the process if it still runs (never leave one behind)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()

    def stored(self) -> int:
        """How many bytes of session log it has stored so far."""
        return sum(p.stat().st_size for p in (self.data_dir / "sessions").glob("*.gleeklog"))

    def summary(self) -> dict[str, Any]:
        out = (self.out / f"{self.name}.{self.starts}.out").read_text().strip().splitlines()
        errs = [(self.out / f"{self.name}.{k}.err").read_text()
                for k in range(1, self.starts + 1)]
        return {
            "rc": None if self.proc is None else self.proc.returncode,
            "log": out[-1] if out else None,
            "files": [str(p) for p in (self.data_dir / "sessions").glob("*.gleeklog")],
            "stderr": errs,
            "starts": self.starts,
            "snapshots": self.snapshots,
        }


def bot_argv(
    name: str, data_dir: Path, *, listen: str, peers: Sequence[str] = (), hands: int = 2,
    table: str = "faults", timeout: float = 30.0, mdns: bool = False,
    interface: str | None = None, extra: Sequence[str] = (),
) -> list[str]:
    argv = [sys.executable, "-m", "gleek_p2p", "bot", "--name", name, "--table", table,
            "--data-dir", str(data_dir), "--hands", str(hands), "--timeout", str(timeout),
            "--listen", listen, "--strategy", "heuristic"]
    if not mdns:
        argv.append("--no-mdns")
    if interface is not None:
        argv += ["--interface", interface]
    for peer in peers:
        argv += ["--peer", peer]
    return [*argv, *extra]


def play(bots: Sequence[Bot], limit: float) -> dict[str, Any]:
    """Start every bot, wait up to ``limit`` seconds for all to end, stop the rest."""
    started = time.monotonic()
    try:
        for bot in bots:
            bot.start()
        for bot in bots:
            bot.wait(max(0.1, started + limit - time.monotonic()))
    finally:
        for bot in bots:
            bot.stop()
    return {"bots": {b.name: b.summary() for b in bots}, "seconds": time.monotonic() - started}


def wait_all(bots: Sequence[Bot], deadline: float) -> None:
    """Wait for every bot to exit; kill those still running at ``deadline``."""
    for bot in bots:
        if bot.wait(max(0.1, deadline - time.monotonic())) is None:
            bot.stop()


def emit(result: dict[str, Any]) -> None:
    """The scenario's summary, as the last stdout line."""
    print(json.dumps(result), flush=True)


# -- the judgement -------------------------------------------------------------------


@dataclass
class Judgement:
    complete: bool
    """True: three identical logs that verify fair; False: a signed abort."""
    blamed: list[set[int]]
    """For each log, the seats its abort blames (all empty when complete)."""
    names: tuple[str, ...]


def _records(path: Path) -> list[bytes]:
    from gleek_p2p.cli.commands import read_log

    return read_log(path)[0]


def check_logs(paths: Sequence[Path], snapshots: Sequence[Path] = ()) -> Judgement:
    """Assert the session completed everywhere or ended in a signed abort.

    Complete: every log byte-identical and fair. Aborted: every log is the
    same history up to its last record, which is an abort signed by its
    owner (or the log is a prefix of the others', for the absent seat). In
    both cases every ``snapshot`` (a log copied when its peer was killed)
    is a prefix of that peer's final log: nothing stored was lost.
    """
    from gleek_p2p.cli.commands import verify_file
    from gleek_p2p.log.envelope import decode_envelope
    from gleek_p2p.table import events as ev
    from gleek_p2p.table.roster import Roster

    records = [_records(p) for p in paths]
    assert all(records), f"an empty log among {paths}"
    roster = Roster.from_body(decode_envelope(records[0][0]).body)
    for snap in snapshots:
        before = _records(snap)
        assert any(r[: len(before)] == before for r in records), \
            f"{snap}: events stored before the kill are not in the final log"
    data = [p.read_bytes() for p in paths]
    if all(d == data[0] for d in data):
        report = verify_file(paths[0])
        if report.fair and report.complete:
            assert len(report.hands) == roster.hands
            return Judgement(True, [set() for _ in paths], roster.names)
    # Not complete: one common history, ended by signed aborts.
    blamed: list[set[int]] = []
    bodies = []
    for path, recs in zip(paths, records, strict=True):
        last = decode_envelope(recs[-1])
        if last.kind == ev.ABORT:
            report = verify_file(path)
            assert report.readable and not report.complete, path
            # A proven violation, or a claim (a timeout): the seats either names.
            named = [*report.violations, *report.claims]
            assert named or report.ending is not None, path
            blamed.append({v.seat for v in named if v.seat is not None})
            bodies.append(recs[:-1])
        else:
            blamed.append(set())
            bodies.append(recs)
    longest = max(bodies, key=len)
    for body in bodies:
        assert longest[: len(body)] == body, "the logs disagree before the abort"
    assert any(blamed), "no log ends in a signed abort, yet the logs differ"
    return Judgement(False, blamed, roster.names)
