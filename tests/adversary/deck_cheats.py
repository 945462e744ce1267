"""Ways for the cheating seat to break the deck set-up (deck protocol v3, the current one).

Each is a ``Tamper``: given the cheater's table and the shuffle or lock it
would honestly sign, it signs a forgery instead. The copy attack of issue 10
puts re-blinded copies of a victim's (or the talon's) slots into the
cheater's own slots, under the best proof the cheater can make.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace

from gleek_p2p.deck import LockPass, ShufflePass
from gleek_p2p.deck.group_v3 import N, Point, mul
from gleek_p2p.deck.kdf import permutation
from gleek_p2p.deck.proofs import V3, LockProof, ShuffleProof, context
from gleek_p2p.deck.protocol import DeckProtocol
from gleek_p2p.deck.suites import Secp256k1Suite, lock_key_v3, shuffle_key_v3
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import TALON, deal_layout
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Table

from .forge import Tamper, sign_as

BLIND = int.from_bytes(hashlib.sha512(b"the cheater's blinding factor").digest(), "big") % N


def _suite(deck: DeckProtocol) -> Secp256k1Suite:
    suite = deck._suite
    assert isinstance(suite, Secp256k1Suite)
    return suite


def _blind(deck: DeckProtocol, point: bytes) -> bytes:
    return mul(BLIND, _suite(deck).point(point)).encode()


def _pts(deck: DeckProtocol, points: list[bytes] | tuple[bytes, ...]) -> list[Point]:
    return [_suite(deck).point(p) for p in points]


def _prove_shuffle(
    deck: DeckProtocol, seed: bytes, ctx: bytes, points: list[bytes] | tuple[bytes, ...],
    e: int, perm: tuple[int, ...],
) -> ShuffleProof:
    xs = _pts(deck, deck._current_deck())
    return V3.prove_shuffle(seed, ctx, xs, _pts(deck, points), e, perm)


def _deck(table: Table) -> DeckProtocol:
    deck = table._m.deck
    assert deck is not None and deck._seed is not None and deck.seat is not None
    return deck


def _owners(table: Table) -> tuple[int, ...]:
    state = table.state
    assert state is not None
    return deal_layout(state.variant, state.dealer)


def _copies(table: Table, victim: int, count: int) -> dict[int, int]:
    """Own slot -> the victim's (or the talon's) slot it will hold a copy of."""
    owners = _owners(table)
    seat = table.seat
    own = [s for s, o in enumerate(owners) if o == seat]
    theirs = [s for s, o in enumerate(owners) if o == victim]
    return dict(list(zip(own, theirs, strict=False))[:count])


def _own_shuffle(
    table: Table, honest: Envelope
) -> tuple[DeckProtocol, int, bytes, bytes, ShufflePass]:
    """The cheater's deck, seat, seed, hand id, and the shuffle it would honestly send."""
    deck = _deck(table)
    seat, seed = deck.seat, deck._seed
    assert seat is not None and seed is not None
    message = ev.deck_from_body(ev.SHUFFLE, seat, honest.body)
    assert isinstance(message, ShufflePass)
    return deck, seat, seed, deck.hand_id, message


