"""Every check the deck protocol makes, each met by a cheating seat.

Each rejected message must raise a typed error blaming the right seat and
leave every object exactly as it was; each deviation that cannot be seen at
once must be pinned on the right seat by the audit.
"""

from __future__ import annotations

import hashlib
from typing import Any

import nacl.bindings as b
import pytest
from prepared import once

from gleek_p2p.base.errors import Cheating, GleekError, ProtocolError
from gleek_p2p.deck import (
    Commit,
    DealDispute,
    DeckProtocol,
    Keys,
    LockPass,
    SeedReveal,
    ShufflePass,
)
from gleek_p2p.deck.group import L, card_point, mul, scalar_from_wide
from gleek_p2p.deck.harness import LocalHand, deal_layout, talon_slots
from gleek_p2p.deck.kdf import lock_key, permutation
from gleek_p2p.deck.passes import lock_pass, shuffle_pass

PACK = list(range(44))
HAND = b"session/7"
SEEDS = [hashlib.sha256(b"adv %d" % s).digest() for s in range(3)]
ROGUE = hashlib.sha256(b"rogue").digest()
ORDER_TWO = ((2**255 - 19) - 1).to_bytes(32, "little")
ORDER_EIGHT = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")


def new_hand(version: int = 1) -> LocalHand:
    """Version 1 by default: these checks still guard old logs (v2: test_deck_v2_attacks)."""
    return LocalHand.new(SEEDS, PACK, HAND, version=version)


@once
def hand_at(target: tuple[str, int] | None) -> LocalHand:
    """An honest version 1 hand run until ``target`` is the step due (built once per run:
    each test gets its own copy to cheat on)."""
    hand = new_hand()
    hand.run_until(target)
    return hand


def snapshot(obj: DeckProtocol) -> Any:
    return (
        obj.messages(),
        obj.visible_cards(),
        obj.public_cards(),
        obj.expected(),
        dict(obj._keys),
        set(obj._disputed),
    )


def assert_rejected(
    hand: LocalHand, msg: Any, blamed: int | None, error: type[GleekError] = Cheating
) -> list[GleekError]:
    """Every object rejects ``msg`` with ``error`` (blaming ``blamed``), changing nothing."""
    errors = []
    for obj in hand.everyone:
        before = snapshot(obj)
        with pytest.raises(error) as info:
            obj.receive(msg)
        if blamed is not None:
            assert isinstance(info.value, Cheating)
            assert info.value.seat == blamed
            assert msg in info.value.evidence
        assert snapshot(obj) == before
        errors.append(info.value)
    return errors


def other_point(i: int = 0) -> bytes:
    """A valid prime-order point that is no card and no ciphertext."""
    return mul(scalar_from_wide(hashlib.sha512(b"x%d" % i).digest()), card_point(0))


def random_scalar(i: int = 0) -> bytes:
    return scalar_from_wide(hashlib.sha512(b"k%d" % i).digest())


# ------------------------------------------------------------ turn and step


def test_messages_out_of_turn_are_blamed_on_their_sender() -> None:
    hand = new_hand()
    assert_rejected(hand, Commit(1, bytes(32)), 1)
    assert_rejected(hand, ShufflePass(0, (other_point(),) * 44), 0)
    hand.run_until(("shuffle", 1))
    assert_rejected(hand, Commit(2, bytes(32)), 2)
    assert_rejected(hand, LockPass(1, hand.observer.final_deck), 1)
    assert_rejected(hand, Keys(0, ((0, random_scalar()),)), 0)
    assert_rejected(hand, ShufflePass(2, ()), 2)
    hand.run_until(None)
    assert_rejected(hand, LockPass(2, hand.observer.final_deck), 2)
    # The honest run goes on untouched.
    hand.deal(deal_layout(3, 44))
    assert len(hand.seats[2].visible_cards()) == 12


def test_unknown_seats_and_malformed_messages_are_protocol_errors() -> None:
    hand = new_hand()
    assert_rejected(hand, Commit(3, bytes(32)), None, ProtocolError)
    assert_rejected(hand, ["commit", 0, b"short"], None, ProtocolError)
    assert_rejected(hand, "commit", None, ProtocolError)
    hand.broadcast(hand.seats[0].make_commit())
    assert hand.observer.expected() == ("commit", 1)


