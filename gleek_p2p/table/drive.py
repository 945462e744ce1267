"""Driving tables by hand, in one process: the expected seat signs, every copy receives.

For self-play, tests, fuzzing and the adversary harness. The choice of a
move comes in as a function (the table knows no strategy), so this module
stays below the bots: ``choose(decision) -> event``. Sans-IO like the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import Event
from gleek_p2p.table.session import Decision, Table

__all__ = ["Choose", "deliver", "run", "sign_next", "step"]

Choose = Callable[[Decision], Event]
"""Pick one of ``decision.legal`` (a player's choice)."""


def sign_next(author: Table, choose: Choose | None = None) -> Envelope:
    """The author's next event: its protocol step, else its decision chosen by ``choose``."""
    envelope = author.auto_event()
    if envelope is not None:
        return envelope
    decision = author.decision()
    if decision is None:
        raise ProtocolError(f"seat {author.seat} has nothing to sign now",
                            code=ViolationCode.LOCAL_MISUSE)
    if choose is None:
        raise ProtocolError("a player's decision is needed and no one chooses",
                            code=ViolationCode.LOCAL_MISUSE)
    return author.act(choose(decision))


def deliver(tables: Iterable[Table], envelope: Envelope, data: bytes | None = None) -> bytes:
    """Every table receives the envelope (its encoding computed once); returns the encoding."""
    data = envelope.encode() if data is None else data
    for table in tables:
        table.receive(envelope, data)
    return data


def step(seats: Sequence[Table], choose: Choose | None = None,
         observers: Iterable[Table] = ()) -> tuple[Envelope, bytes]:
    """The seat expected by ``seats[0]`` signs its next event; seats and observers take it.

    ``seats[i]`` is seat ``i``'s table. Raises ``ProtocolError`` when nothing is
    expected (the session is over, or a hand audit failed).
    """
    expected = seats[0].expected()
    if expected is None:
        failure = seats[0].audit_failure
        raise ProtocolError(f"the session stopped: {failure}" if failure else
                            "no event is expected", code=ViolationCode.LOCAL_MISUSE)
    envelope = sign_next(seats[expected.seat], choose)
    return envelope, deliver([*seats, *observers], envelope)


def run(seats: Sequence[Table], choose: Choose | None = None, *,
        observers: Iterable[Table] = (),
        until: Callable[[], bool] | None = None,
        on_event: Callable[[Envelope, bytes], None] | None = None) -> list[bytes]:
    """Step until the session is over (or ``until()``); returns the encoded events signed."""
    watchers = list(observers)
    records: list[bytes] = []
    while not seats[0].finished and not (until is not None and until()):
        envelope, data = step(seats, choose, watchers)
        records.append(data)
        if on_event is not None:
            on_event(envelope, data)
    return records
