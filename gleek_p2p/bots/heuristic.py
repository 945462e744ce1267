"""A rule-of-thumb bot that plays by the strategy tips of the rules.

It bids for the talon up to what the talon is worth to its hand, vies on a good ruff and
sometimes bluffs, always declares, names its best suit trump (or Kiss when
weak), claims the Tiddy, captures Tib and Tom when it can, wins tricks
cheaply and follows low when it cannot win, and discards its weakest cards
from its short suits. It reads only its ``SeatView`` and the legal list; its
only randomness (bluffs) comes from the seed it is given.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

from gleek_p2p.bots.strategy import Strategy
from gleek_p2p.rules import (
    Bid,
    ClaimTiddy,
    Declare,
    Discard,
    Event,
    NameTrump,
    PassBid,
    PassRuff,
    Phase,
    Play,
    SeatView,
    See,
    ShowRuff,
    Vie,
    honour_cards,
)
from gleek_p2p.rules.cards import RANKS_PER_SUIT, Rank
from gleek_p2p.rules.scoring import TIB, TOM, card_points, ruff_points

__all__ = ["HeuristicStrategy", "bid_at", "bid_limit", "ruff_strength", "suit_strength",
           "talon_worth"]

_R = RANKS_PER_SUIT  # rank 0 is the Ace (highest)
_ACE, _KING = int(Rank.ACE), int(Rank.KING)
_RUFF_POINTS = tuple(ruff_points(rank) for rank in range(_R))  # rank r of spades is card r
# How much a card is worth keeping for later tricks, beyond its points.
_RANK_POWER = (8, 6, 5, 4, 3, 2, 1, 1, 0, 0, 0)

# Thresholds on the best single-suit ruff value (A=11, courts 3, numerals face).
_RUFF_STRONG = 38
_RUFF_FAIR = 30
_BLUFF_CHANCE = 0.12
_VIE_LIMIT = 12
"""Stake (pence over the ante) past which even a strong ruff only sees."""


def suit_strength(cards: Iterable[int], suit: int) -> int:
    """How good ``suit`` would be as trump: length first, then high cards."""
    ranks = [c % _R for c in cards if c // _R == suit]
    return 10 * len(ranks) + sum(_RANK_POWER[r] for r in ranks)


def ruff_strength(cards: Iterable[int]) -> int:
    """The best single-suit ruff value in ``cards``."""
    by_suit = [0, 0, 0, 0]
    for c in cards:
        by_suit[c // _R] += _RUFF_POINTS[c % _R]
    return max(by_suit)


class HeuristicStrategy(Strategy):
    """Plays by the Tips of the rules; ``seed`` drives its occasional bluff."""

    name = "heuristic"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self._random = random.Random(seed)

    def choose(self, view: SeatView, legal: Sequence[Event]) -> Event:
        if len(legal) == 1:
            return legal[0]
        # Keyed by the decision's phase, never by the first move's kind: a
        # decision may offer several kinds (the pass and the bids).
        policy = _POLICIES.get(view.phase)
        if policy is None:
            raise ValueError(f"the heuristic bot has no policy for {view.phase}")
        return policy(self, view, legal)

    def _auction(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return _bid(view, _mine(view), legal)

    def _discard(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return _discard(view, legal)

    def _ruff(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return self._vie(view, _mine(view), legal)

    def _show(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return _show(view, legal)

    def _declare(self, view: SeatView, legal: Sequence[Event]) -> Event:
        # always declare: it costs nothing
        return next((m for m in legal if isinstance(m, Declare)), legal[0])

    def _trump(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return _name_trump(_mine(view), legal)

    def _tiddy(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return next((m for m in legal if isinstance(m, ClaimTiddy)), legal[0])

    # ------------------------------------------------------------ ruff

    def _vie(self, view: SeatView, mine: list[int], legal: Sequence[Event]) -> Event:
        value = ruff_strength(mine)
        give_up = next((m for m in legal if isinstance(m, PassRuff)), legal[0])
        see = next((m for m in legal if isinstance(m, See)), None)
        vies = [m for m in legal if isinstance(m, Vie)]
        owed = view.ruff_stake - view.ruff_put[view.seat]
        if value >= _RUFF_STRONG:
            if vies and view.ruff_stake < _VIE_LIMIT:
                return vies[min(len(vies), 3) - 1]
            return see if see is not None else (vies[0] if vies else give_up)
        if value >= _RUFF_FAIR:
            if see is not None and owed <= 4:
                return see
            if see is None and vies and view.ruff_stake == 0:
                return vies[0]
            return give_up
        # A weak ruff: bluff now and then while it is cheap, else give up the ante.
        if vies and view.ruff_stake <= 2 and self._random.random() < _BLUFF_CHANCE:
            return vies[0]
        return give_up

    # ------------------------------------------------------------ tricks

    def _play(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return _TrickPlanner(view).choose(legal)


# What the talon is worth to a seat, in pence, from its twelve cards: the
# mean of (its net in the hand's other phases when it takes the talon) minus
# (its net when another seat takes it), fitted over 900 hands of this bot
# under the current rulings (SPEC 1.5): the best trump suit's strength helps
# the taker, high cards help whoever holds them either way.
_TALON_BASE = 152
_TALON_PER_STRENGTH = 1.6
_TALON_PER_POINT = -0.2


def talon_worth(mine: Sequence[int]) -> float:
    """Pence the talon is worth to the holder of ``mine`` over letting another take it."""
    strength = max(suit_strength(mine, s) for s in range(4))
    points = sum(_RUFF_POINTS[c % _R] for c in mine)
    return _TALON_BASE + _TALON_PER_STRENGTH * strength + _TALON_PER_POINT * points


def bid_limit(worth: float, high_bid: int, players: int = 3) -> int:
    """The most worth bidding for a talon worth ``worth`` while another holds ``high_bid``.

    Taking at p costs p; passing lets the high bidder take it and pays this
    seat its share of the bid (half, or all of it in Gleek for two). Bidding
    pays while p < worth - share: about two thirds of the worth with three.
    """
    return int(worth - high_bid / (players - 1))


def bid_at(legal: Sequence[Event], amount: int) -> Event:
    """The bid of ``amount`` in an auction's legal list (its bids rise by one from the lowest)."""
    for i, first in enumerate(legal):
        if isinstance(first, Bid):
            got = legal[min(len(legal) - 1, max(i, i + amount - first.amount))]
            if isinstance(got, Bid) and got.amount == amount:
                return got
            break
    raise ValueError(f"no bid of {amount} is legal")


