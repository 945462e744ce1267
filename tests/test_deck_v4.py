"""Deck protocol version 4 (no lock pass; keys are proved strips), met by a liar.

A version 4 seat gives its "key" for a slot by stripping its shuffle layer off
the slot's current point, with a batched Chaum-Pedersen proof (SPEC.md §2.8b).
These tests deal honest hands and check who sees what, then lie to the
receivers in every way a keys message can lie (and differently to each peer):
each lie must be refused with its own code, blamed on its sender, and change
nothing, after which the honest message is still taken.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prepared import once
from test_deck_adversarial import snapshot as adversarial_snapshot

from gleek_p2p.base.errors import Cheating, GleekError, ProtocolError, ViolationCode
from gleek_p2p.deck import (
    DeckProtocol,
    Keys,
    LockPass,
    SeedReveal,
    ShufflePass,
    audit_transcript,
    message_from_wire,
)
from gleek_p2p.deck.group_v3 import CARD_POINTS_V3, N, P, base, mul
from gleek_p2p.deck.harness import LocalHand, deal_layout, talon_slots
from gleek_p2p.deck.proofs import V4, StripProof
from gleek_p2p.deck.suites import Secp256k1Suite
from gleek_p2p.deck.vectors import SCENARIOS, from_jsonable, vector_text

PACK = list(range(44))
#: Gleek for two: no 4s or 5s (36 cards).
PACK_TWO = [c for c in range(44) if c % 11 < 9]
HAND = b"v4 hand"
SEEDS = [hashlib.sha256(b"v4 seat %d" % s).digest() for s in range(3)]
ORDER = {3: [1, 2, 0], 2: [1, 0]}
VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


@once
def v4_hand(n_seats: int = 3, target: tuple[str, int] | None = None,
            hand_id: bytes = HAND) -> LocalHand:
    """The honest version 4 hand run until ``target`` is due (built once per run: each
    test gets its own copy to lie on)."""
    cards = PACK if n_seats == 3 else PACK_TWO
    hand = LocalHand.new(SEEDS[:n_seats], cards, hand_id, ORDER[n_seats], version=4)
    hand.run_until(target)
    return hand


def suite_of(hand: LocalHand) -> Secp256k1Suite:
    suite = hand.observer._suite
    assert isinstance(suite, Secp256k1Suite) and suite.version == 4
    return suite


def slot_points(obj: DeckProtocol) -> tuple[bytes, ...]:
    """Every slot's point as the object's log has left it (none before the deck is done)."""
    return tuple(obj._slot_point(j) for j in range(obj.n_slots)) if obj.setup_done else ()


def snapshot(obj: DeckProtocol) -> Any:
    """Everything a refused message must leave as it was: the versions' common state
    (``test_deck_adversarial.snapshot``) and v4's slot points."""
    return (*adversarial_snapshot(obj), dict(obj._slot_points), slot_points(obj))


def assert_refused(
    receivers: list[DeckProtocol], msg: Keys | list[Any], sender: int, code: ViolationCode,
) -> list[GleekError]:
    """Every receiver refuses ``msg`` with ``code`` and changes nothing.

    A ``deck.*`` code is a ``Cheating`` naming ``sender`` with the message in its
    evidence; a ``form.*`` code is a ``ProtocolError`` (the wire layer's, before
    the deck knows who sent what).
    """
    errors = []
    for obj in receivers:
        before = snapshot(obj)
        with pytest.raises(GleekError) as caught:
            obj.receive(msg)
        exc = caught.value
        assert getattr(exc, "code", None) is code, (obj.seat, exc)
        if code.value.startswith("deck."):
            assert isinstance(exc, Cheating), (obj.seat, exc)
            assert exc.seat == sender
            parsed = message_from_wire(msg) if isinstance(msg, list) else msg
            assert parsed in exc.evidence
        else:
            assert isinstance(exc, ProtocolError) and not isinstance(exc, Cheating)
        assert snapshot(obj) == before, obj.seat
        errors.append(exc)
    return errors


def strips_of(msg: Keys) -> list[bytes]:
    return [point for _, point in msg.keys]


def with_point(msg: Keys, index: int, point: bytes) -> Keys:
    """``msg`` with its ``index``-th output replaced (the honest proof kept)."""
    pairs = list(msg.keys)
    pairs[index] = (pairs[index][0], point)
    return replace(msg, keys=tuple(pairs))


def reproved(hand: LocalHand, seat: int, pairs: tuple[tuple[int, bytes], ...]) -> Keys:
    """What a forger who knows its own key best makes: the forged outputs with a proof
    computed for them, on the right inputs, in the right context, with its real key."""
    suite = suite_of(hand)
    obj = hand.seats[seat]
    e = suite.shuffle_scalar(SEEDS[seat], obj.hand_id, seat)
    ins = [suite.point(obj._slot_point(slot)) for slot, _ in pairs]
    outs = [suite.point(point) for _, point in pairs]
    proof = V4.prove_strip(SEEDS[seat], obj._keys_context(seat), e, base(e), ins, outs)
    return Keys(seat, pairs, proof)


