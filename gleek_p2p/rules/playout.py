"""A mutable, compact hand for playouts: the engine's rules without its immutability.

Search plays thousands of hands per decision. The engine builds a new
``State`` for every event, which is what makes a log replayable and an
error harmless, and what makes it slow for search. :class:`FastHand` holds
one hand with every card known (a determinized deal) in plain lists,
changes them in place, and lists exactly the moves ``legal_actions`` lists,
in the same order, as the same (shared) event objects.

It never decides money itself: when the hand ends it builds the ``State``
the engine would hold and asks :func:`~gleek_p2p.rules.scoring.hand_ledger`,
so a change of the scoring rules reaches search at once. The property test
(tests/test_rules_playout.py) plays the same random games through both and
compares every state, so a change of the engine's rules that this module
misses fails there.

``play`` trusts its caller: the move must come from ``legal()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cards import RANKS_PER_SUIT, Rank
from .events import (
    Bid,
    ClaimTiddy,
    Declare,
    Discard,
    EndDeclare,
    Event,
    NameTrump,
    NoTiddy,
    PassBid,
    PassRuff,
    Play,
    See,
    ShowRuff,
    Vie,
)
from .legal import (
    auction_moves,
    declare_options,
    declaring_moves,
    discard_moves,
    play_moves,
    ruff_moves,
    show_moves,
    tiddy_moves,
    trump_moves,
)
from .limits import BID_STEP, MAX_RAISE, MAX_STAKE, MIN_RAISE, OPENING_BID, max_bid
from .scoring import hand_ledger, ruff_value
from .state import NO_SEAT, HandLedger, Phase, State
from .variant import Variant

__all__ = ["FastHand", "random_playout"]

_R = RANKS_PER_SUIT
_FOUR = int(Rank.FOUR)
_AUCTION, _DISCARD, _RUFF, _RUFF_SHOW = Phase.AUCTION, Phase.DISCARD, Phase.RUFF, Phase.RUFF_SHOW
_DECLARE, _TRUMP, _TIDDY, _TRICKS = Phase.DECLARE, Phase.TRUMP, Phase.TIDDY, Phase.TRICKS
_HAND_OVER, _SESSION_OVER = Phase.HAND_OVER, Phase.SESSION_OVER
_DECIDING = (_TRICKS, _AUCTION, _DISCARD, _RUFF, _RUFF_SHOW, _DECLARE, _TRUMP, _TIDDY)
_SUIT_OF = bytes(c // _R if c < 4 * _R else 0 for c in range(256))
"""Card id to suit, as a ``bytes.translate`` table: a deal's suits in one C call."""


class _Facts:
    """What a playout asks of its variant, read once per variant.

    ``Variant``'s sizes are Python properties (``has_fours`` goes through
    the pack's lowest rank), and hashing a frozen dataclass runs Python
    code: a playout asks each at every phase change.
    """

    __slots__ = ("discards", "has_fours", "has_tricks", "kiss", "optional", "players",
                 "simplified", "top_bid", "tricks")

    def __init__(self, v: Variant) -> None:
        self.players = v.players
        self.discards = v.discard_count
        self.tricks = v.tricks
        self.has_fours = v.has_fours
        self.has_tricks = v.has_tricks
        self.kiss = v.kiss
        self.optional = v.optional_declaring
        self.simplified = v.simplified
        self.top_bid = max_bid(v)
        """``max_bid``: it sums the most each phase can pay."""


_FACTS: dict[int, tuple[Variant, _Facts]] = {}
"""By ``id`` of the variant (kept alive beside its facts, so the id is not reused)."""


def _facts(v: Variant) -> _Facts:
    got = _FACTS.get(id(v))
    if got is not None and got[0] is v:
        return got[1]
    if len(_FACTS) >= 64:
        _FACTS.clear()  # a bound for callers that make variants by the thousand (tests)
    facts = _Facts(v)
    _FACTS[id(v)] = (v, facts)
    return facts


