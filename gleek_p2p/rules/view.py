"""What one seat may know: the projection handed to bots and the UI."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from .cards import card_name
from .engine import _DECIDING, legal_actions
from .events import Bid, Event, event_to_wire
from .limits import max_bid
from .queries import running_ledger
from .scoring import ANTE, hand_ledger, ledger_after_trick
from .state import HandLedger, Phase, State
from .variant import Variant, ruling_switches, variant_name

_OVER = (Phase.HAND_OVER, Phase.SESSION_OVER)
_TRICKS = Phase.TRICKS
_Pairs = tuple[tuple[int, int | None], ...]

__all__ = ["SeatView", "listed_moves", "seat_view"]


class SeatView(NamedTuple):
    """A seat's view of the table. It never holds another seat's unshown card.

    Immutable (a ``NamedTuple``: built once per decision, so it must be cheap).

    ``hand`` is the seat's own slots with their cards (None where not yet
    revealed to it). ``talon`` and ``discards`` carry cards only for the
    talon taker. ``shown`` maps every slot shown to all seats to its card.
    """

    seat: int
    variant: Variant
    """The session's variant, its rulings included: bots read its switches here."""
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
    public: State
    """The session's state with no card in it (``cards`` and ``where`` unknown, -1):
    whose turn, the bids, stakes, slots held, tricks as slots. What the seat
    knows of the cards is in ``hand``, ``talon``, ``discards`` and ``shown``;
    a sampled deal is this state with cards filled in (``bots.search.determinize``),
    so it keeps every field the state has."""

    @property
    def players(self) -> int:
        """Seats at the table (``variant.players``)."""
        return self.variant.players

    @property
    def rulings(self) -> tuple[str, ...]:
        """The ruling switches on in this session (SPEC 1.5), e.g. ``score_sheet_tricks``."""
        return _name(self.variant)[1]

    @property
    def max_bid(self) -> int:
        """The highest bid for the talon in this session (``limits.max_bid``)."""
        return _name(self.variant)[2]

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
            "variant": _name(self.variant)[0],
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
            "legal": [event_to_wire(e) for e in listed_moves(self.legal)],
            "rulings": list(self.rulings),
            "max_bid": self.max_bid,
        }


def listed_moves(legal: Sequence[Event]) -> list[Event]:
    """The moves a bot is shown: ``legal``, but an auction's bids only by the lowest.

    An open auction allows hundreds of bids, every amount from the lowest to
    the session's ``max_bid``; listing the pass and the lowest bid says it
    all (protocol/bot-protocol.md).
    """
    out: list[Event] = []
    bid = False
    for e in legal:
        if type(e) is Bid:
            if bid:
                continue  # keyed by each move's kind: a decision may offer several
            bid = True
        out.append(e)
    return out


# Single-entry memos, each a ``(key, value)`` tuple read and replaced whole,
# so a concurrent caller always sees a consistent pair. Keys are compared
# with ``==``, which for the tuples consecutive states share is an identity
# check per field: cheap, and still exact for equal copies.
_NAME: tuple[Variant | None, tuple[str, tuple[str, ...], int]] = (None, ("", (), 0))
_HIDDEN: tuple[Any, tuple[_Pairs, _Pairs]] = (None, ((), ()))


class _Public(NamedTuple):
    """What every seat sees alike, up to the last finished trick."""

    shown: dict[int, int]
    """Slots shown before the current trick, with their cards."""
    won: tuple[int, ...]
    ledger: HandLedger | None
    """The running ledger (None before the first deal)."""


_PUBLIC: tuple[Any, _Public] = (None, _Public({}, (), None))


def _public(s: State, key: tuple[Any, ...]) -> _Public:
    """The shown slots, tricks won and running ledger (memoized on ``key`` and the tricks).

    ``key`` holds every other field they depend on. They move only when the
    talon is taken, the ruff is won, cards are shown or a trick ends; after a
    trick only that trick is added.
    """
    global _PUBLIC
    tricks = s.tricks
    last, got = _PUBLIC
    if last is not None and last[0] == key:
        if last[1] == tricks:
            return got
        if _one_more_trick(tricks, last[1]):
            cards = s.cards
            shown = got.shown.copy()
            _lead, plays, winner = tricks[-1]
            for x in plays:
                shown[x] = cards[x]
            count = list(got.won)
            count[winner] += 1
            ledger = got.ledger
            got = _Public(
                shown, tuple(count), None if ledger is None else ledger_after_trick(ledger, s)
            )
            _PUBLIC = (key, tricks), got
            return got
    cards = s.cards
    shown = {}
    won = [0] * s.variant.players
    for _lead, plays, winner in tricks:
        won[winner] += 1
        for x in plays:
            shown[x] = cards[x]
    for _seat, _suit, slots in s.ruff_shows:
        for x in slots:
            shown[x] = cards[x]
    for _seat, slots in s.declarations:
        for x in slots:
            shown[x] = cards[x]
    if s.tiddy_slot >= 0:
        shown[s.tiddy_slot] = cards[s.tiddy_slot]
    got = _Public(shown, tuple(won), None if s.hand_no < 0 else hand_ledger(s))
    _PUBLIC = (key, tricks), got
    return got


def _one_more_trick(tricks: tuple[Any, ...], before: tuple[Any, ...]) -> bool:
    """Whether ``tricks`` is ``before`` and one more trick."""
    return len(tricks) == len(before) + 1 and tricks[:-1] == before


_SLOTS: tuple[tuple[int, ...] | None, _Pairs] = (None, ())