def other_point(i: int) -> bytes:
    """A valid point that is no card and no slot of any hand here."""
    k = int.from_bytes(hashlib.sha512(b"other %d" % i).digest(), "big") % N
    return base(k).encode()


# ---------------------------------------------------------------- honest hands


@pytest.mark.parametrize("n_seats", [3, 2])
def test_an_honest_v4_hand_shows_each_object_exactly_its_cards(n_seats: int) -> None:
    hand = v4_hand(n_seats)
    cards = PACK if n_seats == 3 else PACK_TWO
    kinds = [m.to_wire()[0] for m in hand.log]
    assert kinds == ["commit"] * n_seats + ["shuffle"] * n_seats  # no lock pass
    assert not any(isinstance(m, LockPass) for m in hand.log)
    truth = hand.full_deal()
    assert sorted(truth.values()) == sorted(cards)

    layout = deal_layout(n_seats, len(cards))
    hand.deal(layout)
    for s, seat in enumerate(hand.seats):
        assert seat.visible_cards() == {slot: truth[slot] for slot in layout[s]}
        assert seat.public_cards() == {}
    assert hand.observer.visible_cards() == {}

    talon = talon_slots(n_seats, len(cards))
    assert talon  # 8 cards (three seats), 12 (two)
    taker = n_seats - 1
    hand.give(talon, taker)
    for s, seat in enumerate(hand.seats):
        mine = layout[s] + (talon if s == taker else [])
        assert seat.visible_cards() == {slot: truth[slot] for slot in mine}
    assert hand.observer.visible_cards() == {}

    # A show: a dealt slot of seat 0's, and a talon slot by its taker.
    shown = {layout[0][3]: 0, talon[1]: taker}
    for slot, seat in shown.items():
        hand.show(seat, [slot])
    public = {slot: truth[slot] for slot in sorted(shown)}
    for s, seat in enumerate(hand.seats):
        mine = layout[s] + (talon if s == taker else []) + list(shown)
        assert seat.visible_cards() == {slot: truth[slot] for slot in mine}
        assert seat.public_cards() == public
    assert hand.observer.visible_cards() == public == hand.observer.public_cards()
    # A shown slot is the card point itself, in every view.
    for slot in shown:
        assert {obj._slot_point(slot) for obj in hand.everyone} == {CARD_POINTS_V3[truth[slot]]}

    # The transcript checks and yields the shown cards, no more.
    wire = [m.to_wire() for m in hand.log]
    assert audit_transcript(n_seats, cards, HAND, ORDER[n_seats], wire) == public

    # With every seed out, the audit recomputes every strip: the whole deal.
    hand.reveal_seeds()
    assert hand.audit() == [truth] * (n_seats + 1)
    assert audit_transcript(n_seats, cards, HAND, ORDER[n_seats],
                            [m.to_wire() for m in hand.log]) == truth


def test_a_v4_keys_message_survives_the_wire() -> None:
    hand = v4_hand()
    made = hand.seats[0].make_keys([12, 13, 30])
    wire = made.to_wire()
    assert wire[0] == "keys" and len(wire) == 4
    assert all(len(point) == 33 for _, point in wire[2]) and [len(s) for s in wire[3]] == [32, 32]
    again = message_from_wire(wire)
    assert isinstance(again, Keys) and again == made
    hand.broadcast(again)
    assert all(obj.has_key(0, 13) for obj in hand.everyone)


def test_an_audit_names_a_strip_that_differs_from_its_seed() -> None:
    # A strip a broken check would have let through (here: put into the auditor's
    # record by hand) is pinned on its sender once the seeds are out.
    hand = v4_hand()
    hand.deal(deal_layout(3, 44))
    hand.reveal_seeds()
    auditor = copy.deepcopy(hand.observer)
    km = next(m for m in auditor._key_messages if m.seat == 2)
    forged = with_point(km, 0, other_point(0))
    auditor._key_messages[auditor._key_messages.index(km)] = forged
    with pytest.raises(Cheating) as caught:
        auditor.audit()
    assert caught.value.seat == 2 and caught.value.code is ViolationCode.AUDIT_KEY_DIFFERS
    assert forged in caught.value.evidence


# ----------------------------------------------------- every check on a keys message


def _dealt_hop() -> tuple[LocalHand, Keys]:
    """After the set-up, seat 0 has stripped seat 2's slots; seat 1's strip of them is
    due (the hop that opens them to seat 2). Returns the hand and that honest message."""
    hand = v4_hand()
    hand.broadcast(hand.seats[0].make_keys(list(range(24, 36))))
    return hand, hand.seats[1].make_keys(list(range(24, 36)))


