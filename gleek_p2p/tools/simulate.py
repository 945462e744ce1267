"""``gleek simulate``: bots play whole sessions with full information and no crypto.

The shuffle and the cut come from a ``random.Random`` seeded with a hash of
the seed, and enter the engine as ``Cut`` and ``Reveal`` events like in a
real session; each bot sees only ``seat_view(state, seat)`` and
``legal_actions(state, seat)``, and every move it returns is checked
against that list. The same seed gives the same output, byte for byte.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import inspect
import json
import random
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.errors import GleekError, IllegalMove
from gleek_p2p.base.i18n import N_, _, ngettext
from gleek_p2p.bots.registry import make_strategies, strategies_needed
from gleek_p2p.bots.strategy import Strategy, choose_async, choose_now
from gleek_p2p.rules import (
    EVENT_TYPES,
    FIRST_MAX_BID,
    PHASE_NAMES,
    Deal,
    Event,
    HandLedger,
    Phase,
    Rank,
    SeatView,
    State,
    Variant,
    apply,
    card,
    card_suit,
    deal_layout,
    legal_actions,
    max_bid,
    new_session,
    parse_variant,
    ruff_value,
    seat_view,
    session_winner,
    to_act,
)
from gleek_p2p.rules.engine import apply_reveals
from gleek_p2p.rules.money import pence
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals
from gleek_p2p.tools.report import PHASE_WORDS

__all__ = [
    "HandSummary",
    "SimResult",
    "Simulation",
    "auction_stats",
    "phase_stats",
    "reading_stats",
    "result_json",
    "run_simulate",
    "simulate",
    "simulate_async",
]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One finished hand: who dealt, won the talon and the ruff, the trump, the ledger."""

    dealer: int
    talon_taker: int | None
    bid: int
    ruff_winner: int | None
    trump: int | None
    """The trump suit; None for Kiss or a variant without tricks (see ``trump_named``)."""
    trump_named: bool
    ledger: HandLedger


@dataclass(frozen=True, slots=True)
class SimResult:
    """A finished simulated session."""

    variant: Variant
    hands: tuple[HandSummary, ...]
    totals: tuple[int, ...]
    winner: int | None
    moves: int
    """Decisions the bots made."""
    finals: tuple[State, ...] = ()
    """The engine state at the end of each hand (kept only when asked: ``keep_finals``)."""


_OVER = (Phase.HAND_OVER, Phase.SESSION_OVER)


def _rng(seed: bytes) -> random.Random:
    return random.Random(hashlib.sha256(b"gleek-p2p/simulate/deal\x00" + seed).digest())


class Simulation:
    """A session stepped one decision at a time; system events are applied for you.

    ``decision()`` gives ``(seat, view, legal)`` for the next move, or None
    once the session is over; ``act(seat, move)`` applies it after checking
    that it is one of the legal moves.
    """

    def __init__(self, variant: Variant, hands: int, seed: bytes, with_views: bool = True,
                 *, keep_finals: bool = False) -> None:
        self._rng = _rng(seed)
        self.with_views = with_views
        self.keep_finals = keep_finals
        self.state: State = apply(new_session(variant, hands), random_cut(variant, self._rng))
        self.summaries: list[HandSummary] = []
        self.finals: list[State] = []
        self.moves = 0
        self._legal: Sequence[Event] = ()
        self._seat = -1

    def decision(self) -> tuple[int, SeatView | None, Sequence[Event]] | None:
        """The seat to act, its view (None if built without views) and its legal moves."""
        s = self.state
        seat = to_act(s)
        while seat is None:
            if s.phase is Phase.SESSION_OVER:
                return None
            s = apply_reveals(apply(s, Deal()), random_deal_reveals(s.variant, self._rng))
            seat = to_act(s)
        self.state = s
        self._seat = seat
        if not self.with_views:
            self._legal = legal_actions(s, seat)
            return seat, None, self._legal
        view = seat_view(s, seat)  # it lists the legal moves too: no need to ask twice
        self._legal = view.legal
        return seat, view, view.legal

    def act(self, seat: int, move: Event, who: str = "a bot") -> bool:
        """Apply ``move``; True when it ended a hand. ``IllegalMove`` if it is not legal."""
        if seat != self._seat or not _listed(move, self._legal):
            raise IllegalMove(f"{who} at seat {seat} chose {move!r}, not a legal move now", seat)
        s = self.state = apply(self.state, move)
        self._legal = ()
        self.moves += 1
        if s.phase not in _OVER:
            return False
        self.summaries.append(
            HandSummary(
                dealer=s.dealer,
                talon_taker=s.talon_taker if s.talon_taker >= 0 else None,
                bid=s.high_bid if s.talon_taker >= 0 else 0,
                ruff_winner=s.ruff_winner if s.ruff_winner >= 0 else None,
                trump=s.trump if s.trump_named else None,
                trump_named=s.trump_named,
                ledger=s.ledgers[-1],
            )
        )
        if self.keep_finals:
            self.finals.append(s)
        return True

    def result(self) -> SimResult:
        s = self.state
        return SimResult(s.variant, tuple(self.summaries), s.totals, session_winner(s), self.moves,
                         tuple(self.finals))