def test_a_commitment_of_the_wrong_size_is_rejected() -> None:
    hand = new_hand()
    assert_rejected(hand, Commit(0, b"x" * 31), 0)


# ------------------------------------------------------------ pass contents


def tampered(points: tuple[bytes, ...], j: int, value: bytes) -> tuple[bytes, ...]:
    return (*points[:j], value, *points[j + 1 :])


BAD_POINTS = {
    "identity": (1).to_bytes(32, "little"),
    "order two": ORDER_TWO,
    "order eight": ORDER_EIGHT,
    "card plus order two": b.crypto_core_ed25519_add(card_point(3), ORDER_TWO),
    "card plus order eight": b.crypto_core_ed25519_add(card_point(3), ORDER_EIGHT),
    "non-canonical": (2**255 - 19).to_bytes(32, "little"),
    "plaintext card": card_point(9),
}


@pytest.mark.parametrize("kind", ["shuffle", "last shuffle", "lock"])
@pytest.mark.parametrize("bad", sorted(BAD_POINTS))
def test_a_bad_point_in_a_pass_is_rejected(kind: str, bad: str) -> None:
    hand = new_hand()
    target = {"shuffle": ("shuffle", 1), "last shuffle": ("shuffle", 2), "lock": ("lock", 0)}
    hand.run_until(target[kind])
    seat = target[kind][1]
    honest = getattr(hand.seats[seat], "make_lock" if kind == "lock" else "make_shuffle")()
    cheat = type(honest)(seat, tampered(honest.points, 17, BAD_POINTS[bad]))
    assert_rejected(hand, cheat, seat)
    hand.broadcast(honest)


@pytest.mark.parametrize("count", [0, 43, 45])
def test_a_pass_of_the_wrong_length_is_rejected(count: int) -> None:
    hand = hand_at(("shuffle", 0))
    honest = hand.seats[0].make_shuffle()
    points = (*honest.points, other_point())[:count] if count else ()
    assert_rejected(hand, ShufflePass(0, points), 0)
    hand.broadcast(honest)


def test_a_pass_that_repeats_a_point_is_rejected() -> None:
    hand = hand_at(("lock", 1))
    honest = hand.seats[1].make_lock()
    assert_rejected(hand, LockPass(1, tampered(honest.points, 4, honest.points[30])), 1)
    hand.broadcast(honest)


def test_a_shuffle_that_does_not_encrypt_is_rejected() -> None:
    hand = hand_at(("shuffle", 0))
    # Permuting the plaintext deck without encrypting it shows plaintext cards.
    lazy = ShufflePass(0, tuple(card_point(c) for c in reversed(PACK)))
    assert_rejected(hand, lazy, 0)
    hand.broadcast(hand.seats[0].make_shuffle())
    # Permuting the previous pass without encrypting it repeats its points.
    lazy = ShufflePass(1, tuple(reversed(hand.observer.final_deck)))
    errors = assert_rejected(hand, lazy, 1)
    assert "previous pass" in str(errors[0])


def test_a_pass_of_a_non_point_type_is_rejected() -> None:
    hand = hand_at(("shuffle", 0))
    honest = hand.seats[0].make_shuffle()
    bogus: Any = list(honest.points)
    assert_rejected(hand, ShufflePass(0, bogus), 0)


# ------------------------------------------------------------ keys


@pytest.mark.parametrize(
    "pair",
    [
        (0, bytes(32)),
        (0, L.to_bytes(32, "little")),
        (0, (2**256 - 1).to_bytes(32, "little")),
        (0, b"short"),
        (44, (5).to_bytes(32, "little")),
    ],
)
def test_a_bad_key_or_slot_is_rejected(pair: tuple[int, bytes]) -> None:
    hand = hand_at(None)
    assert_rejected(hand, Keys(1, (pair,)), 1)


def test_a_key_published_twice_is_rejected() -> None:
    hand = hand_at(None)
    first = hand.seats[1].make_keys([0, 1])
    assert_rejected(hand, Keys(1, (*first.keys, first.keys[0])), 1)
    hand.broadcast(first)
    assert_rejected(hand, Keys(1, (first.keys[1],)), 1)