def _first_hop() -> tuple[LocalHand, Keys]:
    """Right after the set-up: seat 0's honest strip of seat 1's slots."""
    hand = v4_hand()
    return hand, hand.seats[0].make_keys(list(range(12, 24)))


def _show_hop() -> tuple[LocalHand, Keys]:
    """After the deal: seat 0's show of six of its own cards (the last strip: public)."""
    hand = v4_hand()
    hand.deal(deal_layout(3, 44))
    return hand, hand.seats[0].make_keys(list(range(6)))


HOPS = {"first hop": _first_hop, "second hop": _dealt_hop, "a show": _show_hop}


def _forgeries(hand: LocalHand, honest: Keys) -> dict[str, Keys]:
    """Every forged output this test knows, each at slot index 3 of ``honest``."""
    suite = suite_of(hand)
    obj = hand.observer
    outs = strips_of(honest)
    slot = honest.keys[3][0]
    other_seat = (honest.seat + 1) % 3
    other_key = suite.shuffle_scalar(SEEDS[other_seat], HAND, other_seat)
    theirs = mul(pow(other_key, -1, N), suite.point(obj._slot_point(slot))).encode()
    # On a show, another card of the pack: the lie a player would like to tell.
    card = next(point for point in CARD_POINTS_V3 if point != outs[3])
    swapped = list(honest.keys)
    swapped[3], swapped[4] = (swapped[3][0], outs[4]), (swapped[4][0], outs[3])
    return {
        "another point": with_point(honest, 3, other_point(1)),
        "a copy of another slot": with_point(honest, 3, outs[5]),
        "a re-blinded copy of another slot": with_point(
            honest, 3, mul(12345, suite.point(outs[5])).encode()),
        "a re-blinded copy of another slot's input": with_point(
            honest, 3, mul(777, suite.point(obj._slot_point(honest.keys[5][0]))).encode()),
        "a card point": with_point(honest, 3, card),
        "the input itself": with_point(honest, 3, obj._slot_point(slot)),
        "the strip by another seat's key": with_point(honest, 3, theirs),
        "two slots' outputs swapped": replace(honest, keys=tuple(swapped)),
    }


FORGERIES = [
    "another point", "a copy of another slot", "a re-blinded copy of another slot",
    "a re-blinded copy of another slot's input", "a card point", "the input itself",
    "the strip by another seat's key", "two slots' outputs swapped",
]


@pytest.mark.parametrize("hop", sorted(HOPS))
@pytest.mark.parametrize("forgery", FORGERIES)
@pytest.mark.parametrize("proof", ["the honest proof", "re-proved by the forger"])
def test_a_forged_strip_is_refused_blamed_and_changes_nothing(
    hop: str, forgery: str, proof: str
) -> None:
    hand, honest = HOPS[hop]()
    forged = _forgeries(hand, honest)[forgery]
    assert forged != honest
    if proof != "the honest proof":
        forged = reproved(hand, honest.seat, forged.keys)
    errors = assert_refused(hand.everyone, forged, honest.seat, ViolationCode.DECK_BAD_PROOF)
    # The evidence re-checks the message from the log: the sender's shuffle (its E),
    # the deck's last pass, and the earlier strips of those slots.
    evidence = errors[0].evidence  # type: ignore[attr-defined]
    assert next(m for m in hand.log if isinstance(m, ShufflePass) and m.seat == honest.seat) \
        in evidence
    assert hand.log[len(ORDER[3]) * 2 - 1] in evidence
    slots = {slot for slot, _ in honest.keys}
    earlier = [m for m in hand.log if isinstance(m, Keys)]
    touching = [m for m in earlier if slots & {slot for slot, _ in m.keys}]
    assert [m for m in evidence if isinstance(m, Keys)] == [*touching, forged]
    # The honest message is still taken, and opens what it should.
    hand.broadcast(honest)
    truth = hand.full_deal()
    if hop == "second hop":
        assert hand.seats[2].visible_cards() == {slot: truth[slot] for slot in range(24, 36)}
    if hop == "a show":
        assert hand.observer.public_cards() == {slot: truth[slot] for slot in sorted(slots)}


def test_a_strip_proof_of_another_message_is_refused() -> None:
    hand = v4_hand()
    honest = hand.seats[0].make_keys([12, 13, 14])
    for_other_slots = hand.seats[0].make_keys([15, 17, 18])
    by_seat_one = hand.seats[1].make_keys([12, 13, 14])
    elsewhere = v4_hand(hand_id=b"v4 another hand").seats[0].make_keys([12, 13, 14])
    assert elsewhere.keys != honest.keys  # another hand, another key
    replays = {
        "another slot's proof": replace(honest, proof=for_other_slots.proof),
        "another seat's proof": replace(honest, proof=by_seat_one.proof),
        "another seat's message, claimed": replace(by_seat_one, seat=0),
        "another hand's proof": replace(honest, proof=elsewhere.proof),
        "another hand's message": elsewhere,
        # The proof states its slots in the message's order, all of them, no more.
        "the same strips in another order": replace(honest, keys=honest.keys[::-1]),
        "one strip left out": replace(honest, keys=honest.keys[:1]),
        "one strip relabelled to another slot": replace(
            honest, keys=(*honest.keys[:2], (19, honest.keys[2][1]))),
        "an honest strip added": replace(
            honest, keys=(*honest.keys, *hand.seats[0].make_keys([16]).keys)),
    }
    for name, forged in replays.items():
        assert forged != honest, name
        assert_refused(hand.everyone, forged, 0, ViolationCode.DECK_BAD_PROOF)
    hand.broadcast(honest)


