"""Ways for the cheating seat to break the deck set-up or the deal (deck protocols v3 and v4).

Each is a ``Tamper``: given the cheater's table and the shuffle, lock (v3) or
deal keys (v4) it would honestly sign, it signs a forgery instead, under the
best proof the cheater can make: the hand's own proof system (``V3`` or
``V4``) with its real key, so only the forgery itself can make it fail. The
copy attack of issue 10 puts re-blinded copies of a victim's (or the
talon's) slots into the cheater's own slots (in a shuffle or a v3 lock) or,
in v4, into its colluder's slots through its strips of the deal: the
colluder's slot would then open, after the victim's own honest strip, to the
victim's card under a blinding factor the two share.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace

from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.deck import Keys, LockPass, ShufflePass
from gleek_p2p.deck.group_v3 import N, Point, mul
from gleek_p2p.deck.kdf import permutation
from gleek_p2p.deck.proofs import V3, V4, LockProof, ProofSystem, ShuffleProof, context
from gleek_p2p.deck.protocol import DeckProtocol
from gleek_p2p.deck.suites import (
    Secp256k1Suite,
    lock_key_v3,
    shuffle_key_v3,
    shuffle_key_v4,
)
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import TALON, deal_layout
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Stage, Table

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


def _system(deck: DeckProtocol) -> ProofSystem[Point]:
    """The proof system of the hand's own version (v3's labels or v4's)."""
    assert deck.version in (3, 4), deck.version
    return V4 if deck.version == 4 else V3


def _shuffle_key(deck: DeckProtocol, seed: bytes, hand: bytes, seat: int) -> int:
    """The seat's real shuffle key in the hand's version (v3's KDF label or v4's)."""
    return (shuffle_key_v4 if deck.version == 4 else shuffle_key_v3)(seed, hand, seat)


def _prove_shuffle(
    deck: DeckProtocol, seed: bytes, ctx: bytes, points: list[bytes] | tuple[bytes, ...],
    e: int, perm: tuple[int, ...],
) -> ShuffleProof:
    xs = _pts(deck, deck._current_deck())
    return _system(deck).prove_shuffle(seed, ctx, xs, _pts(deck, points), e, perm)


def _deck(table: Table) -> DeckProtocol:
    deck = table._m.deck
    assert deck is not None and deck._seed is not None and deck.seat is not None
    return deck


def _owners(table: Table) -> tuple[int, ...]:
    state = table.state
    assert state is not None
    return deal_layout(state.variant, state.dealer)


def _copies(table: Table, victim: int, count: int, into: int | None = None) -> dict[int, int]:
    """Slot of ``into`` (by default the cheater's own) -> the victim's (or the talon's)
    slot it will hold a copy of."""
    owners = _owners(table)
    seat = table.seat if into is None else into
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
        e = _shuffle_key(deck, seed, hand, seat)
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
    """The same copies, made in the lock pass instead (version 3: v4 has no lock)."""

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
    """One slot of the lock pass under a key other than the one committed to (v3)."""
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
            _shuffle_key(deck, seed, hand, seat),
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


def _forge_strips(
    table: Table, honest: Envelope, edit: Callable[[DeckProtocol, list[int], list[bytes]], None],
) -> Envelope:
    """The cheater's deal keys (v4) with ``edit`` applied to its outputs, re-proved: the
    strip proof of the hand's place, with its real key, on the slots' real inputs."""
    deck = _deck(table)
    seat, seed, hand = deck.seat, deck._seed, deck.hand_id
    assert seat is not None and seed is not None and deck.version == 4
    message = ev.deck_from_body(ev.KEYS, seat, honest.body)
    assert isinstance(message, Keys) and message.proof is not None
    slots = [slot for slot, _ in message.keys]
    outs = [point for _, point in message.keys]
    edit(deck, slots, outs)
    proof = V4.prove_strip(
        seed,
        deck._keys_context(seat),
        shuffle_key_v4(seed, hand, seat),
        _suite(deck).point(deck._shuffle_keys[seat]),
        _pts(deck, [deck._slot_point(slot) for slot in slots]),
        _pts(deck, outs),
    )
    forged = Keys(seat, tuple(zip(slots, outs, strict=True)), proof)
    return sign_as(table, ev.KEYS, ev.deck_body(forged))


def _is_deal_keys(table: Table, honest: Envelope | None) -> bool:
    return honest is not None and honest.kind == ev.KEYS and table.stage is Stage.DEAL_KEYS


def _roles(table: Table) -> tuple[int, int]:
    """(helper, colluder) for the copy attack in the strips: the helper is the honest
    seat that strips after the cheater (the first other seat if none does), whose own
    honest strip of the colluder's slot would finish the copy for the colluder."""
    order = table.order
    seat = table.seat
    assert seat is not None
    i = order.index(seat)
    helper, colluder = order[i + 1:] + order[:i]
    return helper, colluder


