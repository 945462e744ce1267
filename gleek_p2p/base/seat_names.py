"""Seat names told apart, for every screen and report that names seats.

Here, in the room every other may use, so the game screen (``ui/``), the
verify report and its replay (``tools/``) and anything else that names a seat
label two seats of one name the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["distinct_names"]


def distinct_names(names: Sequence[str], prints: Sequence[str]) -> tuple[str, ...]:
    """The seats' names, each told apart: a name two seats share gets its key's fingerprint.

    ``prints`` are the seats' key fingerprints (``log.keys.fingerprint``), in
    seat order. Names are chosen freely, so two friends may both be "Bob" (or a
    peer may copy a name on purpose): every sentence and score column would then
    name two seats alike. A shared name is followed by as much of the seat's
    fingerprint (the one the keys panel shows, to check by voice) as tells the
    labels apart; a name made to look like another's label ("Bob 15e0") only
    lengthens it. The seat's number ends a label as a last resort, so the labels
    always differ.
    """
    for length in range(4, 20):
        labels = tuple(name if names.count(name) == 1 else f"{name} {prints[seat][:length]}"
                       for seat, name in enumerate(names))
        if len(set(labels)) == len(labels):
            return labels
    return tuple(f"{name} {prints[seat]} #{seat}" for seat, name in enumerate(names))