def test_a_strip_proof_is_bound_to_its_place_in_the_hand() -> None:
    # Made now, sent after another keys message: same slots, same outputs, but the
    # proof names its index in the hand and no longer holds there.
    hand = v4_hand()
    early = hand.seats[0].make_keys([12, 13])
    hand.broadcast(hand.seats[0].make_keys([30]))
    hand.broadcast(hand.seats[2].make_keys([0]))
    again = hand.seats[0].make_keys([12, 13])
    assert again.keys == early.keys and again.proof != early.proof
    assert_refused([hand.seats[1], hand.seats[2], hand.observer], early, 0,
                   ViolationCode.DECK_BAD_PROOF)
    hand.broadcast(again)


def test_a_seat_refuses_its_own_stale_strip_as_the_others_do() -> None:
    hand = v4_hand()
    early = hand.seats[0].make_keys([12, 13])
    hand.broadcast(hand.seats[2].make_keys([0]))
    assert_refused(hand.everyone, early, 0, ViolationCode.DECK_BAD_PROOF)


@pytest.mark.parametrize("part", ["challenge", "z"])
def test_an_unreduced_proof_scalar_is_refused(part: str) -> None:
    hand, honest = _dealt_hop()
    assert honest.proof is not None
    value = int.from_bytes(getattr(honest.proof, part), "big")
    candidates = [N, N + 1, 2**256 - 1]
    if value + N < 2**256:  # the same scalar mod N: would verify if it were reduced
        candidates.append(value + N)
    for bad in candidates:
        forged = replace(honest, proof=replace(honest.proof, **{part: bad.to_bytes(32, "big")}))
        assert_refused(hand.everyone, forged, 1, ViolationCode.DECK_UNREDUCED_SCALAR)
        assert_refused(hand.everyone, forged.to_wire(), 1, ViolationCode.DECK_UNREDUCED_SCALAR)
    # A scalar of the wrong size: the wire refuses its form; as an object, the proof.
    short = replace(honest, proof=replace(honest.proof, **{part: bytes(31)}))
    assert_refused(hand.everyone, short.to_wire(), 1, ViolationCode.FORM_DECK_MESSAGE)
    assert_refused(hand.everyone, short, 1, ViolationCode.DECK_UNREDUCED_SCALAR)
    hand.broadcast(honest)


def test_a_zero_or_tampered_proof_scalar_fails_the_proof() -> None:
    hand, honest = _dealt_hop()
    assert honest.proof is not None
    c, z = honest.proof.challenge, honest.proof.z
    flipped = bytes([z[0], z[1] ^ 1, *z[2:]])
    for proof in (StripProof(c, bytes(32)), StripProof(bytes(32), z),
                  StripProof(bytes(32), bytes(32)), StripProof(c, flipped),
                  StripProof(z, c), StripProof(c, (1).to_bytes(32, "big"))):
        assert_refused(hand.everyone, replace(honest, proof=proof), 1,
                       ViolationCode.DECK_BAD_PROOF)
    hand.broadcast(honest)


def test_keys_of_the_other_kind_are_refused_as_another_version() -> None:
    hand, honest = _dealt_hop()
    scalar = (5).to_bytes(32, "big")
    # No proof in a version 4 hand: the strips as they are, or version 3's scalars.
    assert_refused(hand.everyone, replace(honest, proof=None), 1,
                   ViolationCode.DECK_WRONG_VERSION)
    assert_refused(hand.everyone, Keys(1, ((24, scalar),)), 1, ViolationCode.DECK_WRONG_VERSION)
    assert_refused(hand.everyone, ["keys", 1, [[24, scalar]]], 1,
                   ViolationCode.DECK_WRONG_VERSION)
    # Unproved strips on the wire: version 3's form wants 32-byte scalars.
    assert_refused(hand.everyone, replace(honest, proof=None).to_wire(), 1,
                   ViolationCode.FORM_DECK_MESSAGE)
    hand.broadcast(honest)

    # A proof in a version 3 hand: a v4 message, or v3 keys with a proof stuck on.
    v3 = LocalHand.new(SEEDS, PACK, HAND, ORDER[3], version=3)
    v3.run_setup()
    v3_keys = v3.seats[0].make_keys([12])
    assert v3_keys.proof is None
    assert honest.proof is not None
    stuck = replace(v3_keys, proof=honest.proof)
    assert_refused(v3.everyone, stuck, 0, ViolationCode.DECK_WRONG_VERSION)
    assert_refused(v3.everyone, replace(honest, seat=0), 0, ViolationCode.DECK_WRONG_VERSION)
    # On the wire a proved keys message parses as version 4's (33-byte points) only.
    assert_refused(v3.everyone, stuck.to_wire(), 0, ViolationCode.FORM_DECK_MESSAGE)
    v3.broadcast(v3_keys)