def test_malformed_keys_built_in_code_are_rejected() -> None:
    hand = hand_at(None)
    bogus: Any = [(0, random_scalar())]
    assert_rejected(hand, Keys(1, bogus), None, ProtocolError)
    bogus = ((0, random_scalar(), 1),)
    assert_rejected(hand, Keys(1, bogus), None, ProtocolError)


def test_a_wrong_deal_key_is_disputed_by_its_taker_and_blamed_by_the_audit() -> None:
    hand = hand_at(None)
    honest = hand.seats[1].make_keys(range(12))  # seat 1's keys for seat 0's hand
    forged = Keys(1, tampered(honest.keys, 3, (3, random_scalar())))  # type: ignore[arg-type]
    hand.broadcast(forged)  # nobody can tell yet: seat 2's key is missing
    completing = hand.seats[2].make_keys(range(12))
    errors = hand.broadcast(completing, strict=False)
    assert list(errors) == [0]
    dispute = errors[0]
    assert isinstance(dispute, DealDispute) and dispute.slot == 3
    # The rest of seat 0's hand opened; the disputed slot did not.
    assert sorted(hand.seats[0].visible_cards()) == [s for s in range(12) if s != 3]
    with pytest.raises(DealDispute):
        hand.seats[0].make_keys([3])
    hand.reveal_seeds()
    for obj in hand.everyone:
        with pytest.raises(Cheating) as info:
            obj.audit()
        assert info.value.seat == 1 and forged in info.value.evidence


def test_a_wrong_key_in_a_show_is_blamed_on_the_shower_at_once() -> None:
    hand = hand_at(None)
    hand.deal(deal_layout(3, 44))
    forged = Keys(2, ((26, random_scalar()),))
    assert_rejected(hand, forged, 2)
    hand.show(2, [26])
    assert hand.observer.card_at(26) == hand.seats[2].card_at(26)


def copying_last_shuffle(hand: LocalHand, into: int, source: int) -> ShufflePass:
    """Seat 2 (the last shuffler, who locks) puts slot ``source``'s card in ``into`` too."""
    deck = list(hand.observer.final_deck)
    perm = permutation(SEEDS[2], HAND, 2, 44)
    deck[perm[into]] = deck[perm[source]]
    return ShufflePass(2, shuffle_pass(SEEDS[2], HAND, 2, deck, lock=True))


def test_a_show_that_repeats_a_shown_card_is_blamed_on_the_shower() -> None:
    hand = hand_at(("shuffle", 2))
    hand.broadcast(copying_last_shuffle(hand, 29, 31))  # both in seat 2's hand
    hand.run_until(None)
    errors: dict[Any, GleekError] = {}
    for giver in (0, 1):
        errors.update(hand.broadcast(hand.seats[giver].make_keys(range(24, 36)), strict=False))
    assert list(errors) == [2]
    assert isinstance(errors[2], DealDispute) and errors[2].slot == 31
    hand.show(2, [29])
    shown = hand.observer.card_at(29)
    # Seat 2 shows the disputed slot anyway, by hand: everyone else blames it.
    forged = Keys(2, ((31, lock_key(SEEDS[2], HAND, 2, 31)),))
    for obj in [hand.seats[0], hand.seats[1], hand.observer]:
        before = snapshot(obj)
        with pytest.raises(Cheating) as info:
            obj.receive(forged)
        assert info.value.seat == 2 and f"card {shown}" in info.value.reason
        assert forged in info.value.evidence
        assert snapshot(obj) == before


def test_a_show_that_repeats_a_private_card_is_disputed_and_audited() -> None:
    hand = hand_at(("shuffle", 2))
    cheat = copying_last_shuffle(hand, 29, 13)  # seat 1's card into seat 2's hand
    hand.broadcast(cheat)
    hand.run_until(None)
    hand.deal(deal_layout(3, 44))  # each seat alone sees nothing wrong
    errors = hand.broadcast(hand.seats[2].make_keys([29]), strict=False)
    assert list(errors) == [1]
    assert isinstance(errors[1], DealDispute) and errors[1].slot == 29
    assert hand.observer.card_at(29) == hand.seats[1].card_at(13)
    hand.reveal_seeds()
    for obj in hand.everyone:
        with pytest.raises(Cheating) as info:
            obj.audit()
        assert info.value.seat == 2 and cheat in info.value.evidence


# ------------------------------------------------------------ seeds


