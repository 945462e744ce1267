"""protocol/encoding.md's test vectors and key list match the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_log_keys import SMALL_ORDER

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.canonical import decode
from gleek_p2p.log.envelope import (
    ZERO_HASH,
    decode_envelope,
    event_hash,
    sign_envelope,
    signed_bytes,
)
from gleek_p2p.log.keys import Identity, check_public_key, fingerprint
from gleek_p2p.log.store import HEADER, frame

DOC = (Path(__file__).parent.parent / "protocol" / "encoding.md").read_text()


@pytest.mark.parametrize("version", [1, 2])
def test_envelope_vector(version: int) -> None:
    ident = Identity.generate(bytes([1]) * 32)
    env = sign_envelope(
        ident, bytes(range(32)), 0, ZERO_HASH, 0, "bid", [1, "x", b"\xff", [True, None, -1]],
        version=version,
    )
    for value in (
        ident.public.hex(),
        fingerprint(ident.public),
        signed_bytes(env).hex(),
        env.encode().hex(),
        event_hash(env).hex(),
    ):
        assert value in DOC
    assert decode_envelope(env.encode()) == env


def test_small_order_list_matches() -> None:
    listed = re.findall(r"^  ([0-9a-f]{64})  \(", DOC, re.MULTILINE)
    assert sorted(listed) == sorted(p.hex() for p in SMALL_ORDER)
    for hex_key in listed:
        with pytest.raises(ProtocolError):
            check_public_key(bytes.fromhex(hex_key))


def test_log_file_example() -> None:
    example = re.search(r"Example: the header plus one record `abc`:\n(.*)\.", DOC)
    assert example is not None
    assert example.group(1).replace("`", "").replace(" ", "") == (HEADER + frame(b"abc")).hex()


def test_refused_encodings_listed() -> None:
    section = DOC[DOC.index("Refused encodings") :]
    listed = re.findall(r"`([0-9a-f]+)`\s\(", section)
    assert len(listed) == 10
    for hex_data in listed:
        with pytest.raises(ProtocolError):
            decode(bytes.fromhex(hex_data))
