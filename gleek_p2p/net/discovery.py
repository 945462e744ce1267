"""Finding peers: an interface, an in-memory fake, and mDNS/DNS-SD (zeroconf).

A discovery record is a hint, never trust: it says "try host:port", and the
handshake decides who is really there. The TXT keys are ``v`` (protocol
version), ``t`` (table name), ``fp`` (key fingerprint), ``n`` (seats) and
``var`` (variant options, comma-separated); then the table's public facts,
for ``gleek tables`` (SPEC 5): ``st`` (``forming`` or ``playing``), ``w``
(watchers welcome: ``yes``/``no``) and ``s0``, ``s1``, ... (who is seated,
``FINGERPRINT NAME`` each, the announcer first). The announcer updates them
whenever who is at its table changes; a reader takes them as claims.

Zeroconf sends multicast: ``ZeroconfDiscovery`` always takes the interfaces
to use as a required parameter, and tests run it only inside private network
namespaces.

A machine with no network (a laptop offline, three bots on one host) has only
loopback addresses: it announces those, and peers that hear a record naming
only loopback addresses dial them (such a record can only come from the same
host, since a loopback-only responder sends on the loopback alone).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gleek_p2p.base.errors import ProtocolError

__all__ = [
    "SERVICE_TYPE",
    "Announcement",
    "Discovery",
    "MemoryDiscovery",
    "MemoryRegistry",
    "PeerHint",
    "ZeroconfDiscovery",
    "announced_addresses",
    "dialable_addresses",
    "instance_name",
    "is_loopback",
    "record_name",
]

SERVICE_TYPE = "_gleek._tcp.local."
MAX_HINTS_QUEUED = 256
MAX_NAMES = 512
"""Most service names a ZeroconfDiscovery follows (records are free to forge)."""
RESOLVERS = 8
"""Resolutions a ZeroconfDiscovery runs at once."""
MAX_SEATED = 8
"""Most ``s<i>`` entries a record carries (and a reader reads)."""
MAX_RECORD_NAME = 32
"""Characters of a seated player's name put in a record (a TXT string holds 255 bytes)."""


def instance_name(name: str, suffix: bytes) -> str:
    """A DNS-safe service instance name: ``name`` plus a per-run random suffix.

    The suffix (random bytes, passed in) makes each run's name unique, so a
    stale record left by a killed run never blocks the next announcement.
    """
    label = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:40] or "gleek"
    return f"{label}-{suffix.hex()[:16]}"


def record_name(name: str) -> str:
    """``name`` cut to fit a TXT entry: ``MAX_RECORD_NAME`` characters, 120 UTF-8 bytes."""
    cut = name[:MAX_RECORD_NAME]
    while len(cut.encode()) > 120:
        cut = cut[:-1]
    return cut


