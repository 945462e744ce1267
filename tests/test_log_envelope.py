"""Signed envelopes and the hash chain: tampering refused, equivocation proven."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import Cheating, ProtocolError, ViolationCode
from gleek_p2p.log import canonical
from gleek_p2p.log.chain import Chain, check_equivocation, replay
from gleek_p2p.log.envelope import (
    LOG_VERSIONS,
    PROTOCOL_VERSION,
    SIGNED_DOMAIN,
    ZERO_HASH,
    Envelope,
    decode_envelope,
    event_hash,
    sign_envelope,
    signed_bytes,
    verify_envelope,
)
from gleek_p2p.log.keys import Identity

SESSION = bytes(range(32))
IDS = [Identity.generate(bytes([seat + 1]) * 32) for seat in range(3)]
ROSTER = [i.public for i in IDS]


def make(seq: int, prev: bytes, seat: int = 0, kind: str = "bid", body: Any = None,
         version: int = PROTOCOL_VERSION) -> Envelope:
    return sign_envelope(
        IDS[seat], SESSION, seq, prev, seat, kind, [seq, "x"] if body is None else body,
        version=version,
    )


def build_chain(n: int, version: int = PROTOCOL_VERSION) -> Chain:
    chain = Chain(SESSION)
    for seq in range(n):
        assert chain.append(make(seq, chain.head_hash, seat=seq % 3, version=version), ROSTER)
    return chain


@pytest.mark.parametrize("version", [1, 2])
def test_round_trip_and_fields(version: int) -> None:
    # Version 2 (deck v4's logs) is written by default; version 1 (every log
    # before it) is still read, and signed by a table continuing such a log.
    assert PROTOCOL_VERSION == 2 and LOG_VERSIONS == (1, 2)
    env = make(0, ZERO_HASH, body=[1, b"\x00", "é", [True, None]], version=version)
    assert env.version == version
    data = env.encode()
    assert decode_envelope(data) == env
    assert canonical.decode(data) == [version, SESSION, 0, ZERO_HASH, 0, "bid", env.body,
                                      env.signature]
    verify_envelope(env, ROSTER[0])
    assert event_hash(env) == hashlib.sha256(data).digest()


def test_an_event_is_signed_as_version_2_unless_told() -> None:
    assert make(0, ZERO_HASH).version == 2
    assert canonical.decode(make(0, ZERO_HASH).encode())[0] == 2


@pytest.mark.parametrize("version", [0, 3, -1, True, 99])
def test_sign_envelope_refuses_a_version_it_does_not_write(version: int) -> None:
    with pytest.raises(ProtocolError, match="cannot sign an event of log version") as bad:
        make(0, ZERO_HASH, version=version)
    assert bad.value.code is ViolationCode.LOCAL_MISUSE


def test_signed_bytes_are_domain_separated() -> None:
    env = make(0, ZERO_HASH)
    expected = SIGNED_DOMAIN + canonical.encode([2, SESSION, 0, ZERO_HASH, 0, "bid", env.body])
    assert signed_bytes(env) == expected
    assert SIGNED_DOMAIN == b"gleek-p2p/event/v1\x00"
    # A signature over the bare encoding (no domain) is not an event signature.
    bare = dataclasses.replace(env, signature=IDS[0].sign(expected[len(SIGNED_DOMAIN) :]))
    with pytest.raises(ProtocolError, match="invalid"):
        verify_envelope(bare, ROSTER[0])


def test_tuples_in_body_become_lists() -> None:
    env = sign_envelope(IDS[0], SESSION, 0, ZERO_HASH, 0, "k", (1, (2, 3)))
    assert env.body == [1, [2, 3]]
    assert decode_envelope(env.encode()) == env


@given(st.data())
@settings(max_examples=60)
def test_every_flipped_byte_is_refused(data: st.DataObject) -> None:
    env = make(1, bytes([9]) * 32, seat=1, body=[b"cards", 7, "text"])
    encoded = bytearray(env.encode())
    index = data.draw(st.integers(0, len(encoded) - 1))
    bit = data.draw(st.integers(0, 7))
    encoded[index] ^= 1 << bit
    with pytest.raises(ProtocolError):
        verify_envelope(decode_envelope(bytes(encoded)), ROSTER[1])


def test_all_flips_of_one_envelope_refused() -> None:
    env = make(0, ZERO_HASH, body=[b"ab", -5])
    encoded = env.encode()
    for index in range(len(encoded)):
        for bit in range(8):
            mutated = bytearray(encoded)
            mutated[index] ^= 1 << bit
            with pytest.raises(ProtocolError):
                verify_envelope(decode_envelope(bytes(mutated)), ROSTER[0])


def test_wrong_key_refused() -> None:
    env = make(0, ZERO_HASH)
    with pytest.raises(ProtocolError, match="invalid"):
        verify_envelope(env, ROSTER[1])
    with pytest.raises(ProtocolError, match="small-order"):
        verify_envelope(env, bytes([1]) + bytes(31))


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ([3, SESSION, 0, ZERO_HASH, 0, "k", [], bytes(64)], "version"),
        ([0, SESSION, 0, ZERO_HASH, 0, "k", [], bytes(64)], "version"),
        ([1, SESSION[:31], 0, ZERO_HASH, 0, "k", [], bytes(64)], "session id"),
        ([1, SESSION, -1, ZERO_HASH, 0, "k", [], bytes(64)], "sequence"),
        ([1, SESSION, True, ZERO_HASH, 0, "k", [], bytes(64)], "sequence"),
        ([1, SESSION, 0, bytes(31), 0, "k", [], bytes(64)], "hash"),
        ([1, SESSION, 0, bytes([1]) * 32, 0, "k", [], bytes(64)], "all-zero"),
        ([1, SESSION, 0, ZERO_HASH, 256, "k", [], bytes(64)], "seat"),
        ([1, SESSION, 0, ZERO_HASH, "0", "k", [], bytes(64)], "seat"),
        ([1, SESSION, 0, ZERO_HASH, 0, "", [], bytes(64)], "kind"),
        ([1, SESSION, 0, ZERO_HASH, 0, b"k", [], bytes(64)], "kind"),
        ([1, SESSION, 0, ZERO_HASH, 0, "k" * 65, [], bytes(64)], "kind"),
        ([1, SESSION, 0, ZERO_HASH, 0, "k", b"", bytes(64)], "body"),
        ([1, SESSION, 0, ZERO_HASH, 0, "k", [], bytes(63)], "signature"),
        ([1, SESSION, 0, ZERO_HASH, 0, "k", []], "8 fields"),
        ([1, SESSION, 0, ZERO_HASH, 0, "k", [], bytes(64), 0], "8 fields"),
        ("not a list", "8 fields"),
    ],
)
def test_malformed_envelopes_refused(fields: Any, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        decode_envelope(canonical.encode(fields))


def test_sign_envelope_refuses_bad_fields() -> None:
    with pytest.raises(ProtocolError):
        sign_envelope(IDS[0], SESSION, 0, ZERO_HASH, 0, "k", [1.5])
    with pytest.raises(ProtocolError):
        sign_envelope(IDS[0], SESSION, 0, ZERO_HASH, 0, "k", {"a": 1})  # type: ignore[arg-type]
    with pytest.raises(ProtocolError):
        sign_envelope(IDS[0], SESSION[:5], 0, ZERO_HASH, 0, "k", [])
    with pytest.raises(ProtocolError):
        sign_envelope(IDS[0], SESSION, 0, ZERO_HASH, 0, "k", [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]])


def test_chain_links_and_head() -> None:
    chain = build_chain(6)
    assert len(chain) == 6
    envs = chain.envelopes
    assert envs[0].prev == ZERO_HASH
    for a, b in itertools.pairwise(envs):
        assert b.prev == event_hash(a)
    assert chain.head_hash == event_hash(envs[-1])
    assert replay(SESSION, [e.encode() for e in envs], ROSTER).head_hash == chain.head_hash


def _refused(chain: Chain, env: Envelope, roster: Any = ROSTER) -> None:
    before = (list(chain.envelopes), chain.head_hash)
    with pytest.raises(ProtocolError):
        chain.append(env, roster)
    assert (list(chain.envelopes), chain.head_hash) == before


def test_chain_refusals_leave_it_unchanged() -> None:
    chain = build_chain(3)
    head = chain.head_hash
    _refused(chain, make(4, head))  # gap
    _refused(chain, make(3, bytes([5]) * 32))  # wrong prev
    _refused(chain, make(3, head, seat=1), roster=ROSTER[:1])  # seat not in roster
    _refused(chain, make(3, head, seat=1), roster={0: ROSTER[0]})
    forged = dataclasses.replace(make(3, head, seat=1), seat=2)
    _refused(chain, forged)  # signed by seat 1, claims seat 2
    other = sign_envelope(IDS[0], bytes(32), 3, head, 0, "bid", [])
    _refused(chain, other)  # another session
    bad_version = dataclasses.replace(make(3, head), version=1)
    _refused(chain, bad_version)  # the signature covers the version
    _refused(chain, make(3, head, version=1))  # validly signed, another version than the log's
    # A different event at a taken seq from a different seat: a fork, not proof.
    _refused(chain, make(1, event_hash(chain.envelopes[0]), seat=2, kind="other"))
    assert chain.append(make(3, head), ROSTER)


def test_duplicate_is_idempotent() -> None:
    chain = build_chain(3)
    head = chain.head_hash
    assert chain.append(chain.envelopes[1], ROSTER) is False
    assert len(chain) == 3 and chain.head_hash == head


def test_equivocation_is_cheating_with_evidence() -> None:
    chain = build_chain(3)
    held = chain.envelopes[1]  # seat 1's event at seq 1
    twin = make(1, held.prev, seat=1, kind="bid", body=["something else"])
    head = chain.head_hash
    with pytest.raises(Cheating) as caught:
        chain.append(twin, ROSTER)
    assert caught.value.seat == 1 and caught.value.reason == "equivocation"
    assert caught.value.evidence == (held, twin)
    assert len(chain) == 3 and chain.head_hash == head
    verdict = check_equivocation(held, twin, ROSTER)
    assert verdict is not None and verdict.seat == 1 and verdict.evidence == (held, twin)


def test_equivocation_needs_valid_signatures() -> None:
    chain = build_chain(3)
    held = chain.envelopes[1]
    fake = dataclasses.replace(held, body=["framed"])  # signature no longer matches
    assert check_equivocation(held, fake, ROSTER) is None
    with pytest.raises(ProtocolError) as caught:
        chain.append(fake, ROSTER)
    assert not isinstance(caught.value, Cheating)
    assert check_equivocation(held, held, ROSTER) is None
    assert check_equivocation(held, chain.envelopes[2], ROSTER) is None
    twin = make(1, held.prev, seat=1, body=["x"])
    assert check_equivocation(held, twin, ROSTER[:1]) is None  # unknown seat: no proof


def test_replay_refuses_bad_records() -> None:
    chain = build_chain(3)
    records = [e.encode() for e in chain.envelopes]
    with pytest.raises(ProtocolError):
        replay(SESSION, [records[0], records[2]], ROSTER)
    with pytest.raises(ProtocolError):
        replay(SESSION, [records[0], records[0]], ROSTER)
    with pytest.raises(ProtocolError):
        replay(SESSION, [records[0][:-1]], ROSTER)


@pytest.mark.parametrize(("log", "other"), [(1, 2), (2, 1)])
def test_a_chain_holds_one_log_version_the_first_events(log: int, other: int) -> None:
    chain = build_chain(3, version=log)
    before = (list(chain.envelopes), chain.head_hash)
    with pytest.raises(ProtocolError, match=f"log version {other}") as bad:
        chain.append(make(3, chain.head_hash, version=other), ROSTER)
    assert bad.value.code is ViolationCode.FORM_LOG_VERSION
    assert (list(chain.envelopes), chain.head_hash) == before
    assert chain.append(make(3, chain.head_hash, version=log), ROSTER)
    records = [e.encode() for e in chain.envelopes]
    assert replay(SESSION, records, ROSTER).head_hash == chain.head_hash
    mixed = [*records[:2], make(2, event_hash(chain.envelopes[1]), seat=2, version=other).encode()]
    with pytest.raises(ProtocolError, match="log version"):
        replay(SESSION, mixed, ROSTER)
