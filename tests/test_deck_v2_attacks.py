"""Deck protocol v2: every active cheat is caught at the message that carries it.

The attack of issue 10 (a shuffler puts re-blinded copies of a victim's slots
or of the talon into its own slots) and every other forgery of a pass, a
proof or a key must raise ``Cheating`` on the sender in every honest seat and
the observer, change nothing, and come before any key of the deal.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prepared import once

from gleek_p2p.base.errors import Cheating
from gleek_p2p.deck import Commit, DeckProtocol, Keys, LockPass, ShufflePass
from gleek_p2p.deck.group import card_point, mul
from gleek_p2p.deck.harness import LocalHand, deal_layout, talon_slots
from gleek_p2p.deck.kdf import lock_key, permutation, shuffle_key
from gleek_p2p.deck.passes import lock_pass, shuffle_pass
from gleek_p2p.deck.proofs import context, prove_lock, prove_shuffle, public_key

PACK = list(range(44))
HAND = b"session-a/hand-3"
SEEDS = [hashlib.sha256(b"v2 %d" % s).digest() for s in range(3)]
BLIND = shuffle_key(hashlib.sha256(b"blind").digest(), HAND, 0)
CHEATER = 2  # the last in the order: the seat that used to lock inside its shuffle
LAYOUT = deal_layout(3, 44)
TALON = talon_slots(3, 44)


def new_hand(hand_id: bytes = HAND) -> LocalHand:
    return LocalHand.new(SEEDS, PACK, hand_id, version=2)


# The set-up's steps in order after the commits: a later step's hand continues an
# earlier one's, so each pass is made and checked once per run, not once per target.
STEPS: list[tuple[str, int] | None] = [*(("shuffle", s) for s in range(3)),
                                       *(("lock", s) for s in range(3)), None]


@once
def hand_at(target: tuple[str, int] | None, hand_id: bytes = HAND) -> LocalHand:
    """An honest hand run until ``target`` is the step due (built once per run: each
    test gets its own copy to forge on)."""
    at = STEPS.index(target)
    hand = hand_at(STEPS[at - 1], hand_id) if at else new_hand(hand_id)
    hand.run_until(target)
    return hand


def snapshot(obj: DeckProtocol) -> Any:
    return (obj.messages(), obj.expected(), dict(obj._keys), dict(obj._key_commitments))


def assert_blamed(hand: LocalHand, msg: Any, seat: int = CHEATER) -> Cheating:
    """Every object but the sender refuses ``msg``, blaming ``seat``, and changes nothing."""
    caught: Cheating | None = None
    for obj in hand.everyone:
        if obj.seat == msg.seat:
            continue
        before = snapshot(obj)
        with pytest.raises(Cheating) as info:
            obj.receive(msg)
        assert info.value.seat == seat
        assert snapshot(obj) == before
        caught = info.value
    # Nothing of the deal was sent: the deck is not even locked.
    assert not any(isinstance(m, Keys) for m in hand.log)
    assert not hand.observer.setup_done
    assert caught is not None
    return caught


def forged_shuffle(hand: LocalHand, copies: dict[int, int]) -> ShufflePass:
    """The cheater's shuffle, ``own slot <- r·(copied slot)``, under the best proof it has."""
    obj = hand.seats[CHEATER]
    deck = obj._current_deck()
    seed = SEEDS[CHEATER]
    points = list(shuffle_pass(seed, HAND, CHEATER, deck, lock=False))
    for own, victim in copies.items():
        points[own] = mul(BLIND, points[victim])
    e = shuffle_key(seed, HAND, CHEATER)
    perm = permutation(seed, HAND, CHEATER, 44)
    proof = prove_shuffle(seed, obj._context(CHEATER), deck, points, e, perm)
    return ShufflePass(CHEATER, tuple(points), public_key(e), proof)


COPY_CASES = {
    "one-of-a-victim": {LAYOUT[CHEATER][0]: LAYOUT[0][0]},
    "twelve-of-a-victim": dict(zip(LAYOUT[CHEATER], LAYOUT[0], strict=True)),
    "one-of-the-talon": {LAYOUT[CHEATER][0]: TALON[0]},
    "the-whole-talon": dict(zip(LAYOUT[CHEATER], TALON, strict=False)),
}