_EVENT_CLASSES = frozenset(EVENT_TYPES.values())


def _choose(strategy: Strategy, view: SeatView, legal: Sequence[Event]) -> Event:
    """``choose_now``, without its awaitable check when the answer is plainly an event."""
    choice = strategy.choose(view, legal)
    if choice.__class__ in _EVENT_CLASSES:
        return choice  # type: ignore[return-value]
    return choose_now(_Answered(strategy, choice), view, legal)


class _Answered(Strategy):
    """A strategy whose answer is already known: hands it to ``choose_now`` to check."""

    def __init__(self, strategy: Strategy, choice: Event | Awaitable[Event]) -> None:
        self.name = strategy.name
        self._choice = choice

    def choose(self, view: SeatView, legal: Sequence[Event]) -> Event | Awaitable[Event]:
        return self._choice


def _listed(move: object, legal: Sequence[Event]) -> bool:
    """``move in legal``, looking for the very object first.

    Bots usually return an element of ``legal``; ``in`` would call the
    events' Python ``__eq__`` on every element before it (an auction lists
    nearly 90 bids).
    """
    for x in legal:
        if x is move:
            return True
    return move in legal


def _hand_end(sim: Simulation, strategies: Sequence[Strategy]) -> None:
    ledger = sim.state.ledgers[-1]
    for seat, strategy in enumerate(strategies):
        strategy.on_hand_end(seat_view(sim.state, seat), ledger)


def _check_count(variant: Variant, strategies: Sequence[Strategy]) -> None:
    if len(strategies) != variant.players:
        raise GleekError(strategies_needed(variant.players, len(strategies)))


def simulate(
    variant: Variant, hands: int, seed: bytes, strategies: Sequence[Strategy],
    *, keep_finals: bool = False,
) -> SimResult:
    """Play a session between synchronous ``strategies`` (one per seat).

    With ``keep_finals`` the result holds each hand's final state (for
    :func:`reading_stats`).
    """
    _check_count(variant, strategies)
    for strategy in strategies:
        if _is_async(strategy):
            raise TypeError(f"strategy {strategy.name!r} is async: use simulate_async")
    sim = Simulation(variant, hands, seed, keep_finals=keep_finals)
    while (d := sim.decision()) is not None:
        seat, view, legal = d
        assert view is not None
        strategy = strategies[seat]
        if sim.act(seat, _choose(strategy, view, legal), strategy.name):
            _hand_end(sim, strategies)
    result = sim.result()
    for strategy in strategies:
        strategy.on_session_end(result.totals)
    return result