def test_a_point_that_is_not_one_is_refused_by_the_right_layer() -> None:
    hand, honest = _dealt_hop()
    good = strips_of(honest)[2]
    not_parsing = {
        "x not on the curve": b"\x02" + (5).to_bytes(32, "big"),
        "x at or above p": b"\x03" + P.to_bytes(32, "big"),
        "an uncompressed prefix": b"\x04" + good[1:],
        "zeros (no encoding of the identity)": bytes(33),
        # x = 1 is on the curve: 1 + p is a second, non-canonical name for that point.
        "x + p for a point's x": b"\x02" + (1 + P).to_bytes(32, "big"),
    }
    on_curve = b"\x02" + (1).to_bytes(32, "big")
    assert suite_of(hand).is_valid_point(on_curve)
    assert_refused(hand.everyone, with_point(honest, 2, on_curve), 1,
                   ViolationCode.DECK_BAD_PROOF)
    for point in not_parsing.values():
        forged = with_point(honest, 2, point)
        # 33 bytes: the wire takes its form; the deck refuses it as no point.
        assert_refused(hand.everyone, forged, 1, ViolationCode.DECK_BAD_KEY)
        assert_refused(hand.everyone, forged.to_wire(), 1, ViolationCode.DECK_BAD_KEY)
    # 32 bytes (a v3 scalar's size, or a v2 point's): refused on the wire as a form,
    # and by the deck as no point when it comes as an object.
    for point in (good[1:], good[:32], CARD_POINTS_V3[0][1:]):
        forged = with_point(honest, 2, point)
        assert_refused(hand.everyone, forged.to_wire(), 1, ViolationCode.FORM_DECK_MESSAGE)
        assert_refused(hand.everyone, forged, 1, ViolationCode.DECK_BAD_KEY)
    for odd in (good + b"\x00", "a point", None):
        assert_refused(hand.everyone, with_point(honest, 2, odd), 1,  # type: ignore[arg-type]
                       ViolationCode.DECK_BAD_KEY)
    hand.broadcast(honest)


def test_a_slot_that_does_not_exist_or_comes_twice_is_refused() -> None:
    hand, honest = _dealt_hop()
    first, second = honest.keys[0], honest.keys[1]
    for slot in (44, 45, 10**6, -1, True, "24", None):
        bad = Keys(1, (*honest.keys[:3], (slot, second[1])), honest.proof)  # type: ignore[arg-type]
        assert_refused(hand.everyone, bad, 1, ViolationCode.DECK_KEYS_SLOTS)
    # On the wire a negative slot is no integer of the form.
    bad = Keys(1, ((-1, first[1]),), honest.proof)
    assert_refused(hand.everyone, bad.to_wire(), 1, ViolationCode.FORM_DECK_MESSAGE)
    # The same slot twice, with the same point or another.
    for repeat in ((first, first), (first, (first[0], second[1])), (*honest.keys, first)):
        bad = Keys(1, repeat, honest.proof)
        assert_refused(hand.everyone, bad, 1, ViolationCode.DECK_KEYS_SLOTS)
        assert_refused(hand.everyone, bad.to_wire(), 1, ViolationCode.DECK_KEYS_SLOTS)
    hand.broadcast(honest)
    # Now stripped: the same message again, or a new one naming a stripped slot.
    assert_refused(hand.everyone, honest, 1, ViolationCode.DECK_KEYS_SLOTS)
    later = hand.seats[1].make_keys([0, 1])
    stripped_again = Keys(1, (*later.keys, honest.keys[4]), later.proof)
    assert_refused(hand.everyone, stripped_again, 1, ViolationCode.DECK_KEYS_SLOTS)
    hand.broadcast(later)


def test_a_slot_beyond_the_two_seat_pack_is_refused() -> None:
    hand = v4_hand(2)
    honest = hand.seats[0].make_keys([12, 13])
    assert hand.observer.n_slots == 36
    bad = Keys(0, ((36, strips_of(honest)[0]), honest.keys[1]), honest.proof)
    assert_refused(hand.everyone, bad, 0, ViolationCode.DECK_KEYS_SLOTS)
    hand.broadcast(honest)


@pytest.mark.parametrize("target", [("commit", 2), ("shuffle", 1), ("shuffle", 2),
                                    ("shuffle", 0)])
