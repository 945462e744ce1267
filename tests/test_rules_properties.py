"""Property tests over random full-information games of every variant."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import GleekError, IllegalMove, ProtocolError
from gleek_p2p.rules import (
    LEGACY_SWITCHES,
    MAX_STAKE,
    VARIANTS,
    WIRE_MAX_BID,
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
    Phase,
    Play,
    Reveal,
    See,
    ShowRuff,
    State,
    Variant,
    Vie,
    apply,
    event_from_wire,
    event_to_wire,
    legal_actions,
    new_session,
    replay,
    running_ledger,
    seat_view,
    shown_slots,
    to_act,
    variant_name,
)
from gleek_p2p.rules.limits import max_bid, most_paid
from gleek_p2p.rules.scoring import settle_against_mean, settle_pairwise, settle_received
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals, random_session

VARIANT_NAMES = sorted(VARIANTS)
FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(s: State) -> None:
    """Cards accounted for, ledgers balanced."""
    if s.hand_no < 0:
        return
    n = s.variant.players
    played = [x for _l, p, _w in s.tricks for x in p] + list(s.trick_plays)
    dead_talon = [] if s.talon_taker >= 0 else list(s.talon)
    held = [x for h in s.holding for x in h]
    if s.talon_taker < 0 and s.phase is Phase.AUCTION:
        dead_talon = list(s.talon)
    every = held + played + list(s.discards) + dead_talon
    assert sorted(every) == list(range(s.variant.pack_size)), "a slot is lost or doubled"
    led = running_ledger(s)
    assert led is not None
    for name, amounts in led.phases.items():
        assert len(amounts) == n
        assert sum(amounts) == 0, name
    assert sum(s.totals) == 0


def candidates(s: State, rng: random.Random) -> list[Event]:
    """A few in-range action events of every kind (most of them illegal now)."""
    v = s.variant
    n, size = v.players, v.pack_size
    seat = rng.randrange(n)
    slot = rng.randrange(size)
    slots3 = tuple(sorted(rng.sample(range(size), rng.choice((3, 4)))))
    return [
        Bid(seat, rng.randint(1, 99)),
        PassBid(seat),
        Discard(seat, slot),
        Vie(seat, rng.randint(1, 20)),
        See(seat),
        PassRuff(seat),
        ShowRuff(seat, rng.randrange(4), tuple(sorted(rng.sample(range(size), 2)))),
        Declare(seat, slots3),
        EndDeclare(seat),
        NameTrump(seat, rng.choice((None, 0, 1, 2, 3))),
        ClaimTiddy(seat, slot),
        NoTiddy(seat),
        Play(seat, slot),
    ]


def check_view(s: State) -> None:
    shown = shown_slots(s)
    for seat in range(s.variant.players):
        view = seat_view(s, seat)
        mine = set(s.holding[seat])
        if s.talon_taker == seat:
            mine |= set(s.talon) | set(s.discards)
        visible = {x: c for x, c in view.hand if c is not None}
        visible.update({x: c for x, c in view.talon if c is not None})
        visible.update({x: c for x, c in view.discards if c is not None})
        visible.update(view.shown)
        visible.update({x: c for _s, x, c in view.trick})
        for x, c in visible.items():
            assert x in mine or x in shown, f"seat {seat} sees slot {x}"
            assert s.cards[x] == c


def play_session(
    variant: Variant, hands: int, rng: random.Random, probe: bool
) -> tuple[State, list[Event]]:
    """A random session; with ``probe``, every decision of one hand (drawn at
    random: over the examples, every hand) is probed with illegal candidates."""
    s = new_session(variant, hands)
    log: list[Event] = []
    probed = rng.randrange(hands) if probe else -1

    def step(e: Event) -> None:
        nonlocal s
        s = apply(s, e)
        log.append(e)

    step(random_cut(variant, rng))
    while s.phase is not Phase.SESSION_OVER:
        step(Deal())
        for r in random_deal_reveals(variant, rng):
            step(r)
        check_invariants(s)
        while (seat := to_act(s)) is not None:
            legal = legal_actions(s, seat)
            assert legal, f"{s.phase} seat {seat} has no legal move"
            for other in range(variant.players):
                if other != seat:
                    assert legal_actions(s, other) == []
            if s.hand_no == probed:
                before = s
                for e in candidates(s, rng):
                    if e in legal:
                        continue
                    # Not pytest.raises: its set-up cost as much as the probe.
                    try:
                        apply(s, e)
                    except IllegalMove:
                        pass
                    else:
                        raise AssertionError(f"{e} was accepted: not in {legal}")
                    assert s == before
                check_view(s)
            step(rng.choice(legal))
            check_invariants(s)
        assert s.phase in (Phase.HAND_OVER, Phase.SESSION_OVER)
        if variant.has_tricks:
            assert len(s.tricks) == 12
    return s, log


@pytest.mark.parametrize("first", [False, True], ids=["rulings", "first-rulings"])
@pytest.mark.parametrize("name", VARIANT_NAMES)
@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_invariants(name: str, first: bool, seed: int) -> None:
    rng = random.Random(seed)
    variant = VARIANTS[name].first_rulings() if first else VARIANTS[name]
    final, log = play_session(variant, 2, rng, probe=True)
    assert final.phase is Phase.SESSION_OVER and len(final.ledgers) == 2
    assert replay(log, variant, 2) == final
    check_view(final)


@pytest.mark.parametrize("name", VARIANT_NAMES)
@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_revoke_in_full_information_replay_names_the_seat(name: str, seed: int) -> None:
    variant = VARIANTS[name]
    if not variant.has_tricks:
        return
    rng = random.Random(seed)
    s = new_session(variant, 1)
    log: list[Event] = [random_cut(variant, rng), Deal(), *random_deal_reveals(variant, rng)]
    for e in log:
        s = apply(s, e)
    while (seat := to_act(s)) is not None:
        if s.phase is Phase.TRICKS and s.trick_plays:
            led = s.cards[s.trick_plays[0]] // 11
            hand = s.holding[seat]
            suits = {s.cards[x] // 11 for x in hand}
            off = [x for x in hand if s.cards[x] // 11 != led]
            if led in suits and off:
                bad = Play(seat, rng.choice(off))
                with pytest.raises(IllegalMove) as info:
                    replay([*log, bad], variant, 1)
                assert info.value.seat == seat
                assert "follow suit" in str(info.value)
                return
        e = rng.choice(legal_actions(s, seat))
        s = apply(s, e)
        log.append(e)


# ------------------------------------------------------------------ wire

seats = st.integers(0, 2)
slots = st.integers(0, 43)
sorted_slots = st.lists(slots, min_size=1, max_size=13, unique=True).map(
    lambda xs: tuple(sorted(xs))
)
events: st.SearchStrategy[Event] = st.one_of(
    st.lists(st.integers(0, 43), min_size=2, max_size=3, unique=True).map(
        lambda xs: Cut(tuple(xs))
    ),
    st.just(Deal()),
    st.builds(Reveal, slots, st.integers(0, 43)),
    st.builds(Bid, seats, st.integers(1, WIRE_MAX_BID)),
    st.builds(PassBid, seats),
    st.builds(Discard, seats, slots),
    st.builds(Vie, seats, st.integers(1, MAX_STAKE)),
    st.builds(See, seats),
    st.builds(PassRuff, seats),
    st.builds(ShowRuff, seats, st.integers(0, 3), sorted_slots),
    st.builds(
        Declare,
        seats,
        st.lists(slots, min_size=3, max_size=4, unique=True).map(lambda xs: tuple(sorted(xs))),
    ),
    st.builds(EndDeclare, seats),
    st.builds(NameTrump, seats, st.one_of(st.none(), st.integers(0, 3))),
    st.builds(ClaimTiddy, seats, slots),
    st.builds(NoTiddy, seats),
    st.builds(Play, seats, slots),
)


@given(events)
def test_event_wire_round_trip_is_lossless(e: Event) -> None:
    wire = event_to_wire(e)
    assert event_from_wire(wire) == e
    packed = msgpack.packb(wire)
    assert event_from_wire(msgpack.unpackb(packed)) == e


junk = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.text(max_size=5),
        st.binary(max_size=5),
        st.floats(allow_nan=False),
    ),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=10,
)


@given(
    st.one_of(
        junk,
        events.map(event_to_wire).flatmap(
            lambda w: st.builds(
                lambda i, x: [*w[:i], x, *w[i + 1 :]] if len(w) > 1 else [x],
                st.integers(1, max(1, len(w) - 1)),
                junk,
            )
        ),
    )
)
def test_malformed_wire_is_rejected_with_protocol_error(data: Any) -> None:
    try:
        e = event_from_wire(data)
    except ProtocolError:
        return
    assert event_to_wire(e) == data  # whatever is accepted is canonical


@FAST
@given(data=st.lists(events, max_size=60), seed=st.integers(0, 2**16))
def test_arbitrary_event_streams_fail_cleanly(data: list[Event], seed: int) -> None:
    """Garbage in any order never crashes the engine: only typed errors."""
    s = new_session(VARIANTS[random.Random(seed).choice(VARIANT_NAMES)], 1)
    for e in data:
        before = s
        try:
            s = apply(s, e)
        except GleekError:
            assert s == before


def test_wire_rejects_bool_unsorted_and_out_of_range() -> None:
    with pytest.raises(ProtocolError):
        event_from_wire(["play", True, 3])
    with pytest.raises(ProtocolError):
        event_from_wire(["declare", 0, [3, 2, 1]])  # not ascending
    with pytest.raises(ProtocolError):
        event_from_wire(["bid", 0, WIRE_MAX_BID + 1])
    # A bid the wire admits but the variant does not is an illegal move.
    assert event_from_wire(["bid", 0, 100]) == Bid(0, 100)
    with pytest.raises(ProtocolError):
        event_from_wire(["nope"])


def test_variant_wire_round_trip() -> None:
    for v in VARIANTS.values():
        assert Variant.from_wire(v.to_wire()) == v
    with pytest.raises(ProtocolError):
        Variant.from_wire([4, 0, 1, 0, 0, 0, 0])
    with pytest.raises(ProtocolError):
        Variant.from_wire([3, 0, 1, 0, 1, 1, 0])
    with pytest.raises(ProtocolError):
        Variant.from_wire([3, 0, 1, 0, 0, 0])
    with pytest.raises(ProtocolError, match="unknown"):  # one position past the last switch
        Variant.from_wire([3, 0, 1, 0, 0, 0, 0, *[1] * (len(fields(Variant)) - 6)])
    with pytest.raises(ProtocolError, match="end with a 0"):
        Variant.from_wire([3, 0, 1, 0, 0, 0, 0, 1, 0])


def _in_old_logs(v: Variant) -> bool:
    """Whether ``v``'s game switches are all among the first seven positions (a later
    switch, on in a preset of its own, is in no log written before it)."""
    return all(getattr(v, f.name) == f.default
               for f in fields(Variant)[LEGACY_SWITCHES:] if "switch" in f.metadata)


def test_old_logs_variant_is_the_first_rulings() -> None:
    # A log written before the rulings switches names seven switches: it is
    # read with every ruling off, and written back byte for byte.
    old = Variant.from_wire([3, 0, 1, 0, 0, 0, 0])
    assert old == VARIANTS["standard"].first_rulings()
    assert old.to_wire() == [3, 0, 1, 0, 0, 0, 0]
    assert variant_name(old) == "standard"
    assert VARIANTS["standard"].to_wire() == [3, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    for v in VARIANTS.values():
        assert Variant.from_wire(v.first_rulings().to_wire()) == v.first_rulings()
        assert len(v.first_rulings().to_wire()) == 7 or not _in_old_logs(v)


def test_logs_of_issue_12_keep_their_encoding_and_rulings() -> None:
    # Written with the three score-sheet switches and before open_auction and
    # received_scores: read with those two off, written back byte for byte.
    for name, v in VARIANTS.items():
        mid = v.rulings_of(12)
        wire = mid.to_wire()
        assert wire[7:10] == [1, 1, 1], name
        assert len(wire) == 10 or not _in_old_logs(v), name
        back = Variant.from_wire(wire)
        assert back == mid and not back.open_auction and not back.received_scores
        assert back.to_wire() == wire
        assert v == v.game() == v.rulings_of(21)  # new tables play every ruling


@dataclass(frozen=True, slots=True)
class _WithNewSwitch(Variant):
    """The variant as a later version would have it: one more switch, off by default."""

    new_switch: bool = False


def test_a_new_switch_off_by_default_leaves_old_encodings_alone() -> None:
    for wire in ([3, 0, 1, 0, 0, 0, 0], [2, 1, 1, 0, 0, 0, 1], [3, 0, 1, 0, 0, 0, 0, 1, 1, 1],
                 [3, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1]):
        old = Variant.from_wire(wire)
        new = _WithNewSwitch.from_wire(wire)
        assert not new.new_switch
        assert new.to_wire() == old.to_wire() == wire  # same bytes: same session ids
    on = _WithNewSwitch(new_switch=True)
    before = Variant().to_wire()
    assert on.to_wire() == [*before, *[0] * (len(fields(Variant)) - len(before)), 1]
    assert _WithNewSwitch.from_wire(on.to_wire()) == on
    with pytest.raises(ProtocolError, match="unknown"):
        Variant.from_wire(on.to_wire())  # an older version refuses what it cannot play


@given(
    scores=st.lists(st.integers(0, 400), min_size=2, max_size=3),
    first=st.integers(0, 2),
)
def test_settle_against_mean_is_exact_integer_and_zero_sum(scores: list[int], first: int) -> None:
    n = len(scores)
    got = settle_against_mean(tuple(scores), first % n)
    assert all(type(x) is int for x in got)
    assert sum(got) == 0
    exact = [Fraction(2 * (n * t - sum(scores)), n) for t in scores]
    assert all(abs(g - e) < 1 for g, e in zip(got, exact, strict=True))
    # Only the remainder differs from rounding down, and it goes from the eldest on.
    extra = [g - math.floor(e) for g, e in zip(got, exact, strict=True)]
    assert set(extra) <= {0, 1}
    assert [extra[(first % n + k) % n] for k in range(n)] == sorted(extra, reverse=True)
    # Against the mean is the pairwise settlement divided by the number of seats.
    pairwise = settle_pairwise(tuple(scores))
    assert all(n * e == p for e, p in zip(exact, pairwise, strict=True))


@given(st.lists(st.integers(-1, 4), max_size=12) | st.lists(st.booleans(), max_size=12))
def test_variant_wire_is_canonical_or_refused(data: list[Any]) -> None:
    # Every accepted list is the one encoding of its variant (session ids hash it).
    try:
        v = Variant.from_wire(data)
    except ProtocolError:
        return
    assert v.to_wire() == data


@given(scores=st.lists(st.integers(0, 400), min_size=2, max_size=3))
def test_settle_received_is_the_formula_exactly(scores: list[int]) -> None:
    # received_scores: seat i gets T_i - (T_j + T_k)/2 pence (three seats),
    # T_i - T_j (two): in halfpence, integers, zero-sum, no rounding at all.
    n = len(scores)
    t = tuple(scores)
    got = settle_received(t)
    assert all(type(x) is int for x in got)
    assert sum(got) == 0
    for i in range(n):
        others = [t[j] for j in range(n) if j != i]
        assert Fraction(got[i], 2) == t[i] - Fraction(sum(others), n - 1)
    if n == 3:
        assert got == tuple(2 * t[i] - sum(t) + t[i] for i in range(3))
    else:
        assert got == settle_pairwise(t)  # the one opponent pays it all
    # Against the mean it was (n-1)/n of this: two thirds with three seats.
    assert all(abs(n * m - (n - 1) * r) < n for m, r in
               zip(settle_against_mean(t, 0), got, strict=True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 2**32 - 1))
def test_no_hand_pays_a_seat_more_than_the_bid_bound(name: str, seed: int) -> None:
    # The bound on bids is the most the phases after the auction can pay one
    # seat: no played hand comes near it, in any phase.
    v = VARIANTS[name]
    final, _events = random_session(v, 1, random.Random(seed))
    ledger = final.ledgers[-1]
    bound = most_paid(v)
    for phase, most in bound.items():
        assert max(ledger.phases[phase]) <= 2 * most, (phase, ledger.phases[phase])
    after = [sum(ledger.phases[p][i] for p in bound) for i in range(v.players)]
    assert max(after) <= 2 * max_bid(v)
    assert max_bid(v) <= WIRE_MAX_BID
    assert max_bid(v.rulings_of(12)) == max_bid(v.first_rulings()) == 99


def test_the_bid_bound_is_derived_from_the_phases() -> None:
    # Standard game: Tiddy 2 from each (4), ruff ante and stake limit from
    # each (2 x 22), three mournivals of Tens, Nines and Aces in 13 cards
    # (54 from each, 108), every card's trick points with the Four of trump,
    # Tib, Tom and the last trick (292) received whole.
    assert most_paid(VARIANTS["standard"]) == {"tiddy": 4, "ruff": 44, "combinations": 108,
                                               "tricks": 292}
    assert max_bid(VARIANTS["standard"]) == 448
    assert max_bid(VARIANTS["two"]) == 22 + 54 + 268
    assert max_bid(VARIANTS["modern"]) == 4 + 44 + 54 + 292
    # Every switch combination the wire can carry fits the wire's bound.
    for players in (2, 3):
        for bits in itertools.product((False, True), repeat=11):
            try:
                v = Variant(players, *bits)
            except ValueError:
                continue
            assert max_bid(v) <= WIRE_MAX_BID


@given(players=st.sampled_from((2, 3)), bits=st.lists(st.booleans(), min_size=9, max_size=9))
def test_variants_without_the_issue_21_switches_keep_their_old_encoding(
        players: int, bits: list[bool]) -> None:
    # Any variant a log of before issue 21 could name: the two new switches
    # off leave its wire form (hence its session id) as it was, at most ten
    # positions, and it reads back the same.
    try:
        old = Variant(players, *bits, open_auction=False, received_scores=False)
    except ValueError:
        return
    wire = old.to_wire()
    assert len(wire) <= 10
    assert Variant.from_wire(wire) == old
    new = Variant.from_wire([*wire, *[0] * (10 - len(wire)), 1, 1])
    assert new.open_auction and new.received_scores and new.to_wire()[:len(wire)] == wire