async def simulate_async(
    variant: Variant, hands: int, seed: bytes, strategies: Sequence[Strategy],
    *, keep_finals: bool = False,
) -> SimResult:
    """Like :func:`simulate`, for strategies that may be ``async`` (exec bots)."""
    _check_count(variant, strategies)
    sim = Simulation(variant, hands, seed, keep_finals=keep_finals)
    try:
        while (d := sim.decision()) is not None:
            seat, view, legal = d
            assert view is not None
            strategy = strategies[seat]
            if sim.act(seat, await choose_async(strategy, view, legal), strategy.name):
                _hand_end(sim, strategies)
        result = sim.result()
        for strategy in strategies:
            strategy.on_session_end(result.totals)
        return result
    finally:
        for strategy in strategies:
            close = getattr(strategy, "aclose", None)
            if close is not None:
                await close()


def _is_async(strategy: Strategy) -> bool:
    return inspect.iscoroutinefunction(strategy.choose)


def result_json(result: SimResult) -> dict[str, Any]:
    """The ``--json`` object: amounts in halfpence, phases as in ``PHASE_NAMES``."""
    return {
        "unit": "halfpence",
        "hands": [
            {
                "dealer": h.dealer,
                "ledger": {p: list(h.ledger.phases[p]) for p in PHASE_NAMES},
                "net": list(h.ledger.net),
            }
            for h in result.hands
        ],
        "totals": list(result.totals),
        "winner": result.winner,
    }


_SUIT_WORDS = (N_("trump spades"), N_("trump hearts"), N_("trump diamonds"), N_("trump clubs"))


def result_text(result: SimResult, names: Sequence[str]) -> str:
    """One line per hand, then the session table."""
    n = result.variant.players
    lines: list[str] = []
    for i, h in enumerate(result.hands):
        auction = (
            _("no auction")
            if not result.variant.has_auction
            else _("talon dead")
            if h.talon_taker is None
            else _("talon {seat} for {bid}d").format(seat=h.talon_taker, bid=h.bid)
        )
        ruff = (_("no ruff") if h.ruff_winner is None
                else _("ruff {seat}").format(seat=h.ruff_winner))
        trump = (
            _("no tricks")
            if not h.trump_named
            else "Kiss"
            if h.trump is None
            else _(_SUIT_WORDS[h.trump])
        )
        net = " ".join(f"{pence(x, True, leading_zero=True):>6}" for x in h.ledger.net)
        head = _("hand {number}  dealer {seat}").format(number=f"{i + 1:3d}", seat=h.dealer)
        lines.append(f"{head}  {auction:<17} {ruff:<7} {trump:<15} {net}")
    width = max(8, *(len(x) for x in names))
    lines.append("")
    seat_word, bot_word, total_word = _("seat"), _("bot"), _("total")
    phase_words = [_(PHASE_WORDS[p]) for p in PHASE_NAMES]
    seat_width = max(5, len(seat_word))
    lines.append(
        f"{seat_word:<{seat_width}} {bot_word:<{width}} "
        + " ".join(f"{word:>12}" for word in phase_words)
        + f" {total_word:>9}"
    )
    for seat in range(n):
        by_phase = [sum(h.ledger.phases[p][seat] for h in result.hands) for p in PHASE_NAMES]
        lines.append(
            f"{seat:<{seat_width}} {names[seat]:<{width}} "
            + " ".join(f"{pence(x, True, leading_zero=True):>12}" for x in by_phase)
            + f" {pence(result.totals[seat], True, leading_zero=True):>9}"
        )
    won = (_("a tie for first") if result.winner is None
           else _("seat {seat} wins").format(seat=result.winner))
    lines.append(_("{hands}, {moves}: {result} (amounts in pence)").format(
        hands=ngettext("{n} hand", "{n} hands", len(result.hands)).format(n=len(result.hands)),
        moves=ngettext("{n} move", "{n} moves", result.moves).format(n=result.moves),
        result=won))
    return "\n".join(lines)


def phase_stats(result: SimResult) -> dict[str, tuple[float, float]]:
    """Per ledger phase: (mean absolute result per seat-hand in pence, share of the money).

    The money a phase moves is the sum of its absolute amounts (twice what
    changes hands); its share is that over the same sum for all phases.
    """
    sums = {p: sum(abs(x) for h in result.hands for x in h.ledger.phases[p]) for p in PHASE_NAMES}
    seat_hands = max(1, len(result.hands) * result.variant.players)
    moved = sum(sums.values()) or 1
    return {p: (sums[p] / 2 / seat_hands, sums[p] / moved) for p in PHASE_NAMES}


