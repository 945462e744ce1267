"""Named ways for seat 1 to cheat, each a function that plays a session.

Each scenario searches a few seeds for a deal where its cheat is possible
(a revoke needs a seat able to follow suit, say), so the outcome does not
hang on luck. ``Scenario.run()`` returns the honest log and what was raised.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace

from gleek_p2p.deck import Keys, ShufflePass
from gleek_p2p.deck.group import L, scalar_from_wide
from gleek_p2p.log.envelope import Envelope, sign_envelope
from gleek_p2p.rules import (
    VARIANTS,
    Bid,
    EndDeclare,
    Phase,
    Play,
    ShowRuff,
    Variant,
    card_rank,
    card_suit,
    legal_actions,
    shown_slots,
)
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Stage, Table

from .forge import Result, act_envelope, run_session, sign_as

CHEATER = 1
FIRST_RULINGS = VARIANTS["standard"].first_rulings()
"""Declaring was compulsory under the first rulings: only there is hiding a gleek a cheat."""


def _revoke(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    state = table.state
    if honest is not None or state is None or state.phase is not Phase.TRICKS:
        return None
    if not state.trick_plays:
        return None
    led = card_suit(state.cards[state.trick_plays[0]])
    hand = state.holding[CHEATER]
    followers = [x for x in hand if card_suit(state.cards[x]) == led]
    # Only a revoke no other seat can see: the cards it keeps back were never shown.
    if not followers or set(followers) & shown_slots(state):
        return None
    off = [x for x in hand if card_suit(state.cards[x]) != led]
    return act_envelope(table, Play(CHEATER, off[0])) if off else None


def _false_ruff(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    state = table.state
    if honest is not None or state is None or state.phase is not Phase.RUFF_SHOW:
        return None
    by_suit: dict[int, list[int]] = {}
    for x in state.holding[CHEATER]:
        by_suit.setdefault(card_suit(state.cards[x]), []).append(x)
    for suit, slots in sorted(by_suit.items()):
        if len(slots) >= 2:
            part = tuple(sorted(slots)[1:])
            return act_envelope(table, ShowRuff(CHEATER, suit, part))
    return None


def _hidden_combination(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    state = table.state
    if honest is not None or state is None or state.phase is not Phase.DECLARE:
        return None
    ranks = [card_rank(state.cards[x]) for x in state.holding[CHEATER]]
    if not any(ranks.count(r) >= 3 for r in set(ranks)):
        return None
    return act_envelope(table, EndDeclare(CHEATER))


def _illegal_bid(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    state = table.state
    if honest is not None or state is None or state.phase is not Phase.AUCTION:
        return None
    return act_envelope(table, Bid(CHEATER, 5))


def _bad_unplayed_key(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """Deck v2: the talon taker opens its unplayed card with a key it never committed to."""
    if honest is None or honest.kind != ev.KEYS or table.stage is not Stage.UNPLAYED:
        return None
    keys = ev.deck_from_body(ev.KEYS, CHEATER, honest.body)
    assert isinstance(keys, Keys)
    bad = scalar_from_wide(hashlib.sha512(b"not my key").digest())
    (slot, _key), *rest = keys.keys
    return sign_as(table, ev.KEYS, [Keys(CHEATER, ((slot, bad), *rest)).to_wire()])


def _wrong_deal_key(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    if honest is None or honest.kind != ev.KEYS or table.stage is not Stage.DEAL_KEYS:
        return None
    keys = ev.deck_from_body(ev.KEYS, CHEATER, honest.body)
    assert isinstance(keys, Keys)
    bad = scalar_from_wide(hashlib.sha512(b"not my key").digest())
    (slot, _key), *rest = keys.keys
    return sign_as(table, ev.KEYS, [Keys(CHEATER, ((slot, bad), *rest)).to_wire()])


def _early_dispute(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """Dispute the deal while the deck is still being set up (no key is out yet)."""
    if honest is None or honest.kind not in (ev.COMMIT, ev.SHUFFLE, ev.LOCK):
        return None
    return sign_as(table, ev.DISPUTE, [0])


def _dispute_at_deal_keys(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """Deck v2: dispute a sound deal instead of publishing this seat's deal keys."""
    if honest is None or honest.kind != ev.KEYS or table.stage is not Stage.DEAL_KEYS:
        return None
    return sign_as(table, ev.DISPUTE, [0])


