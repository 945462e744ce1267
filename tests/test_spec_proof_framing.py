"""SPEC 2.8's byte layout of the proof hashes, and its worked example, are what the code does.

A second verifier written from SPEC.md alone must frame each proof's first
messages as one field: this recomputes the worked example from the v2 deck
vector with the framing the text gives (not with the code's helpers) and
checks every number the text prints.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from gleek_p2p.deck import proofs as P
from gleek_p2p.deck.group import card_point
from gleek_p2p.deck.messages import LockPass, ShufflePass, message_from_wire
from gleek_p2p.deck.vectors import from_jsonable

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "SPEC.md").read_text()
VECTOR = json.loads((ROOT / "protocol" / "vectors" / "deck-v2-2seats.json").read_text())


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def frame(*fields: bytes) -> bytes:
    """As SPEC 2.3 says: each field's length as 4 bytes big-endian, then the field."""
    return b"".join(u32(len(f)) + f for f in fields)


def hash_scalar(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=64).digest(), "little") % P.L


def _in_spec(text: str) -> None:
    assert text in SPEC, f"SPEC 2.8 does not print {text}"


def _messages() -> list[Any]:
    return [message_from_wire(from_jsonable(m)) for m in VECTOR["messages"]]


@pytest.fixture(scope="module")
def firsts() -> dict[str, Any]:
    """The first messages the verifier recomputes, caught on their way to the hash."""
    caught: dict[str, Any] = {}
    mp = pytest.MonkeyPatch()
    shuffle_challenge, lock_challenge = P.V2._shuffle_challenge, P.V2._lock_challenge

    def on_shuffle(h1: bytes, chain: Any, points: Any) -> int:
        caught["shuffle"] = (h1, list(chain), list(points))
        return shuffle_challenge(h1, chain, points)

    def on_lock(*args: Any) -> int:
        caught["lock"] = list(args[5])
        return lock_challenge(*args)

    mp.setattr(P.V2, "_shuffle_challenge", on_shuffle)
    mp.setattr(P.V2, "_lock_challenge", on_lock)
    hand_id = from_jsonable(VECTOR["hand_id"])
    messages = _messages()
    shuffle, lock, previous = messages[2], messages[4], messages[3]
    assert isinstance(shuffle, ShufflePass) and isinstance(lock, LockPass)
    assert isinstance(previous, ShufflePass) and shuffle.proof and lock.proof and lock.keys
    xs = [card_point(c) for c in VECTOR["cards"]]
    P.verify_shuffle(P.context(hand_id, 1, 2), xs, list(shuffle.points), shuffle.key or b"",
                     shuffle.proof)
    P.verify_lock(P.context(hand_id, 1, 4), list(previous.points), list(lock.points),
                  shuffle.key or b"", list(lock.keys), lock.proof)
    mp.undo()
    return caught


def test_the_shuffle_example_frames_as_the_text_says(firsts: dict[str, Any]) -> None:
    hand_id = from_jsonable(VECTOR["hand_id"])
    assert hand_id == b"gleek-p2p test vector deck-v2-2seats" and len(hand_id) == 36
    shuffle = _messages()[2]
    assert isinstance(shuffle, ShufflePass) and shuffle.proof is not None
    n = len(VECTOR["cards"])
    assert n == 36
    ctx = frame(hand_id, u32(1), u32(2))
    _in_spec(ctx.hex())
    assert len(ctx) == 4 + len(hand_id) + 16 == 56
    xs = b"".join(card_point(c) for c in VECTOR["cards"])
    label = b"gleek-p2p/deck/v2/shuffle-proof"
    h1_input = frame(label, ctx, xs, b"".join(shuffle.points), shuffle.key or b"",
                     b"".join(shuffle.proof.commitments))
    assert len(h1_input) == 24 + 31 + 56 + 96 * n + 32 == 3599
    h1 = hashlib.blake2b(h1_input, digest_size=64).digest()
    _in_spec(f"h1 = {h1.hex()}")
    u0 = hash_scalar(frame(h1, u32(0))) or 1
    _in_spec(f"u_0 = {u0.to_bytes(32, 'little').hex()}")
    caught_h1, chain, points = firsts["shuffle"]
    assert caught_h1 == h1 and list(chain) == list(shuffle.proof.chain)
    assert len(points) == n + 5
    challenge_input = frame(label, h1, b"".join(chain), b"".join(points))
    assert len(challenge_input) == 2575 == 16 + 31 + 64 + 64 * n + 160
    assert challenge_input[103:107] == u32(32 * n) and challenge_input[103:107].hex() == "00000480"
    assert challenge_input[1259:1263] == u32(32 * (n + 5)) and "offset 1259" in SPEC
    _in_spec(challenge_input[:39].hex()[:8] + " " + label.hex() + " 00000040")
    _in_spec(f"A' = {points[0].hex()}")
    _in_spec(f"T' = {points[-1].hex()}")
    challenge = hash_scalar(challenge_input).to_bytes(32, "little")
    assert challenge == shuffle.proof.challenge
    _in_spec(challenge.hex())
    # One field per point, as the text used to say, gives another challenge.
    one_each = frame(label, h1, *chain, *points)
    assert hash_scalar(one_each).to_bytes(32, "little") != challenge


