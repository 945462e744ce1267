"""Run every seat of a hand in one process, passing messages between them.

For tests, the benchmark and the test vectors: no networking, no table, just
the deck objects and a list standing in for the broadcast log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gleek_p2p.base.errors import GleekError

from .messages import CURRENT_VERSION, DeckMessage
from .protocol import DeckProtocol
from .suites import Secp256k1Suite

#: Cards each seat is dealt in Gleek (and Gleek for two).
HAND_SIZE = 12


def deal_layout(n_seats: int, n_slots: int, hand_size: int = HAND_SIZE) -> dict[int, list[int]]:
    """Seat s gets slots s*hand..s*hand+hand-1; the talon is whatever is left."""
    return {s: list(range(s * hand_size, (s + 1) * hand_size)) for s in range(n_seats)}


def talon_slots(n_seats: int, n_slots: int, hand_size: int = HAND_SIZE) -> list[int]:
    """The slots not dealt to any seat."""
    return list(range(n_seats * hand_size, n_slots))


@dataclass
class LocalHand:
    """All seats of one hand plus an observer, wired together by ``broadcast``."""

    seats: list[DeckProtocol]
    observer: DeckProtocol
    log: list[DeckMessage] = field(default_factory=list)

    @classmethod
    def new(
        cls,
        seeds: Sequence[bytes],
        cards: Sequence[int],
        hand_id: bytes,
        order: Sequence[int] | None = None,
        version: int = CURRENT_VERSION,
    ) -> LocalHand:
        n = len(seeds)
        turn = list(range(n)) if order is None else list(order)
        seats = [DeckProtocol(s, n, cards, hand_id, turn, seeds[s], version) for s in range(n)]
        return cls(seats, DeckProtocol(None, n, cards, hand_id, turn, None))

    @property
    def everyone(self) -> list[DeckProtocol]:
        return [*self.seats, self.observer]

    def broadcast(self, msg: DeckMessage, *, strict: bool = True) -> dict[int | None, GleekError]:
        """Feed ``msg`` to every seat and the observer; log it.

        With ``strict`` the first error is raised; otherwise the errors are
        returned by receiver (``None`` for the observer) and the rest still
        receive the message.
        """
        errors: dict[int | None, GleekError] = {}
        for obj in self.everyone:
            try:
                obj.receive(msg)
            except GleekError as exc:
                if strict:
                    raise
                errors[obj.seat] = exc
        self.log.append(msg)
        return errors

    def run_setup(self) -> None:
        """Commits, shuffles and locks, each seat in its turn."""
        self.run_until(None)

    def run_until(self, target: tuple[str, int] | None) -> list[tuple[str, int]]:
        """Run the honest set-up until ``target`` is the step due; return the steps taken."""
        steps = []
        while (step := self.observer.expected()) != target:
            if step is None:
                raise ValueError(f"the set-up ended before {target}")
            steps.append(step)
            kind, seat = step
            obj = self.seats[seat]
            if kind == "commit":
                self.broadcast(obj.make_commit())
            elif kind == "shuffle":
                self.broadcast(obj.make_shuffle())
            else:
                self.broadcast(obj.make_lock())
        return steps

    def deal(self, layout: dict[int, list[int]]) -> None:
        """Every seat publishes its keys for the slots dealt to each other seat."""
        for giver in range(len(self.seats)):
            for taker, slots in layout.items():
                if taker != giver and slots:
                    self.broadcast(self.seats[giver].make_keys(slots))

    def give(self, slots: Sequence[int], taker: int) -> None:
        """Open ``slots`` to ``taker`` alone (the talon to the auction winner)."""
        for giver in range(len(self.seats)):
            if giver != taker:
                self.broadcast(self.seats[giver].make_keys(slots))

    def show(self, seat: int, slots: Sequence[int]) -> None:
        """``seat`` publishes its own keys for ``slots``: everyone sees the cards."""
        self.broadcast(self.seats[seat].make_keys(slots))

    def reveal_seeds(self) -> None:
        """Every seat opens its seed, in seat order."""
        for obj in self.seats:
            self.broadcast(obj.make_seed_reveal())

    def full_deal(self) -> dict[int, int]:
        """Open every slot with every seat's keys: what full knowledge of the seeds gives."""
        observer = self.observer
        final = observer.final_deck
        suite = observer._suite
        to_card = {point: card for card, point in enumerate(suite.card_points)}
        if observer.version == 4:
            assert isinstance(suite, Secp256k1Suite)
            layers = [suite.shuffle_scalar(seat._seed or b"", seat.hand_id, s)
                      for s, seat in enumerate(self.seats)]
            return {slot: to_card[suite.unstrip_all(point, layers)]
                    for slot, point in enumerate(final)}
        all_keys = [
            suite.lock_keys(seat._seed or b"", seat.hand_id, s, len(final))
            for s, seat in enumerate(self.seats)
        ]
        deal: dict[int, int] = {}
        for slot, point in enumerate(final):
            keys = [k[slot] for k in all_keys]
            deal[slot] = to_card[suite.unlock(point, keys)]
        return deal

    def audit(self) -> list[dict[int, int]]:
        """Every seat's and the observer's audit (they must agree)."""
        return [obj.audit() for obj in self.everyone]
