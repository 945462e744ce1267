"""The legal-move generators the engine and the playout hand share (``rules/legal.py``)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.rules import (
    VARIANTS,
    ClaimTiddy,
    Deal,
    Declare,
    EndDeclare,
    Event,
    NoTiddy,
    Phase,
    Play,
    Rank,
    ShowRuff,
    State,
    apply,
    legal_actions,
    max_bid,
    new_session,
    parse_card,
    to_act,
)
from gleek_p2p.rules.engine import apply_reveals
from gleek_p2p.rules.legal import (
    bid_moves,
    claim_tiddy_moves,
    declare_moves,
    declaring_moves,
    end_declare_moves,
    no_tiddy_moves,
    pass_bid_moves,
    pass_ruff_moves,
    play_moves,
    see_moves,
    show_moves,
    tiddy_moves,
    vie_moves,
)
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals

R = 11


def reference_declares(seat: int, hand: list[int], cards: list[int],
                       declarations: list[tuple[int, tuple[int, ...]]],
                       optional: bool) -> list[Event]:
    """The engine's first generator, written plainly: ranks by a dict, in rank order."""
    done = {cards[sl[0]] % R for who, sl in declarations if who == seat}
    by_rank: dict[int, list[int]] = {}
    for x in hand:
        if cards[x] >= 0:
            by_rank.setdefault(cards[x] % R, []).append(x)
    out: list[Event] = []
    for rank in sorted(by_rank):
        group = by_rank[rank]
        if rank in done or len(group) < 3:
            continue
        out.append(Declare(seat, tuple(group)))
        if len(group) == 4 and optional:
            out.extend(Declare(seat, three) for three in itertools.combinations(group, 3))
    unknown = any(cards[x] < 0 for x in hand)
    pending = [] if unknown else [m for m in out if isinstance(m, Declare)]
    if optional or not pending:
        out.append(EndDeclare(seat))
    return out


@settings(max_examples=300, deadline=None)
@given(
    deal=st.permutations(range(44)),
    size=st.integers(0, 13),
    hidden=st.sets(st.integers(0, 12), max_size=4),
    declared=st.sets(st.integers(0, 10), max_size=3),
    optional=st.booleans(),
    seat=st.integers(0, 2),
)
def test_declares_are_the_plain_definition(deal: list[int], size: int, hidden: set[int],
                                           declared: set[int], optional: bool,
                                           seat: int) -> None:
    """Every rank of three or four known cards, once, in rank order; the end as the rulings
    say, with unknown cards (a seat's partial view) and ranks already declared."""
    # Hands rich in combinations: the first cards sorted by rank.
    cards = sorted(deal[:size], key=lambda c: c % R) + deal[size:]
    hand = list(range(size))
    for i in hidden:
        if i < size:
            cards[i] = -1
    declarations = []
    for rank in declared:
        group = tuple(x for x in hand if cards[x] >= 0 and cards[x] % R == rank)
        if len(group) >= 3:
            declarations.append((seat, group))
    assert declaring_moves(seat, hand, cards, declarations, optional) == reference_declares(
        seat, hand, cards, declarations, optional)


def test_compulsory_declaring_lists_no_end_while_a_combination_is_left() -> None:
    cards = [parse_card(c) for c in ("AS", "AH", "AD", "KS", "KH", "KD", "KC", "TS")]
    hand = list(range(len(cards)))
    got = declaring_moves(0, hand, cards, [], optional=False)
    assert got == [Declare(0, (0, 1, 2)), Declare(0, (3, 4, 5, 6))]
    # Optional: the mournival's four threes too, and the end.
    got = declaring_moves(0, hand, cards, [], optional=True)
    assert len(got) == 1 + 1 + 4 + 1 and got[-1] == EndDeclare(0)
    # A hidden card: this engine cannot tell, the end is listed (the audit asks again).
    cards[7] = -1
    assert declaring_moves(0, hand, cards, [], optional=False)[-1] == EndDeclare(0)


def test_plays_follow_suit_and_never_name_an_unknown_card() -> None:
    cards = [parse_card(c) for c in ("AS", "KH", "QH", "4C")] + [-1]
    hand = [0, 1, 2, 3, 4]
    assert play_moves(1, hand, cards, []) == [Play(1, x) for x in (0, 1, 2, 3)]
    assert play_moves(1, [0, 2, 3, 4], cards, [1]) == [Play(1, 2)]  # hearts led
    assert play_moves(1, [0, 3, 4], cards, [1]) == [Play(1, 0), Play(1, 3)]  # none: any known


def test_shows_and_tiddy() -> None:
    cards = [parse_card(c) for c in ("AS", "KH", "QH", "4C")] + [-1]
    assert show_moves(2, [0, 1, 2, 3, 4], cards) == [
        ShowRuff(2, 0, (0,)), ShowRuff(2, 1, (1, 2)), ShowRuff(2, 3, (3,))]
    assert tiddy_moves(1, [0, 3], 3) == [NoTiddy(1), ClaimTiddy(1, 3)]
    assert tiddy_moves(1, [0, 1], 3) == [NoTiddy(1)]
    assert tiddy_moves(1, [0, 1], -1) == [NoTiddy(1)]


def kinds_of(s: State, seat: int) -> list[list[Event]]:
    """The per-kind lists of the phase ``s`` is in, in the engine's order."""
    v, hand, cards = s.variant, s.holding[seat], s.cards
    if s.phase is Phase.AUCTION:
        return [pass_bid_moves(seat), bid_moves(seat, s.high_bid, max_bid(v))]
    if s.phase is Phase.RUFF:
        return [pass_ruff_moves(seat), see_moves(seat, s.ruff_put[seat], s.ruff_stake),
                vie_moves(seat, s.ruff_stake)]
    if s.phase is Phase.DECLARE:
        return [declare_moves(seat, hand, cards, s.declarations, v.optional_declaring),
                end_declare_moves(seat, hand, cards, s.declarations, v.optional_declaring)]
    if s.phase is Phase.TIDDY:
        assert s.trump is not None
        return [no_tiddy_moves(seat),
                claim_tiddy_moves(seat, hand, s.where[s.trump * R + Rank.FOUR])]
    return [legal_actions(s, seat)]


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32))
def test_each_phase_is_its_kinds_in_order(variant: str, seed: int) -> None:
    """At every decision of a random hand, the phase's list is its kinds' lists in order."""
    v = VARIANTS[variant]
    rng = random.Random(seed)
    s = apply(new_session(v, 1), random_cut(v, rng))
    s = apply_reveals(apply(s, Deal()), random_deal_reveals(v, rng))
    while (seat := to_act(s)) is not None:
        legal = legal_actions(s, seat)
        assert [m for kind in kinds_of(s, seat) for m in kind] == legal
        s = apply(s, rng.choice(legal))