def test_keys_before_the_deck_is_done_are_refused(target: tuple[str, int]) -> None:
    # A real strip message from the finished deck, sent while the set-up runs.
    hand = v4_hand(target=target)
    future = v4_hand().seats[2].make_keys([0, 1])
    assert_refused(hand.everyone, future, 2, ViolationCode.DECK_KEYS_EARLY)
    # Too early is checked first, before the proof's presence (SPEC 2.6's order), so an
    # observer that does not know the version yet agrees with the seats.
    assert_refused(hand.everyone, replace(future, proof=None), 2,
                   ViolationCode.DECK_KEYS_EARLY)
    hand.run_setup()
    assert hand.observer.setup_done


@pytest.mark.parametrize("proved", [True, False])
def test_every_object_gives_one_verdict_on_keys_before_any_commit(proved: bool) -> None:
    # Before any commit the observer does not know the version yet; the seats do.
    hand = v4_hand(target=("commit", 1))
    future = v4_hand().seats[2].make_keys([0, 1])
    msg = future if proved else replace(future, proof=None)
    codes = set()
    for obj in hand.everyone:
        with pytest.raises(Cheating) as caught:
            obj.receive(msg)
        assert caught.value.seat == 2
        codes.add(caught.value.code)
    assert len(codes) == 1, codes


# ------------------------------------------------------------ the v4 set-up


@pytest.mark.parametrize(("mine", "theirs"), [(4, 3), (3, 4), (4, 2), (4, 1)])
def test_a_commit_of_another_version_is_refused_in_either_direction(
    mine: int, theirs: int
) -> None:
    hand = LocalHand.new(SEEDS, PACK, HAND, ORDER[3], version=mine)
    hand.broadcast(hand.seats[1].make_commit())
    other = LocalHand.new(SEEDS, PACK, HAND, ORDER[3], version=theirs)
    other.broadcast(other.seats[1].make_commit())
    commit = other.seats[2].make_commit()
    assert_refused(hand.everyone, commit, 2, ViolationCode.DECK_WRONG_VERSION)
    hand.broadcast(hand.seats[2].make_commit())


def test_a_version_3_shuffle_or_lock_has_no_place_in_a_v4_hand() -> None:
    # The same seeds and hand in version 3: its shuffle is another key's (v3's label)
    # under another proof's labels, and a lock pass is never due in version 4.
    v3 = LocalHand.new(SEEDS, PACK, HAND, ORDER[3], version=3)
    v3.run_until(("shuffle", 1))
    hand = v4_hand(target=("shuffle", 1))
    v3_shuffle = v3.seats[1].make_shuffle()
    assert_refused(hand.everyone, v3_shuffle, 1, ViolationCode.DECK_BAD_PROOF)
    v3.run_until(("lock", 1))
    lock = v3.seats[1].make_lock()
    hand.run_setup()
    assert hand.observer.expected() is None
    assert_refused(hand.everyone, lock, 1, ViolationCode.DECK_OUT_OF_TURN)
    assert_refused(hand.everyone, lock.to_wire(), 1, ViolationCode.DECK_OUT_OF_TURN)
    hand.deal(deal_layout(3, 44))


# ------------------------------------------------------------------ equivocation


@pytest.mark.parametrize("forgery", [*FORGERIES, "a replayed proof", "re-proved"])
@pytest.mark.parametrize("fooled", [1, 2, None])
def test_a_seat_lying_differently_to_each_peer_is_blamed_by_each_and_alone(
    forgery: str, fooled: int | None
) -> None:
    # Seat 0 deals seat 2's slots: one receiver gets a forgery, the others the
    # honest message. Then each relays what it got (an abort carries its evidence).
    hand = v4_hand()
    honest = hand.seats[0].make_keys(list(range(24, 36)))
    if forgery == "a replayed proof":
        lie = replace(honest, proof=hand.seats[0].make_keys(list(range(12, 24))).proof)
    elif forgery == "re-proved":
        lie = reproved(hand, 0, with_point(honest, 3, other_point(3)).keys)
    else:
        lie = _forgeries(hand, honest)[forgery]
    verdicts: dict[int | None, list[Cheating]] = {obj.seat: [] for obj in hand.everyone}
    states: dict[int | None, Any] = {}

    def deliver(obj: DeckProtocol, msg: Keys) -> None:
        try:
            obj.receive(msg)
        except Cheating as exc:
            verdicts[obj.seat].append(exc)

    for obj in hand.everyone:
        states[obj.seat] = snapshot(obj)
        deliver(obj, lie if obj.seat == fooled else honest)
    fooled_obj = next(obj for obj in hand.everyone if obj.seat == fooled)
    assert [v.code for v in verdicts[fooled]] == [ViolationCode.DECK_BAD_PROOF]
    assert snapshot(fooled_obj) == states[fooled]  # the lie changed nothing
    assert all(not v for seat, v in verdicts.items() if seat != fooled)
    # The relay: the others see the lie (refused: those slots are stripped already),
    # the fooled one the honest message (taken: it is still due).
    for obj in hand.everyone:
        deliver(obj, honest if obj.seat == fooled else lie)
    for seat, found in verdicts.items():
        assert found and all(v.seat == 0 for v in found), seat
        assert all(lie in v.evidence for v in found)
    # Every view is one again: the deal goes on and seat 2 opens its true cards.
    assert len({slot_points(obj) for obj in hand.everyone}) == 1
    for obj in hand.everyone:
        assert obj.messages() == hand.observer.messages()
    hand.log.append(honest)
    hand.broadcast(hand.seats[1].make_keys(list(range(24, 36))))
    truth = hand.full_deal()
    assert hand.seats[2].visible_cards() == {slot: truth[slot] for slot in range(24, 36)}


