"""The strong bot: determinized search from what its seat may know.

Each decision samples deals of the cards it has not seen that agree with
everything its ``SeatView`` shows (cards played, voids shown by not
following suit, the ruff shows, the combinations, the Tiddy, the talon
and discards when it took them), plays each candidate move out in every
sample with a fast rule-of-thumb policy on :class:`~gleek_p2p.rules.playout.FastHand`,
and picks the move with the best mean money for its seat. The money is the
engine's ledger (``scoring.hand_ledger``), so bidding for the talon, vying
on the ruff, declaring and naming trump are judged by the same estimate
as card play. This is perfect-information Monte Carlo (GIB, the Skat
programs).

It reads the view and the legal list only. Its randomness is seeded from
its seed and the public history of the hand, so a decision is a function
of the view: the same view gives the same move, whatever the hidden cards.

The budget is a number of playouts, and optionally a deadline on an
injected clock: tests and the arena count playouts (reproducible, the same
on every machine and on a Dask cluster); a person's table adds the clock,
with a floor of playouts and a hard cap (a loaded machine makes a decision
slower, not weaker). ``offload`` hands the search to a peer as picklable
work, which the peer runs in a worker process so its event loop keeps
ticking while the bot thinks.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gleek_p2p.bots.heuristic import HeuristicStrategy, bid_at, ruff_strength, suit_strength
from gleek_p2p.bots.strategy import Strategy, Work
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
    State,
    Vie,
    pack,
)
from gleek_p2p.rules.cards import RANKS_PER_SUIT
from gleek_p2p.rules.playout import FastHand
from gleek_p2p.rules.scoring import ruff_points

__all__ = ["PLAYOUTS_PER_MS", "Budget", "SearchStrategy", "Searched", "determinize", "search"]

_R = RANKS_PER_SUIT
PLAYOUTS_PER_MS = 2
"""Playouts a millisecond of thinking buys where the budget must be reproducible.