def _bid(view: SeatView, mine: list[int], legal: Sequence[Event]) -> Event:
    """Bid while the price stays under the talon's worth, jumping a third of the way."""
    give_up = next((m for m in legal if isinstance(m, PassBid)), legal[0])
    bids = [m for m in legal if isinstance(m, Bid)]
    if not bids:
        return give_up
    limit = min(bids[-1].amount, bid_limit(talon_worth(mine), view.high_bid, view.players))
    low = bids[0].amount
    if low > limit:
        return give_up
    return bid_at(legal, low + (limit - low) // 3)


def _discard(view: SeatView, legal: Sequence[Event]) -> Event:
    """Drop the card least worth keeping: low cards of short, non-trump suits."""
    cards = dict(view.hand)
    mine = [c for c in cards.values() if c is not None]
    trump = max(range(4), key=lambda s: suit_strength(mine, s))
    length = [0, 0, 0, 0]
    for c in mine:
        length[c // _R] += 1

    def keep(move: Discard) -> tuple[int, int]:
        c = cards.get(move.slot)
        if c is None:
            return (0, move.slot)
        suit, rank = c // _R, c % _R
        value = _RUFF_POINTS[rank] + 2 * _RANK_POWER[rank] + 3 * length[suit]
        if suit == trump:
            value += 40
        if rank == _ACE:
            value += 20
        return (value, move.slot)

    return min((m for m in legal if isinstance(m, Discard)), key=keep)


def _show(view: SeatView, legal: Sequence[Event]) -> Event:
    cards = dict(view.hand)

    def value(move: ShowRuff) -> int:
        return sum(_RUFF_POINTS[c % _R] for x in move.slots if (c := cards.get(x)) is not None)

    return max((m for m in legal if isinstance(m, ShowRuff)), key=value)


def _name_trump(mine: list[int], legal: Sequence[Event]) -> Event:
    """The strongest suit, or Kiss when even that one is weak."""
    suits = [m for m in legal if isinstance(m, NameTrump) and m.suit is not None]
    kiss = next((m for m in legal if isinstance(m, NameTrump) and m.suit is None), None)

    def strength(move: NameTrump) -> int:
        assert move.suit is not None
        return suit_strength(mine, move.suit)

    best = max(suits, key=strength)
    assert best.suit is not None
    length = sum(1 for c in mine if c // _R == best.suit)
    has_top = any(c // _R == best.suit and c % _R <= _KING for c in mine)
    if kiss is not None and (length < 4 or (length < 5 and not has_top)):
        return kiss
    return best


class _TrickPlanner:
    """One decision in the trick phase, from what this seat has seen."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.trump = view.trump
        self.cards = dict(view.hand)
        lowest = view.variant.lowest_rank
        seen = {c for c in self.cards.values() if c is not None}
        seen.update(view.shown.values())
        seen.update(c for _x, c in view.discards if c is not None)
        seen.update(c for _s, _x, c in view.trick)
        # Cards still out of sight (opponents' hands or discards): the best per suit.
        self.top_unseen = [99, 99, 99, 99]
        self.unseen_count = [0, 0, 0, 0]
        for c in range(4 * _R):
            if c % _R <= lowest and c not in seen:
                suit = c // _R
                self.unseen_count[suit] += 1
                if c < self.top_unseen[suit]:
                    self.top_unseen[suit] = c
        named = honour_cards(self.trump, view.variant)
        self.tib, self.tom = (-1 if c is None else c for c in (named["Tib"], named["Tom"]))

    def points(self, c: int) -> int:
        """Trick points a card carries, honours included."""
        pts = card_points(c, self.trump)
        if c == self.tib:
            pts += TIB
        elif c == self.tom:
            pts += TOM
        return pts

    def beats(self, c: int, best: int) -> bool:
        """Whether ``c`` beats the currently winning card ``best``."""
        if c // _R == best // _R:
            return c < best
        return c // _R == self.trump

    def top_of_suit(self, c: int) -> bool:
        """No unseen card of its suit is higher."""
        return c < self.top_unseen[c // _R]

    def trumps_out(self) -> int:
        return 0 if self.trump is None else self.unseen_count[self.trump]

    def choose(self, legal: Sequence[Event]) -> Event:
        cards = self.cards
        moves = [(m, cards[m.slot]) for m in legal if isinstance(m, Play)]
        known = [(m, c) for m, c in moves if c is not None]
        if not known:
            return legal[0]
        trick = self.view.trick
        if not trick:
            return max(known, key=lambda mc: self.lead_score(mc[1]))[0]
        best = trick[0][2]
        for _s, _x, c in trick[1:]:
            if self.beats(c, best):
                best = c
        on_table = sum(self.points(c) for _s, _x, c in trick)
        last = len(trick) == self.view.players - 1
        return max(known, key=lambda mc: self.follow_score(mc[1], best, on_table, last))[0]

    def cost(self, c: int) -> int:
        """What playing ``c`` spends of the hand's future trick power."""
        power = _RANK_POWER[c % _R]
        return power + (3 if c // _R == self.trump else 0)

    def lead_score(self, c: int) -> float:
        suit = c // _R
        pts = self.points(c)
        if c == self.tib:
            return 100.0  # Tib is the top trump: lead it and bank its points
        sure = self.top_of_suit(c) and (
            self.trump is None or suit == self.trump or self.trumps_out() == 0
        )
        if sure:
            return 20.0 + pts - self.cost(c) / 2
        length = sum(1 for x in self.cards.values() if x is not None and x // _R == suit)
        return -pts - self.cost(c) + length / 2 - (4 if suit == self.trump else 0)

    def follow_score(self, c: int, best: int, on_table: int, last: bool) -> float:
        pts = self.points(c)
        if self.beats(c, best):
            gain = on_table + pts
            if (
                last
                or c == self.tib
                or (self.top_of_suit(c) and (c // _R == self.trump or self.trumps_out() == 0))
            ):
                return gain - self.cost(c) + 1
            # Winning for now only: half a chance to keep it.
            return gain / 2 - pts / 2 - self.cost(c)
        return -pts - self.cost(c) - (3 if c // _R == self.trump else 0)


def _mine(view: SeatView) -> list[int]:
    return [c for _x, c in view.hand if c is not None]


_POLICIES: dict[str, Callable[[HeuristicStrategy, SeatView, Sequence[Event]], Event]] = {
    Phase.AUCTION.value: HeuristicStrategy._auction,
    Phase.DISCARD.value: HeuristicStrategy._discard,
    Phase.RUFF.value: HeuristicStrategy._ruff,
    Phase.RUFF_SHOW.value: HeuristicStrategy._show,
    Phase.DECLARE.value: HeuristicStrategy._declare,
    Phase.TRUMP.value: HeuristicStrategy._trump,
    Phase.TIDDY.value: HeuristicStrategy._tiddy,
    Phase.TRICKS.value: HeuristicStrategy._play,
}
"""The heuristic bot's policy per deciding phase (``SeatView.phase``)."""
