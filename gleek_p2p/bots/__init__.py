"""Bots: the ``Strategy`` API and ``run_peer`` to put one at a LAN table.

A bot in a few lines::

    from gleek_p2p.bots import Strategy, run_peer

    class Lowest(Strategy):
        def choose(self, view, legal):
            return legal[0]

    run_peer(Lowest(), name="lowest")
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gleek_p2p.bots.strategy import RandomStrategy, Strategy

if TYPE_CHECKING:
    from gleek_p2p.session.peer import Outcome

__all__ = ["RandomStrategy", "Strategy", "run_peer"]


def run_peer(
    strategy: Strategy,
    *,
    name: str,
    table: str = "gleek",
    peers: Sequence[str] = (),
    data_dir: str | Path | None = None,
    hands: int = 12,
    variant: str = "standard",
    listen: str = "0.0.0.0:0",
    mdns: bool = True,
    interfaces: Sequence[str] = (),
    timeout: float = 120.0,
    watchers: bool = True,
) -> Outcome:
    """Join a table on the LAN as a bot and play a whole session (blocking).

    ``peers`` are ``HOST:PORT`` addresses to dial without mDNS. The session
    log is kept under ``data_dir`` (default: the user's data directory).
    ``watchers``: whether the table accepts watchers (``gleek watch``), as
    this peer announces it and answers them (``--watchers yes|no``).
    """
    # Here, not at the top: the bots need the session only to join one, and
    # ``simulate`` and ``arena`` load the strategies without the network.
    from gleek_p2p.session.config import PeerConfig
    from gleek_p2p.session.play import run_bot_session

    config = PeerConfig(
        name=name, table=table, hands=hands, variant=variant, listen=listen,
        peers=tuple(peers), mdns=mdns, interfaces=tuple(interfaces), timeout=timeout,
        data_dir=Path(data_dir) if data_dir else None, watchers=watchers,
    )
    return run_bot_session(strategy, config)