def _ruff_hand(s: State, seat: int) -> list[int]:
    """The cards ``seat`` held during the ruff of the finished hand ``s``."""
    slots = [x for x, owner in enumerate(deal_layout(s.variant, s.dealer)) if owner == seat]
    if seat == s.talon_taker:
        slots = [x for x in (*slots, *s.talon) if x not in s.discards]
    return [s.cards[x] for x in slots]


def _ruff_winner(hands: Sequence[list[int]], eldest: int, longest: bool) -> int:
    """Who would win a showdown of every seat: best-valued suit, or longest suit then value."""
    n = len(hands)
    best, best_key = -1, (-1, -1, 0)
    for seat, cards in enumerate(hands):
        by_suit = [[c for c in cards if card_suit(c) == suit] for suit in range(4)]
        key = max((len(cs) if longest else 0, ruff_value(cs)) for cs in by_suit)
        full = (*key, -((seat - eldest) % n))
        if full > best_key:
            best, best_key = seat, full
    return best


def reading_stats(result: SimResult) -> dict[str, int]:
    """How often the readings of two texts' ambiguities change who is paid.

    ``showdowns`` / ``showdowns_changed``: ruff showdowns played, and those in
    which the seats still in would have a different winner if each showed its
    longest suit ("sa couleur la plus longue") rather than its best
    ("la combinaison d'une seule couleur la plus haute"); ``hands`` /
    ``hands_changed``: the same question for a showdown of all three seats in
    every hand with a ruff. ``tiddy_from_talon``: the Four of trump came
    from the talon to the taker (paid under our ruling, not if only a dealt
    Four counts); ``tiddy_discarded``: it was dealt to the taker, who
    discarded it (paid if the dealt Four counts, not under our ruling).
    """
    out = dict.fromkeys(("showdowns", "showdowns_changed", "hands", "hands_changed",
                         "tiddy_from_talon", "tiddy_discarded"), 0)
    for s in result.finals:
        n = s.variant.players
        eldest = (s.dealer + 1) % n
        if s.ruff_played:
            hands = [_ruff_hand(s, seat) for seat in range(n)]
            out["hands"] += 1
            if _ruff_winner(hands, eldest, False) != _ruff_winner(hands, eldest, True):
                out["hands_changed"] += 1
            if s.ruff_shows:
                shown = {seat for seat, _suit, _slots in s.ruff_shows}
                hands_in = [h if seat in shown else [] for seat, h in enumerate(hands)]
                out["showdowns"] += 1
                if _ruff_winner(hands_in, eldest, True) != s.ruff_winner:
                    out["showdowns_changed"] += 1
        if s.trump is not None and s.talon_taker >= 0 and s.variant.has_fours:
            slot = s.where[card(s.trump, Rank.FOUR)]
            if slot in s.talon and slot not in s.discards:
                out["tiddy_from_talon"] += 1
            elif slot in s.discards:
                out["tiddy_discarded"] += 1
    return out


def phase_stats_text(before: SimResult, after: SimResult, *middle: SimResult) -> str:
    """The table of :func:`phase_stats` under each rulings, and :func:`reading_stats`.

    ``before`` the first rulings, ``middle`` those of issue 12 (if given),
    ``after`` the current ones.
    """
    runs = [("first rulings", before), *(("issue 12", m) for m in middle),
            ("current rulings", after)]
    stats = [phase_stats(r) for _name, r in runs]
    lines = [
        f"{len(after.hands)} hands, the same deals and bots; pence per seat-hand",
        f"{'phase':<13} " + " ".join(f"{name:>22}" for name, _r in runs),
        f"{'':<13} " + " ".join(f"{'mean |result|':>14} {'share':>7}" for _r in runs),
    ]
    for p in PHASE_NAMES:
        lines.append(f"{p:<13} " + " ".join(f"{st[p][0]:>14.2f} {st[p][1]:>7.1%}"
                                            for st in stats))
    lines.extend(auction_stats_lines(after))
    r = reading_stats(after)
    lines.append(_(
        "ruff: the longest-suit reading changes the winner in {changed} of {showdowns} "
        "showdowns, and in {hands_changed} of {hands} hands were all three to show"
    ).format(changed=r["showdowns_changed"], showdowns=r["showdowns"],
             hands_changed=r["hands_changed"], hands=r["hands"]))
    lines.append(_(
        "Tiddy: the Four of trump came from the talon in {talon} hands, was dealt to the "
        "taker and discarded in {discarded}"
    ).format(talon=r["tiddy_from_talon"], discarded=r["tiddy_discarded"]))
    return "\n".join(lines)