def _dispute_in_play(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """Deck v2: dispute one of this seat's own slots instead of playing a card."""
    state = table.state
    if (honest is not None or table.stage is not Stage.PLAY or state is None
            or state.phase is not Phase.TRICKS or not state.holding[CHEATER]):
        return None
    return sign_as(table, ev.DISPUTE, [state.holding[CHEATER][0]])


def _unreduced_shuffle_scalar(table: Table, honest: Envelope | None,
                              index: int) -> Envelope | None:
    """Deck v2: this seat's own honest shuffle, with k_f + L in its proof (same equations)."""
    if honest is None or honest.kind != ev.SHUFFLE:
        return None
    shuffle = ev.deck_from_body(ev.SHUFFLE, CHEATER, honest.body)
    assert isinstance(shuffle, ShufflePass) and shuffle.proof is not None
    bumped = (int.from_bytes(shuffle.proof.k_f, "little") + L).to_bytes(32, "little")
    forged = replace(shuffle, proof=replace(shuffle.proof, k_f=bumped))
    return sign_as(table, ev.SHUFFLE, ev.deck_body(forged))


def _out_of_turn(table: Table, index: int) -> Envelope | None:
    exp = table.expected()
    state = table.state
    if exp is None or exp.seat == CHEATER or state is None or state.phase is not Phase.AUCTION:
        return None
    return sign_as(table, ev.ACT, ev.Act(Bid(CHEATER, 50), None).to_body())


class _Equivocate:
    """Sign two different moves for one position, sending each to someone."""

    def __init__(self) -> None:
        self.second: Envelope | None = None
        self.done = False

    def tamper(self, table: Table, honest: Envelope | None, index: int) -> Envelope | None:
        state = table.state
        if self.done or honest is not None or state is None or state.phase is not Phase.AUCTION:
            return None
        legal = legal_actions(state, CHEATER)
        if len(legal) < 2:
            return None
        first = act_envelope(table, legal[0])
        self.second = act_envelope(table, legal[1])
        self.done = True
        return first

    def inject(self, table: Table, index: int) -> Envelope | None:
        second, self.second = self.second, None
        return second


def _spliced_session(table: Table, index: int) -> Envelope | None:
    exp = table.expected()
    if index != 5 or exp is None:
        return None
    identity = table._identity
    assert identity is not None
    return sign_envelope(identity, bytes(32), index, table.head, CHEATER, ev.CUT_REVEAL,
                         [bytes(32)])


@dataclass(frozen=True)
class Scenario:
    """A named cheat, and how the honest seats must answer it."""

    name: str
    play: Callable[[bytes, Variant], Result]
    blamed: int | None
    caught: str  # "at once", "in the audit", or "rejected" (not provable)
    variant: Variant = VARIANTS["standard"]
    """The game it is played in (a hidden combination is a cheat only under the first rulings)."""

    def run(self, tries: int = 40, variant: Variant | None = None) -> Result:
        """Play seeds until the cheat happened and the honest seats reacted."""
        for attempt in range(tries):
            result = self.play(f"{self.name}-{attempt}".encode(),
                               self.variant if variant is None else variant)
            if result.errors or any(t.verdict for t in result.tables):
                return result
        raise AssertionError(f"scenario {self.name} never found a chance to cheat")


def _with(tamper: Callable[..., Envelope | None] | None = None,
          inject: Callable[..., Envelope | None] | None = None
          ) -> Callable[[bytes, Variant], Result]:
    def play(seed: bytes, variant: Variant) -> Result:
        return run_session(tamper, inject=inject, cheater=CHEATER, seed=seed, variant=variant)
    return play


def _equivocation(seed: bytes, variant: Variant) -> Result:
    eq = _Equivocate()
    return run_session(eq.tamper, inject=eq.inject, cheater=CHEATER, seed=seed, variant=variant)


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("revoke", _with(_revoke), CHEATER, "in the audit"),
        Scenario("false-ruff", _with(_false_ruff), CHEATER, "in the audit"),
        Scenario("hidden-combination", _with(_hidden_combination), CHEATER, "in the audit",
                 FIRST_RULINGS),
        Scenario("illegal-bid", _with(_illegal_bid), CHEATER, "at once"),
        Scenario("bad-unplayed-key", _with(_bad_unplayed_key), CHEATER, "at once"),
        Scenario("wrong-deal-key", _with(_wrong_deal_key), CHEATER, "at once"),
        Scenario("out-of-turn", _with(inject=_out_of_turn), CHEATER, "at once"),
        Scenario("equivocation", _equivocation, CHEATER, "at once"),
        Scenario("spliced-session", _with(inject=_spliced_session), None, "rejected"),
        Scenario("dispute-proven-hand", _with(_dispute_in_play), CHEATER, "at once"),
        Scenario("unreduced-scalar", _with(_unreduced_shuffle_scalar), CHEATER, "at once"),
    )
}