def _slot_pairs(cards: tuple[int, ...]) -> _Pairs:
    """``(slot, card or None)`` for every slot, shared by all views of one deal."""
    global _SLOTS
    last, got = _SLOTS
    if last is not cards:
        got = tuple([(x, c if c >= 0 else None) for x, c in enumerate(cards)])
        _SLOTS = cards, got
    return got


def _hidden(talon: tuple[int, ...], discards: tuple[int, ...]) -> tuple[_Pairs, _Pairs]:
    """The talon and discards with no cards: what the seats but the taker know."""
    global _HIDDEN
    last, got = _HIDDEN
    if last is not None and last[0] is talon and last[1] is discards:
        return got
    got = tuple([(x, None) for x in talon]), tuple([(x, None) for x in discards])
    _HIDDEN = (talon, discards), got
    return got


def _name(v: Variant) -> tuple[str, tuple[str, ...], int]:
    """The variant's name, the ruling switches it has on and its highest bid."""
    global _NAME
    last, got = _NAME
    if last is v:
        return got
    got = (variant_name(v), tuple(k for k, on in ruling_switches(v).items() if on),
           max_bid(v))
    _NAME = v, got
    return got


_BLANK: dict[int, tuple[int, ...]] = {}
"""``(-1,) * size`` per size: the cards and ``where`` of a state with no card known."""


def _blank(size: int) -> tuple[int, ...]:
    got = _BLANK.get(size)
    if got is None:
        got = _BLANK[size] = (-1,) * size
    return got


_new = tuple.__new__
_VIEW_ORDER = itemgetter(*SeatView._fields)
_CARDS = State._fields.index("cards")
_WHERE = State._fields.index("where")


def _without_cards(s: State) -> State:
    """``s`` with no card known: ``s._replace(cards=..., where=...)``, about three times
    as fast, and of the same type (a state with more fields keeps them)."""
    fields = list(s)
    fields[_CARDS] = _blank(len(s.cards))
    fields[_WHERE] = _blank(len(s.where))
    return _new(type(s), fields)


def seat_view(state: State, seat: int) -> SeatView:
    """Project ``state`` onto what ``seat`` may know (works on full-information states).

    It reads the state by field name only, so a field added to ``State`` is
    carried in ``public`` and breaks nothing here.
    """
    s = state
    v = s.variant
    n = v.players
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat}")
    cards, phase, dealer, taker = s.cards, s.phase, s.dealer, s.talon_taker
    trick_plays, turn = s.trick_plays, s.turn
    # Everything the shown slots and the running ledger depend on, but the tricks.
    key = (
        v, s.hand_no, dealer, cards, s.tiddy_claimant, s.tiddy_slot, taker,
        s.high_bid if taker >= 0 else 0,
        (s.ruff_winner, s.ruff_put) if s.ruff_winner >= 0 and s.ruff_played else None,
        s.ruff_shows, s.declarations, s.trump,
    )  # fmt: skip
    public = _public(s, key)
    shown = public.shown.copy()
    if trick_plays:
        for x in trick_plays:
            shown[x] = cards[x]  # played slots are known
        leader = s.trick_leader
        trick = tuple([((leader + i) % n, x, cards[x]) for i, x in enumerate(trick_plays)])
    else:
        trick = ()
    pairs = _slot_pairs(cards)
    talon, discards = s.talon, s.discards
    if taker == seat:
        talon_v = tuple([pairs[x] for x in talon])
        discards_v = tuple([pairs[x] for x in discards])
    else:
        talon_v, discards_v = _hidden(talon, discards)
    deciding = phase in _DECIDING
    tiddy_claimant, ruff_winner, high_bidder = s.tiddy_claimant, s.ruff_winner, s.high_bidder
    ruff_put = s.ruff_put
    # By name: a dict gathered in field order in C (a call with 38 keywords
    # costs several times more, and seat_view runs at every decision).
    return _new(SeatView, _VIEW_ORDER({
        "seat": seat,
        "variant": v,
        "phase": phase._value_,
        "hand_no": s.hand_no,
        "session_hands": s.session_hands,
        "dealer": dealer if dealer >= 0 else None,
        "eldest": (dealer + 1) % n if dealer >= 0 else None,
        "to_act": turn if deciding else None,
        "hand": tuple([pairs[x] for x in s.holding[seat]]),
        "hand_counts": tuple(map(len, s.holding)),
        "talon": talon_v,
        "talon_taker": taker if taker >= 0 else None,
        "discards": discards_v,
        "shown": shown,
        "bids": s.bids,
        "high_bid": s.high_bid,
        "high_bidder": high_bidder if high_bidder >= 0 else None,
        "ruff_stake": s.ruff_stake,
        "ruff_put": ruff_put,
        "ruff_pot": ANTE * n + sum(ruff_put) if s.ruff_played else 0,
        "ruff_in": s.ruff_in,
        "ruff_log": s.ruff_log,
        "ruff_shows": s.ruff_shows,
        "ruff_winner": ruff_winner if ruff_winner >= 0 else None,
        "declarations": s.declarations,
        "trump_named": s.trump_named,
        "trump": s.trump if s.trump_named else None,
        "tiddy": (tiddy_claimant, s.tiddy_slot) if tiddy_claimant >= 0 else None,
        "trick_leader": s.trick_leader if phase is _TRICKS else None,
        "trick": trick,
        "tricks": s.tricks,
        "tricks_won": public.won,
        "ledgers": s.ledgers,
        "running": running_ledger(s) if phase in _OVER else public.ledger,
        "totals": s.totals,
        "legal": tuple(legal_actions(s, seat)) if deciding and turn == seat else (),
        "public": _without_cards(s),
    }))