class FastHand:
    """One hand of a full-information ``State``, played in place.

    Build it with :meth:`from_state` at any decision of a hand whose every
    card is revealed; read it back with :meth:`to_state`. ``turn`` is the
    seat to act (``NO_SEAT`` once the hand is over).
    """

    __slots__ = (
        "bids", "cards", "dealer", "declarations", "discards", "f", "high_bid", "high_bidder",
        "holding", "ledger", "n", "ndiscard", "ntricks", "passed", "phase", "ruff_acted", "ruff_in",
        "ruff_log", "ruff_played", "ruff_put", "ruff_shows", "ruff_stake", "ruff_winner",
        "state", "suit", "talon", "talon_taker", "tiddy_asked", "tiddy_claimant", "tiddy_slot",
        "trick_leader", "trick_plays", "tricks", "trump", "trump_named", "turn", "v",
    )  # fmt: skip
    bids: list[tuple[int, int]]
    cards: tuple[int, ...]
    dealer: int
    declarations: list[tuple[int, tuple[int, ...]]]
    discards: list[int]
    f: _Facts
    high_bid: int
    high_bidder: int
    holding: list[list[int]]
    ledger: HandLedger | None
    n: int
    ndiscard: int
    ntricks: int
    passed: list[bool]
    phase: Phase
    ruff_acted: list[bool]
    ruff_in: list[bool]
    ruff_log: list[tuple[int, str, int]]
    ruff_played: bool
    ruff_put: list[int]
    ruff_shows: list[tuple[int, int, tuple[int, ...]]]
    ruff_stake: int
    ruff_winner: int
    state: State
    """The state the hand was built from: its other fields do not change in a hand."""
    suit: bytes
    """Per slot, the suit of its card."""
    talon: tuple[int, ...]
    talon_taker: int
    tiddy_asked: int
    tiddy_claimant: int
    tiddy_slot: int
    trick_leader: int
    trick_plays: list[int]
    tricks: list[tuple[int, tuple[int, ...], int]]
    trump: int | None
    trump_named: bool
    turn: int
    v: Variant

    def __init__(self) -> None:
        raise TypeError("use FastHand.from_state(state)")

    @classmethod
    def from_state(cls, s: State) -> FastHand:
        """The hand ``s`` is in; every card must be known (``ValueError`` otherwise)."""
        if s.phase not in _DECIDING:
            raise ValueError(f"no decision to play from during {s.phase.value}")
        cards = s.cards
        if -1 in cards:
            raise ValueError("a playout needs every card known: determinize the deal first")
        h = object.__new__(cls)
        h.state = s
        v = h.v = s.variant
        f = h.f = _facts(v)
        h.n = f.players
        h.ndiscard = f.discards
        h.ntricks = f.tricks
        h.phase = s.phase
        h.turn = s.turn
        h.dealer = s.dealer
        h.cards = cards
        h.suit = bytes(cards).translate(_SUIT_OF)
        h.holding = [[*x] for x in s.holding]
        h.talon = s.talon
        h.talon_taker = s.talon_taker
        h.discards = [*s.discards]
        h.bids = [*s.bids]
        h.high_bid = s.high_bid
        h.high_bidder = s.high_bidder
        h.passed = [*s.passed]
        h.ruff_played = s.ruff_played
        h.ruff_stake = s.ruff_stake
        h.ruff_put = [*s.ruff_put]
        h.ruff_in = [*s.ruff_in]
        h.ruff_acted = [*s.ruff_acted]
        h.ruff_log = [*s.ruff_log]
        h.ruff_shows = [*s.ruff_shows]
        h.ruff_winner = s.ruff_winner
        h.declarations = [*s.declarations]
        h.trump = s.trump
        h.trump_named = s.trump_named
        h.tiddy_claimant = s.tiddy_claimant
        h.tiddy_slot = s.tiddy_slot
        h.tiddy_asked = s.tiddy_asked
        h.trick_leader = s.trick_leader
        h.trick_plays = [*s.trick_plays]
        h.tricks = [*s.tricks]
        h.ledger = None
        return h

    def copy(self) -> FastHand:
        """An independent copy (for trying each candidate move on the same deal)."""
        h = object.__new__(FastHand)
        for name in _SHARED:
            object.__setattr__(h, name, getattr(self, name))
        h.holding = [[*x] for x in self.holding]
        for name in _COPIED:
            object.__setattr__(h, name, [*getattr(self, name)])
        return h

    @property
    def over(self) -> bool:
        """Whether the hand has ended (its ledger is then :attr:`result`)."""
        return self.ledger is not None

    @property
    def result(self) -> HandLedger:
        """The ledger of the finished hand, from the scoring rules."""
        if self.ledger is None:
            raise ValueError("the hand is not over")
        ledger: HandLedger = self.ledger
        return ledger

    # ------------------------------------------------------------ back to the engine

    def _engine_state(self) -> State:
        """The hand's fields over the state it came from (``_replace`` by index, faster)."""
        fields = list(self.state)
        for i, name in _OWN:
            value = getattr(self, name)
            fields[i] = tuple(value) if type(value) is list else value
        fields[_HOLDING] = tuple([tuple(x) for x in self.holding])
        return _new(State, fields)

    def to_state(self) -> State:
        """The ``State`` the engine holds at this point of the hand."""
        s = self._engine_state()
        if self.ledger is not None:
            net = self.ledger.net
            s = s._replace(
                ledgers=(*s.ledgers, self.ledger),
                totals=tuple(a + b for a, b in zip(s.totals, net, strict=True)),
            )
        return s

    def _end_hand(self) -> None:
        self.turn = NO_SEAT
        s = self.state
        self.phase = _SESSION_OVER if s.hand_no + 1 >= s.session_hands else _HAND_OVER
        # Only the fields the scoring reads are brought up to date (one store
        # each: this runs once per playout): a rule that scores from another
        # field shows in the property test's ledgers.
        fields = list(s)
        fields[_I_TAKER] = self.talon_taker
        fields[_I_HIGH_BID] = self.high_bid
        fields[_I_RUFF_PLAYED] = self.ruff_played
        fields[_I_RUFF_PUT] = tuple(self.ruff_put)
        fields[_I_RUFF_WINNER] = self.ruff_winner
        fields[_I_DECLARATIONS] = tuple(self.declarations)
        fields[_I_TRUMP] = self.trump
        fields[_I_TIDDY] = self.tiddy_claimant
        fields[_I_TRICKS] = tuple(self.tricks)
        self.ledger = hand_ledger(_new(State, fields))

    # ------------------------------------------------------------ legal moves

    def legal(self) -> list[Event]:
        """``legal_actions(self.to_state(), self.turn)``, from the same generators."""
        seat = self.turn
        ph = self.phase
        if ph is _TRICKS:
            return play_moves(seat, self.holding[seat], self.cards, self.trick_plays)
        if ph is _AUCTION:
            return auction_moves(seat, self.high_bid, self.f.top_bid)
        if ph is _DISCARD:
            return discard_moves(seat, self.holding[seat])
        if ph is _RUFF:
            return ruff_moves(seat, self.ruff_put[seat], self.ruff_stake)
        if ph is _RUFF_SHOW:
            return show_moves(seat, self.holding[seat], self.cards)
        if ph is _DECLARE:
            return declaring_moves(seat, self.holding[seat], self.cards, self.declarations,
                                 self.f.optional)
        if ph is _TRUMP:
            return trump_moves(seat, self.f.kiss)
        if ph is _TIDDY:
            return tiddy_moves(seat, self.holding[seat], self._four_slot())
        return []

    def _four_slot(self) -> int:
        """The slot of the Four of trump (during the Tiddy, so a trump is named)."""
        trump = self.trump
        assert trump is not None
        return self.state.where[trump * _R + _FOUR]

    # ------------------------------------------------------------ moves

    def play(self, e: Event) -> None:
        """Apply a move from :meth:`legal` in place."""
        if type(e) is Play:
            self._play(e.slot)
        else:
            _SLOW[type(e)](self, e)

    def _next_seat(self, seat: int, ok: list[bool]) -> int:
        n = self.n
        for k in range(1, n + 1):
            t = (seat + k) % n
            if ok[t]:
                return t
        return NO_SEAT

    def _eldest(self) -> int:
        return (self.dealer + 1) % self.n

    def _bid(self, e: Bid) -> None:
        self.bids.append((e.seat, e.amount))
        self.high_bid = e.amount
        self.high_bidder = e.seat
        self._auction_next(e.seat)

    def _pass_bid(self, e: PassBid) -> None:
        self.bids.append((e.seat, 0))
        self.passed[e.seat] = True
        self._auction_next(e.seat)

    def _auction_next(self, seat: int) -> None:
        n = self.n
        if n == 2:
            if len(self.bids) < 2:
                self.turn = self.dealer
                return
            self._end_auction()
            return
        passed = self.passed
        npassed = sum(passed)
        if npassed == n or (npassed == n - 1 and self.high_bidder >= 0):
            self._end_auction()
            return
        for k in range(1, n):
            if not passed[(seat + k) % n]:
                self.turn = (seat + k) % n
                return
        self.turn = seat  # only the seat that just bid is still in

    def _end_auction(self) -> None:
        w = self.high_bidder
        if w < 0:
            self._enter_ruff()
            return
        self.holding[w] = sorted(self.holding[w] + list(self.talon))
        self.phase = _DISCARD
        self.turn = w
        self.talon_taker = w

    def _discard(self, e: Discard) -> None:
        self.holding[e.seat].remove(e.slot)
        self.discards.append(e.slot)
        if len(self.discards) == self.ndiscard:
            self._enter_ruff()

    def _enter_ruff(self) -> None:
        n = self.n
        self.phase = _RUFF
        self.turn = self._eldest()
        self.ruff_played = True
        self.ruff_in = [True] * n
        self.ruff_acted = [False] * n

    def _vie(self, e: Vie) -> None:
        seat = e.seat
        stake = self.ruff_stake + e.raise_by
        self.ruff_stake = stake
        self.ruff_put[seat] = stake
        acted = [False] * self.n
        acted[seat] = True
        self.ruff_acted = acted
        self.ruff_log.append((seat, "vie", stake))
        self._ruff_next(seat)

    def _see(self, e: See) -> None:
        seat = e.seat
        self.ruff_put[seat] = self.ruff_stake
        self.ruff_acted[seat] = True
        self.ruff_log.append((seat, "see", self.ruff_stake))
        self._ruff_next(seat)

    def _pass_ruff(self, e: PassRuff) -> None:
        self.ruff_in[e.seat] = False
        self.ruff_log.append((e.seat, "pass", self.ruff_stake))
        self._ruff_next(e.seat)

    def _ruff_next(self, seat: int) -> None:
        ruff_in, acted, put, stake = self.ruff_in, self.ruff_acted, self.ruff_put, self.ruff_stake
        left, settled = 0, True
        for i in range(self.n):
            if ruff_in[i]:
                left += 1
                last = i
                if not acted[i] or put[i] != stake:
                    settled = False
        if left == 1:
            self.ruff_winner = last
            self._enter_declare()
        elif settled:
            self.phase = _RUFF_SHOW
            self.turn = self._next_seat(self.dealer, self.ruff_in)
        else:
            self.turn = self._next_seat(seat, self.ruff_in)

    def _show_ruff(self, e: ShowRuff) -> None:
        self._show(e.seat, e.suit, e.slots)

    def _show(self, seat: int, suit: int, slots: tuple[int, ...]) -> None:
        shows = self.ruff_shows
        shows.append((seat, suit, slots))
        n, ruff_in = self.n, self.ruff_in
        waiting = ruff_in[:]
        for sh in shows:
            waiting[sh[0]] = False
        nxt = self._next_seat(seat, waiting)
        if nxt >= 0:
            self.turn = nxt
            return
        e_seat, cards = self._eldest(), self.cards
        best, best_key = NO_SEAT, (-1, 0)
        for who, _suit, shown in shows:
            key = (ruff_value([cards[x] for x in shown]), -((who - e_seat) % n))
            if key > best_key:
                best, best_key = who, key
        self.ruff_winner = best
        self._enter_declare()

    def _enter_declare(self) -> None:
        self.phase = _DECLARE
        self.turn = self._eldest()

    def _declare(self, e: Declare) -> None:
        self.declarations.append((e.seat, e.slots))

    def _end_declare(self, e: EndDeclare) -> None:
        self._end_declare_by(e.seat)

    def _end_declare_by(self, seat: int) -> None:
        nxt = (seat + 1) % self.n
        if nxt != self._eldest():
            self.turn = nxt
            return
        f = self.f
        if not f.has_tricks:
            self._end_hand()
        elif f.simplified:
            self._enter_tricks()
        else:
            self.phase = _TRUMP
            self.turn = self.talon_taker if self.talon_taker >= 0 else self._eldest()

    def _name_trump(self, e: NameTrump) -> None:
        self._trump(e.suit)

    def _trump(self, suit: int | None) -> None:
        self.trump = suit
        self.trump_named = True
        if suit is None or not self.f.has_fours:
            self._after_tiddy()
        else:
            self.phase = _TIDDY
            self.turn = self._eldest()
            self.tiddy_asked = 0

    def _claim_tiddy(self, e: ClaimTiddy) -> None:
        self.tiddy_claimant = e.seat
        self.tiddy_slot = e.slot
        self._after_tiddy()

    def _no_tiddy(self, e: NoTiddy) -> None:
        self._pass_tiddy(e.seat)

    def _pass_tiddy(self, seat: int) -> None:
        self.tiddy_asked += 1
        if self.tiddy_asked == self.n:
            self._after_tiddy()
        else:
            self.turn = (seat + 1) % self.n

    def _after_tiddy(self) -> None:
        if self.f.simplified:
            self._enter_declare()
        else:
            self._enter_tricks()

    def _enter_tricks(self) -> None:
        e = self._eldest()
        self.phase = _TRICKS
        self.turn = e
        self.trick_leader = e
        self.trick_plays = []

    def _play(self, slot: int) -> None:
        seat = self.turn
        self.holding[seat].remove(slot)
        plays = self.trick_plays
        plays.append(slot)
        n = self.n
        if len(plays) < n:
            self.turn = (seat + 1) % n
            return
        cards, suit, trump = self.cards, self.suit, self.trump
        best_i, best = 0, cards[plays[0]]
        best_suit = suit[plays[0]]
        for i in range(1, n):
            x = plays[i]
            c, cs = cards[x], suit[x]
            if cs == best_suit:
                if c < best:
                    best_i, best = i, c
            elif cs == trump:
                best_i, best, best_suit = i, c, cs
        winner = (self.trick_leader + best_i) % n
        self.tricks.append((self.trick_leader, tuple(plays), winner))
        self.trick_plays = []
        self.trick_leader = winner
        self.turn = winner
        if len(self.tricks) == self.ntricks:
            self._end_hand()