def test_the_lock_example_frames_as_the_text_says(firsts: dict[str, Any]) -> None:
    hand_id = from_jsonable(VECTOR["hand_id"])
    messages = _messages()
    shuffle, previous, lock = messages[2], messages[3], messages[4]
    assert isinstance(lock, LockPass) and lock.proof is not None and lock.keys is not None
    assert isinstance(shuffle, ShufflePass) and isinstance(previous, ShufflePass)
    n = len(VECTOR["cards"])
    label = b"gleek-p2p/deck/v2/lock-proof"
    points = firsts["lock"]
    assert len(points) == 2 * n + 1
    data = frame(label, frame(hand_id, u32(1), u32(4)), b"".join(previous.points),
                 b"".join(lock.points), shuffle.key or b"", b"".join(lock.keys),
                 b"".join(points))
    assert len(data) == 5936 == 28 + 28 + 56 + 160 * n + 64
    _in_spec(f"R_E = {points[0].hex()}")
    challenge = hash_scalar(data).to_bytes(32, "little")
    assert challenge == lock.proof.challenge
    _in_spec(challenge.hex())


def test_the_v4_strip_example_in_the_text_is_the_vector_s_first_keys() -> None:
    """SPEC 2.8b's worked example, recomputed from deck-v4-3seats.json with the text's
    framing: the context, h (its input's length), ρ_0 and the proof the text prints."""
    from gleek_p2p.deck import DeckProtocol, Keys
    from gleek_p2p.deck.group_v3 import N

    vector = json.loads((ROOT / "protocol" / "vectors" / "deck-v4-3seats.json").read_text())
    hand_id = from_jsonable(vector["hand_id"])
    assert hand_id == b"gleek-p2p test vector deck-v4-3seats"
    observer = DeckProtocol(None, vector["n_seats"], vector["cards"], hand_id, vector["order"],
                            None)
    wires = [from_jsonable(m) for m in vector["messages"]]
    index = next(i for i, wire in enumerate(wires) if wire[0] == "keys")
    for wire in wires[:index]:
        observer.receive(wire)
    message = message_from_wire(wires[index])
    assert isinstance(message, Keys) and message.keys
    assert index == 6 and message.seat == 0
    assert [slot for slot, _ in message.keys] == list(range(12, 24))
    # The inputs: the final deck's points (nobody stripped these slots yet); E: seat 0's.
    shuffle = next(message_from_wire(w) for w in wires
                   if w[0] == "shuffle" and w[1] == message.seat)
    assert isinstance(shuffle, ShufflePass) and shuffle.key is not None
    final = message_from_wire(wires[5])
    assert isinstance(final, ShufflePass)
    ins = b"".join(final.points[slot] for slot, _ in message.keys)
    outs = b"".join(point for _, point in message.keys)
    ctx = frame(hand_id, u32(0), u32(6))
    label = b"gleek-p2p/deck/v4/strip-proof"
    h_input = frame(label, ctx, shuffle.key, ins, outs)
    h = hashlib.blake2b(h_input, digest_size=64).digest()
    # A hash read as a scalar: the 64-byte digest big-endian, mod N (SPEC 2.8, version 3).
    rho_0 = int.from_bytes(hashlib.blake2b(frame(h, u32(0)), digest_size=64).digest(),
                           "big") % N
    assert message.proof is not None
    printed = [ctx.hex(), h.hex(), rho_0.to_bytes(32, "big").hex(),
               message.proof.challenge.hex(), message.proof.z.hex()]
    for value in printed:
        assert value in SPEC, value
    assert len(h_input) == 930 and "`h`'s input is 930 bytes" in SPEC
