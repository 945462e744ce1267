"""``gleek tables`` and the table picker of ``gleek play`` without ``--table``.

Both only look: a browser reads the peers' discovery records for a few
seconds (announcing nothing) and ``net.tables`` turns them into a list of
tables. Everything shown came from strangers: names go through
``printable``, and the list says what the records claim, not what is true.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.base.terminal import put
from gleek_p2p.base.text import printable
from gleek_p2p.net.discovery import PeerHint
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.net.messages import MAX_TABLE_BYTES
from gleek_p2p.net.tables import MAX_RECORDS, TableClaim, TableListing, group_tables, parse_record
from gleek_p2p.table.roster import MAX_HANDS

__all__ = [
    "LIST_SECONDS",
    "Chosen",
    "choose_table",
    "collect_tables",
    "listing_json",
    "listing_lines",
    "run_tables",
]

LIST_SECONDS = 3.0
"""How long ``gleek play`` without ``--table`` listens for tables."""


class Browser(Protocol):
    """A discovery that can look without announcing (``ZeroconfDiscovery``, ``MemoryDiscovery``)."""

    async def browse(self) -> None: ...

    def hints(self) -> Any: ...

    async def close(self) -> None: ...


async def collect_tables(browser: Browser, seconds: float) -> list[TableListing]:
    """Listen for ``seconds``; the tables the records heard describe.

    Each announcing service counts once, by its latest record; at most
    ``MAX_RECORDS`` services are kept (the first heard).
    """
    latest: dict[str, TableClaim | None] = {}

    async def read() -> None:
        hint: PeerHint
        async for hint in browser.hints():
            key = hint.service or f"{hint.host}:{hint.port}"
            if key in latest or len(latest) < MAX_RECORDS:
                latest[key] = parse_record(hint.txt, (hint.host, hint.port))

    await browser.browse()
    try:
        reader = asyncio.ensure_future(read())
        await asyncio.wait({reader}, timeout=seconds)
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
    finally:
        await browser.close()
    return group_tables(c for c in latest.values() if c is not None)


def _seat_words(listing: TableListing) -> str:
    if not listing.seated:
        return _("nobody seated yet")
    return ", ".join(_("{name} (key {key})").format(name=printable(s.name), key=s.fingerprint)
                     for s in listing.seated)


def _state_words(listing: TableListing) -> str:
    if listing.playing:
        return _("playing")
    # Two counts, two plurals: one message agreed with the seated count only read
    # "1 libres" in French with two seated.
    taken = len(listing.seated)
    return _("forming, {taken}, {free}").format(
        taken=ngettext("{taken} of {seats} seats taken", "{taken} of {seats} seats taken",
                       taken).format(taken=taken, seats=listing.seats),
        free=ngettext("{free} free", "{free} free", listing.free).format(free=listing.free))


def _game_words(listing: TableListing) -> str:
    variant = printable(listing.variant) if listing.variant else _(
        "a variant this version does not know")
    if listing.hands is None:
        return _("{variant}, hands not said").format(variant=variant)
    return ngettext("{variant}, {hands} hand", "{variant}, {hands} hands",
                    listing.hands).format(variant=variant, hands=listing.hands)


def version_words(listing: TableListing) -> str:
    """Why a table whose players speak another wire version cannot be joined."""
    if listing.version is None:
        return _("its players do not say which protocol version they speak")
    return _("its players speak protocol version {theirs}, this program {ours}: "
             "update the older one").format(theirs=listing.version, ours=WIRE_VERSION)


def _watcher_words(listing: TableListing) -> str:
    if listing.watchers is None:
        return _("watchers not said")
    return _("watchers welcome") if listing.watchers else _("no watchers")


def listing_lines(tables: Sequence[TableListing], seconds: float) -> list[str]:
    """The list as a person reads it: two lines a table (a third when its players speak
    another wire version), numbered from 1."""
    if not tables:
        return [_("No table found on the local network within {seconds} s.").format(
            seconds=f"{seconds:g}")]
    lines = [ngettext("{n} table on the local network (as its players announce it):",
                      "{n} tables on the local network (as their players announce them):",
                      len(tables)).format(n=len(tables))]
    for number, listing in enumerate(tables, start=1):
        lines.append(f"{number:>3}. " + _("{table}: {state}; {game}; {watchers}").format(
            table=printable(listing.table), state=_state_words(listing),
            game=_game_words(listing), watchers=_watcher_words(listing)))
        if not listing.same_version:
            lines.append("       " + version_words(listing))
        lines.append("       " + _seat_words(listing))
    return lines


def listing_json(tables: Sequence[TableListing]) -> str:
    """The list as JSON (ASCII only, so a hostile name stays inert)."""
    return json.dumps({"tables": [{
        "table": t.table,
        "hands": t.hands,
        "variant": t.variant or None,
        "seats": t.seats,
        "state": "playing" if t.playing else "forming",
        "free": t.free,
        "watchers": t.watchers,
        "version": t.version,
        "seated": [{"name": s.name, "fingerprint": s.fingerprint} for s in t.seated],
        "addresses": [f"{h}:{p}" for h, p in t.addresses],
    } for t in tables]}, indent=2, ensure_ascii=True)


@dataclass(frozen=True)
class Chosen:
    """The person's choice: a table of the list (its hands and variant) or a new one."""

    table: str
    hands: int | None = None
    """None for a new table (the command's ``--hands``)."""
    variant: str | None = None
    """None for a new table (the command's ``--variant``)."""