def is_loopback(address: str) -> bool:
    """True for an IP address of this host's loopback (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def announced_addresses(local: Sequence[str]) -> list[str]:
    """The IPv4 addresses to put in our A record, of the host's ``local`` ones.

    Every non-loopback address; loopback ones only when there is nothing
    else, so an offline machine still announces somewhere to dial.
    """
    ipv4 = [a for a in dict.fromkeys(local) if ":" not in a]
    outside = [a for a in ipv4 if not is_loopback(a)]
    return outside or [a for a in ipv4 if is_loopback(a)] or ["127.0.0.1"]


def dialable_addresses(record: Sequence[str]) -> list[str]:
    """The addresses of a resolved record worth dialling.

    A record that names real addresses and loopback ones is dialled on the
    real ones (its loopback means the announcer's host, not ours); a record
    naming only loopback addresses came from this very host.
    """
    outside = [a for a in record if not is_loopback(a)]
    return outside or list(record)


@dataclass(frozen=True)
class Announcement:
    """What a peer announces: where it listens and which table it wants."""

    instance: str
    port: int
    version: int
    table: str
    fingerprint: str
    seats: int
    variant: tuple[int, ...] = ()
    playing: bool = False
    """False while the table forms, True once it has formed."""
    seated: tuple[tuple[str, str], ...] = ()
    """(fingerprint, name) of who sits at the table as the announcer sees it,
    the announcer first (at most ``MAX_SEATED``)."""
    watchers: bool = True
    """Whether the table accepts watchers."""

    def txt(self) -> dict[str, str]:
        """The TXT record for this announcement."""
        record = {
            "v": str(self.version),
            "t": self.table,
            "fp": self.fingerprint,
            "n": str(self.seats),
            "var": ",".join(str(v) for v in self.variant),
            "st": "playing" if self.playing else "forming",
            "w": "yes" if self.watchers else "no",
        }
        for i, (fp, name) in enumerate(self.seated[:MAX_SEATED]):
            record[f"s{i}"] = f"{fp} {record_name(name)}"
        return record

    def matches(self, hint: PeerHint) -> bool:
        """True if ``hint`` announces the same version, table, seats and variant.

        Only a filter to skip pointless dials: the handshake checks for real.
        """
        ours = self.txt()
        return all(hint.txt.get(k) == ours[k] for k in ("v", "t", "n", "var"))


@dataclass(frozen=True)
class PeerHint:
    """A peer that may be at ``host:port``; ``txt`` is its unverified TXT record."""

    host: str
    port: int
    txt: dict[str, str] = field(default_factory=dict, hash=False)
    service: str = field(default="", compare=False)
    """The announcing service's instance name (one per running peer)."""


class Discovery(Protocol):
    """Announce ourselves and learn where other peers may be."""

    async def start(self, announcement: Announcement) -> None:
        """Announce ``announcement`` and start looking for others."""
        ...

    async def update(self, announcement: Announcement) -> None:
        """Announce ``announcement`` (same instance and port) in place of the last one."""
        ...

    def hints(self) -> AsyncIterator[PeerHint]:
        """Hints as they come; ends on close.

        A record that still stands comes again from time to time (a hint
        book ages out the hints that fail and stop coming).
        """
        ...

    async def close(self) -> None:
        """Withdraw the announcement and stop looking."""
        ...


class _HintQueue:
    """A bounded queue of hints that ends when closed; overflow drops new hints."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[PeerHint | None] = asyncio.Queue(MAX_HINTS_QUEUED + 1)
        self._closed = False

    def put(self, hint: PeerHint) -> None:
        # Hints repeat, so dropping one when the reader lags loses nothing for long.
        if not self._closed and self._queue.qsize() < MAX_HINTS_QUEUED:
            self._queue.put_nowait(hint)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(None)

    async def iterate(self) -> AsyncIterator[PeerHint]:
        while True:
            hint = await self._queue.get()
            if hint is None:
                self._queue.put_nowait(None)  # later iterators end too
                return
            yield hint


class MemoryRegistry:
    """The shared in-process 'network' of MemoryDiscovery instances."""

    def __init__(self) -> None:
        self.members: dict[str, tuple[PeerHint, _HintQueue]] = {}
        self.lookers: list[_HintQueue] = []
        """Queues of those who only look (``MemoryDiscovery.browse``)."""

    def look(self, queue: _HintQueue) -> None:
        """Hear of every member, current and future, without being one."""
        for hint, _queue in self.members.values():
            queue.put(hint)
        self.lookers.append(queue)

    def join(self, instance: str, hint: PeerHint, queue: _HintQueue) -> None:
        if instance in self.members:
            raise ProtocolError(f"the instance name {instance!r} is already announced")
        for other_hint, other_queue in self.members.values():
            other_queue.put(hint)
            queue.put(other_hint)
        for looker in self.lookers:
            looker.put(hint)
        self.members[instance] = (hint, queue)

    def update(self, instance: str, hint: PeerHint) -> None:
        """A member's record changed: every other member hears it again."""
        if instance not in self.members:
            return
        queue = self.members[instance][1]
        self.members[instance] = (hint, queue)
        for name, (_other, other_queue) in self.members.items():
            if name != instance:
                other_queue.put(hint)
        for looker in self.lookers:
            looker.put(hint)

    def leave(self, instance: str) -> None:
        self.members.pop(instance, None)


class MemoryDiscovery:
    """A Discovery over a MemoryRegistry: every member hears of every other."""

    def __init__(self, registry: MemoryRegistry, host: str = "127.0.0.1") -> None:
        self.registry = registry
        self.host = host
        self._queue = _HintQueue()
        self._instance: str | None = None

    async def start(self, announcement: Announcement) -> None:
        """Announce; ProtocolError if the instance name is taken."""
        hint = PeerHint(self.host, announcement.port, announcement.txt(),
                        announcement.instance)
        self.registry.join(announcement.instance, hint, self._queue)
        self._instance = announcement.instance

    async def browse(self) -> None:
        """Only look: hear every member's record, announce nothing."""
        self.registry.look(self._queue)

    async def update(self, announcement: Announcement) -> None:
        """Replace our record; the other members hear it."""
        if self._instance is not None:
            self.registry.update(self._instance, PeerHint(
                self.host, announcement.port, announcement.txt(), self._instance))

    def hints(self) -> AsyncIterator[PeerHint]:
        """Hints of the other members, current and future; ends on close."""
        return self._queue.iterate()

    async def close(self) -> None:
        """Leave the registry and end ``hints``."""
        if self._instance is not None:
            self.registry.leave(self._instance)
            self._instance = None
        if self._queue in self.registry.lookers:
            self.registry.lookers.remove(self._queue)
        self._queue.close()


class ZeroconfDiscovery:
    """mDNS/DNS-SD discovery with python-zeroconf's asyncio API.

    ``interfaces`` is required: a list of local addresses (e.g.
    ``["127.0.0.1"]`` in a private namespace) or ``zeroconf.InterfaceChoice.All``.
    ``addresses`` are the IPv4 addresses put in our A record (default: the
    IPv4 entries of ``interfaces``, or with All ``announced_addresses`` of
    the host's: loopback only when the host has no other address).
    A name conflict (a stale record of a killed run) makes zeroconf pick a new
    instance name rather than fail.

    Zeroconf reports a service once, when its records appear or change; every
    ``refresh`` seconds the services still standing (at most ``MAX_NAMES``)
    are resolved again, from the cache, and their hints given again. At most
    ``RESOLVERS`` resolutions run at once, whatever the number of records.
    """

    def __init__(
        self,
        interfaces: Sequence[str] | Any,
        *,
        addresses: Sequence[str] | None = None,
        resolve_timeout_ms: int = 3000,
        refresh: float = 30.0,
    ) -> None:
        self.interfaces = interfaces
        self.addresses = addresses
        self.resolve_timeout_ms = resolve_timeout_ms
        self.refresh = refresh
        self._queue = _HintQueue()
        self._aiozc: Any = None
        self._browser: Any = None
        self._info: Any = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._names: dict[str, None] = {}
        """Services seen and not removed, oldest first."""
        self._wanted: asyncio.Queue[str] = asyncio.Queue()
        self._pending: set[str] = set()
        """Names waiting in ``_wanted`` (each waits once)."""

    def _our_addresses(self) -> list[str]:
        import ifaddr  # zeroconf's own dependency

        if self.addresses is not None:
            return list(self.addresses)
        if isinstance(self.interfaces, list | tuple):
            return [a for a in self.interfaces if isinstance(a, str) and ":" not in a]
        local = [str(ip.ip) for adapter in ifaddr.get_adapters() for ip in adapter.ips
                 if ip.is_IPv4]
        return announced_addresses(local)

    async def start(self, announcement: Announcement) -> None:
        """Register our service and browse for others."""
        from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

        self._aiozc = AsyncZeroconf(interfaces=self.interfaces)
        self._info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{announcement.instance}.{SERVICE_TYPE}",
            port=announcement.port,
            properties=announcement.txt(),
            server=f"{announcement.instance}.local.",
            parsed_addresses=self._our_addresses(),
        )
        await self._aiozc.async_register_service(self._info, allow_name_change=True)
        self._browse()

    async def browse(self) -> None:
        """Only look: browse for the peers' records, announce nothing (``gleek tables``)."""
        from zeroconf.asyncio import AsyncZeroconf

        self._aiozc = AsyncZeroconf(interfaces=self.interfaces)
        self._browse()

    async def update(self, announcement: Announcement) -> None:
        """Announce our record's new TXT (the table's facts changed)."""
        from zeroconf.asyncio import AsyncServiceInfo

        if self._aiozc is None or self._info is None:
            return
        old = self._info
        self._info = AsyncServiceInfo(
            SERVICE_TYPE, old.name, port=old.port, properties=announcement.txt(),
            server=old.server, parsed_addresses=old.parsed_addresses(),
        )
        await self._aiozc.async_update_service(self._info)

    def _browse(self) -> None:
        from zeroconf import ServiceStateChange
        from zeroconf.asyncio import AsyncServiceBrowser

        def on_change(**kwargs: Any) -> None:
            name = kwargs["name"]
            if kwargs["state_change"] is ServiceStateChange.Removed:
                self._names.pop(name, None)
                return
            if self._info is not None and name.lower() == self._info.name.lower():
                return
            self._follow(name)

        for _ in range(RESOLVERS):
            self._spawn(self._resolver())
        self._spawn(self._refresher())
        self._browser = AsyncServiceBrowser(
            self._aiozc.zeroconf, [SERVICE_TYPE], handlers=[on_change]
        )

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _follow(self, name: str) -> None:
        # When full, the names followed stay (a flood of new names cannot push
        # them out) and a new one is still resolved once, now.
        if name not in self._names and len(self._names) < MAX_NAMES:
            self._names[name] = None
        self._want(name)

    def _want(self, name: str) -> None:
        if name not in self._pending and len(self._pending) < MAX_NAMES:
            self._pending.add(name)
            self._wanted.put_nowait(name)

    async def _refresher(self) -> None:
        while True:
            await asyncio.sleep(self.refresh)
            for name in list(self._names):
                self._want(name)

    async def _resolver(self) -> None:
        while True:
            name = await self._wanted.get()
            self._pending.discard(name)
            with contextlib.suppress(Exception):
                await self._resolve(name)

    async def _resolve(self, name: str) -> None:
        from zeroconf import IPVersion
        from zeroconf.asyncio import AsyncServiceInfo

        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(self._aiozc.zeroconf, self.resolve_timeout_ms):
            return
        txt = {k: v for k, v in info.decoded_properties.items() if v is not None}
        if info.port is None:
            return
        for host in dialable_addresses(info.parsed_addresses(IPVersion.V4Only)):
            self._queue.put(PeerHint(host, info.port, txt, name))

    def hints(self) -> AsyncIterator[PeerHint]:
        """Hints for every other peer seen, again every ``refresh`` s; ends on close."""
        return self._queue.iterate()

    async def close(self) -> None:
        """Cancel browsing, send goodbyes, close the sockets, end ``hints``."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await self._browser.async_cancel()
            self._browser = None
        if self._aiozc is not None:
            await self._aiozc.async_close()
            self._aiozc = None
        self._queue.close()