def auction_stats(result: SimResult) -> dict[str, Any]:
    """The talons sold: winning bids, how many at 99 or more and at the bound, the taker's net.

    ``taker_net`` is the taker's mean net for the hand after paying its bid
    (pence): near zero when the bidders are equal and the auction prices
    the talon.
    """
    bound = max_bid(result.variant)
    sold = [h for h in result.hands if h.talon_taker is not None]
    bids = sorted(h.bid for h in sold)
    net = [h.ledger.net[h.talon_taker] for h in sold if h.talon_taker is not None]
    return {
        "hands": len(result.hands), "sold": len(sold), "bids": bids, "bound": bound,
        "at_99_or_more": sum(1 for b in bids if b >= FIRST_MAX_BID),
        "at_bound": sum(1 for b in bids if b >= bound),
        "taker_net": sum(net) / 2 / len(net) if net else 0.0,
    }


def auction_stats_lines(result: SimResult) -> list[str]:
    """:func:`auction_stats` in a few lines (English, like the rest of the table)."""
    a = auction_stats(result)
    bids = a["bids"]
    if not bids:
        return ["auction: no talon sold"]

    def pct(q: float) -> int:
        return int(bids[min(len(bids) - 1, int(q * len(bids)))])

    return [
        f"auction: {a['sold']} of {a['hands']} talons sold; winning bid min {bids[0]}, "
        f"quartiles {pct(0.25)}/{pct(0.5)}/{pct(0.75)}, max {bids[-1]}, "
        f"mean {sum(bids) / len(bids):.1f}",
        f"auction: {a['at_99_or_more']} at 99 or more, {a['at_bound']} at the bound "
        f"({a['bound']}); the taker's mean net after paying {a['taker_net']:+.1f} pence",
    ]


def _play(variant: Variant, hands: int, seed: bytes, names: list[str],
          keep_finals: bool = False, think_ms: float | None = None) -> SimResult:
    strategies = make_strategies(",".join(names), variant.players, seed, think_ms)
    if any(_is_async(s) for s in strategies):
        return asyncio.run(simulate_async(variant, hands, seed, strategies,
                                          keep_finals=keep_finals))
    return simulate(variant, hands, seed, strategies, keep_finals=keep_finals)


def run_simulate(args: argparse.Namespace) -> int:
    """The ``gleek simulate`` command."""
    variant = parse_variant(args.variant)
    if getattr(args, "rulings", "current") == "first":
        variant = variant.first_rulings()
    if not 1 <= args.hands <= 1000:
        raise GleekError(_("--hands must be from 1 to 1000"))
    seed = str(args.seed).encode()
    names = [s.strip() for s in str(args.bots).split(",") if s.strip()] or ["heuristic"]
    if len(set(names)) == 1:
        names = names[:1] * variant.players  # "heuristic,heuristic,heuristic" fits two too
    think = getattr(args, "think", None)
    if getattr(args, "phase_stats", False):
        before = _play(variant.first_rulings(), args.hands, seed, names, think_ms=think)
        middle = _play(variant.rulings_of(12), args.hands, seed, names, think_ms=think)
        after = _play(variant.game(), args.hands, seed, names, keep_finals=True, think_ms=think)
        print(phase_stats_text(before, after, middle))
        return 0
    result = _play(variant, args.hands, seed, names, think_ms=think)
    if args.json:
        print(json.dumps(result_json(result), separators=(",", ":")))
    else:
        print(result_text(result, names))
    return 0
