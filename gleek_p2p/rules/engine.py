"""The pure engine: ``apply`` an event to a state, list ``legal_actions``.

Every handler checks first and builds the new state last, so an error never
leaves anything half done (the input state is immutable anyway).
Errors: ``IllegalMove`` (with ``seat``) for a move the rules forbid now,
``ProtocolError`` for an event that cannot fit the protocol at all (slot or
seat out of range, duplicate card, playing or showing a slot whose identity
was never revealed to this engine).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gleek_p2p.base.errors import IllegalMove, ProtocolError, ViolationCode

from .cards import (
    RANK_PLURALS,
    RANKS_PER_SUIT,
    SUIT_NAMES,
    TALON,
    Rank,
    card_label,
    card_rank,
    deal_layout,
    pack,
)
from .events import (
    Bid,
    ClaimTiddy,
    Cut,
    Deal,
    Declare,
    Discard,
    EndDeclare,
    Event,
    NameTrump,
    NoTiddy,
    PassBid,
    PassRuff,
    Play,
    Reveal,
    See,
    ShowRuff,
    Vie,
)
from .limits import MAX_RAISE, MAX_STAKE, OPENING_BID, bid_range, raise_range
from .moves import MoveKind
from .scoring import hand_ledger, ruff_value
from .state import NO_SEAT, Phase, State, new_session
from .variant import Variant

__all__ = [
    "MAX_RAISE",
    "MAX_STAKE",
    "MOVE_KINDS",
    "OPENING_BID",
    "MoveKind",
    "apply",
    "apply_reveals",
    "cut_winner",
    "legal_actions",
    "move_kind",
    "phase_kinds",
    "replay",
    "to_act",
]


# Enum members as module globals for the hot paths: ``Phase.X`` is a class
# attribute lookup, several times slower than a global.
_TRICKS = Phase.TRICKS
_PHASE_WORDS = {
    Phase.CUT: "the cut",
    Phase.DEAL: "the deal",
    Phase.AUCTION: "the auction",
    Phase.DISCARD: "the discard",
    Phase.RUFF: "the vying on the ruff",
    Phase.RUFF_SHOW: "the ruff showdown",
    Phase.DECLARE: "declaring combinations",
    Phase.TRUMP: "naming the trump",
    Phase.TIDDY: "the Tiddy claims",
    Phase.TRICKS: "the tricks",
    Phase.HAND_OVER: "the end of the hand",
    Phase.SESSION_OVER: "the end of the session",
}


# ---------------------------------------------------------------- helpers


_IDX = {name: i for i, name in enumerate(State._fields)}


_new = tuple.__new__


def _upd(s: State, **changes: Any) -> State:
    """``s._replace(**changes)`` for the hot paths, about twice as fast."""
    fields = list(s)
    idx = _IDX
    for k, v in changes.items():
        fields[idx[k]] = v
    return _new(State, fields)


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1 :])


def _without(t: tuple[int, ...], x: int) -> tuple[int, ...]:
    i = t.index(x)
    return t[:i] + t[i + 1 :]


def _eldest(s: State) -> int:
    return (s.dealer + 1) % s.variant.players


def _check_seat(s: State, seat: Any) -> int:
    if type(seat) is not int or not 0 <= seat < s.variant.players:
        raise ProtocolError(f"no seat {seat!r} at a table of {s.variant.players}",
                            code=ViolationCode.FORM_EVENT)
    return seat


def _check_slot(s: State, slot: Any) -> int:
    if type(slot) is not int or not 0 <= slot < len(s.cards):
        raise ProtocolError(f"no slot {slot!r} in this deal", code=ViolationCode.FORM_EVENT)
    return slot


def _actor(s: State, who: Any, phase: Phase, what: str) -> int:
    seat = _check_seat(s, who)
    if s.phase is not phase:
        raise IllegalMove(f"you cannot {what} during {_PHASE_WORDS[s.phase]}", seat)
    if seat != s.turn:
        raise IllegalMove(f"it is not your turn (seat {s.turn} is to act)", seat)
    return seat


def _known(s: State, slot: int, seat: int, doing: str) -> int:
    c = s.cards[slot]
    if c < 0:
        raise ProtocolError(f"seat {seat} cannot {doing} slot {slot}: reveal before play",
                            code=ViolationCode.FORM_EVENT)
    return c


def _own(s: State, seat: int, x: Any) -> int:
    slot = _check_slot(s, x)
    if slot not in s.holding[seat]:
        raise IllegalMove(f"slot {slot} is not in your hand", seat)
    return slot


def _check_slots(s: State, seat: int, slots: Any) -> tuple[int, ...]:
    if not isinstance(slots, tuple):
        raise ProtocolError("slots must be a tuple", code=ViolationCode.FORM_EVENT)
    for x in slots:
        _check_slot(s, x)
    if any(a >= b for a, b in itertools.pairwise(slots)):
        raise ProtocolError("slots must be distinct and in ascending order",
                            code=ViolationCode.FORM_EVENT)
    for x in slots:
        _own(s, seat, x)
    return slots


def _next_seat(s: State, seat: int, ok: tuple[bool, ...]) -> int:
    n = s.variant.players
    for k in range(1, n + 1):
        t = (seat + k) % n
        if ok[t]:
            return t
    return NO_SEAT


# ---------------------------------------------------------------- phase entries


def _start_hand(s: State) -> State:
    v = s.variant
    if v.has_tricks and "trump" not in v.hand_order:
        # Nobody names the trump (simplified): the hand number fixes it.
        s = _upd(s, trump=s.hand_no % 4, trump_named=True)
    return _enter_stage(s, 0)


def _enter_stage(s: State, i: int) -> State:
    """Stage ``i`` of the variant's hand (``Variant.hand_order``), or the end of the hand."""
    order = s.variant.hand_order
    if i >= len(order):
        return _end_hand(s)
    return _ENTER[order[i]](s)


