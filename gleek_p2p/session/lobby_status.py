"""Who is at the table, as the lobby sees it: a small typed snapshot for the UI.

The lobby (lobby.py) makes a new ``LobbyStatus`` each time a peer connects,
drops, or the table forms; a screen shows it while the table forms and keeps
the last one so the seats and fingerprints stay reachable during play.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LobbyStatus", "PeerStatus"]


@dataclass(frozen=True)
class PeerStatus:
    """One player: name and key fingerprint from its authenticated handshake."""

    name: str
    fingerprint: str
    address: tuple[str, int] | None = None
    """Where it listens (as we reach it), if known."""
    connected: bool = True
    seat: int | None = None
    """Its seat once the table has formed."""


@dataclass(frozen=True)
class LobbyStatus:
    """The table being formed or played: us, the others, and how many are missing."""

    table: str
    seats: int
    me: PeerStatus
    peers: tuple[PeerStatus, ...]
    """While forming: the peers connected now. Once formed: every other seat."""
    formed: bool = False
    port: int | None = None
    """The port this peer listens on (others may dial it with --peer)."""
    watchers: tuple[PeerStatus, ...] = ()
    """Who watches the table through this peer (``gleek watch``): no seat, no say."""

    @property
    def missing(self) -> int:
        """How many players are still needed (0 once formed)."""
        if self.formed:
            return 0
        return max(0, self.seats - 1 - sum(1 for p in self.peers if p.connected))
