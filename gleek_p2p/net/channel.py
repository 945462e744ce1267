"""The encrypted channel of a link: Noise symmetric state and transport ciphers.

Follows the Noise Protocol Framework (revision 34) for everything it
defines: ``SymmetricState`` (``MixHash``, ``MixKey``, ``Split``) with Noise's
HMAC-SHA-256 HKDF, X25519 for ``DH`` and ChaCha20-Poly1305 with Noise's
nonce encoding for the transport ``CipherState``. The message pattern is
Noise ``NN`` (``-> e``, ``<- e, ee``); the two sides' Ed25519 identities then
sign the handshake hash ``h`` (Noise section 11.2, channel binding), which
takes the place of XX's static-key tokens (``s``, ``es``, ``se``): see
handshake.py and protocol/wire.md section 3 for why that authenticates the
peer. Sans-IO: keys come in as bytes, nothing here draws randomness.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gleek_p2p.base.errors import ProtocolError

__all__ = [
    "MAX_NONCE",
    "PROLOGUE",
    "PROTOCOL_NAME",
    "TAG_SIZE",
    "Channel",
    "ChannelError",
    "CipherState",
    "SymmetricState",
    "ephemeral_public",
    "hkdf",
    "x25519",
]

PROTOCOL_NAME = b"Noise_NN_25519_ChaChaPoly_SHA256"
"""Exactly 32 bytes (HASHLEN), so ``h`` starts as the name itself."""
PROLOGUE = b"gleek-p2p/channel/v1"
TAG_SIZE = 16
MAX_NONCE = (1 << 64) - 1
"""Reserved by Noise: a cipher whose counter reaches it can send no more."""


class ChannelError(ProtocolError):
    """A frame that does not authenticate, or a cipher that has run out of nonces."""


def hkdf(chaining_key: bytes, ikm: bytes) -> tuple[bytes, bytes]:
    """Noise's two-output HKDF over HMAC-SHA-256."""
    temp = hmac.digest(chaining_key, ikm, "sha256")
    out1 = hmac.digest(temp, b"\x01", "sha256")
    out2 = hmac.digest(temp, out1 + b"\x02", "sha256")
    return out1, out2


def ephemeral_public(private: bytes) -> bytes:
    """The X25519 public key of the 32-byte private key ``private``."""
    key = X25519PrivateKey.from_private_bytes(private)
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def x25519(private: bytes, public: bytes) -> bytes:
    """``DH(private, public)``; ProtocolError for a low-order peer key (all-zero result)."""
    try:
        shared = X25519PrivateKey.from_private_bytes(private).exchange(
            X25519PublicKey.from_public_bytes(public)
        )
    except ValueError:
        raise ProtocolError("the peer's ephemeral key is of low order") from None
    if shared == bytes(32):
        raise ProtocolError("the peer's ephemeral key is of low order")
    return shared


def _nonce(n: int) -> bytes:
    return bytes(4) + n.to_bytes(8, "little")


class CipherState:
    """One direction's key and counter (Noise section 5.1), never reusing a nonce."""

    def __init__(self, key: bytes, nonce: int = 0) -> None:
        self._aead = ChaCha20Poly1305(key)
        self.nonce = nonce

    def _next(self) -> int:
        if self.nonce >= MAX_NONCE:
            raise ChannelError("the channel has used all its nonces")
        n = self.nonce
        self.nonce += 1
        return n

    def encrypt(self, plaintext: bytes, ad: bytes = b"") -> bytes:
        """Ciphertext and tag under the next nonce."""
        return self._aead.encrypt(_nonce(self._next()), plaintext, ad)

    def decrypt(self, ciphertext: bytes, ad: bytes = b"") -> bytes:
        """The plaintext, or ChannelError; a failed frame still uses its nonce.

        The link closes on the first failure, so the counter never needs to
        go back: a frame is accepted only at exactly its position.
        """
        n = self._next()
        try:
            return self._aead.decrypt(_nonce(n), ciphertext, ad)
        except InvalidTag:
            raise ChannelError("a frame failed authentication") from None


class SymmetricState:
    """Noise's ``SymmetricState`` without an inner cipher (NN encrypts no handshake payload)."""

    def __init__(self, protocol_name: bytes = PROTOCOL_NAME) -> None:
        if len(protocol_name) <= 32:
            self.h = protocol_name.ljust(32, b"\x00")
        else:
            self.h = hashlib.sha256(protocol_name).digest()
        self.ck = self.h

    def mix_hash(self, data: bytes) -> None:
        """``h = SHA-256(h || data)``."""
        self.h = hashlib.sha256(self.h + data).digest()

    def mix_key(self, ikm: bytes) -> None:
        """``ck, k = HKDF(ck, ikm)``; the handshake key is unused (nothing is encrypted)."""
        self.ck, _ = hkdf(self.ck, ikm)

    def split(self) -> tuple[bytes, bytes]:
        """The initiator's sending key and the responder's sending key."""
        return hkdf(self.ck, b"")


@dataclass
class Channel:
    """The two transport ciphers of one link, as seen from one side."""

    send: CipherState
    recv: CipherState

    def seal(self, payload: bytes) -> bytes:
        """Encrypt one outgoing frame body."""
        return self.send.encrypt(payload)

    def open(self, body: bytes) -> bytes:
        """Decrypt one incoming frame body; ChannelError if it does not authenticate."""
        if len(body) < TAG_SIZE:
            raise ChannelError("a frame too short to hold its authentication tag")
        return self.recv.decrypt(body)