def _after(s: State, stage: str) -> State:
    """What follows ``stage`` in the variant's order of the hand."""
    return _enter_stage(s, s.variant.hand_order.index(stage) + 1)


def _enter_auction(s: State) -> State:
    return _upd(s, phase=Phase.AUCTION, turn=_eldest(s))


def _enter_ruff(s: State) -> State:
    n = s.variant.players
    return _upd(
        s,
        phase=Phase.RUFF,
        turn=_eldest(s),
        ruff_played=True,
        ruff_in=(True,) * n,
        ruff_acted=(False,) * n,
    )


def _enter_declare(s: State) -> State:
    return _upd(s, phase=Phase.DECLARE, turn=_eldest(s))


def _enter_trump(s: State) -> State:
    taker = s.talon_taker
    return _upd(s, phase=Phase.TRUMP, turn=taker if taker >= 0 else _eldest(s))


def _enter_tiddy(s: State) -> State:
    if s.trump is None or not s.variant.has_fours:
        return _after(s, "tiddy")
    return _upd(s, phase=Phase.TIDDY, turn=_eldest(s), tiddy_asked=0)


def _enter_tricks(s: State) -> State:
    e = _eldest(s)
    return _upd(s, phase=Phase.TRICKS, turn=e, trick_leader=e, trick_plays=())


_ENTER: dict[str, Callable[[State], State]] = {
    "auction": _enter_auction,
    "ruff": _enter_ruff,
    "declare": _enter_declare,
    "trump": _enter_trump,
    "tiddy": _enter_tiddy,
    "tricks": _enter_tricks,
}
"""How each stage of ``Variant.hand_order`` begins."""


def _end_hand(s: State) -> State:
    ledger = hand_ledger(s)
    net = ledger.net
    totals = tuple(a + b for a, b in zip(s.totals, net, strict=True))
    over = s.hand_no + 1 >= s.session_hands
    return _upd(
        s,
        phase=Phase.SESSION_OVER if over else Phase.HAND_OVER,
        turn=NO_SEAT,
        ledgers=(*s.ledgers, ledger),
        totals=totals,
    )


# ---------------------------------------------------------------- system events