Measured on the 2-core reference machine (a playout of a whole hand from
the auction costs about half a millisecond there)."""

_VALUE = tuple(ruff_points(rank) for rank in range(_R))  # rank r of spades is card r
_POWER = (8, 6, 5, 4, 3, 2, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Budget:
    """How long one decision may think: playouts, and a deadline if a clock is given.

    ``clock`` returns seconds (``time.perf_counter`` at a real table);
    without it only ``playouts`` counts, which makes decisions reproducible.
    """

    playouts: int = 400
    think_ms: float | None = None
    clock: Callable[[], float] | None = None
    min_samples: int = 4
    min_playouts: int = 0
    """Playouts made even past ``think_ms``: a busy machine slows a decision, not its strength."""
    cap_ms: float | None = None
    """A hard limit on the clock, over ``min_playouts``."""


class SearchStrategy(Strategy):
    """Determinized search over whole-hand playouts; see the module docstring."""

    name = "strong"

    def __init__(self, seed: int | str | bytes = 0, budget: Budget | None = None) -> None:
        self._seed = seed if isinstance(seed, bytes) else str(seed).encode()
        self.budget = budget if budget is not None else Budget()
        self._discarder = HeuristicStrategy(self._seed)
        self.times: dict[str, list[float]] = {}
        """Seconds each search took, per phase (statistics only: nothing reads them back)."""
        self.playouts: dict[str, list[int]] = {}
        """Playouts each search made, per phase (statistics only)."""
        self._worth: tuple[object, list[float]] = (None, [])
        """The hand being bid on, and this seat's estimates of the talon's worth in it."""

    def choose(self, view: SeatView, legal: Sequence[Event]) -> Event:
        step = self._prepare(view, legal)
        if not isinstance(step, list):
            return step
        return self._finish(view, legal, step, search(self._seed, self.budget, view, step))

    def offload(self, view: SeatView, legal: Sequence[Event]) -> Work | Event:
        """The search as picklable work (the view, the candidates, the budget), or the move.

        ``choose`` makes the same move from the same view: the samples are
        seeded from the view, the budget is the same.
        """
        step = self._prepare(view, legal)
        if not isinstance(step, list):
            return step
        return Work(search, (self._seed, self.budget, view, step),
                    lambda done: self._finish(view, legal, step, done))

    def _prepare(self, view: SeatView, legal: Sequence[Event]) -> Event | list[Event]:
        """The move when no search is needed, else the candidates to search."""
        if len(legal) == 1:
            return legal[0]
        # Keyed by the decision's phase, never by the first move's kind.
        phase = view.phase
        if phase in _BY_RULE_OF_THUMB:
            # Discards by rule of thumb (twenty candidates each, seven times in a
            # row); the best ruff is the highest show; the Tiddy is claimed.
            return self._discarder.choose(view, legal)
        if phase not in _SEARCHED:
            raise ValueError(f"the strong bot has no policy for {phase}")
        candidates = _candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        return candidates

    def _finish(self, view: SeatView, legal: Sequence[Event], candidates: list[Event],
                done: Searched) -> Event:
        # The statistics; no decision depends on them.
        self.times.setdefault(view.phase, []).append(done.seconds)
        self.playouts.setdefault(view.phase, []).append(done.playouts)
        means = done.means
        if view.phase == _AUCTION:
            bid = next((i for i, m in enumerate(candidates) if isinstance(m, Bid)), None)
            give_up = next((i for i, m in enumerate(candidates) if isinstance(m, PassBid)), None)
            if bid is not None and give_up is not None:
                lowest = candidates[bid]
                assert isinstance(lowest, Bid)
                return self._bid(view, legal, lowest, means[bid] - means[give_up])
        best = max(range(len(candidates)), key=lambda i: (means[i], -i))
        return candidates[best]

    def _bid(self, view: SeatView, legal: Sequence[Event], lowest: Bid, margin: float) -> Event:
        """Bid up to this seat's estimate of the talon's worth, and stop there.

        Under the scoring rules the auction's money is linear in the bid, so
        one search prices every bid: taking at ``lowest + k`` is worth
        ``margin`` (halfpence) minus ``k`` pence over passing, and passing
        pays half the high bid. The worth over letting the high bidder take
        it, ``lowest + margin/2 + high/2`` pence, is a fresh estimate at each
        of this seat's turns; their mean over the hand decides, so a noisy
        sample does not carry the bid further than the others did.
        """
        paid = view.high_bid / (view.players - 1)  # to this seat if it passes
        worth = lowest.amount + margin / 2 + paid
        key = (view.hand_no, view.seat, view.dealer, view.totals, view.hand)
        if self._worth[0] != key:
            self._worth = (key, [])
        seen = self._worth[1]
        seen.append(worth)
        limit = int(sum(seen) / len(seen) - paid)
        top = max(m.amount for m in legal if isinstance(m, Bid))
        limit = min(limit, top)
        if limit < lowest.amount:
            return next((m for m in legal if isinstance(m, PassBid)), legal[0])
        # A third of the way to the limit: two bidders reach their limits in a
        # few turns, not one penny at a time.
        return bid_at(legal, lowest.amount + (limit - lowest.amount) // 3)


@dataclass(frozen=True)
class Searched:
    """What one search found: each candidate's mean net (halfpence), and its cost."""

    means: list[float]
    playouts: int
    seconds: float


def search(seed: bytes, budget: Budget, view: SeatView, candidates: list[Event]) -> Searched:
    """Each candidate's mean net for ``view.seat`` over determinized samples.

    A module-level function of picklable arguments, so a peer runs it in a
    worker process. It stops at ``budget.playouts``; with a clock, also at the
    think deadline once ``min_playouts`` are done, and at ``cap_ms`` whatever
    is done (at least ``min_samples`` deals).
    """
    b = budget
    start = time.perf_counter()  # statistics only
    rng = random.Random(_decision_seed(seed, view))
    clock = b.clock
    deadline = cap = None
    if clock is not None:
        now = clock()
        if b.think_ms is not None:
            deadline = now + b.think_ms / 1000
        if b.cap_ms is not None:
            cap = now + b.cap_ms / 1000
    totals = [0] * len(candidates)
    samples = 0
    done = 0
    pick = rng.random
    me = view.seat
    while True:
        state = determinize(view, rng)
        base = FastHand.from_state(state)
        for i, move in enumerate(candidates):
            h = base.copy()
            h.play(move)
            totals[i] += playout(h, pick).result.net[me]
        samples += 1
        done += len(candidates)
        if samples < b.min_samples:
            continue
        if done >= b.playouts:
            break
        if clock is not None:
            now = clock()
            if cap is not None and now >= cap:
                break
            if deadline is not None and now >= deadline and done >= b.min_playouts:
                break
    return Searched([x / samples for x in totals], done, time.perf_counter() - start)