_new = tuple.__new__
# The State fields a hand changes, by index: everything but these comes from
# the state the hand was built from (rules that add a field to the state
# show up in the property test, which compares whole states).
_OWN = tuple(
    (State._fields.index(name), name)
    for name in (
        "phase", "turn", "talon_taker", "discards", "bids", "high_bid", "high_bidder", "passed",
        "ruff_played", "ruff_stake", "ruff_put", "ruff_in", "ruff_acted", "ruff_log",
        "ruff_shows", "ruff_winner", "declarations", "trump", "trump_named", "tiddy_claimant",
        "tiddy_slot", "tiddy_asked", "trick_leader", "trick_plays", "tricks",
    )
)  # fmt: skip
_HOLDING = State._fields.index("holding")
# The fields the scoring reads that a hand changes (``_end_hand``).
_I_TAKER = State._fields.index("talon_taker")
_I_HIGH_BID = State._fields.index("high_bid")
_I_RUFF_PLAYED = State._fields.index("ruff_played")
_I_RUFF_PUT = State._fields.index("ruff_put")
_I_RUFF_WINNER = State._fields.index("ruff_winner")
_I_DECLARATIONS = State._fields.index("declarations")
_I_TRUMP = State._fields.index("trump")
_I_TIDDY = State._fields.index("tiddy_claimant")
_I_TRICKS = State._fields.index("tricks")
_COPIED = ("discards", "bids", "passed", "ruff_put", "ruff_in", "ruff_acted", "ruff_log",
           "ruff_shows", "declarations", "trick_plays", "tricks")