def test_two_honest_looking_messages_for_one_place_are_each_refused_where_second() -> None:
    # Seat 0 strips seat 1's slots for seat 2 and seat 2's for seat 1, each proved at
    # the same place in the hand; once the peers relay, each refuses the other one:
    # the proof binds its index, so two messages cannot hold one place.
    hand = v4_hand()
    to_one = hand.seats[0].make_keys(list(range(24, 36)))
    to_two = hand.seats[0].make_keys(list(range(12, 24)))
    one, two = hand.seats[1], hand.seats[2]
    one.receive(to_one)
    two.receive(to_two)
    for obj, relayed in ((one, to_two), (two, to_one)):
        before = snapshot(obj)
        with pytest.raises(Cheating) as caught:
            obj.receive(relayed)
        assert caught.value.seat == 0 and caught.value.code is ViolationCode.DECK_BAD_PROOF
        assert snapshot(obj) == before


def test_two_valid_proofs_of_one_strip_sent_to_two_peers_part_no_view() -> None:
    # A prover chooses its nonce: the liar proves the same strips twice, validly,
    # and sends each peer its own. Both take it (it is the truth); nothing after
    # depends on the proof's bytes, so no honest seat blames another, and each
    # refuses the other's copy once relayed (those slots are stripped), naming seat 0.
    hand = v4_hand()
    honest = hand.seats[0].make_keys(list(range(24, 36)))
    suite = suite_of(hand)
    e = suite.shuffle_scalar(SEEDS[0], HAND, 0)
    ins = [suite.point(hand.observer._slot_point(j)) for j in range(24, 36)]
    outs = [suite.point(point) for point in strips_of(honest)]
    twin = replace(honest, proof=V4.prove_strip(hashlib.sha256(b"another nonce").digest(),
                                                hand.observer._keys_context(0), e, base(e),
                                                ins, outs))
    assert twin.proof != honest.proof
    one, two = hand.seats[1], hand.seats[2]
    for obj in (hand.seats[0], one, hand.observer):
        obj.receive(honest)
    two.receive(twin)
    deal_on = hand.seats[1].make_keys(list(range(24, 36)))
    for obj in hand.everyone:
        obj.receive(deal_on)
    truth = hand.full_deal()
    assert two.visible_cards() == {slot: truth[slot] for slot in range(24, 36)}
    assert len({slot_points(obj) for obj in hand.everyone}) == 1
    for obj, relayed in ((one, twin), (two, honest)):
        with pytest.raises(Cheating) as caught:
            obj.receive(relayed)
        assert caught.value.seat == 0 and caught.value.code is ViolationCode.DECK_KEYS_SLOTS


