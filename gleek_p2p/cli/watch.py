"""``gleek watch``: the command line of a watcher (``session/watch.py``).

With ``--peer`` it dials the seats given; otherwise it lists the tables on
the LAN (mDNS, announcing nothing) and watches the one named by ``--table``,
or the only playing table that accepts watchers.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _, pgettext
from gleek_p2p.base.terminal import put
from gleek_p2p.base.text import printable
from gleek_p2p.log.keys import Identity, load_or_create_identity
from gleek_p2p.net.tables import TableListing
from gleek_p2p.rules import parse_variant
from gleek_p2p.session.play import default_data_dir, parse_address, say
from gleek_p2p.session.watch import (
    Impersonated,
    NoWatchers,
    WatchConfig,
    WatchResult,
    watch,
    watched_log,
)
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.report import text_report

LIST_SECONDS = 3.0


def _from_lan(args: argparse.Namespace) -> TableListing:
    """The table to watch, from the LAN's records."""
    from gleek_p2p.cli.tables import _browser, collect_tables

    tables = asyncio.run(collect_tables(_browser(args.interface or ()), LIST_SECONDS))
    return choose_watched(tables, args.table)


def choose_watched(tables: Sequence[TableListing], name: str | None) -> TableListing:
    """The one table of ``tables`` to watch: the one named ``name``, or the only one playing.

    Two playing tables announcing one name with different players are both
    refused: one of them may be impersonating the other, and a watcher cannot
    tell which from the records.
    """
    if any(t.table == name and t.playing and t.watchers is False for t in tables):
        # What the records announce; a seat dialled anyway would refuse too (code 2).
        raise NoWatchers(_("the players of this table do not accept watchers"))
    playing = [t for t in tables if t.playing and t.watchers is not False
               and t.hands is not None and t.variant != "" and t.sittable
               and (name is None or t.table == name)]
    if any(not t.same_version for t in playing):
        # Its seats would refuse us: say why now, rather than dial to hear it.
        others = [t for t in playing if not t.same_version]
        playing = [t for t in playing if t.same_version]
        if not playing:
            from gleek_p2p.cli.tables import version_words

            raise GleekError(_("{table}: {why}").format(table=repr(others[0].table),
                                                      why=version_words(others[0])))
    if len(playing) != 1:
        if name is not None and playing:
            seats = pgettext("list", "; ").join(", ".join(_("{name} (key {key})").format(
                name=printable(s.name), key=s.fingerprint) for s in t.seated) for t in playing)
            raise Impersonated(_("{n} tables playing on the local network are named {table}, "
                                 "with other players ({seats}): one may be impersonating "
                                 "the other; not watching").format(
                n=len(playing), table=repr(name), seats=seats))
        if name is not None:
            raise GleekError(_("no table {table} is playing and accepting watchers on the "
                               "local network").format(table=repr(name)))
        if not playing:
            raise GleekError(_("no table is playing and accepting watchers on the local "
                               "network"))
        raise GleekError(_("several tables are playing: name one with --table ({names})")
                         .format(names=", ".join(sorted(t.table for t in playing))))
    return playing[0]


def run_watch(args: argparse.Namespace) -> int:
    """``gleek watch``: exit as ``gleek verify`` would on the log kept (0 fair)."""
    announced: frozenset[str] | None = None
    if args.peer or args.no_mdns:
        table, hands, variant = args.table or "gleek", args.hands, args.variant
        peers = tuple(parse_address(p, "--peer") for p in args.peer)
    else:
        chosen = _from_lan(args)
        assert chosen.hands is not None
        table, hands, variant, peers = (chosen.table, chosen.hands, chosen.variant,
                                        chosen.addresses)
        # The seats' keys the records announce: a seat feeding other keys is another table.
        announced = frozenset(s.fingerprint for s in chosen.seated)
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    identity = load_or_create_identity(data_dir, os.urandom)
    config = WatchConfig(name=args.name, table=f"{table}/{hands}", variant=parse_variant(variant),
                         peers=peers, data_dir=data_dir, timeout=args.timeout,
                         announced=announced)
    say(_("watching table {table} as {name}").format(table=repr(table), name=args.name))
    if args.headless or not (sys.stdin.isatty() and sys.stdout.isatty()):
        result = _headless(identity, config)
    else:
        result = _on_screen(identity, config)
    if result.reason:
        say(result.reason)
    if result.report is None or result.path is None:
        say(_("no event was received: no log kept"))
        return 3
    put(text_report(result.report))
    print(result.path, flush=True)
    return result.report.exit_code


def _headless(identity: Identity, config: WatchConfig) -> WatchResult:
    """Watch with a line per hand on stderr."""
    from gleek_p2p.ui.narrate import hand_line

    def on_hand(watched: Table, hand: int) -> None:
        state = watched.hands[hand].state
        if state.ledgers:
            say(_("hand {number}: {line}").format(
                number=hand + 1, line=hand_line(state, watched.roster.names)))

    return asyncio.run(watch(identity, config, say, on_hand))


def _on_screen(identity: Identity, config: WatchConfig) -> WatchResult:
    """Watch on the table screen until the end box is closed, or ``q``."""
    from gleek_p2p.ui.app import UserQuit
    from gleek_p2p.ui.watching import WatcherScreen

    # Log lines would tear the full screen: they go to a file beside the identity.
    logging.basicConfig(filename=str(config.data_dir / "gleek.log"), level=logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    screen = WatcherScreen()
    live = watched_log(config)
    try:
        return asyncio.run(screen.run_alongside(
            watch(identity, config, screen.note, on_event=screen.follow, live=live)))
    except UserQuit:
        say(_("you stopped watching"))
        report = verify_records(live.records) if live.records else None
        return WatchResult(live.path, live.table, report, "")
