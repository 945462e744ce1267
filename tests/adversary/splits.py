"""A third seat that tells each honest seat a different story about how it ends.

Ben (seat 1) is the liar; Anne (seat 0) and Cat (seat 2) are honest. At a
position ``p`` where Anne is to sign and Ben right after her, Ben gives Cat
one event for ``p`` (its ``leave``, its peer's ``local-failure`` abort, or a
``handover``) and plays on toward Anne as if it had not. Each honest seat
then does what its peer does (``session/peer.py``): Cat, whose session ended
at ``p`` (or who takes the handover), gets Anne's and Ben's events relayed
by Anne; Anne gets Ben's word for ``p`` relayed by Cat. ``Split`` holds
both honest logs as each honest peer keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gleek_p2p.base.errors import Cheating, GleekError
from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Table
from gleek_p2p.tools.selfplay import make_seats

ANNE, BEN, CAT = 0, 1, 2
NAMES = ("Anne", "Ben", "Cat")


@dataclass
class Split:
    anne: list[bytes]
    """Anne's log: Ben's move(s) after ``p``, then her abort once Ben's word reached her."""
    cat: list[bytes]
    """Cat's log: Ben's word for ``p`` (and her abort, if she could sign one)."""
    at: int
    """The position Ben told two stories about."""
    ben_after: int
    """The position of the event Ben signed toward Anne after ``p``."""
    refused: dict[int, GleekError] = field(default_factory=dict)
    """What each honest table raised when the other story reached it."""


def _next(table: Table, bot: RandomStrategy) -> Envelope:
    envelope = table.auto_event()
    if envelope is None:
        decision = table.decision()
        assert decision is not None
        envelope = table.act(choose_now(bot, decision.view, decision.legal))
    return envelope


def _abort_for(table: Table, refused: GleekError, other: Envelope) -> Envelope | None:
    """The abort an honest peer signs when ``other`` reaches it and is refused there."""
    if table.finished:
        return None  # nothing may follow the end of its log
    if isinstance(refused, Cheating):
        return table.abort_event(refused.seat, refused.reason, refused.evidence)
    if other.kind == ev.LEAVE:  # peer._crossed_leave
        return table.abort_event(None, "Ben left the table where this log holds another "
                                 "event", (other.encode(),), cause=ev.LEFT)
    if other.kind == ev.ABORT:  # peer._forked_abort
        return table.abort_event(None, "Ben ended the session where this log holds another "
                                 "event", (other.encode(),))
    return None


def split(story: Callable[[Table], Envelope], seed: bytes = b"split", *,
          min_events: int = 40, ben_due: bool = False) -> Split:
    """Play (random bots) past ``min_events`` until Anne is to sign with Ben due right
    after her; there Ben tells Cat ``story(ben's table)`` for Anne's position and
    plays on toward Anne after her. With ``ben_due``, the point is Ben's own turn:
    Cat gets the story for it, Anne the move Ben owes there."""
    tables = make_seats(VARIANTS["standard"], 2, seed, NAMES)
    bots = [RandomStrategy(seed + bytes([s])) for s in range(3)]
    relay: list[Envelope] = []
    while True:
        exp = tables[ANNE].expected()
        assert exp is not None, "the session ended before a split point"
        at = len(tables[ANNE].envelopes)
        if ben_due and exp.seat == BEN and at >= min_events:
            word = story(tables[BEN])
            break
        word = (story(tables[BEN]) if not ben_due and exp.seat == ANNE and at >= min_events
                else None)
        envelope = _next(tables[exp.seat], bots[exp.seat])
        tables[ANNE].receive(envelope)
        tables[BEN].receive(envelope)
        after = tables[ANNE].expected()
        if word is not None and after is not None and after.seat == BEN:
            relay.append(envelope)
            break
        tables[CAT].receive(envelope)
    # Ben plays on toward Anne; Cat takes Ben's other word for the same position.
    ben = _next(tables[BEN], bots[BEN])
    tables[ANNE].receive(ben)
    tables[CAT].receive(word)
    out = Split([], [], at, ben.seq)
    # Each honest seat relays what it took; each refuses the other story.
    for seat, table, relayed in ((CAT, tables[CAT], (*relay, ben)),
                                 (ANNE, tables[ANNE], (word,))):
        for other in relayed:
            try:
                table.receive(other)
            except GleekError as exc:
                out.refused.setdefault(seat, exc)
                abort = _abort_for(table, exc, other)
                if abort is not None:
                    table.receive(abort)
                break
    out.anne = list(tables[ANNE].encoded)
    out.cat = list(tables[CAT].encoded)
    return out


def leave(table: Table) -> Envelope:
    return table.leave_event()


def local_failure(table: Table) -> Envelope:
    return table.abort_event(None, "Ben's peer failed (an internal error); nobody is to blame",
                             cause=ev.LOCAL_FAILURE)


def handover(table: Table) -> Envelope:
    """Ben's handover at its own turn (use with ``ben_due``)."""
    return table.handover_event("strong")