def test_an_empty_keys_message_opens_nothing_and_counts_nowhere() -> None:
    # Sent to one peer only (a liar's way to shift that peer's strip contexts), an
    # empty keys message opens nothing and moves no context: every later proof
    # still holds for every object, so no honest seat is blamed for it.
    hand = v4_hand()
    two = hand.seats[2]
    before = two.visible_cards()
    for empty in (Keys(0, (), StripProof(bytes(32), bytes(32))), Keys(0, ())):
        two.receive(empty)
    assert two.visible_cards() == before and len(two.messages()) == len(hand.log) + 2
    hand.deal(deal_layout(3, 44))
    truth = hand.full_deal()
    for s, obj in enumerate(hand.seats):
        assert obj.visible_cards() == {j: truth[j] for j in range(12 * s, 12 * s + 12)}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_flipped_bit_of_a_strip_message_is_refused_and_changes_nothing(
    data: st.DataObject,
) -> None:
    hand, honest = _dealt_hop()
    wire = honest.to_wire()
    fields = [(2, i, 1) for i in range(len(wire[2]))] + [(3, 0, None), (3, 1, None)]
    where, index, inner = data.draw(st.sampled_from(fields), label="field")
    value = wire[where][index] if inner is None else wire[where][index][inner]
    bit = data.draw(st.integers(0, 8 * len(value) - 1), label="bit")
    flipped = bytearray(value)
    flipped[bit // 8] ^= 1 << (bit % 8)
    forged: list[Any] = copy.deepcopy(wire)
    if inner is None:
        forged[where][index] = bytes(flipped)
    else:
        forged[where][index][inner] = bytes(flipped)
    for obj in hand.everyone:
        before = snapshot(obj)
        with pytest.raises(Cheating) as caught:
            obj.receive(forged)
        assert caught.value.seat == 1
        assert caught.value.code in (ViolationCode.DECK_BAD_PROOF, ViolationCode.DECK_BAD_KEY,
                                     ViolationCode.DECK_UNREDUCED_SCALAR)
        assert snapshot(obj) == before
    hand.broadcast(honest)


# ------------------------------------------------------------------- property


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n_seats=st.sampled_from([2, 3]), seed=st.binary(min_size=8, max_size=8))
def test_each_object_opens_a_slot_iff_the_others_stripped_it(
    data: st.DataObject, n_seats: int, seed: bytes
) -> None:
    cards = PACK if n_seats == 3 else PACK_TWO
    seeds = [hashlib.sha256(seed + bytes([s])).digest() for s in range(n_seats)]
    order = data.draw(st.permutations(range(n_seats)), label="order")
    hand = LocalHand.new(seeds, cards, b"v4 property " + seed, order, version=4)
    hand.run_setup()
    truth = hand.full_deal()
    assert sorted(truth.values()) == sorted(cards)
    stripped: dict[int, set[int]] = {s: set() for s in range(n_seats)}
    steps = data.draw(st.integers(min_value=1, max_value=3 * n_seats), label="steps")
    for _ in range(steps):
        seat = data.draw(st.integers(0, n_seats - 1), label="seat")
        left = sorted(set(range(len(cards))) - stripped[seat])
        if not left:
            continue
        slots = data.draw(st.lists(st.sampled_from(left), min_size=1, max_size=12, unique=True),
                          label="slots")
        hand.broadcast(hand.seats[seat].make_keys(slots))
        stripped[seat] |= set(slots)
        by_all = {j for j in range(len(cards)) if all(j in stripped[s] for s in stripped)}
        for t, obj in enumerate(hand.seats):
            sees = {j for j in range(len(cards))
                    if all(j in stripped[s] for s in stripped if s != t)}
            assert obj.visible_cards() == {j: truth[j] for j in sees}
            assert obj.public_cards() == {j: truth[j] for j in sorted(by_all)}
        assert hand.observer.visible_cards() == {j: truth[j] for j in by_all}
    assert audit_transcript(n_seats, cards, b"v4 property " + seed, order,
                            hand.log) == hand.observer.public_cards()
    hand.reveal_seeds()
    assert hand.observer.audit() == truth


# ------------------------------------------------------------------- vectors

V4_VECTORS = sorted(name for name, (version, _) in SCENARIOS.items() if version == 4)


def test_the_v4_vectors_are_the_two_and_three_seat_hands() -> None:
    assert V4_VECTORS == ["deck-v4-2seats", "deck-v4-3seats"]


@pytest.mark.parametrize("name", V4_VECTORS)
def test_a_v4_vector_file_is_a_fresh_run_byte_for_byte(name: str) -> None:
    assert (VECTORS / f"{name}.json").read_bytes() == vector_text(name).encode()


@pytest.mark.parametrize("name", V4_VECTORS)
def test_an_observer_replaying_a_v4_vector_accepts_every_message(name: str) -> None:
    stored = json.loads((VECTORS / f"{name}.json").read_text())
    n = stored["n_seats"]
    hand_id = bytes.fromhex(stored["hand_id"]["hex"])
    wire = [from_jsonable(m) for m in stored["messages"]]
    observer = DeckProtocol(None, n, stored["cards"], hand_id, stored["order"], None)
    for message in wire:
        observer.receive(message)  # raises on the first message it refuses
    assert observer.version == 4 and len(observer.messages()) == len(wire)
    kinds = [m[0] for m in wire]
    assert kinds[: 2 * n] == ["commit"] * n + ["shuffle"] * n
    assert set(kinds[2 * n:]) == {"keys"}
    # The set-up, the deal, the talon and the shows all there: the shown cards open.
    deal = {int(slot): card for slot, card in stored["deal"].items()}
    shown = sorted(slot for _, slots in stored["shows"] for slot in slots)
    assert stored["talon"] and shown
    assert observer.public_cards() == {slot: deal[slot] for slot in shown}
    assert audit_transcript(n, stored["cards"], hand_id, stored["order"], wire) == \
        observer.public_cards()
    # The stored deal is what the stored seeds give.
    for seat, seed in enumerate(stored["seeds"]):
        observer.receive(SeedReveal(seat, bytes.fromhex(seed["hex"])))
    assert observer.audit() == deal
