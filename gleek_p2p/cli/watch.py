"""``gleek watch``: the command line of a watcher (``session/watch.py``).

With ``--peer`` it dials the seats given; otherwise it lists the tables on
the LAN (mDNS, announcing nothing) and watches the one named by ``--table``,
or the only playing table that accepts watchers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _
from gleek_p2p.log.keys import load_or_create_identity
from gleek_p2p.rules import parse_variant
from gleek_p2p.session.play import default_data_dir, parse_address, say
from gleek_p2p.session.watch import NoWatchers, WatchConfig, watch
from gleek_p2p.table.session import Table
from gleek_p2p.tools.report import text_report

LIST_SECONDS = 3.0


def _from_lan(args: argparse.Namespace) -> tuple[str, int, str, tuple[tuple[str, int], ...]]:
    """(table, hands, variant, addresses) of the table to watch, from the LAN's records."""
    from gleek_p2p.cli.tables import _browser, collect_tables

    tables = asyncio.run(collect_tables(_browser(args.interface or ()), LIST_SECONDS))
    if any(t.table == args.table and t.playing and t.watchers is False for t in tables):
        # What the records announce; a seat dialled anyway would refuse too (code 2).
        raise NoWatchers(_("the players of this table do not accept watchers"))
    playing = [t for t in tables if t.playing and t.watchers is not False
               and t.hands is not None and t.variant != ""
               and (args.table is None or t.table == args.table)]
    if len(playing) != 1:
        if args.table is not None:
            raise GleekError(_("no table {table} is playing and accepting watchers on the "
                               "local network").format(table=repr(args.table)))
        if not playing:
            raise GleekError(_("no table is playing and accepting watchers on the local "
                               "network"))
        raise GleekError(_("several tables are playing: name one with --table ({names})")
                         .format(names=", ".join(sorted(t.table for t in playing))))
    chosen = playing[0]
    assert chosen.hands is not None
    return chosen.table, chosen.hands, chosen.variant, chosen.addresses


def run_watch(args: argparse.Namespace) -> int:
    """``gleek watch``: exit as ``gleek verify`` would on the log kept (0 fair)."""
    if args.peer or args.no_mdns:
        table, hands, variant = args.table or "gleek", args.hands, args.variant
        peers = tuple(parse_address(p, "--peer") for p in args.peer)
    else:
        table, hands, variant, peers = _from_lan(args)
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    identity = load_or_create_identity(data_dir, os.urandom)
    from gleek_p2p.ui.narrate import hand_line

    def on_hand(watched: Table, hand: int) -> None:
        state = watched.hands[hand].state
        if state.ledgers:
            say(_("hand {number}: {line}").format(
                number=hand + 1, line=hand_line(state, watched.roster.names)))

    config = WatchConfig(name=args.name, table=f"{table}/{hands}", variant=parse_variant(variant),
                         peers=peers, data_dir=data_dir, timeout=args.timeout)
    say(_("watching table {table} as {name}").format(table=repr(table), name=args.name))
    result = asyncio.run(watch(identity, config, say, on_hand))
    if result.reason:
        say(result.reason)
    if result.report is None or result.path is None:
        say(_("no event was received: no log kept"))
        return 3
    print(text_report(result.report), flush=True)
    print(result.path, flush=True)
    return result.report.exit_code