def copy_in_shuffle(victim: int, count: int) -> Tamper:
    """Re-blinded copies of ``count`` of ``victim``'s slots (TALON: the talon) in a shuffle."""

    def tamper(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
        if honest is None or honest.kind != ev.SHUFFLE:
            return None
        deck, seat, seed, hand, message = _own_shuffle(table, honest)
        points = list(message.points)
        for own, other in _copies(table, victim, count).items():
            points[own] = _blind(deck, points[other])
        e = shuffle_key_v3(seed, hand, seat)
        perm = permutation(seed, hand, seat, deck.n_slots)
        proof = _prove_shuffle(deck, seed, deck._context(seat), points, e, perm)
        forged = ShufflePass(seat, tuple(points), message.key, proof)
        return sign_as(table, ev.SHUFFLE, [forged.to_wire()])

    return tamper


def _forge_lock(table: Table, honest: Envelope, edit: Callable[[list[bytes]], None]) -> Envelope:
    deck = _deck(table)
    seat, seed, hand = deck.seat, deck._seed, deck.hand_id
    assert seat is not None and seed is not None
    message = ev.deck_from_body(ev.LOCK, seat, honest.body)
    assert isinstance(message, LockPass) and message.keys is not None
    points = list(message.points)
    edit(points)
    keys = [lock_key_v3(seed, hand, seat, j) for j in range(deck.n_slots)]
    proof: LockProof = V3.prove_lock(
        seed,
        deck._context(seat),
        _pts(deck, deck._current_deck()),
        _pts(deck, points),
        shuffle_key_v3(seed, hand, seat),
        keys,
        _suite(deck).point(deck._shuffle_keys[seat]),
        _pts(deck, message.keys),
    )
    return sign_as(table, ev.LOCK, [LockPass(seat, tuple(points), message.keys, proof).to_wire()])


def copy_in_lock(victim: int, count: int) -> Tamper:
    """The same copies, made in the lock pass instead."""

    def tamper(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
        if honest is None or honest.kind != ev.LOCK:
            return None
        copies = _copies(table, victim, count)

        def edit(points: list[bytes]) -> None:
            for own, other in copies.items():
                points[own] = _blind(_deck(table), points[other])

        return _forge_lock(table, honest, edit)

    return tamper


def wrong_lock_key(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """One slot of the lock pass under a key other than the one committed to."""
    if honest is None or honest.kind != ev.LOCK:
        return None

    def edit(points: list[bytes]) -> None:
        points[3] = _blind(_deck(table), points[3])

    return _forge_lock(table, honest, edit)


def replayed_proof(where: str) -> Tamper:
    """The seat's shuffle with a valid proof made for another pass, hand or session."""

    def tamper(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
        if honest is None or honest.kind != ev.SHUFFLE:
            return None
        deck, seat, seed, hand, message = _own_shuffle(table, honest)
        step = len(deck._setup) + (1 if where == "pass" else 0)
        other_hand = hand if where == "pass" else hashlib.sha256(where.encode() + hand).digest()
        proof = _prove_shuffle(
            deck,
            seed,
            context(other_hand, seat, step),
            message.points,
            shuffle_key_v3(seed, hand, seat),
            permutation(seed, hand, seat, deck.n_slots),
        )
        return sign_as(table, ev.SHUFFLE, [replace(message, proof=proof).to_wire()])

    return tamper


def flipped_bit(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """The honest shuffle with one bit of its proof flipped."""
    if honest is None or honest.kind != ev.SHUFFLE:
        return None
    message = ev.deck_from_body(ev.SHUFFLE, table.seat or 0, honest.body)
    assert isinstance(message, ShufflePass) and message.proof is not None
    k_v = list(message.proof.k_v)
    k_v[5] = bytes([k_v[5][0] ^ 0x01]) + k_v[5][1:]
    forged = replace(message, proof=replace(message.proof, k_v=tuple(k_v)))
    return sign_as(table, ev.SHUFFLE, [forged.to_wire()])


def repeated_points(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """The honest shuffle and its valid proof, with one point repeated over another."""
    if honest is None or honest.kind != ev.SHUFFLE:
        return None
    message = ev.deck_from_body(ev.SHUFFLE, table.seat or 0, honest.body)
    assert isinstance(message, ShufflePass)
    points = (message.points[1], *message.points[1:])
    return sign_as(table, ev.SHUFFLE, [replace(message, points=points).to_wire()])


#: name -> (tamper, a phrase of the reason every honest seat and verify give)
DECK_CHEATS: dict[str, tuple[Tamper, str]] = {
    "copy-one-of-a-victim": (copy_in_shuffle(0, 1), "proof of its shuffle pass fails"),
    "copy-twelve-of-a-victim": (copy_in_shuffle(0, 12), "proof of its shuffle pass fails"),
    "copy-one-of-the-talon": (copy_in_shuffle(TALON, 1), "proof of its shuffle pass fails"),
    "copy-the-talon": (copy_in_shuffle(TALON, 12), "proof of its shuffle pass fails"),
    "copy-in-the-lock": (copy_in_lock(2, 12), "proof of its lock pass fails"),
    "wrong-lock-key": (wrong_lock_key, "proof of its lock pass fails"),
    "replayed-from-another-pass": (replayed_proof("pass"), "proof of its shuffle pass fails"),
    "replayed-from-another-hand": (replayed_proof("hand"), "proof of its shuffle pass fails"),
    "replayed-from-another-session": (
        replayed_proof("session"),
        "proof of its shuffle pass fails",
    ),
    "flipped-bit": (flipped_bit, "proof of its shuffle pass fails"),
    "repeated-points": (repeated_points, "repeats a point"),
}
