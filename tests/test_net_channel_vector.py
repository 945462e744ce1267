"""protocol/vectors/channel.json: fixed keys give exactly these handshake bytes and frame.

The vector holds the inputs (identity seeds, ephemeral X25519 private keys,
each Hello's fields) and every output a second implementation must match: the
four handshake frames, the handshake hash, both transport keys and Alice's
first encrypted frame. ``python tests/test_net_channel_vector.py`` rewrites it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from gleek_p2p.log import canonical
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import Handshake, Offer
from gleek_p2p.net.messages import Sync, encode_message

VECTOR = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "channel.json"

INPUTS: dict[str, Any] = {
    "alice": {"identity_seed": "01" * 32, "ephemeral_private": "a1" * 32,
              "nonce_commit": "c1" * 32, "name": "Alice", "listen_port": 7001},
    "bob": {"identity_seed": "02" * 32, "ephemeral_private": "b2" * 32,
            "nonce_commit": "c2" * 32, "name": "Bob", "listen_port": 7002},
    "table": {"version": 1, "table": "oak/1", "variant": [], "seats": 3, "attempt": 2},
    "first_message": "Sync(5), from Alice",
}


def _handshake(who: dict[str, Any]) -> Handshake:
    t = INPUTS["table"]
    offer = Offer(t["version"], t["table"], tuple(t["variant"]), t["seats"], who["name"],
                  who["listen_port"])
    return Handshake(Identity.generate(bytes.fromhex(who["identity_seed"])), offer,
                     bytes.fromhex(who["nonce_commit"]), bytes.fromhex(who["ephemeral_private"]),
                     attempt=t["attempt"])


def build() -> dict[str, Any]:
    """Run both sides of the handshake in memory and record every byte."""
    alice, bob = _handshake(INPUTS["alice"]), _handshake(INPUTS["bob"])
    [a_hello], [b_hello] = alice.initial(), bob.initial()
    [a_proof] = alice.receive(b_hello)
    [b_proof] = bob.receive(a_hello)
    assert alice.receive(b_proof) == [] and bob.receive(a_proof) == []
    assert alice.channel is not None and alice.h is not None
    frame = encode_frame(alice.channel.seal(encode_message(Sync(5))))
    initiator_sends = alice.hello.public < bob.hello.public
    return {
        "inputs": INPUTS,
        "alice_hello_frame": encode_frame(encode_message(a_hello)).hex(),
        "bob_hello_frame": encode_frame(encode_message(b_hello)).hex(),
        "alice_proof_frame": encode_frame(encode_message(a_proof)).hex(),
        "bob_proof_frame": encode_frame(encode_message(b_proof)).hex(),
        "initiator": "alice" if initiator_sends else "bob",
        "handshake_hash": alice.h.hex(),
        "alice_first_frame": frame.hex(),
    }


def test_the_vector_holds() -> None:
    assert json.loads(VECTOR.read_text()) == build()


def test_the_vector_follows_the_written_recipe() -> None:
    """Recompute h, the keys and the frame from wire.md's text alone (no gleek code)."""
    v = json.loads(VECTOR.read_text())
    hellos = {w: bytes.fromhex(v[f"{w}_hello_frame"])[4:] for w in ("alice", "bob")}
    publics = {w: canonical.decode(hellos[w])[5] for w in hellos}
    first, second = sorted(hellos, key=lambda w: publics[w])
    h = b"Noise_NN_25519_ChaChaPoly_SHA256"
    ck = h
    for data in (b"gleek-p2p/channel/v1", hellos[first], hellos[second]):
        h = hashlib.sha256(h + data).digest()
    alice = v["inputs"]["alice"]
    e_a = X25519PrivateKey.from_private_bytes(bytes.fromhex(alice["ephemeral_private"]))
    e_b_pub = canonical.decode(hellos["bob"])[9]
    dh = e_a.exchange(X25519PublicKey.from_public_bytes(e_b_pub))

    def noise_hkdf(key: bytes, ikm: bytes) -> tuple[bytes, bytes]:
        temp = hmac.digest(key, ikm, "sha256")
        one = hmac.digest(temp, b"\x01", "sha256")
        return one, hmac.digest(temp, one + b"\x02", "sha256")

    ck, _ = noise_hkdf(ck, dh)
    k1, k2 = noise_hkdf(ck, b"")
    assert h.hex() == v["handshake_hash"] and first == v["initiator"]
    alice_key = k1 if first == "alice" else k2
    body = ChaCha20Poly1305(alice_key).encrypt(bytes(12), bytes([0x92, 0x06, 0x05]), b"")
    assert (len(body).to_bytes(4, "big") + body).hex() == v["alice_first_frame"]
    proof = canonical.decode(bytes.fromhex(v["alice_proof_frame"])[4:])
    signed = b"gleek-p2p/handshake/v2\x00" + h
    seed = bytes.fromhex(alice["identity_seed"])
    assert proof == [2, Identity.generate(seed).sign(signed)]


if __name__ == "__main__":
    VECTOR.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
    sys.exit(0)
