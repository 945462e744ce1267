"""Mental-poker deck protocol: shuffle and deal with no trusted dealer (sans-IO).

See SPEC.md §2. ``DeckProtocol`` is one seat's (or an observer's) view;
``audit_transcript`` checks a finished hand's messages; ``proofs`` holds the
zero-knowledge proofs (every shuffle, lock and strip proved), written once for
any prime-order group: version 2's on edwards25519, version 3's on secp256k1
(``group_v3``) and version 4's (the current one: no lock pass, each key a
proved strip of the seat's shuffle key) on secp256k1 too, the groups in
``proof_groups``;
``suites`` puts each version's group behind one interface; ``harness`` runs
all seats in one process.
"""

from .group import UnsafeLibsodium, self_test
from .messages import (
    Commit,
    DeckMessage,
    Keys,
    LockPass,
    SeedReveal,
    ShufflePass,
    message_from_wire,
)
from .proofs import ProofError
from .protocol import DealDispute, DeckProtocol, audit_transcript

__all__ = [
    "Commit",
    "DealDispute",
    "DeckMessage",
    "DeckProtocol",
    "Keys",
    "LockPass",
    "ProofError",
    "SeedReveal",
    "ShufflePass",
    "UnsafeLibsodium",
    "audit_transcript",
    "message_from_wire",
    "self_test",
]
