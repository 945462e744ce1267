"""Deck protocol version 3 (secp256k1): its group, its proofs, and what a v3 seat refuses."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from prepared import once

from gleek_p2p.base.errors import Cheating, ProtocolError, ViolationCode
from gleek_p2p.deck import Commit, Keys, LockPass, ShufflePass, message_from_wire
from gleek_p2p.deck.group_v3 import (
    CARD_POINTS_V3,
    N,
    P,
    Point,
    base,
    derive_card_point,
    is_valid_point,
    is_valid_scalar,
    mul,
    scalar_bytes,
)
from gleek_p2p.deck.harness import LocalHand, deal_layout
from gleek_p2p.deck.proofs import ProofError, context
from gleek_p2p.deck.suites import Secp256k1Suite

PACK = list(range(44))
SEEDS = [hashlib.sha256(b"v3 seat %d" % s).digest() for s in range(3)]


def _non_canonical(scalar: bytes) -> bytes:
    """The same scalar mod N, written as itself + N (fits in 32 bytes when small)."""
    value = int.from_bytes(scalar, "big")
    assert value + N < 2**256
    return (value + N).to_bytes(32, "big")


def test_card_points_rederive_from_their_label() -> None:
    assert len(CARD_POINTS_V3) == 44 == len(set(CARD_POINTS_V3))
    for card, point in enumerate(CARD_POINTS_V3):
        assert derive_card_point(card) == point
        assert is_valid_point(point)


def test_decoding_refuses_what_is_not_a_compressed_point() -> None:
    good = CARD_POINTS_V3[0]
    assert not is_valid_point(good[1:])  # 32 bytes
    assert not is_valid_point(b"\x04" + good[1:])  # wrong prefix
    assert not is_valid_point(b"\x02" + P.to_bytes(32, "big"))  # x >= p
    assert not is_valid_point(b"\x02" + (5).to_bytes(32, "big"))  # x^3+7 not a square
    uncompressed = bytes(65)
    with pytest.raises(ProtocolError):
        message_from_wire(["shuffle", 0, [uncompressed]])


def test_scalars_are_canonical_and_non_zero() -> None:
    assert is_valid_scalar(scalar_bytes(1)) and is_valid_scalar(scalar_bytes(N - 1))
    assert not is_valid_scalar(bytes(32))
    assert not is_valid_scalar(N.to_bytes(32, "big"))
    assert not is_valid_scalar(_non_canonical(scalar_bytes(7)))
    with pytest.raises(ValueError):
        mul(0, base(3))
    assert mul(5, base(7)) == base(35)


@once
def _v3_hand_at(target: tuple[str, int] | None) -> LocalHand:
    """The honest v3 hand run until ``target`` is due (built once per run: each test
    gets its own copy)."""
    hand = LocalHand.new(SEEDS, PACK, b"v3 hand", [1, 2, 0], version=3)
    hand.run_until(target)
    return hand


def _setup_until_lock() -> tuple[LocalHand, Secp256k1Suite]:
    hand = _v3_hand_at(("lock", 1))
    suite = hand.observer._suite
    assert isinstance(suite, Secp256k1Suite)
    return hand, suite


def test_a_v3_hand_deals_and_shows_true_cards() -> None:
    hand = _v3_hand_at(None)
    assert all(len(p) == 33 for p in hand.observer.final_deck)
    hand.deal(deal_layout(3, 44))
    hand.show(0, [0, 1])
    truth = hand.full_deal()
    assert sorted(truth.values()) == PACK
    assert hand.observer.public_cards() == {0: truth[0], 1: truth[1]}
    for seat in hand.seats:
        assert seat.visible_cards().items() <= truth.items()


def test_a_v3_shuffle_proof_refuses_a_non_canonical_scalar() -> None:
    hand, suite = _setup_until_lock()
    shuffle = next(m for m in hand.log if isinstance(m, ShufflePass) and m.seat == 2)
    assert shuffle.proof is not None and shuffle.key is not None
    deck = next(m for m in hand.log if isinstance(m, ShufflePass) and m.seat == 1).points
    ctx = context(b"v3 hand", 2, 4)
    suite.verify_shuffle(ctx, deck, shuffle.points, shuffle.key, shuffle.proof)
    small = min(range(44), key=lambda i: shuffle.proof.k_v[i])  # type: ignore[union-attr]
    k_v = list(shuffle.proof.k_v)
    if int.from_bytes(k_v[small], "big") + N < 2**256:
        k_v[small] = _non_canonical(k_v[small])
        bad = replace(shuffle.proof, k_v=tuple(k_v))
        with pytest.raises(ProofError, match="canonical"):
            suite.verify_shuffle(ctx, deck, shuffle.points, shuffle.key, bad)
    with pytest.raises(ProofError, match="canonical"):
        suite.verify_shuffle(ctx, deck, shuffle.points, shuffle.key,
                             replace(shuffle.proof, challenge=N.to_bytes(32, "big")))
    flipped = bytes([shuffle.proof.k_f[0], shuffle.proof.k_f[1] ^ 1, *shuffle.proof.k_f[2:]])
    with pytest.raises(ProofError):
        suite.verify_shuffle(ctx, deck, shuffle.points, shuffle.key,
                             replace(shuffle.proof, k_f=flipped))


def test_a_lock_pass_with_a_reblinded_slot_is_refused_and_blamed() -> None:
    hand, suite = _setup_until_lock()
    honest = hand.seats[1].make_lock()
    points = list(honest.points)
    points[3] = mul(12345, suite.point(points[3])).encode()
    forged = replace(honest, points=tuple(points))
    with pytest.raises(Cheating) as caught:
        hand.seats[0].receive(forged)
    assert caught.value.seat == 1 and caught.value.code is ViolationCode.DECK_BAD_PROOF
    # Nothing changed: the honest lock is still taken.
    hand.seats[0].receive(honest)


def test_a_non_canonical_proof_scalar_in_a_lock_is_refused() -> None:
    hand, _suite = _setup_until_lock()
    honest = hand.seats[1].make_lock()
    assert honest.proof is not None
    bad = replace(honest, proof=replace(honest.proof, z_e=(N + 1).to_bytes(32, "big")))
    with pytest.raises(Cheating) as caught:
        hand.seats[2].receive(bad)
    assert caught.value.code is ViolationCode.DECK_UNREDUCED_SCALAR  # one code in v2 and v3


def test_a_key_at_or_above_the_order_is_refused() -> None:
    hand = _v3_hand_at(None)
    honest = hand.seats[0].make_keys([12])
    (slot, key), = honest.keys
    for bad in (_non_canonical(key) if int.from_bytes(key, "big") + N < 2**256 else bytes(32),
                N.to_bytes(32, "big"), bytes(32)):
        with pytest.raises(Cheating) as caught:
            hand.seats[1].receive(Keys(0, ((slot, bad),)))
        assert caught.value.code is ViolationCode.DECK_BAD_KEY
    hand.seats[1].receive(honest)


@pytest.mark.parametrize(("mine", "theirs"), [(3, 2), (3, 1), (2, 3)])
def test_a_seat_refuses_a_commit_of_another_version(mine: int, theirs: int) -> None:
    hand = LocalHand.new(SEEDS, PACK, b"v3 hand", [1, 2, 0], version=mine)
    hand.broadcast(hand.seats[1].make_commit())
    other = LocalHand.new(SEEDS, PACK, b"v3 hand", [1, 2, 0], version=theirs)
    other.broadcast(other.seats[1].make_commit())
    commit = other.seats[2].make_commit()
    assert isinstance(commit, Commit) and commit.version == theirs
    with pytest.raises(Cheating) as caught:
        hand.seats[0].receive(commit)
    assert caught.value.code is ViolationCode.DECK_WRONG_VERSION


def test_a_pass_of_the_other_point_size_is_refused() -> None:
    v2 = LocalHand.new(SEEDS, PACK, b"v3 hand", [1, 2, 0], version=2)
    v2.run_until(("shuffle", 1))
    v3 = LocalHand.new(SEEDS, PACK, b"v3 hand", [1, 2, 0], version=3)
    v3.run_until(("shuffle", 1))
    for hand, other in ((v2, v3), (v3, v2)):
        forged = other.seats[1].make_shuffle()
        with pytest.raises(Cheating) as caught:
            hand.seats[0].receive(forged)
        assert caught.value.code in (ViolationCode.DECK_BAD_PASS, ViolationCode.DECK_BAD_PROOF)


def test_a_lock_pass_survives_the_wire() -> None:
    hand, _suite = _setup_until_lock()
    made = hand.seats[1].make_lock()
    again = message_from_wire(made.to_wire())
    assert isinstance(again, LockPass) and again == made
    hand.seats[0].receive(again)


def test_points_compare_by_encoding() -> None:
    a = Point.decode(CARD_POINTS_V3[5])
    assert a == Point.decode(CARD_POINTS_V3[5]) and hash(a) == hash(Point.decode(a.encode()))
    assert a != Point.decode(CARD_POINTS_V3[6])


def test_a_prechecked_pass_is_not_checked_again_and_a_bad_one_is_still_blamed() -> None:
    from gleek_p2p.deck.group_v3 import Count

    hand, suite = _setup_until_lock()
    honest = hand.seats[1].make_lock()
    job = hand.seats[0].precheck(honest)
    assert job is not None
    job()
    Count.reset()
    hand.seats[0].receive(honest)
    assert Count.variable == Count.double == 0  # the worker's check stood in for receive's
    # Seat 2 prechecks a forgery: the job records nothing, receive blames.
    points = list(honest.points)
    points[0] = mul(777, suite.point(points[0])).encode()
    forged = replace(honest, points=tuple(points))
    job = hand.seats[2].precheck(forged)
    assert job is not None
    job()
    with pytest.raises(Cheating) as caught:
        hand.seats[2].receive(forged)
    assert caught.value.seat == 1 and caught.value.code is ViolationCode.DECK_BAD_PROOF
    # A precheck made in another state (here: before seat 2 took another pass)
    # does not stand in for the check of that pass on the deck actually due.
    hand.seats[2].receive(honest)
    assert hand.seats[2].precheck(honest) is None  # not due any more


def test_the_precheck_digest_tells_apart_every_value_a_check_reads() -> None:
    # The record a precheck leaves stands in for one exact check: two inputs
    # that a check could tell apart never share a record (SPEC 2.8, pipelining).
    from gleek_p2p.deck.protocol import _digest_parts

    def record(value: object) -> bytes:
        parts: list[bytes] = []
        _digest_parts(value, parts)
        return b"".join(parts)

    values: list[object] = [
        (b"ab", b"c"), (b"a", b"bc"), (b"abc",), b"abc", (b"ab", b"cd"), (b"abcd",),
        [b"ab", b"cd"], (bytearray(b"ab"), b"cd"), ("ab", b"cd"), ((b"ab", b"cd"),),
        ((b"ab",), b"cd"), (), None, 0, False, (b"",), (b"", b""),
    ]
    records = [record(v) for v in values]
    assert len(set(records)) == len(values)


def test_a_precheck_stands_in_only_for_the_pass_it_checked() -> None:
    from gleek_p2p.deck.group_v3 import Count

    hand, _suite = _setup_until_lock()
    honest = hand.seats[1].make_lock()
    assert honest.proof is not None
    job = hand.seats[0].precheck(honest)
    assert job is not None
    job()
    # The same pass with its responses as a list, not a tuple: not the pass
    # the worker checked, so receive checks it (and it verifies: the same values).
    as_list = replace(honest, proof=replace(honest.proof, z_k=list(honest.proof.z_k)))
    Count.reset()
    hand.seats[0].receive(as_list)
    assert Count.variable > 0


def test_no_precheck_for_what_is_not_due() -> None:
    hand, _suite = _setup_until_lock()
    honest = hand.seats[1].make_lock()
    assert hand.seats[1].precheck(honest) is None  # its own
    early = LocalHand.new(SEEDS, PACK, b"v3 hand", [1, 2, 0], version=3)
    assert early.seats[0].precheck(honest) is None  # nothing committed yet


def test_a_table_holding_v3_points_can_be_copied_and_pickled() -> None:
    # A snapshot of a table (fuzzing, rollback) copies every decoded point it holds.
    import copy
    import pickle

    from gleek_p2p.deck.group_v3 import Point

    point = Point.decode(CARD_POINTS_V3[7])
    assert copy.deepcopy(point) is point and copy.copy(point) is point
    again = pickle.loads(pickle.dumps([point, point]))
    assert again[0] == point and again[0].encode() == CARD_POINTS_V3[7]
    hand = LocalHand.new(SEEDS, PACK, b"copied hand", [1, 2, 0], version=3)
    hand.run_setup()
    copied = copy.deepcopy(hand)
    assert copied.seats[0].visible_cards() == hand.seats[0].visible_cards()


def test_a_set_up_parses_each_point_sent_once_and_the_card_points_not_again() -> None:
    # The card points are decoded once a process and shared by every hand's
    # objects; within a hand each receiver parses each point another sends it
    # once (a shuffle: N points, E, N commitments, N links; a lock: N points,
    # N key commitments), its own never (SPEC 2.2).
    from gleek_p2p.deck.group_v3 import Count

    # The first set-up of a process decodes the card points and derives the
    # Pedersen generators (hashed to the curve, each try a parse).
    LocalHand.new(SEEDS, PACK, b"parse warm-up", [1, 2, 0], version=3).run_setup()
    hand = LocalHand.new(SEEDS, PACK, b"parse count", [1, 2, 0], version=3)
    Count.reset()
    hand.run_setup()
    n = len(PACK)
    per_seat = 2 * ((3 * n + 1) + 2 * n)  # the two other seats' shuffle and lock
    observer = 3 * ((3 * n + 1) + 2 * n)  # every seat's
    assert Count.decode == 3 * per_seat + observer