def cut_winner(cards: Iterable[int]) -> int:
    """Index of the dealer from the cut: highest rank, ties by suit S > H > D > C."""
    cs = list(cards)
    return min(range(len(cs)), key=lambda i: (cs[i] % RANKS_PER_SUIT, cs[i] // RANKS_PER_SUIT))


def _cut(s: State, e: Cut) -> State:
    if s.phase is not Phase.CUT:
        raise ProtocolError("the cut happens once, before the first deal",
                            code=ViolationCode.FORM_EVENT)
    cards = e.cards
    n = s.variant.players
    full = pack(s.variant)
    if not isinstance(cards, tuple) or len(cards) != n:
        raise ProtocolError(f"the cut needs one card per seat ({n})", code=ViolationCode.FORM_EVENT)
    if any(type(c) is not int or c not in full for c in cards) or len(set(cards)) != n:
        raise ProtocolError("the cut cards must be distinct cards of the pack",
                            code=ViolationCode.FORM_EVENT)
    return _upd(s, phase=Phase.DEAL, dealer=cut_winner(cards))


def _deal(s: State, e: Deal) -> State:
    if s.phase is Phase.DEAL:
        hand_no, dealer = 0, s.dealer
    elif s.phase is Phase.HAND_OVER:
        hand_no, dealer = s.hand_no + 1, (s.dealer + 1) % s.variant.players
    else:
        raise ProtocolError(f"no deal during {_PHASE_WORDS[s.phase]}",
                            code=ViolationCode.FORM_EVENT)
    v = s.variant
    n = v.players
    layout = deal_layout(v, dealer)
    fresh = new_session(v, s.session_hands)
    s2 = _upd(
        fresh,
        hand_no=hand_no,
        dealer=dealer,
        cards=(-1,) * v.pack_size,
        holding=tuple(tuple(i for i, o in enumerate(layout) if o == seat) for seat in range(n)),
        talon=tuple(i for i, o in enumerate(layout) if o == TALON),
        ledgers=s.ledgers,
        totals=s.totals,
    )
    return _start_hand(s2)


_PACK_SETS: dict[int, frozenset[int]] = {}


def _check_reveal(
    s: State, cards: Sequence[int], where: Sequence[int], e: Reveal
) -> tuple[int, int] | None:
    """``(slot, card)`` that ``e`` newly reveals given ``cards``/``where``; None if known."""
    if s.hand_no < 0:
        raise ProtocolError("nothing is dealt yet: no reveal before the deal",
                            code=ViolationCode.FORM_EVENT)
    slot, c = e.slot, e.card
    if type(slot) is not int or not 0 <= slot < len(cards):
        raise ProtocolError(f"no slot {slot!r} in this deal", code=ViolationCode.FORM_EVENT)
    ps = _PACK_SETS.get(len(cards))
    if ps is None:
        ps = _PACK_SETS[len(cards)] = frozenset(pack(s.variant))
    if type(c) is not int or c not in ps:
        raise ProtocolError(f"{c!r} is not a card of this pack", code=ViolationCode.FORM_EVENT)
    old = cards[slot]
    if old == c:
        return None
    if old >= 0:
        raise ProtocolError(f"slot {slot} was revealed as {card_label(old)}, not {card_label(c)}",
                            code=ViolationCode.FORM_EVENT)
    if where[c] >= 0:
        raise ProtocolError(f"{card_label(c)} was already revealed at slot {where[c]}",
                            code=ViolationCode.FORM_EVENT)
    return slot, c


def _reveal(s: State, e: Reveal) -> State:
    cards = s.cards
    new = _check_reveal(s, cards, s.where, e)
    if new is None:
        return s
    slot, c = new
    return _upd(
        s,
        cards=(*cards[:slot], c, *cards[slot + 1 :]),
        where=(*s.where[:c], slot, *s.where[c + 1 :]),
    )


def apply_reveals(state: State, reveals: Iterable[Reveal]) -> State:
    """The state after ``reveals`` applied in order, as ``apply`` would one by one.

    Same checks and errors, but all or nothing: on an error no state is
    returned at all. Faster for a whole deal (one new state, not one per slot).
    """
    s = state
    cards = list(s.cards)
    where = list(s.where)
    changed = False
    for e in reveals:
        if type(e) is not Reveal:
            raise ProtocolError(f"not a reveal: {e!r}", code=ViolationCode.FORM_EVENT)
        new = _check_reveal(s, cards, where, e)
        if new is not None:
            slot, c = new
            cards[slot] = c
            where[c] = slot
            changed = True
    if not changed:
        return s
    return _upd(s, cards=tuple(cards), where=tuple(where))


# ---------------------------------------------------------------- auction


def _bid(s: State, e: Bid) -> State:
    seat = _actor(s, e.seat, Phase.AUCTION, "bid")
    amount = e.amount
    if type(amount) is not int:
        raise ProtocolError("a bid is a whole number of pence", code=ViolationCode.FORM_EVENT)
    low, high = bid_range(s)
    if not low <= amount <= high:
        raise IllegalMove(f"your bid must be from {low} to {high} pence", seat)
    s = _upd(s, bids=(*s.bids, (seat, amount)), high_bid=amount, high_bidder=seat)
    return _auction_next(s, seat)


def _pass_bid(s: State, e: PassBid) -> State:
    seat = _actor(s, e.seat, Phase.AUCTION, "pass in the auction")
    s = _upd(s, bids=(*s.bids, (seat, 0)), passed=_set(s.passed, seat, True))
    return _auction_next(s, seat)


def _auction_next(s: State, seat: int) -> State:
    n = s.variant.players
    if n == 2:
        # Shortened auction: eldest then dealer speak once each.
        if len(s.bids) < 2:
            return _upd(s, turn=s.dealer)
        return _end_auction(s)
    npassed = sum(s.passed)
    if npassed == n or (npassed == n - 1 and s.high_bidder >= 0):
        return _end_auction(s)
    return _upd(s, turn=_next_seat(s, seat, tuple(not p for p in s.passed)))


def _end_auction(s: State) -> State:
    w = s.high_bidder
    if w < 0:
        return _after(s, "auction")  # all passed: the talon is dead
    holding = _set(s.holding, w, tuple(sorted(s.holding[w] + s.talon)))
    return _upd(s, phase=Phase.DISCARD, turn=w, talon_taker=w, holding=holding)


def _discard(s: State, e: Discard) -> State:
    seat = _actor(s, e.seat, Phase.DISCARD, "discard")
    slot = _own(s, seat, e.slot)
    s = _upd(
        s,
        holding=_set(s.holding, seat, _without(s.holding[seat], slot)),
        discards=(*s.discards, slot),
    )
    if len(s.discards) == s.variant.discard_count:
        return _after(s, "auction")
    return s


# ---------------------------------------------------------------- ruff


def _vie(s: State, e: Vie) -> State:
    seat = _actor(s, e.seat, Phase.RUFF, "vie")
    r = e.raise_by
    if type(r) is not int:
        raise ProtocolError("a raise is a whole number of pence", code=ViolationCode.FORM_EVENT)
    top = raise_range(s)[1]
    if top < 1:
        raise IllegalMove(f"the stake is at the table limit of {MAX_STAKE}: see or pass", seat)
    if not 1 <= r <= top:
        raise IllegalMove(f"you may raise by 1 to {top} pence", seat)
    stake = s.ruff_stake + r
    acted = tuple(i == seat for i in range(s.variant.players))
    s = _upd(
        s,
        ruff_stake=stake,
        ruff_put=_set(s.ruff_put, seat, stake),
        ruff_acted=acted,
        ruff_log=(*s.ruff_log, (seat, "vie", stake)),
    )
    return _ruff_next(s, seat)


def _see(s: State, e: See) -> State:
    seat = _actor(s, e.seat, Phase.RUFF, "see")
    if s.ruff_put[seat] >= s.ruff_stake:
        raise IllegalMove("there is nothing to see: vie or pass", seat)
    s = _upd(
        s,
        ruff_put=_set(s.ruff_put, seat, s.ruff_stake),
        ruff_acted=_set(s.ruff_acted, seat, True),
        ruff_log=(*s.ruff_log, (seat, "see", s.ruff_stake)),
    )
    return _ruff_next(s, seat)


def _pass_ruff(s: State, e: PassRuff) -> State:
    seat = _actor(s, e.seat, Phase.RUFF, "pass on the ruff")
    s = _upd(
        s,
        ruff_in=_set(s.ruff_in, seat, False),
        ruff_log=(*s.ruff_log, (seat, "pass", s.ruff_stake)),
    )
    return _ruff_next(s, seat)


def _ruff_next(s: State, seat: int) -> State:
    ins = [i for i, x in enumerate(s.ruff_in) if x]
    if len(ins) == 1:
        return _after(_upd(s, ruff_winner=ins[0]), "ruff")
    if all(s.ruff_acted[i] and s.ruff_put[i] == s.ruff_stake for i in ins):
        first = _next_seat(s, s.dealer, s.ruff_in)
        return _upd(s, phase=Phase.RUFF_SHOW, turn=first)
    return _upd(s, turn=_next_seat(s, seat, s.ruff_in))


def _suit_slots(s: State, seat: int, suit: int) -> tuple[int, ...]:
    cards = s.cards
    return tuple(x for x in s.holding[seat] if cards[x] >= 0 and cards[x] // RANKS_PER_SUIT == suit)


def _show_ruff(s: State, e: ShowRuff) -> State:
    seat = _actor(s, e.seat, Phase.RUFF_SHOW, "show a ruff")
    suit = e.suit
    if type(suit) is not int or not 0 <= suit <= 3:
        raise ProtocolError(f"no suit {suit!r}", code=ViolationCode.FORM_EVENT)
    slots = _check_slots(s, seat, e.slots)
    if not slots:
        raise IllegalMove("show at least one card", seat)
    for x in slots:
        c = _known(s, x, seat, "show")
        if c // RANKS_PER_SUIT != suit:
            raise IllegalMove(f"{card_label(c)} is not a card of {SUIT_NAMES[suit]}", seat)
    if _suit_slots(s, seat, suit) != slots:
        raise IllegalMove(f"you must show all your {SUIT_NAMES[suit]}", seat)
    s = _upd(s, ruff_shows=(*s.ruff_shows, (seat, suit, slots)))
    shown = {sh[0] for sh in s.ruff_shows}
    nxt = _next_seat(s, seat, tuple(x and i not in shown for i, x in enumerate(s.ruff_in)))
    if nxt >= 0:
        return _upd(s, turn=nxt)
    return _after(_upd(s, ruff_winner=_showdown_winner(s)), "ruff")


def _showdown_winner(s: State) -> int:
    n = s.variant.players
    e = _eldest(s)
    best, best_key = NO_SEAT, (-1, 0)
    for seat, _suit, slots in s.ruff_shows:
        key = (ruff_value(s.cards[x] for x in slots), -((seat - e) % n))
        if key > best_key:
            best, best_key = seat, key
    return best


# ---------------------------------------------------------------- combinations


def _declare(s: State, e: Declare) -> State:
    seat = _actor(s, e.seat, Phase.DECLARE, "declare")
    slots = _check_slots(s, seat, e.slots)
    if len(slots) not in (3, 4):
        raise IllegalMove("a combination is 3 (gleek) or 4 (mournival) cards", seat)
    ranks = {card_rank(_known(s, x, seat, "declare")) for x in slots}
    if len(ranks) != 1:
        raise IllegalMove("a combination is cards of one rank", seat)
    rank = ranks.pop()
    for who, done in s.declarations:
        if who == seat and s.cards[done[0]] % RANKS_PER_SUIT == rank:
            raise IllegalMove("you already declared that rank", seat)
    if len(slots) == 3 and not s.variant.optional_declaring:
        # First rulings: declaring is compulsory, so three of four is a hidden card.
        cards = s.cards
        same = sum(
            1 for x in s.holding[seat] if cards[x] >= 0 and cards[x] % RANKS_PER_SUIT == rank
        )
        if same == 4:
            raise IllegalMove("you hold all four: declare the mournival", seat)
    return _upd(s, declarations=(*s.declarations, (seat, slots)))


def _undeclared(s: State, seat: int) -> list[int]:
    """Ranks of which ``seat`` holds three or four and has not declared yet.

    Only answerable when the engine knows the whole hand; otherwise [] (the
    full-information replay of the audit then asks again).
    """
    cards = s.cards
    hand = [cards[x] for x in s.holding[seat]]
    if any(c < 0 for c in hand):
        return []
    done = {cards[sl[0]] % RANKS_PER_SUIT for who, sl in s.declarations if who == seat}
    counts: dict[int, int] = {}
    for c in hand:
        counts[c % RANKS_PER_SUIT] = counts.get(c % RANKS_PER_SUIT, 0) + 1
    return sorted(r for r, k in counts.items() if k >= 3 and r not in done)


def _end_declare(s: State, e: EndDeclare) -> State:
    seat = _actor(s, e.seat, Phase.DECLARE, "end declaring")
    pending = [] if s.variant.optional_declaring else _undeclared(s, seat)
    if pending:
        name = RANK_PLURALS[pending[0]]
        raise IllegalMove(f"you must declare your combination of {name} (declaring is "
                          "compulsory)", seat)
    nxt = (seat + 1) % s.variant.players
    if nxt == _eldest(s):
        return _after(s, "declare")
    return _upd(s, turn=nxt)


# ---------------------------------------------------------------- trump and Tiddy


def _name_trump(s: State, e: NameTrump) -> State:
    seat = _actor(s, e.seat, Phase.TRUMP, "name the trump")
    suit = e.suit
    if suit is None:
        if not s.variant.kiss:
            raise IllegalMove("Kiss (no trump) is not allowed in this game", seat)
    elif type(suit) is not int or not 0 <= suit <= 3:
        raise ProtocolError(f"no suit {suit!r}", code=ViolationCode.FORM_EVENT)
    return _after(_upd(s, trump=suit, trump_named=True), "trump")


def _claim_tiddy(s: State, e: ClaimTiddy) -> State:
    seat = _actor(s, e.seat, Phase.TIDDY, "claim the Tiddy")
    slot = _own(s, seat, e.slot)
    c = _known(s, slot, seat, "show")
    assert s.trump is not None  # no TIDDY phase under Kiss
    if c != s.trump * RANKS_PER_SUIT + Rank.FOUR:
        raise IllegalMove(f"{card_label(c)} is not the Four of trump", seat)
    return _after(_upd(s, tiddy_claimant=seat, tiddy_slot=slot), "tiddy")


def _no_tiddy(s: State, e: NoTiddy) -> State:
    seat = _actor(s, e.seat, Phase.TIDDY, "pass on the Tiddy")
    asked = s.tiddy_asked + 1
    if asked == s.variant.players:
        return _after(_upd(s, tiddy_asked=asked), "tiddy")
    return _upd(s, tiddy_asked=asked, turn=(seat + 1) % s.variant.players)


# ---------------------------------------------------------------- tricks


def _play(s: State, e: Play) -> State:
    # The checks of _actor, _own and _known, inlined for the common case (this
    # is the most frequent event); any failure goes through them for the error.
    seat, slot = e.seat, e.slot
    if s.phase is not _TRICKS or type(seat) is not int or seat != s.turn:
        seat = _actor(s, seat, Phase.TRICKS, "play")
    if type(slot) is not int or slot not in s.holding[seat]:
        slot = _own(s, seat, slot)
    cards = s.cards
    c = cards[slot]
    if c < 0:
        c = _known(s, slot, seat, "play")
    plays = s.trick_plays
    if plays:
        led = cards[plays[0]] // RANKS_PER_SUIT
        if c // RANKS_PER_SUIT != led:
            for x in s.holding[seat]:
                if cards[x] >= 0 and cards[x] // RANKS_PER_SUIT == led:
                    raise IllegalMove(f"you must follow suit: you hold {SUIT_NAMES[led]}", seat)
    holding = _set(s.holding, seat, _without(s.holding[seat], slot))
    plays = (*plays, slot)
    n = s.variant.players
    if len(plays) < n:
        return _upd(s, holding=holding, trick_plays=plays, turn=(seat + 1) % n)
    winner = (s.trick_leader + _trick_winner(cards, plays, s.trump)) % n
    tricks = (*s.tricks, (s.trick_leader, plays, winner))
    s = _upd(s, holding=holding, trick_plays=(), tricks=tricks, trick_leader=winner, turn=winner)
    if len(tricks) == s.variant.tricks:
        return _after(s, "tricks")
    return s


def _trick_winner(cards: tuple[int, ...], plays: tuple[int, ...], trump: int | None) -> int:
    """Index in ``plays`` of the winning card."""
    lead = cards[plays[0]]
    best_i, best = 0, lead
    for i in range(1, len(plays)):
        c = cards[plays[i]]
        cs, bs = c // RANKS_PER_SUIT, best // RANKS_PER_SUIT
        if cs == bs:
            if c < best:  # same suit: lower id is higher rank
                best_i, best = i, c
        elif cs == trump:
            best_i, best = i, c
    return best_i


# ---------------------------------------------------------------- legal moves, per kind

# Events are immutable, so the generators hand out shared instances.
_BIDS: dict[tuple[int, int], tuple[Event, ...]] = {}
"""Per (seat, highest bid): the pass, then every bid from the opening bid up."""
_PLAYS = tuple(tuple(Play(seat, x) for x in range(44)) for seat in range(3))
_DISCARDS = tuple(tuple(Discard(seat, x) for x in range(44)) for seat in range(3))
_VIES = tuple(tuple(Vie(seat, r) for r in range(MAX_RAISE + 1)) for seat in range(3))
_PASS_BIDS = tuple(PassBid(seat) for seat in range(3))
_PASS_RUFFS = tuple(PassRuff(seat) for seat in range(3))
_SEES = tuple(See(seat) for seat in range(3))
_END_DECLARES = tuple(EndDeclare(seat) for seat in range(3))
_NO_TIDDIES = tuple(NoTiddy(seat) for seat in range(3))


def _legal_pass_bids(s: State, seat: int) -> list[Event]:
    return [_PASS_BIDS[seat]]


def _legal_bids(s: State, seat: int) -> list[Event]:
    return bid_events(seat, *bid_range(s))[1:]


def _legal_discards(s: State, seat: int) -> list[Event]:
    return [_DISCARDS[seat][x] for x in s.holding[seat]]


def _legal_pass_ruffs(s: State, seat: int) -> list[Event]:
    return [_PASS_RUFFS[seat]]


def _legal_sees(s: State, seat: int) -> list[Event]:
    return [_SEES[seat]] if s.ruff_put[seat] < s.ruff_stake else []


def _legal_vies(s: State, seat: int) -> list[Event]:
    return list(_VIES[seat][1 : raise_range(s)[1] + 1])


def _legal_shows(s: State, seat: int) -> list[Event]:
    shows: list[Event] = []
    for suit in range(4):
        slots = _suit_slots(s, seat, suit)
        if slots:
            shows.append(ShowRuff(seat, suit, slots))
    return shows


def _legal_end_declares(s: State, seat: int) -> list[Event]:
    if s.variant.optional_declaring or not _undeclared(s, seat):
        return [_END_DECLARES[seat]]
    return []


def _legal_trumps(s: State, seat: int) -> list[Event]:
    trumps: list[Event] = [NameTrump(seat, suit) for suit in range(4)]
    if s.variant.kiss:
        trumps.append(NameTrump(seat, None))
    return trumps


def _legal_no_tiddies(s: State, seat: int) -> list[Event]:
    return [_NO_TIDDIES[seat]]


def _legal_tiddy_claims(s: State, seat: int) -> list[Event]:
    assert s.trump is not None  # no TIDDY phase under Kiss
    slot = s.where[s.trump * RANKS_PER_SUIT + Rank.FOUR]
    if slot >= 0 and slot in s.holding[seat]:
        return [ClaimTiddy(seat, slot)]
    return []


def _legal_plays(s: State, seat: int) -> list[Event]:
    cards = s.cards
    plays = _PLAYS[seat]
    if s.trick_plays:
        led = cards[s.trick_plays[0]] // RANKS_PER_SUIT
        # An unknown slot (-1) has suit -1: never listed as following.
        follow: list[Event] = [
            plays[x] for x in s.holding[seat] if cards[x] // RANKS_PER_SUIT == led
        ]
        if follow:
            return follow
    return [plays[x] for x in s.holding[seat] if cards[x] >= 0]


def bid_events(seat: int, low: int, high: int) -> list[Event]:
    """Pass, then every bid from ``low`` to ``high`` (shared instances: the search asks often)."""
    bids = _BIDS.get((seat, high))
    if bids is None:
        bids = _BIDS[seat, high] = (
            PassBid(seat),
            *(Bid(seat, a) for a in range(OPENING_BID, high + 1)),
        )
    return [bids[0], *bids[low - OPENING_BID + 1:]]


def _legal_declares(s: State, seat: int) -> list[Event]:
    optional = s.variant.optional_declaring
    cards = s.cards
    done = {cards[sl[0]] % RANKS_PER_SUIT for who, sl in s.declarations if who == seat}
    by_rank: dict[int, list[int]] = {}
    for x in s.holding[seat]:
        c = cards[x]
        if c >= 0:
            by_rank.setdefault(c % RANKS_PER_SUIT, []).append(x)
    out: list[Event] = []
    for rank in sorted(by_rank):
        if rank in done:
            continue
        group = by_rank[rank]
        if len(group) == 3 or len(group) == 4:
            out.append(Declare(seat, tuple(group)))
        if len(group) == 4 and optional:
            # A seat may show three of its four: they are paid as a gleek.
            out.extend(Declare(seat, three) for three in itertools.combinations(group, 3))
    return out


# ---------------------------------------------------------------- the move kinds

MOVE_KINDS: tuple[MoveKind, ...] = (
    MoveKind(PassBid, (Phase.AUCTION,), _pass_bid, _legal_pass_bids),
    MoveKind(Bid, (Phase.AUCTION,), _bid, _legal_bids),
    MoveKind(Discard, (Phase.DISCARD,), _discard, _legal_discards),
    MoveKind(PassRuff, (Phase.RUFF,), _pass_ruff, _legal_pass_ruffs),
    MoveKind(See, (Phase.RUFF,), _see, _legal_sees),
    MoveKind(Vie, (Phase.RUFF,), _vie, _legal_vies),
    MoveKind(ShowRuff, (Phase.RUFF_SHOW,), _show_ruff, _legal_shows),
    MoveKind(Declare, (Phase.DECLARE,), _declare, _legal_declares),
    MoveKind(EndDeclare, (Phase.DECLARE,), _end_declare, _legal_end_declares),
    MoveKind(NameTrump, (Phase.TRUMP,), _name_trump, _legal_trumps),
    MoveKind(NoTiddy, (Phase.TIDDY,), _no_tiddy, _legal_no_tiddies),
    MoveKind(ClaimTiddy, (Phase.TIDDY,), _claim_tiddy, _legal_tiddy_claims),
    MoveKind(Play, (Phase.TRICKS,), _play, _legal_plays),
)
"""Every move a seat can make, one registration per kind.

Within a phase the order is the order of the legal list: ``legal_actions``
concatenates the kinds' generators in this order (the pass before the bids,
the declarations before "done").
"""

_HANDLERS: dict[type[Any], Callable[[State, Any], State]] = {
    Cut: _cut,
    Deal: _deal,
    Reveal: _reveal,
    **{k.cls: k.apply for k in MOVE_KINDS},
}

# Keyed by the phase's value: a str hashes in C, an Enum member in Python.
_LEGAL: dict[str, tuple[Callable[[State, int], list[Event]], ...]] = {}
for _kind in MOVE_KINDS:
    for _phase in _kind.phases:
        _LEGAL[_phase.value] = (*_LEGAL.get(_phase.value, ()), _kind.legal)
del _kind, _phase

# A tuple, not a frozenset: ``in`` then compares by identity, while hashing
# an Enum member calls Python code (this is asked at every decision).
_DECIDING = tuple(p for p in Phase if p.value in _LEGAL)


def move_kind(cls: type[Any]) -> MoveKind:
    """The registration of the move kind ``cls`` (``KeyError`` for a system event)."""
    return _KINDS[cls]


_KINDS = {k.cls: k for k in MOVE_KINDS}


def phase_kinds(phase: Phase) -> tuple[MoveKind, ...]:
    """The kinds of move legal in ``phase``, in the order they are listed."""
    return tuple(k for k in MOVE_KINDS if phase in k.phases)


# ---------------------------------------------------------------- public API


def apply(state: State, event: Event) -> State:
    """The state after ``event``. Pure: the input is never changed.

    Raises ``IllegalMove`` (a rule forbids it; ``seat`` set) or
    ``ProtocolError`` (the event cannot fit the protocol).
    """
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise ProtocolError(f"not an event: {event!r}", code=ViolationCode.FORM_EVENT)
    return handler(state, event)


def replay(events: Iterable[Event], variant: Variant | None = None, hands: int = 12) -> State:
    """Apply ``events`` in order to a new session."""
    s = new_session(variant, hands)
    for e in events:
        s = apply(s, e)
    return s


def to_act(state: State) -> int | None:
    """The seat that must decide now, or None while waiting for a system event."""
    if state.phase in _DECIDING:
        return state.turn
    return None


def legal_actions(state: State, seat: int) -> list[Event]:
    """Exactly the moves ``seat`` may make now (empty if it is not its turn).

    Moves that name cards (play, show, declare, claim) are listed only for
    slots whose identity this engine knows; in a seat's own run it knows its
    whole hand, so the list is exact. Order is deterministic: the phase's
    kinds in ``MOVE_KINDS`` order.
    """
    s = state
    if s.turn != seat or s.phase not in _DECIDING:
        return []
    gens = _LEGAL[s.phase._value_]
    if len(gens) == 1:
        return gens[0](s, seat)
    out: list[Event] = []
    for gen in gens:
        out += gen(s, seat)
    return out