def _why_not(listing: TableListing) -> str | None:
    if not listing.same_version:
        return version_words(listing)
    if listing.playing:
        return _("it is playing")
    # Not refused when its records claim every seat: a stranger's record merged
    # with the table's can claim them all, and the table's own peers refuse one
    # too many (signed), at the cost of a dial.
    if listing.variant == "" or listing.hands is None:
        return _("its variant or hands are unknown to this version")
    if not listing.sittable:
        return _("no peer can sit at it: its name with its hands is over {most} bytes or "
                 "holds a control character, or it has over {hands} hands").format(
            most=MAX_TABLE_BYTES, hands=MAX_HANDS)
    return None


def choose_table(
    tables: Sequence[TableListing],
    read: Callable[[str], str],
    write: Callable[[str], None],
    default: str = "gleek",
) -> Chosen:
    """Ask for a table of ``tables`` by number, or Enter for a new one.

    ``read(prompt)`` returns a line (``input`` works, at a terminal or on a
    pipe) and raises ``EOFError`` when the input ends: then no table is
    chosen (``GleekError``). A number of a table that cannot be joined is
    said why and asked again.
    """
    try:
        while True:
            answer = read(_("Pick a table by its number, or press Enter to start a new one: ")
                          if tables else _("Press Enter to start a new table: ")).strip()
            if not answer:
                name = read(_("Name of the new table (Enter: {default}): ").format(
                    default=default)).strip()
                return Chosen(name or default)
            if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(tables):
                listing = tables[int(answer) - 1]
                why = _why_not(listing)
                if why is None:
                    if listing.free == 0:
                        write(_("Table {table}: its records say every seat is taken, but "
                                "anyone on the local network can announce that; trying it "
                                "anyway (its players refuse one too many).").format(
                            table=printable(listing.table)))
                    return Chosen(listing.table, listing.hands, listing.variant)
                write(_("Table {table} cannot be joined: {why}.").format(
                    table=printable(listing.table), why=why))
                continue
            if not tables:
                write(_("There is no table to pick: press Enter to start a new one."))
                continue
            write(_("{answer} is not a table of the list: type a number from 1 to {n}, or "
                    "press Enter").format(answer=printable(answer[:40]), n=len(tables)))
    except EOFError:
        raise GleekError(_("no table chosen (the input ended)")) from None


def _browser(interfaces: Sequence[str]) -> Browser:
    from zeroconf import InterfaceChoice

    from gleek_p2p.net.discovery import ZeroconfDiscovery

    return ZeroconfDiscovery(list(interfaces) or InterfaceChoice.All)


def pick_table(args: argparse.Namespace, write: Callable[[str], None]) -> Chosen:
    """List the tables on the LAN and ask which to join (``gleek play`` without ``--table``)."""
    write(_("Looking for tables on the local network ({seconds} s)…").format(
        seconds=f"{LIST_SECONDS:g}"))
    tables = asyncio.run(collect_tables(_browser(args.interface or ()), LIST_SECONDS))
    for line in listing_lines(tables, LIST_SECONDS):
        write(line)

    def read(prompt: str) -> str:
        print(prompt, end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        if not sys.stdin.isatty():
            print(line.rstrip("\n"), file=sys.stderr, flush=True)
        return line

    return choose_table(tables, read, write)


def run_tables(args: argparse.Namespace) -> int:
    """``gleek tables``: list the tables the LAN announces; exit 0 (1 if none)."""
    tables = asyncio.run(collect_tables(_browser(args.interface), args.seconds))
    if args.json:
        print(listing_json(tables), flush=True)
    else:
        for line in listing_lines(tables, args.seconds):
            put(line)
    return 0 if tables else 1