def _decision_seed(seed: bytes, view: SeatView) -> bytes:
    """A seed from public facts only: the same view always searches the same samples."""
    key = repr((
        view.seat, view.hand_no, view.phase, view.dealer, view.bids, view.ruff_log,
        view.ruff_shows, view.declarations, view.tricks, view.trick, view.trump,
        tuple(x for x, _c in view.discards), view.hand,
    )).encode()  # fmt: skip
    return hashlib.sha256(b"gleek-p2p/search\x00" + seed + b"\x00" + key).digest()


def _candidates(view: SeatView, legal: Sequence[Event]) -> list[Event]:
    """The moves worth searching: all cards, but few bids and raises.

    Every move that is not an amount is searched; of the bids only the lowest
    (bids rise from it: ``_bid`` prices the others), of the raises the first
    and the third.
    """
    phase = view.phase
    if phase == _AUCTION:
        bids = [m for m in legal if isinstance(m, Bid)]
        return [*(m for m in legal if not isinstance(m, Bid)), *bids[:1]]
    if phase == _RUFF:
        vies = [m for m in legal if isinstance(m, Vie)]
        return [*(m for m in legal if not isinstance(m, Vie)), *vies[:1], *vies[2:3]]
    return list(legal)


# ---------------------------------------------------------------- determinization


def determinize(view: SeatView, rng: random.Random) -> State:
    """A full-information ``State`` that agrees with ``view``, hidden cards drawn by ``rng``.

    Each seat's unseen slots get cards of suits it may still hold: none of a
    suit it failed to follow, none of the suit it showed in the ruff beyond
    the cards shown.
    """
    v = view.variant
    n = v.players
    size = v.pack_size
    hold = view.public.holding
    known: dict[int, int] = dict(view.shown)
    for pairs in (view.hand, view.talon, view.discards):
        for x, c in pairs:
            if c is not None:
                known[x] = c
    owner = [-1] * size
    for s, h in enumerate(hold):
        for x in h:
            owner[x] = s
    void = [set() for _ in range(n)]  # type: list[set[int]]
    for lead, plays, _w in view.tricks:
        _voids(view, lead, plays, void, n)
    if view.trick:
        _voids(view, view.trick[0][0], tuple(x for _s, x, _c in view.trick), void, n)
    for s, suit, _slots in view.ruff_shows:
        void[s].add(suit)  # every card of it was shown
    hidden = [x for x in range(size) if x not in known]
    free = [c for c in pack(v) if c not in set(known.values())]
    cards = [-1] * size
    for x, c in known.items():
        cards[x] = c
    order = sorted(hidden, key=lambda x: -len(void[owner[x]]) if owner[x] >= 0 else 1)
    # A seat that vied or saw on the ruff showed it holds a fair ruff (the
    # playout policy vies or sees only from one): draw again, a few times,
    # until the deal agrees, so three seats do not each vie on the belief
    # that their ruff is the best.
    bettors = _ruff_bettors(view) if view.phase == Phase.RUFF.value else ()
    for _draw in range(_RUFF_DRAWS if bettors else 1):
        _fill(cards, order, free, owner, void, rng)
        if all(ruff_strength([cards[x] for x in hold[b]]) >= _RUFF_FAIR for b in bettors):
            break
    where = [-1] * 44
    for x, c in enumerate(cards):
        where[c] = x
    # Every field but the cards is the view's own: a field added to ``State`` is kept.
    return view.public._replace(cards=tuple(cards), where=tuple(where))