"""The list fields a copy must not share (``holding`` too, a list of lists)."""
_SHARED = tuple(name for name in FastHand.__slots__ if name not in (*_COPIED, "holding"))


_SLOW: dict[type[Any], Callable[[FastHand, Any], None]] = {
    Bid: FastHand._bid,
    PassBid: FastHand._pass_bid,
    Discard: FastHand._discard,
    Vie: FastHand._vie,
    See: FastHand._see,
    PassRuff: FastHand._pass_ruff,
    ShowRuff: FastHand._show_ruff,
    Declare: FastHand._declare,
    EndDeclare: FastHand._end_declare,
    NameTrump: FastHand._name_trump,
    ClaimTiddy: FastHand._claim_tiddy,
    NoTiddy: FastHand._no_tiddy,
}


def random_playout(hand: FastHand, random: Callable[[], float]) -> HandLedger:
    """Play ``hand`` to its end, each move ``legal[int(random() * len(legal))]``; its ledger.

    ``random`` is a ``random.Random().random``: the engine, given the same
    picks, plays the same game (tests/test_rules_playout.py checks it).
    """
    # The auction, the ruff, its show, the trump and the Tiddy list several
    # moves of which one is picked: pick by index without building the list
    # or its events (the order of the generators of ``rules.legal``, which
    # the property test holds it to), and apply the pick directly.
    facts = hand.f
    top_bid = facts.top_bid
    suit = hand.suit
    while hand.ledger is None:
        ph = hand.phase
        if ph is _TRICKS:
            _random_tricks(hand, random)
            break
        seat = hand.turn
        if ph is _AUCTION:
            bids, passed, n = hand.bids, hand.passed, hand.n
            high = hand.high_bid
            while True:
                low = OPENING_BID if high == 0 else high + BID_STEP
                k = int(random() * (top_bid - low + 2))
                if k:
                    high = low + k - 1
                    bids.append((seat, high))
                    hand.high_bid = high
                    hand.high_bidder = seat
                else:
                    bids.append((seat, 0))
                    passed[seat] = True
                if n == 2:
                    hand._auction_next(seat)
                    if hand.phase is not _AUCTION:
                        break
                    seat = hand.turn
                    continue
                # _auction_next for three seats, inlined: this is the hot loop.
                npassed = passed[0] + passed[1] + passed[2]
                if npassed == 3 or (npassed == 2 and hand.high_bidder >= 0):
                    hand._end_auction()
                    break
                nxt = seat + 1 if seat < 2 else 0
                if passed[nxt]:
                    nxt = nxt + 1 if nxt < 2 else 0
                    if passed[nxt]:
                        nxt = seat
                seat = hand.turn = nxt
        elif ph is _RUFF:
            # _pass_ruff, _see, _vie and _ruff_next inlined: the ruff goes round a few times.
            ruff_in, put, log, n = hand.ruff_in, hand.ruff_put, hand.ruff_log, hand.n
            stake, acted = hand.ruff_stake, hand.ruff_acted
            while True:
                can_see = put[seat] < stake
                top = MAX_STAKE - stake
                if top > MAX_RAISE:
                    top = MAX_RAISE
                # The raises allowed, MIN_RAISE to top (ruff_moves' list).
                vies = top - MIN_RAISE + 1 if top >= MIN_RAISE else 0
                k = int(random() * (1 + can_see + vies))
                if k == 0:
                    ruff_in[seat] = False
                    log.append((seat, "pass", stake))
                elif can_see and k == 1:
                    put[seat] = stake
                    acted[seat] = True
                    log.append((seat, "see", stake))
                else:
                    stake += MIN_RAISE + k - can_see - 1  # the (k - can_see)th raise listed
                    hand.ruff_stake = put[seat] = stake
                    acted = [False] * n
                    acted[seat] = True
                    hand.ruff_acted = acted
                    log.append((seat, "vie", stake))
                # _ruff_next inlined.
                left, settled, last = 0, True, seat
                for i in range(n):
                    if ruff_in[i]:
                        left += 1
                        last = i
                        if not acted[i] or put[i] != stake:
                            settled = False
                if left == 1:
                    hand.ruff_winner = last
                    hand._enter_declare()
                    break
                if settled:
                    hand.phase = _RUFF_SHOW
                    hand.turn = hand._next_seat(hand.dealer, ruff_in)
                    break
                seat = seat + 1 if seat + 1 < n else 0
                while not ruff_in[seat]:
                    seat = seat + 1 if seat + 1 < n else 0
                hand.turn = seat
        elif ph is _DISCARD:
            # The taker discards all its cards in a row.
            h, discards = hand.holding[seat], hand.discards
            for _ in range(hand.ndiscard - len(discards)):
                discards.append(h.pop(int(random() * len(h))))
            hand._enter_ruff()
        elif ph is _DECLARE:
            # declaring_moves' list without its events: the declarations, then the end.
            groups, may_end = declare_options(seat, hand.holding[seat], hand.cards,
                                              hand.declarations, facts.optional)
            k = int(random() * (len(groups) + may_end))
            if k < len(groups):
                hand.declarations.append((seat, groups[k]))
            else:
                hand._end_declare_by(seat)
        elif ph is _TIDDY:
            # At most one claim: the seat's own Four of trump.
            four = hand._four_slot()
            if int(random() * (2 if four in hand.holding[seat] else 1)):
                hand.tiddy_claimant = seat
                hand.tiddy_slot = four
                hand._after_tiddy()
            else:
                hand._pass_tiddy(seat)
        elif ph is _TRUMP:
            k = int(random() * (5 if facts.kiss else 4))
            hand._trump(k if k < 4 else None)
        elif ph is _RUFF_SHOW:
            split: list[list[int]] = [[], [], [], []]
            for x in hand.holding[seat]:
                split[suit[x]].append(x)
            shown = [i for i in range(4) if split[i]]
            i = shown[int(random() * len(shown))]
            hand._show(seat, i, tuple(split[i]))
        else:
            legal = hand.legal()
            hand.play(legal[int(random() * len(legal))])
    return hand.result


