"""What one seat may know: the projection handed to bots and the UI."""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import card_name
from .engine import legal_actions, to_act
from .events import Event, event_to_wire
from .queries import ruff_pot, running_ledger, shown_slots, tricks_won
from .scoring import hand_ledger
from .state import HandLedger, Phase, State
from .variant import Variant, variant_name

_OVER = (Phase.HAND_OVER, Phase.SESSION_OVER)

__all__ = ["SeatView", "seat_view"]


class SeatView(NamedTuple):
    """A seat's view of the table. It never holds another seat's unshown card.

    Immutable (a ``NamedTuple``: built once per decision, so it must be cheap).

    ``hand`` is the seat's own slots with their cards (None where not yet
    revealed to it). ``talon`` and ``discards`` carry cards only for the
    talon taker. ``shown`` maps every slot shown to all seats to its card.
    """

    seat: int
    variant: str
    players: int
    phase: str
    hand_no: int
    session_hands: int
    dealer: int | None
    eldest: int | None
    to_act: int | None
    hand: tuple[tuple[int, int | None], ...]
    hand_counts: tuple[int, ...]
    talon: tuple[tuple[int, int | None], ...]
    talon_taker: int | None
    discards: tuple[tuple[int, int | None], ...]
    shown: dict[int, int]
    bids: tuple[tuple[int, int], ...]
    high_bid: int
    high_bidder: int | None
    ruff_stake: int
    ruff_put: tuple[int, ...]
    ruff_pot: int
    ruff_in: tuple[bool, ...]
    ruff_log: tuple[tuple[int, str, int], ...]
    ruff_shows: tuple[tuple[int, int, tuple[int, ...]], ...]
    ruff_winner: int | None
    declarations: tuple[tuple[int, tuple[int, ...]], ...]
    trump_named: bool
    trump: int | None
    tiddy: tuple[int, int] | None
    trick_leader: int | None
    trick: tuple[tuple[int, int, int], ...]
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    tricks_won: tuple[int, ...]
    ledgers: tuple[HandLedger, ...]
    running: HandLedger | None
    totals: tuple[int, ...]
    legal: tuple[Event, ...]

    def to_json(self) -> dict[str, Any]:
        """A plain dict (str keys; ints, strs, bools, None, lists, dicts) for bots.

        Cards appear both as ids and as ASCII names (``"AS"``).
        """

        def cards(pairs: tuple[tuple[int, int | None], ...]) -> list[dict[str, Any]]:
            return [
                {"slot": x, "card": c, "name": None if c is None else card_name(c)}
                for x, c in pairs
            ]

        def ledger(h: HandLedger | None) -> dict[str, Any] | None:
            if h is None:
                return None
            return {
                "hand": h.hand,
                "dealer": h.dealer,
                "phases": {k: list(v) for k, v in h.phases.items()},
                "trick_points": list(h.trick_points),
                "net": list(h.net),
            }

        return {
            "seat": self.seat,
            "variant": self.variant,
            "players": self.players,
            "phase": self.phase,
            "hand_no": self.hand_no,
            "session_hands": self.session_hands,
            "dealer": self.dealer,
            "eldest": self.eldest,
            "to_act": self.to_act,
            "hand": cards(self.hand),
            "hand_counts": list(self.hand_counts),
            "talon": cards(self.talon),
            "talon_taker": self.talon_taker,
            "discards": cards(self.discards),
            "shown": {str(k): v for k, v in sorted(self.shown.items())},
            "bids": [list(b) for b in self.bids],
            "high_bid": self.high_bid,
            "high_bidder": self.high_bidder,
            "ruff_stake": self.ruff_stake,
            "ruff_put": list(self.ruff_put),
            "ruff_pot": self.ruff_pot,
            "ruff_in": list(self.ruff_in),
            "ruff_log": [list(x) for x in self.ruff_log],
            "ruff_shows": [[s, suit, list(sl)] for s, suit, sl in self.ruff_shows],
            "ruff_winner": self.ruff_winner,
            "declarations": [[s, list(sl)] for s, sl in self.declarations],
            "trump_named": self.trump_named,
            "trump": self.trump,
            "tiddy": None if self.tiddy is None else list(self.tiddy),
            "trick_leader": self.trick_leader,
            "trick": [list(p) for p in self.trick],
            "tricks": [[lead, list(p), w] for lead, p, w in self.tricks],
            "tricks_won": list(self.tricks_won),
            "ledgers": [ledger(h) for h in self.ledgers],
            "running": ledger(self.running),
            "totals": list(self.totals),
            "legal": [event_to_wire(e) for e in self.legal],
        }