_RUFF_FAIR = 30
"""The ruff value from which the playout policy sees (and, from 38, vies)."""
_RUFF_DRAWS = 12
"""Deals drawn at most for one sample until the ruff bettors hold fair ruffs."""


def _ruff_bettors(view: SeatView) -> tuple[int, ...]:
    """The other seats that vied or saw on the ruff so far and are still in."""
    return tuple(sorted({s for s, kind, _stake in view.ruff_log
                         if kind in ("vie", "see") and s != view.seat and view.ruff_in[s]}))


def _fill(cards: list[int], order: list[int], free: list[int], owner: list[int],
          void: list[set[int]], rng: random.Random) -> None:
    """Deal ``free`` to the hidden slots in ``order``, none of a suit its seat is void in."""
    for attempt in range(30):
        pool = free[:]
        rng.shuffle(pool)
        ok = True
        for x in order:
            bad = void[owner[x]] if owner[x] >= 0 and attempt < 29 else set()
            for i, c in enumerate(pool):
                if c // _R not in bad:
                    cards[x] = pool.pop(i)
                    break
            else:
                ok = False
                break
        if ok:
            return


def _voids(view: SeatView, lead: int, plays: tuple[int, ...], void: list[set[int]], n: int) -> None:
    shown = view.shown
    if plays[0] not in shown:
        return
    led = shown[plays[0]] // _R
    for i, x in enumerate(plays[1:], 1):
        c = shown.get(x)
        if c is not None and c // _R != led:
            void[(lead + i) % n].add(led)


# ---------------------------------------------------------------- playout policy


def playout(h: FastHand, random: Callable[[], float]) -> FastHand:
    """Play ``h`` to the end of the hand with the rule-of-thumb policy for every seat."""
    while h.ledger is None:
        ph = h.phase
        if ph is Phase.TRICKS:
            h.play(_trick_move(h, random))
            continue
        if ph is Phase.AUCTION:
            # Nobody bids in playouts: no need to list hundreds of bids to pass.
            h.play(_PASSES[h.turn])
            continue
        legal = h.legal()
        if len(legal) == 1:
            h.play(legal[0])
            continue
        h.play(_policy(h, legal, random))
    return h


_PASSES = tuple(PassBid(seat) for seat in range(3))


def _hand_cards(h: FastHand, seat: int) -> list[int]:
    return [h.cards[x] for x in h.holding[seat]]