def copy_in_strips(count: int, *, talon: bool = False) -> Tamper:
    """Version 4's copy attack: in its deal keys, the cheater's strips of ``count`` of
    its colluder's slots are re-blinded copies of its strips of the helper's (or the
    talon's) slots: once the helper strips its layer off them too, the colluder opens
    them to the helper's (the talon's) cards times a blinding factor the two share."""

    def tamper(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
        if not _is_deal_keys(table, honest):
            return None
        assert honest is not None
        helper, colluder = _roles(table)
        copies = _copies(table, TALON if talon else helper, count, into=colluder)

        def edit(deck: DeckProtocol, slots: list[int], outs: list[bytes]) -> None:
            seat, seed = deck.seat, deck._seed
            assert seat is not None and seed is not None
            inverse = pow(shuffle_key_v4(seed, deck.hand_id, seat), -1, N)
            for theirs, other in copies.items():
                stripped = mul(inverse, _suite(deck).point(deck._slot_point(other))).encode()
                outs[slots.index(theirs)] = _blind(deck, stripped)

        return _forge_strips(table, honest, edit)

    return tamper


def wrong_strip_key(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """One slot of the deal keys stripped with a key other than its shuffle key (v4)."""
    if not _is_deal_keys(table, honest):
        return None
    assert honest is not None

    def edit(deck: DeckProtocol, slots: list[int], outs: list[bytes]) -> None:
        outs[3] = _blind(deck, outs[3])

    return _forge_strips(table, honest, edit)


@dataclass(frozen=True)
class DeckCheat:
    """A deck cheat and what every honest seat and ``gleek verify`` must say of it."""

    tamper: Tamper
    says: str
    """A phrase of the reason they give."""
    code: ViolationCode
    kind: str
    """The kind of event the forgery is (the one an honest seat refuses)."""
    versions: tuple[int, ...]
    """The deck versions the table is pinned to for it (the lock exists in v3 only,
    the proved strips in v4 only)."""
    place: int | None = None
    """For a cheat in the deal keys: the cheater's place in the deal's order (0: it
    strips first), so the cheats cover each place (None: wherever the seed puts it)."""


_SHUFFLE = "proof of its shuffle pass fails"
_BOTH = (3, 4)


def _shuffle_cheat(tamper: Tamper, says: str = _SHUFFLE,
                   code: ViolationCode = ViolationCode.DECK_BAD_PROOF) -> DeckCheat:
    return DeckCheat(tamper, says, code, ev.SHUFFLE, _BOTH)


def _strip_cheat(tamper: Tamper, place: int) -> DeckCheat:
    return DeckCheat(tamper, "the proof of its keys fails", ViolationCode.DECK_BAD_PROOF,
                     ev.KEYS, (4,), place)


#: name -> the cheat
DECK_CHEATS: dict[str, DeckCheat] = {
    "copy-one-of-a-victim": _shuffle_cheat(copy_in_shuffle(0, 1)),
    "copy-twelve-of-a-victim": _shuffle_cheat(copy_in_shuffle(0, 12)),
    "copy-one-of-the-talon": _shuffle_cheat(copy_in_shuffle(TALON, 1)),
    "copy-the-talon": _shuffle_cheat(copy_in_shuffle(TALON, 12)),
    "copy-in-the-lock": DeckCheat(copy_in_lock(2, 12), "proof of its lock pass fails",
                                  ViolationCode.DECK_BAD_PROOF, ev.LOCK, (3,)),
    "wrong-lock-key": DeckCheat(wrong_lock_key, "proof of its lock pass fails",
                                ViolationCode.DECK_BAD_PROOF, ev.LOCK, (3,)),
    "copy-one-in-the-strips": _strip_cheat(copy_in_strips(1), 1),
    "copy-twelve-in-the-strips": _strip_cheat(copy_in_strips(12), 0),
    "copy-the-talon-in-the-strips": _strip_cheat(copy_in_strips(8, talon=True), 1),
    "wrong-strip-key": _strip_cheat(wrong_strip_key, 2),
    "replayed-from-another-pass": _shuffle_cheat(replayed_proof("pass")),
    "replayed-from-another-hand": _shuffle_cheat(replayed_proof("hand")),
    "replayed-from-another-session": _shuffle_cheat(replayed_proof("session")),
    "flipped-bit": _shuffle_cheat(flipped_bit),
    "repeated-points": _shuffle_cheat(repeated_points, "repeats a point",
                                      ViolationCode.DECK_BAD_PASS),
}
