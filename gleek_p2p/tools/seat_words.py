"""A roster's seats as the verify report, its replay and the game screen name them.

Two seats may share a name; each is then named with a piece of its key's
fingerprint (``base.seat_names``), the same on every screen and in every report.
"""

from __future__ import annotations

from gleek_p2p.base.seat_names import distinct_names
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.table.roster import Roster

__all__ = ["seat_labels"]


def seat_labels(roster: Roster) -> tuple[str, ...]:
    """Every seat's name, a name two seats share followed by a piece of each one's fingerprint."""
    return distinct_names(roster.names, [fingerprint(public) for public in roster.publics])