@pytest.mark.parametrize("copies", list(COPY_CASES.values()), ids=list(COPY_CASES))
def test_reblinded_copies_in_a_shuffle_are_caught_at_that_shuffle(copies: dict[int, int]) -> None:
    hand = hand_at(("shuffle", CHEATER))
    caught = assert_blamed(hand, forged_shuffle(hand, copies))
    assert "proof of its shuffle pass fails" in caught.reason


@pytest.mark.parametrize("copies", [1, 12])
def test_reblinded_copies_in_a_lock_are_caught_at_that_lock(copies: int) -> None:
    hand = hand_at(("lock", CHEATER))
    obj = hand.seats[CHEATER]
    honest = obj.make_lock()
    points = list(honest.points)
    for own, victim in list(zip(LAYOUT[CHEATER], LAYOUT[0], strict=True))[:copies]:
        points[own] = mul(BLIND, points[victim])
    seed = SEEDS[CHEATER]
    keys = [lock_key(seed, HAND, CHEATER, j) for j in range(44)]
    assert honest.keys is not None
    proof = prove_lock(
        seed,
        obj._context(CHEATER),
        obj._current_deck(),
        points,
        shuffle_key(seed, HAND, CHEATER),
        keys,
        obj._shuffle_keys[CHEATER],
        honest.keys,
    )
    caught = assert_blamed(hand, LockPass(CHEATER, tuple(points), honest.keys, proof))
    assert "proof of its lock pass fails" in caught.reason


def test_a_lock_with_one_slot_under_a_wrong_key_is_caught() -> None:
    hand = hand_at(("lock", 0))
    obj = hand.seats[0]
    honest = obj.make_lock()
    deck = obj._current_deck()
    points = list(honest.points)
    points[5] = lock_pass(SEEDS[0], b"another hand", 0, deck)[5]
    forged = replace(honest, points=tuple(points))
    assert_blamed(hand, forged, 0)


def test_a_key_commitment_that_is_not_the_key_used_is_caught_at_the_lock() -> None:
    hand = hand_at(("lock", 1))
    honest = hand.seats[1].make_lock()
    assert honest.keys is not None
    keys = (*honest.keys[:3], public_key(lock_key(SEEDS[1], HAND, 1, 40)), *honest.keys[4:])
    assert_blamed(hand, replace(honest, keys=keys), 1)


def test_a_published_key_not_matching_its_commitment_is_blamed_on_arrival() -> None:
    hand = hand_at(None)
    wrong = Keys(1, ((0, lock_key(SEEDS[1], HAND, 1, 1)),))
    for obj in hand.everyone:
        if obj.seat == 1:
            continue
        before = snapshot(obj)
        with pytest.raises(Cheating) as info:
            obj.receive(wrong)
        assert info.value.seat == 1
        assert "does not match the commitment" in info.value.reason
        assert snapshot(obj) == before


@pytest.mark.parametrize("where", ["other-hand", "other-session", "other-pass"])
def test_a_replayed_proof_is_refused(where: str) -> None:
    hand = hand_at(("shuffle", CHEATER))
    honest = hand.seats[CHEATER].make_shuffle()
    if where == "other-pass":
        # The seat's own valid proof, bound to another step of the same hand.
        obj = hand.seats[CHEATER]
        seed = SEEDS[CHEATER]
        proof = prove_shuffle(
            seed,
            context(HAND, CHEATER, len(obj._setup) + 1),
            obj._current_deck(),
            honest.points,
            shuffle_key(seed, HAND, CHEATER),
            permutation(seed, HAND, CHEATER, 44),
        )
    else:
        other_id = b"session-a/hand-4" if where == "other-hand" else b"session-b/hand-3"
        other = hand_at(("shuffle", CHEATER), other_id)
        proof = other.seats[CHEATER].make_shuffle().proof
    assert proof is not None
    assert_blamed(hand, replace(honest, proof=proof))