def _random_tricks(h: FastHand, random: Callable[[], float]) -> None:
    """The rest of the trick phase with random moves: ``_play`` inlined, no ``legal`` lists.

    Each hand is also kept split by suit, so following suit is a lookup, and
    the trick's winner is kept as its cards fall. A whole trick at a table of
    three is written out seat by seat (the common case; two seats, and a
    trick begun before the playout, take the general loop).
    """
    suit, holding, cards, trump, n = h.suit, h.holding, h.cards, h.trump, h.n
    by_suit = []
    for hand in holding:
        split: list[list[int]] = [[], [], [], []]
        for x in hand:
            split[suit[x]].append(x)
        by_suit.append(split)
    tricks, ntricks = h.tricks, h.ntricks
    seat, leader, plays = h.turn, h.trick_leader, h.trick_plays
    while True:
        if n == 3 and not plays:
            # The leader: any card.
            hand = holding[seat]
            x = hand.pop(int(random() * len(hand)))
            led = best_suit = suit[x]
            by_suit[seat][led].remove(x)
            best_i, best = 0, cards[x]
            # Second hand: follow suit if it can.
            s = seat + 1 if seat < 2 else 0
            follow = by_suit[s][led]
            if follow:
                y = follow.pop(int(random() * len(follow)))
                holding[s].remove(y)
            else:
                hand = holding[s]
                y = hand.pop(int(random() * len(hand)))
                by_suit[s][suit[y]].remove(y)
            c, cs = cards[y], suit[y]
            if cs == best_suit:
                if c < best:
                    best_i, best = 1, c
            elif cs == trump:
                best_i, best, best_suit = 1, c, cs
            # Third hand.
            s = s + 1 if s < 2 else 0
            follow = by_suit[s][led]
            if follow:
                z = follow.pop(int(random() * len(follow)))
                holding[s].remove(z)
            else:
                hand = holding[s]
                z = hand.pop(int(random() * len(hand)))
                by_suit[s][suit[z]].remove(z)
            c, cs = cards[z], suit[z]
            if (cs == best_suit and c < best) or (cs != best_suit and cs == trump):
                best_i = 2
            seat = (leader + best_i) % 3
            tricks.append((leader, (x, y, z), seat))
            leader = seat
            if len(tricks) == ntricks:
                break
            continue
        if plays:  # a trick already begun (only where the playout starts)
            led = best_suit = suit[plays[0]]
            best_i, best = 0, cards[plays[0]]
            for i in range(1, len(plays)):
                y = plays[i]
                if suit[y] == best_suit:
                    if cards[y] < best:
                        best_i, best = i, cards[y]
                elif suit[y] == trump:
                    best_i, best, best_suit = i, cards[y], trump
            first = len(plays)
        else:
            hand = holding[seat]
            x = hand.pop(int(random() * len(hand)))
            led = best_suit = suit[x]
            by_suit[seat][led].remove(x)
            plays = [x]
            best_i, best = 0, cards[x]
            seat = seat + 1 if seat + 1 < n else 0
            first = 1
        for i in range(first, n):
            follow = by_suit[seat][led]
            if follow:
                y = follow.pop(int(random() * len(follow)))
                holding[seat].remove(y)
            else:
                hand = holding[seat]
                y = hand.pop(int(random() * len(hand)))
                by_suit[seat][suit[y]].remove(y)
            plays.append(y)
            cs = suit[y]
            if cs == best_suit:
                if cards[y] < best:
                    best_i, best = i, cards[y]
            elif cs == trump:
                best_i, best, best_suit = i, cards[y], cs
            seat = seat + 1 if seat + 1 < n else 0
        seat = (leader + best_i) % n
        tricks.append((leader, tuple(plays), seat))
        plays = []
        leader = seat
        if len(tricks) == ntricks:
            break
    h.trick_plays = plays
    h.trick_leader = leader
    h.turn = seat
    h._end_hand()