_NAMES: dict[Variant, str] = {}
_LEDGERS: dict[tuple[Any, ...], HandLedger] = {}


def _running(s: State) -> HandLedger | None:
    """``running_ledger`` memoized on what it depends on (views are asked for often)."""
    if s.hand_no < 0 or (s.ledgers and s.phase in _OVER):
        return running_ledger(s)
    key = (
        s.variant, s.hand_no, s.dealer, s.cards, s.tiddy_claimant, s.talon_taker,
        s.high_bid, s.ruff_played, s.ruff_winner, s.ruff_put, s.declarations,
        s.trump, s.tricks,
    )  # fmt: skip
    got = _LEDGERS.get(key)
    if got is None:
        if len(_LEDGERS) > 4096:
            _LEDGERS.clear()
        got = _LEDGERS[key] = hand_ledger(s)
    return got


def seat_view(state: State, seat: int) -> SeatView:
    """Project ``state`` onto what ``seat`` may know (works on full-information states)."""
    s = state
    v = s.variant
    n = v.players
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat}")
    cards = s.cards
    name = _NAMES.get(v)
    if name is None:
        name = _NAMES[v] = variant_name(v)
    seen = list(shown_slots(s))
    shown = dict(zip(seen, map(cards.__getitem__, seen), strict=True))  # played slots are known
    took = s.talon_taker == seat
    in_trick = s.phase is Phase.TRICKS
    if took:
        talon = tuple([(x, c if (c := cards[x]) >= 0 else None) for x in s.talon])
        discards = tuple([(x, c if (c := cards[x]) >= 0 else None) for x in s.discards])
    else:
        talon = tuple([(x, None) for x in s.talon])
        discards = tuple([(x, None) for x in s.discards])
    return SeatView(
        seat=seat,
        variant=name,
        players=n,
        phase=s.phase.value,
        hand_no=s.hand_no,
        session_hands=s.session_hands,
        dealer=s.dealer if s.dealer >= 0 else None,
        eldest=(s.dealer + 1) % n if s.dealer >= 0 else None,
        to_act=to_act(s),
        hand=tuple([(x, c if (c := cards[x]) >= 0 else None) for x in s.holding[seat]]),
        hand_counts=tuple([len(h) for h in s.holding]),
        talon=talon,
        talon_taker=s.talon_taker if s.talon_taker >= 0 else None,
        discards=discards,
        shown=shown,
        bids=s.bids,
        high_bid=s.high_bid,
        high_bidder=s.high_bidder if s.high_bidder >= 0 else None,
        ruff_stake=s.ruff_stake,
        ruff_put=s.ruff_put,
        ruff_pot=ruff_pot(s),
        ruff_in=s.ruff_in,
        ruff_log=s.ruff_log,
        ruff_shows=s.ruff_shows,
        ruff_winner=s.ruff_winner if s.ruff_winner >= 0 else None,
        declarations=s.declarations,
        trump_named=s.trump_named,
        trump=s.trump if s.trump_named else None,
        tiddy=(s.tiddy_claimant, s.tiddy_slot) if s.tiddy_claimant >= 0 else None,
        trick_leader=s.trick_leader if in_trick else None,
        trick=tuple([((s.trick_leader + i) % n, x, cards[x]) for i, x in enumerate(s.trick_plays)]),
        tricks=s.tricks,
        tricks_won=tricks_won(s),
        ledgers=s.ledgers,
        running=_running(s),
        totals=s.totals,
        legal=tuple(legal_actions(s, seat)),
    )