@pytest.mark.parametrize("field", ["commitments", "chain", "k_v", "k_f", "challenge"])
def test_a_proof_with_one_bit_flipped_is_refused(field: str) -> None:
    hand = hand_at(("shuffle", 0))
    honest = hand.seats[0].make_shuffle()
    assert honest.proof is not None
    value = getattr(honest.proof, field)
    if isinstance(value, tuple):
        first = value[7]
        value = (*value[:7], bytes([first[0] ^ 0x10]) + first[1:], *value[8:])
    else:
        value = bytes([value[0] ^ 0x10]) + value[1:]
    assert_blamed(hand, replace(honest, proof=replace(honest.proof, **{field: value})), 0)


def test_a_pass_with_a_valid_looking_proof_whose_points_repeat_is_refused() -> None:
    hand = hand_at(("shuffle", 1))
    honest = hand.seats[1].make_shuffle()
    repeated = (honest.points[1], *honest.points[1:])
    caught = assert_blamed(hand, replace(honest, points=repeated), 1)
    assert "repeats a point" in caught.reason


def test_an_unproved_pass_or_a_downgraded_commit_is_refused() -> None:
    hand = new_hand()
    hand.broadcast(hand.seats[0].make_commit())
    downgraded = Commit(1, hand.seats[1].make_commit().digest, 1)
    assert_blamed(hand, downgraded, 1)
    hand.run_until(("shuffle", 0))
    honest = hand.seats[0].make_shuffle()
    assert_blamed(hand, ShufflePass(0, honest.points), 0)


def test_a_proof_survives_the_wire_and_a_bad_shape_is_refused() -> None:
    from gleek_p2p.base.errors import ProtocolError
    from gleek_p2p.deck import message_from_wire

    hand = hand_at(("lock", 0))
    lock = hand.seats[0].make_lock()
    assert message_from_wire(lock.to_wire()) == lock
    wire = lock.to_wire()
    for bad in (wire[:4], [*wire[:4], wire[4][:2]], [*wire[:3], [*wire[3][:-1], 5], wire[4]]):
        with pytest.raises(ProtocolError):
            message_from_wire(bad)


@settings(max_examples=4, deadline=None)
@given(st.lists(st.binary(min_size=32, max_size=32), min_size=3, max_size=3, unique=True))
def test_honest_seats_always_complete_and_see_the_cards_full_knowledge_gives(
    seeds: list[bytes],
) -> None:
    hand = LocalHand.new(seeds, PACK, b"prop", version=2)
    hand.run_setup()
    hand.deal(LAYOUT)
    hand.give(TALON, 1)
    hand.show(0, LAYOUT[0][:2])
    truth = hand.full_deal()
    assert sorted(truth.values()) == PACK
    for obj in hand.everyone:
        for slot, card in obj.visible_cards().items():
            assert truth[slot] == card
    for seat, slots in LAYOUT.items():
        assert set(slots) <= set(hand.seats[seat].visible_cards())
    assert set(TALON) <= set(hand.seats[1].visible_cards())
    assert card_point(truth[0]) == card_point(hand.observer.public_cards()[0])


@pytest.mark.parametrize("kind", ["shuffle", "lock"])
def test_an_unreduced_proof_scalar_is_blamed_with_its_own_code(kind: str) -> None:
    from gleek_p2p.base.violation_codes import ViolationCode
    from gleek_p2p.deck.group import L

    hand = hand_at((kind, 1))
    honest = hand.seats[1].make_shuffle() if kind == "shuffle" else hand.seats[1].make_lock()
    assert honest.proof is not None
    bumped = (int.from_bytes(honest.proof.challenge, "little") + L).to_bytes(32, "little")
    forged = replace(honest, proof=replace(honest.proof, challenge=bumped))
    caught = assert_blamed(hand, forged, 1)
    assert caught.code is ViolationCode.DECK_UNREDUCED_SCALAR
    assert "not reduced below L" in caught.reason
    # The honest pass still goes through afterwards: nothing was half-taken.
    hand.broadcast(honest)