def test_a_seed_that_does_not_match_its_commitment_is_rejected() -> None:
    hand = hand_at(None)
    assert_rejected(hand, SeedReveal(2, ROGUE), 2)
    assert_rejected(hand, SeedReveal(2, b"short"), 2)
    hand.broadcast(hand.seats[2].make_seed_reveal())
    assert_rejected(hand, hand.seats[2].make_seed_reveal(), 2)


def test_a_seed_before_its_commitment_is_rejected() -> None:
    hand = new_hand()
    hand.broadcast(hand.seats[0].make_commit())
    assert_rejected(hand, SeedReveal(1, SEEDS[1]), 1)


def test_the_audit_needs_every_seed() -> None:
    hand = hand_at(None)
    hand.broadcast(hand.seats[0].make_seed_reveal())
    with pytest.raises(ProtocolError, match="missing"):
        hand.observer.audit()


# ------------------------------------------------------------ audit


def rogue_pass(hand: LocalHand, kind: str, seat: int) -> ShufflePass | LockPass:
    """The pass ``seat`` would send with a seed other than the one it committed to."""
    deck = hand.observer.final_deck
    if kind == "lock":
        return LockPass(seat, lock_pass(ROGUE, HAND, seat, deck))
    return ShufflePass(seat, shuffle_pass(ROGUE, HAND, seat, deck, lock=seat == 2))


@pytest.mark.parametrize(
    "step", [("shuffle", 0), ("shuffle", 1), ("shuffle", 2), ("lock", 0), ("lock", 1)]
)
def test_a_pass_off_its_seed_is_blamed_by_the_audit(step: tuple[str, int]) -> None:
    hand = hand_at(step)
    cheat = rogue_pass(hand, *step)
    hand.broadcast(cheat)  # well formed: no one can tell yet
    hand.run_until(None)
    disputes: dict[Any, GleekError] = {}
    for giver in range(3):
        for taker, slots in deal_layout(3, 44).items():
            if taker != giver:
                disputes.update(hand.broadcast(hand.seats[giver].make_keys(slots), strict=False))
    assert disputes and all(isinstance(e, DealDispute) for e in disputes.values())
    hand.reveal_seeds()
    for obj in hand.everyone:
        with pytest.raises(Cheating) as info:
            obj.audit()
        assert info.value.seat == step[1] and cheat in info.value.evidence


@pytest.mark.parametrize("slot", [0, 20, 43])
def test_a_substituted_ciphertext_is_disputed_and_blamed(slot: int) -> None:
    hand = hand_at(("lock", 1))
    honest = hand.seats[1].make_lock()
    cheat = LockPass(1, tampered(honest.points, slot, other_point(slot)))
    hand.broadcast(cheat)
    disputes: dict[Any, GleekError] = {}
    layout = deal_layout(3, 44)
    for giver in range(3):
        for taker, slots in layout.items():
            if taker != giver:
                disputes.update(hand.broadcast(hand.seats[giver].make_keys(slots), strict=False))
    for giver in (0, 2):
        disputes.update(
            hand.broadcast(hand.seats[giver].make_keys(talon_slots(3, 44)), strict=False)
        )
    owner = next((s for s, slots in layout.items() if slot in slots), 1)
    assert list(disputes) == [owner]
    dispute = disputes[owner]
    assert isinstance(dispute, DealDispute) and dispute.slot == slot
    hand.reveal_seeds()
    with pytest.raises(Cheating) as info:
        hand.observer.audit()
    assert info.value.seat == 1 and "lock pass" in info.value.reason


def test_an_honest_hand_with_a_dispute_free_audit_returns_the_deal() -> None:
    hand = hand_at(None)
    hand.deal(deal_layout(3, 44))
    hand.reveal_seeds()  # early, as on a dispute: the audit still works
    deal = hand.observer.audit()
    assert sorted(deal.values()) == PACK


def test_an_audit_of_an_unfinished_setup_checks_what_was_sent() -> None:
    hand = hand_at(("shuffle", 2))
    hand.broadcast(rogue_pass(hand, "shuffle", 2))
    hand.reveal_seeds()
    with pytest.raises(Cheating) as info:
        hand.observer.audit()
    assert info.value.seat == 2
    clean = new_hand()
    clean.run_until(("lock", 0))
    clean.reveal_seeds()
    assert clean.observer.audit() == {}
