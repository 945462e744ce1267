"""Ed25519 identities: signing, verification, fingerprints, the key file.

Signing and verification use pyca/cryptography. Public keys from the network
are checked first with libsodium's ``crypto_core_ed25519_is_valid_point``:
OpenSSL's verifier accepts a key of small order (e.g. ``01 00..00``, the
neutral point) and then a trivial signature verifies on every message, so a
seat could deny authorship of anything. Only canonical encodings of points in
the prime-order subgroup, other than the neutral point, are accepted: exactly
the keys that honest key generation produces.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from nacl.bindings import crypto_core_ed25519_is_valid_point

from gleek_p2p.base.errors import GleekError, ProtocolError

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
SEED_SIZE = 32

FINGERPRINT_DOMAIN = b"gleek-p2p/fingerprint/v1\x00"
IDENTITY_FILE_NAME = "identity.key"
IDENTITY_FILE_MAGIC = b"gleek-p2p identity v1\n"


@functools.lru_cache(maxsize=256)
def _safe_key(public: bytes) -> Ed25519PublicKey | None:
    """The key of a safe public key (``check_public_key``), or None.

    A pure function of 32 bytes, kept for the few keys a peer meets: a
    session checks its roster's keys on every event it takes, and the
    subgroup check alone cost about as much as the signature's.
    """
    if not crypto_core_ed25519_is_valid_point(public):
        return None
    try:
        return Ed25519PublicKey.from_public_bytes(public)
    except ValueError:
        return None


class _Verified:
    """Digests of (key, signature, message) triples that verified, at most a few thousand.

    A peer checks an event's signature when it arrives and again when its
    table takes it (each layer checks what it is given); the second finds
    the first here. Only a triple that verified is kept, under a
    collision-resistant digest of all of it, so a hit is the same answer
    the check would give.
    """

    LIMIT = 4096

    def __init__(self) -> None:
        self._seen: set[bytes] = set()

    @staticmethod
    def digest(public: bytes, signature: bytes, data: bytes) -> bytes:
        # The key and the signature have fixed sizes: the concatenation is injective.
        return hashlib.blake2b(public + signature + data, digest_size=32).digest()

    def __contains__(self, digest: bytes) -> bool:
        return digest in self._seen

    def add(self, digest: bytes) -> None:
        if len(self._seen) >= self.LIMIT:
            self._seen.clear()
        self._seen.add(digest)


_VERIFIED = _Verified()


def check_public_key(public: bytes) -> None:
    """Raise ProtocolError unless ``public`` is a safe Ed25519 public key.

    Refused: wrong type or length, non-canonical encodings (y >= p, or x = 0
    with the sign bit set), points not on the curve, the eight points of small
    order (the neutral point ``01 00..00`` among them) and mixed-order points
    outside the prime-order subgroup.
    """
    if not isinstance(public, bytes) or len(public) != PUBLIC_KEY_SIZE:
        raise ProtocolError(f"a public key must be {PUBLIC_KEY_SIZE} bytes")
    if _safe_key(bytes(public)) is None:
        raise ProtocolError(
            "the public key is not a canonical Ed25519 point of prime order "
            "(small-order and malformed keys are refused)"
        )


def verify(public: bytes, data: bytes, signature: bytes) -> bool:
    """True if ``signature`` is a valid Ed25519 signature of ``data`` by ``public``.

    False for anything else, including an unsafe key (see check_public_key)
    or a signature of the wrong length; never raises for bad input.
    """
    if not isinstance(public, bytes) or len(public) != PUBLIC_KEY_SIZE:
        return False
    key = _safe_key(bytes(public))
    if key is None:
        return False
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        message = bytes(data)
    except TypeError:
        return False
    digest = _Verified.digest(public, signature, message)
    if digest in _VERIFIED:
        return True
    try:
        key.verify(signature, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    _VERIFIED.add(digest)
    return True


def fingerprint(public: bytes) -> str:
    """A short, human-comparable name for a public key: ``abcd-ef01-2345-6789``.

    The first 8 bytes of SHA-256(``gleek-p2p/fingerprint/v1\\0`` || key), as
    four groups of four lowercase hex digits. Meant for people comparing keys
    by eye or voice, not as a cryptographic identifier (64 bits).
    """
    digest = hashlib.sha256(FINGERPRINT_DOMAIN + bytes(public)).hexdigest()[:16]
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))


class Identity:
    """A seat's long-term Ed25519 signing key."""

    __slots__ = ("_key", "_public")

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self._public = key.public_key().public_bytes_raw()

    @classmethod
    def generate(cls, seed: bytes) -> Identity:
        """The identity derived from 32 random bytes (the caller supplies them)."""
        if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
            raise ValueError(f"an identity seed must be {SEED_SIZE} bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @property
    def public(self) -> bytes:
        """The 32-byte public key."""
        return self._public

    @property
    def seed(self) -> bytes:
        """The 32-byte private seed (for the key file only; keep it secret)."""
        return self._key.private_bytes_raw()

    @property
    def fingerprint(self) -> str:
        """``fingerprint(self.public)``."""
        return fingerprint(self._public)

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data`` (deterministic)."""
        return self._key.sign(bytes(data))

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"


def check_private_file(path: Path, what: str) -> None:
    """Refuse a secret file others may read or write, or that is not ours."""
    if os.name != "posix":  # pragma: no cover - permissions differ elsewhere
        return
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise GleekError(f"the {what} {path} is not a regular file")
    if info.st_uid != os.getuid():
        raise GleekError(f"the {what} {path} belongs to another user; refusing to use it")
    if info.st_mode & 0o077:
        raise GleekError(
            f"the {what} {path} is accessible to other users "
            f"(mode {stat.S_IMODE(info.st_mode):o}); run chmod 600 on it or remove it"
        )


def ensure_private_dir(directory: Path) -> None:
    """Create ``directory`` (mode 0700) if missing; refuse one others can write."""
    if not directory.exists():
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)  # mkdir's mode is filtered by the umask
    if os.name == "posix" and os.stat(directory).st_mode & 0o022:
        raise GleekError(
            f"the directory {directory} is writable by other users; run chmod 700 on it"
        )


def write_private_file(path: Path, data: bytes, *, replace: bool) -> bool:
    """Write ``data`` to ``path`` atomically with mode 0600, durably.

    The data goes to a temporary file (created 0600, written, fsynced) that
    is then linked into place, and the directory is fsynced. With
    ``replace=False`` an existing file wins and False is returned.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return True


def fsync_dir(directory: Path) -> None:
    """Make a directory entry change (create, rename) durable."""
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_or_create_identity(data_dir: Path, random: Callable[[int], bytes]) -> Identity:
    """The identity stored in ``data_dir``, created from ``random(32)`` if absent.

    The directory is created 0700 and the key file 0600; a key file that other
    users could read (or that belongs to someone else) is refused with a
    GleekError saying how to fix it, as is a damaged key file.
    """
    data_dir = Path(data_dir)
    ensure_private_dir(data_dir)
    path = data_dir / IDENTITY_FILE_NAME
    if not path.exists():
        seed = random(SEED_SIZE)
        identity = Identity.generate(seed)
        if write_private_file(path, IDENTITY_FILE_MAGIC + identity.seed, replace=False):
            return identity
        # Another process created it first: use theirs, as everyone else will.
    check_private_file(path, "identity key file")
    content = path.read_bytes()
    if (
        not content.startswith(IDENTITY_FILE_MAGIC)
        or len(content) != len(IDENTITY_FILE_MAGIC) + SEED_SIZE
    ):
        raise GleekError(f"the identity key file {path} is damaged or not a gleek-p2p key")
    return Identity.generate(content[len(IDENTITY_FILE_MAGIC) :])
