"""Per-session secrets of one seat, derived from one master secret.

A seat keeps a single 32-byte secret per session (in its data directory, so
a restarted peer can carry on). Everything it must later reveal, hand by
hand, is derived from it with a one-way function, so revealing the seed of
hand 3 says nothing about hand 4.
"""

from __future__ import annotations

import hashlib
import hmac

SECRET_SIZE = 32


def _derive(secret: bytes, label: bytes, session_id: bytes, index: int) -> bytes:
    if len(secret) != SECRET_SIZE:
        raise ValueError("a seat secret is 32 bytes")
    message = b"gleek-p2p/" + label + b"/v1\x00" + session_id + index.to_bytes(4, "big")
    return hmac.new(secret, message, hashlib.sha256).digest()


def hand_seed(secret: bytes, session_id: bytes, hand: int) -> bytes:
    """The deck-protocol seed of one hand."""
    return _derive(secret, b"hand-seed", session_id, hand)


def cut_nonce(secret: bytes, session_id: bytes) -> bytes:
    """The nonce this seat contributes to the draw for the first dealer."""
    return _derive(secret, b"cut-nonce", session_id, 0)


def cut_commitment(session_id: bytes, seat: int, nonce: bytes) -> bytes:
    """The commitment to a cut nonce, bound to the session and the seat."""
    return hashlib.sha256(
        b"gleek-p2p/cut-commit/v1\x00" + session_id + bytes([seat]) + nonce
    ).digest()