def _policy(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    # Keyed by the phase (a str hashes in C), never by the first move's kind.
    return _POLICY[h.phase._value_](h, legal, random)


def _policy_auction(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    return next((m for m in legal if isinstance(m, PassBid)), legal[0])


def _policy_discard(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    mine = _hand_cards(h, h.turn)
    best = max(range(4), key=lambda s: suit_strength(mine, s))
    length = [0, 0, 0, 0]
    for c in mine:
        length[c // _R] += 1

    def keep(m: Discard) -> int:
        c = h.cards[m.slot]
        r = c % _R
        return _VALUE[r] + 2 * _POWER[r] + 3 * length[c // _R] + (40 if c // _R == best else 0)

    return min((m for m in legal if isinstance(m, Discard)), key=keep)


def _policy_ruff(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    seat = h.turn
    value = ruff_strength(_hand_cards(h, seat))
    see = next((m for m in legal if isinstance(m, See)), None)
    vies = [m for m in legal if isinstance(m, Vie)]
    if value >= 38 and vies and h.ruff_stake < 10:
        return vies[min(len(vies), 2) - 1]
    if value >= 30 and see is not None and h.ruff_stake - h.ruff_put[seat] <= 4:
        return see
    if value >= 30 and see is None and vies and h.ruff_stake == 0:
        return vies[0]
    return next((m for m in legal if isinstance(m, PassRuff)), legal[0])


def _policy_show(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    shows = [m for m in legal if isinstance(m, ShowRuff)]
    return max(shows, key=lambda m: sum(_VALUE[h.cards[x] % _R] for x in m.slots))


def _policy_declare(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    return next((m for m in legal if isinstance(m, Declare)), legal[0])


def _policy_trump(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    mine = _hand_cards(h, h.turn)
    best = max(range(4), key=lambda s: suit_strength(mine, s))
    return next(m for m in legal if isinstance(m, NameTrump) and m.suit == best)


def _policy_tiddy(h: FastHand, legal: list[Event], random: Callable[[], float]) -> Event:
    return next((m for m in legal if isinstance(m, ClaimTiddy)), legal[0])


def _trick_move(h: FastHand, random: Callable[[], float]) -> Event:
    """Follow: win cheaply when it pays, else throw the least; lead: a random card."""
    suit, cards, trump = h.suit, h.cards, h.trump
    plays = h.trick_plays
    legal = h.legal()
    if len(legal) == 1:
        return legal[0]
    if not plays:
        return legal[int(random() * len(legal))]
    best = plays[0]
    for y in plays[1:]:
        if (suit[y] == suit[best] and cards[y] < cards[best]) or (
            suit[y] == trump and suit[best] != trump
        ):
            best = y
    bs, bc = suit[best], cards[best]
    opts = [m.slot for m in legal if type(m) is Play]
    winners = [
        x for x in opts if (suit[x] == bs and cards[x] < bc) or (suit[x] == trump and bs != trump)
    ]
    last = len(plays) == h.n - 1
    on_table = sum(_VALUE[cards[y] % _R] for y in plays)
    if winners and (last or on_table >= 10 or random() < 0.5):
        if last:
            x = min(winners, key=lambda x: _POWER[cards[x] % _R] + (3 if suit[x] == trump else 0))
        else:
            x = min(winners, key=lambda x: cards[x] % _R)
    else:
        x = min(opts, key=lambda x: _VALUE[cards[x] % _R] + _POWER[cards[x] % _R]
                + (3 if suit[x] == trump else 0))
    return next(m for m in legal if type(m) is Play and m.slot == x)


_POLICY: dict[str, Callable[[FastHand, list[Event], Callable[[], float]], Event]] = {
    Phase.AUCTION.value: _policy_auction,
    Phase.DISCARD.value: _policy_discard,
    Phase.RUFF.value: _policy_ruff,
    Phase.RUFF_SHOW.value: _policy_show,
    Phase.DECLARE.value: _policy_declare,
    Phase.TRUMP.value: _policy_trump,
    Phase.TIDDY.value: _policy_tiddy,
    Phase.TRICKS.value: lambda h, legal, random: _trick_move(h, random),
}
"""The playouts' rule of thumb per deciding phase (``FastHand.phase``)."""

_AUCTION = Phase.AUCTION.value
_RUFF = Phase.RUFF.value
_BY_RULE_OF_THUMB = frozenset({Phase.DISCARD.value, Phase.RUFF_SHOW.value, Phase.TIDDY.value})
"""The phases the strong bot leaves to the heuristic bot's rule of thumb."""
_SEARCHED = frozenset({_AUCTION, _RUFF, Phase.DECLARE.value, Phase.TRUMP.value,
                       Phase.TRICKS.value})
"""The phases the strong bot searches."""


def budget_for(think_ms: float | None, reproducible: bool) -> Budget:
    """The budget for ``--think MS``: a clock at a table, a playout count in the arena."""
    if think_ms is None:
        think_ms = 300.0
    playouts = max(8, int(think_ms * PLAYOUTS_PER_MS))
    if reproducible:
        return Budget(playouts=playouts, min_samples=2)
    # At a table: think for think_ms (four times the count if the machine is
    # free), but never stop under the count the arena plays at, unless the
    # hard cap (four times think_ms) is reached first.
    return Budget(playouts=playouts * 4, think_ms=think_ms, clock=time.perf_counter,
                  min_playouts=playouts, cap_ms=think_ms * _CAP)


_CAP = 4
"""The hard cap on a decision at a table, in multiples of its thinking time."""
