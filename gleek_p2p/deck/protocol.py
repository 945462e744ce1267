"""The deck protocol, one object per seat (or per observer), sans-IO.

The object takes messages in (``receive``) and produces this seat's messages
(``make_*``); it never talks to anyone. Every message, the seat's own
included, goes through ``receive`` and is checked there. ``receive`` is
atomic: it validates everything before it changes anything, and a rejected
message (``ProtocolError``, ``Cheating``) leaves the object as it was.

One exception is deliberate: ``DealDispute`` is raised *after* the message is
recorded. The message was well formed and in turn, the deal it completes is
what is broken, and the message is evidence the audit needs to name the
culprit once the seeds are out.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gleek_p2p.base.errors import Cheating, GleekError, ProtocolError, ViolationCode

from .group import POINT_TO_CARD, self_test
from .kdf import SEED_BYTES, commitment
from .messages import (
    CURRENT_VERSION as CURRENT_VERSION,  # re-exported: tests and vectors pin it here
)
from .messages import (
    VERSIONS,
    Commit,
    DeckMessage,
    Keys,
    LockPass,
    SeedReveal,
    ShufflePass,
    message_from_wire,
)
from .proofs import LockProof, ProofError, ShuffleProof, StripProof, UnreducedScalar, context
from .suites import ED25519, Ed25519Suite, Secp256k1Suite

Step = tuple[str, int]


class DealDispute(ProtocolError):
    """A slot dealt to this seat does not open to a valid card.

    The seat cannot tell who broke it; the seeds must be revealed early and
    ``DeckProtocol.audit`` names the culprit.
    """

    def __init__(self, slot: int, reason: str) -> None:
        super().__init__(f"slot {slot} does not open to a valid card ({reason}): audit needed",
                         code=ViolationCode.DECK_DISPUTE)
        self.slot = slot
        self.reason = reason


_DIGESTED = (ShufflePass, LockPass, ShuffleProof, LockProof, Keys, StripProof)


def _digest_parts(value: object, out: list[bytes]) -> None:
    """``value`` in a tagged, length-prefixed form (one value, one form: injective).

    A pass's bytes as they are, a tuple of same-size bytes (points, scalars) in
    one piece, a message or proof field by field, anything else by its repr
    (what the check reads of it, whatever it is: a forger's odd types too).
    """
    kind = type(value)
    if type(value) is bytes:
        out += (b"b", len(value).to_bytes(4, "big"), value)
    elif type(value) is tuple:
        count = len(value).to_bytes(4, "big")
        if (value and type(value[0]) is bytes and len(set(map(type, value))) == 1
                and len(set(map(len, value))) == 1):
            out += (b"u", count, len(value[0]).to_bytes(4, "big"), *value)
        else:
            out += (b"t", count)
            for item in value:
                _digest_parts(item, out)
    elif kind in _DIGESTED:
        name = kind.__name__.encode()
        fields = vars(value)
        out += (b"d", len(name).to_bytes(4, "big"), name, len(fields).to_bytes(4, "big"))
        for item in fields.values():
            _digest_parts(item, out)
    else:
        text = repr(value).encode()
        out += (b"r", len(text).to_bytes(4, "big"), text)


class _Checked:
    """Digests of proof checks already passed (at most a few: one per pass due)."""

    def __init__(self) -> None:
        self._digests: set[bytes] = set()

    def add(self, digest: bytes) -> None:
        if len(self._digests) >= 16:
            self._digests.clear()
        self._digests.add(digest)

    def take(self, digest: bytes) -> bool:
        if digest in self._digests:
            self._digests.discard(digest)
            return True
        return False


def _beside(first: Callable[[], None], second: Callable[[], None]) -> Callable[[], None]:
    """One job running two: ``second`` in a thread of its own while ``first`` runs.

    libsecp256k1 and libsodium release the GIL during each multiplication,
    so on two cores the two take about the longer one's time.
    """

    def job() -> None:
        other = threading.Thread(target=second, name="deck-ahead", daemon=True)
        other.start()
        try:
            first()
        finally:
            other.join()

    return job


_AheadKey = tuple[object, ...]


class _Ahead:
    """This seat's messages made ahead of their turn: (place, inputs) -> the message.

    A pass is keyed by its set-up step and the deck it was made on, version
    4's keys by their context, slots and input points: either is taken only
    where its inputs are the accepted ones; at most a few are kept (one per
    message due before this seat's).
    """

    def __init__(self) -> None:
        self._made: dict[_AheadKey, ShufflePass | LockPass | Keys] = {}

    def __contains__(self, key: _AheadKey) -> bool:
        return key in self._made

    def put(self, key: _AheadKey, made: ShufflePass | LockPass | Keys) -> None:
        if len(self._made) >= 4:
            self._made.clear()
        self._made[key] = made

    def take(self, key: _AheadKey) -> ShufflePass | LockPass | Keys | None:
        made = self._made.get(key)
        self._made.clear()
        return made


class DeckProtocol:
    """Commit-reveal mental poker for one seat (``seat=None``: an observer).

    ``cards`` is the pack in canonical order (card ids), ``hand_id`` binds
    every derivation and commitment to this hand, ``order`` is the order in
    which the seats commit, shuffle and lock, and ``seed`` is this seat's
    32-byte secret for the hand (all its randomness derives from it).

    ``version`` is the deck protocol version (1: passes audited from the
    seeds after the hand; 2: every pass and key proved as it is sent; 3:
    version 2's proofs on secp256k1, SPEC.md §2.2; 4: version 3 without lock
    passes, each "key" a proved strip of the seat's shuffle key off one slot,
    SPEC.md §2.8b). A
    seat runs the version it is given (by default the current one); an
    observer given None runs the version the first commit of the hand names.
    """

    def __init__(
        self,
        seat: int | None,
        n_seats: int,
        cards: Sequence[int],
        hand_id: bytes,
        order: Sequence[int],
        seed: bytes | None,
        version: int | None = None,
    ) -> None:
        self_test()
        if n_seats < 2:
            raise ProtocolError("the deck needs at least two seats",
                                code=ViolationCode.LOCAL_MISUSE)
        if sorted(order) != list(range(n_seats)):
            raise ProtocolError("the order must name every seat once",
                                code=ViolationCode.LOCAL_MISUSE)
        card_list = list(cards)
        if not card_list or len(set(card_list)) != len(card_list):
            raise ProtocolError("the pack must be a non-empty list of distinct cards",
                                code=ViolationCode.LOCAL_MISUSE)
        if any(type(c) is not int or not 0 <= c < len(POINT_TO_CARD) for c in card_list):
            raise ProtocolError("a card id is an integer 0..43", code=ViolationCode.LOCAL_MISUSE)
        if type(hand_id) is not bytes or not hand_id:
            raise ProtocolError("the hand id must be non-empty bytes",
                                code=ViolationCode.LOCAL_MISUSE)
        if (seat is None) != (seed is None):
            raise ProtocolError("a seat needs a seed and an observer has none",
                                code=ViolationCode.LOCAL_MISUSE)
        if seat is not None and not 0 <= seat < n_seats:
            raise ProtocolError(f"no seat {seat}", code=ViolationCode.LOCAL_MISUSE)
        if seed is not None and (type(seed) is not bytes or len(seed) != SEED_BYTES):
            raise ProtocolError(f"the seed must be {SEED_BYTES} bytes",
                                code=ViolationCode.LOCAL_MISUSE)
        if version is None and seat is not None:
            version = CURRENT_VERSION
        if version is not None and version not in VERSIONS:
            raise ProtocolError(f"unknown deck protocol version {version!r}",
                                code=ViolationCode.LOCAL_MISUSE)
        self.version: int | None = version

        self.seat = seat
        self.n_seats = n_seats
        self.cards: tuple[int, ...] = tuple(card_list)
        self.hand_id = hand_id
        self.order: tuple[int, ...] = tuple(order)
        self._seed = seed
        self.n_slots = len(card_list)
        self._v3: Secp256k1Suite | None = None

        self._setup: list[DeckMessage] = []
        self._commits: dict[int, Commit] = {}
        self._keys: dict[tuple[int, int], bytes] = {}
        self._key_messages: list[Keys] = []
        self._seeds: dict[int, SeedReveal] = {}
        self._opened: dict[int, int] = {}
        self._public: set[int] = set()
        self._disputed: set[int] = set()
        self._own_keys: tuple[bytes, ...] | None = None
        # Version 2: each seat's E = e·G and K_j = k_j·G, and the last
        # message this seat made (its own proofs are not checked again).
        self._shuffle_keys: dict[int, bytes] = {}
        self._key_commitments: dict[int, tuple[bytes, ...]] = {}
        self._lock_messages: dict[int, LockPass] = {}
        self._made: DeckMessage | None = None
        # Version 4: each slot's point as the strips so far left it (a slot
        # not stripped yet is the final deck's).
        self._slot_points: dict[int, bytes] = {}
        self._made_strip: tuple[Keys, bytes, tuple[bytes, ...]] | None = None
        # Digests of passes whose proofs a worker already checked against the
        # deck they were due on (see ``precheck``); shared by the table's
        # roll-back copies on purpose: a digest names everything checked.
        self._prechecked = _Checked()
        # This seat's next pass, made by a precheck job on the deck it will be
        # due on while the pass before it is checked (SPEC 2.8, pipelining);
        # shared by the roll-back copies like the digests above.
        self._ahead = _Ahead()

    @property
    def _schedule(self) -> tuple[Step, ...]:
        # Version 1: the last shuffler locks in its shuffle. Version 2: every
        # seat shuffles, then every seat locks (a combined step is unproved).
        # Before the first commit the version may be unknown: commits come
        # first in both.
        # Version 4: no lock at all; a seat's shuffle key is its layer on
        # every slot, stripped off one slot at a time with a proof.
        last = self.order[-1]
        locks = () if self.version == 4 else tuple(
            ("lock", s) for s in self.order if s != last or self.version != 1)
        return (
            tuple(("commit", s) for s in self.order)
            + tuple(("shuffle", s) for s in self.order)
            + locks
        )

    @property
    def _suite(self) -> Ed25519Suite | Secp256k1Suite:
        """The group of this hand's version (points of one hand stay decoded in it)."""
        if self.version in (3, 4):
            if self._v3 is None:
                self._v3 = Secp256k1Suite(self.version)
            return self._v3
        return ED25519

    @property
    def _deck0(self) -> tuple[bytes, ...]:
        return tuple(self._suite.card_points[c] for c in self.cards)

    @property
    def _pack(self) -> dict[bytes, int]:
        return {self._suite.card_points[c]: c for c in self.cards}

    # ----------------------------------------------------------------- state

    def expected(self) -> Step | None:
        """The setup step due now, ``(kind, seat)``, or None once the deck is locked."""
        done = len(self._setup)
        return self._schedule[done] if done < len(self._schedule) else None

    def steps_left(self) -> int:
        """How many set-up messages are still due (0 once the deck is locked)."""
        return len(self._schedule) - len(self._setup)

    @property
    def setup_done(self) -> bool:
        """True once every commit, shuffle and lock pass is in."""
        return len(self._setup) == len(self._schedule)

    @property
    def final_deck(self) -> tuple[bytes, ...]:
        """The locked deck (valid once ``setup_done``)."""
        return self._current_deck()

    def card_at(self, slot: int) -> int | None:
        """The card in ``slot`` if this object can open it, else None."""
        self._check_slot_arg(slot)
        return self._opened.get(slot)

    def visible_cards(self) -> dict[int, int]:
        """Every slot this object has opened: slot -> card."""
        return dict(self._opened)

    def public_cards(self) -> dict[int, int]:
        """The slots opened with every key public (shows): slot -> card."""
        return {slot: self._opened[slot] for slot in sorted(self._public)}

    def has_key(self, seat: int, slot: int) -> bool:
        """Whether ``seat`` has published its key for ``slot``."""
        return (seat, slot) in self._keys

    def messages(self) -> tuple[DeckMessage, ...]:
        """Every accepted message: setup, then keys, then seed reveals."""
        return (*self._setup, *self._key_messages, *self._seeds.values())

    # ------------------------------------------------------- this seat's moves

    def make_commit(self) -> Commit:
        """This seat's commitment to its seed (its turn in the commit round)."""
        seed = self._own_turn("commit")
        assert self.version is not None
        return Commit(self._me(), commitment(seed, self.hand_id, self._me()), self.version)

    def make_shuffle(self) -> ShufflePass:
        """This seat's shuffle pass (version 1: the last shuffler locks in it)."""
        seed = self._own_turn("shuffle")
        me = self._me()
        deck = self._current_deck()
        if self.version == 1:
            return ShufflePass(
                me, self._suite.shuffle_pass(seed, self.hand_id, me, deck,
                                             lock=me == self.order[-1])
            )
        ahead = self._ahead.take((len(self._setup), deck))
        if isinstance(ahead, ShufflePass):
            made = ahead
        else:
            points, big_e, proof = self._suite.prove_shuffle(
                seed, self.hand_id, me, self._context(me), deck
            )
            made = ShufflePass(me, points, big_e, proof)
        self._made = made
        return made

    def make_lock(self) -> LockPass:
        """This seat's lock pass (version 2: with its key commitments and proof)."""
        seed = self._own_turn("lock")
        me = self._me()
        deck = self._current_deck()
        if self.version == 1:
            return LockPass(me, self._suite.lock_pass(seed, self.hand_id, me, deck))
        ahead = self._ahead.take((len(self._setup), deck))
        if isinstance(ahead, LockPass):
            made = ahead
        else:
            points, big_k, proof = self._suite.prove_lock(
                seed, self.hand_id, me, self._context(me), deck, self._shuffle_keys[me]
            )
            made = LockPass(me, points, big_k, proof)
        self._made = made
        return made

    def make_keys(self, slots: Iterable[int]) -> Keys:
        """This seat's per-card keys for ``slots`` (to deal, hand over or show them)."""
        me = self._me()
        if not self.setup_done:
            raise ProtocolError("no keys before the deck is locked",
                                code=ViolationCode.LOCAL_MISUSE)
        chosen = list(slots)
        if len(set(chosen)) != len(chosen):
            raise ProtocolError("a slot is named twice", code=ViolationCode.LOCAL_MISUSE)
        for slot in chosen:
            self._check_slot_arg(slot)
            if (me, slot) in self._keys:
                raise ProtocolError(f"the key for slot {slot} is already published",
                                    code=ViolationCode.LOCAL_MISUSE)
            if slot in self._disputed:
                raise DealDispute(slot, "disputed: it must be audited, not opened further")
        if self.version == 4:
            assert self._seed is not None
            points = [self._slot_point(slot) for slot in chosen]
            ctx = self._keys_context(me)
            ahead = self._ahead.take((ctx, tuple(chosen), tuple(points)))
            if isinstance(ahead, Keys):
                made = ahead
            else:
                outs, proof = self._v4.strip(self._seed, self.hand_id, me, ctx,
                                             self._shuffle_keys[me], points)
                made = Keys(me, tuple(zip(chosen, outs, strict=True)), proof)
            # Its own check is skipped only where it was made: same place, same inputs.
            self._made_strip = (made, ctx, tuple(points))
            return made
        own = self._own_lock_keys()
        return Keys(me, tuple((slot, own[slot]) for slot in chosen))

    def make_seed_reveal(self) -> SeedReveal:
        """This seat's seed, for the audit (after the hand or on a dispute)."""
        me = self._me()
        if me not in self._commits:
            raise ProtocolError("nothing to reveal before the commitment",
                                code=ViolationCode.LOCAL_MISUSE)
        assert self._seed is not None
        return SeedReveal(me, self._seed)

    # ----------------------------------------------------------------- receive

    def receive(self, message: DeckMessage | list[Any]) -> None:
        """Check a message from any seat (this one included) and take it in.

        Raises ``Cheating`` naming the sender when the message breaks the
        protocol, ``ProtocolError`` when it is malformed; in both cases
        nothing changes. Raises ``DealDispute`` (after recording the message)
        when a slot this seat holds opens to no valid card.
        """
        msg = message_from_wire(message) if isinstance(message, list) else message
        if not isinstance(msg, Commit | ShufflePass | LockPass | Keys | SeedReveal):
            raise ProtocolError("not a deck message", code=ViolationCode.FORM_DECK_MESSAGE)
        if type(msg.seat) is not int or not 0 <= msg.seat < self.n_seats:
            raise ProtocolError(f"no seat {msg.seat!r}", code=ViolationCode.FORM_DECK_MESSAGE)
        if isinstance(msg, Commit):
            self._receive_commit(msg)
        elif isinstance(msg, ShufflePass | LockPass):
            self._receive_pass(msg)
        elif isinstance(msg, Keys):
            # Keys before the deck is done are refused first, whatever their form, so
            # an observer (no version before the first commit) and a seat agree.
            if not self.setup_done:
                raise Cheating(msg.seat, "published keys before the deck was locked", (msg,),
                               code=ViolationCode.DECK_KEYS_EARLY)
            # A message naming no slot opens nothing and needs no proof.
            if (msg.proof is None) == (self.version == 4) and (msg.keys or msg.proof):
                proved = "unproved" if msg.proof is None else "proved"
                raise Cheating(msg.seat, f"sent {proved} keys in a version {self.version} hand",
                               (msg,), code=ViolationCode.DECK_WRONG_VERSION)
            if self.version == 4 and msg.keys:
                self._receive_strips(msg)
            else:
                self._receive_keys(msg)
        else:
            self._receive_seed(msg)

    def _check_turn(self, kind: str, msg: DeckMessage) -> None:
        step = self.expected()
        if step != (kind, msg.seat):
            due = "nothing" if step is None else f"a {step[0]} from seat {step[1]}"
            raise Cheating(msg.seat, f"sent a {kind} out of turn ({due} was due)", (msg,),
                           code=ViolationCode.DECK_OUT_OF_TURN)

    def _receive_commit(self, msg: Commit) -> None:
        self._check_turn("commit", msg)
        if type(msg.digest) is not bytes or len(msg.digest) != 32:
            raise Cheating(msg.seat, "its commitment is not a 32-byte digest", (msg,),
                           code=ViolationCode.DECK_BAD_COMMITMENT)
        if msg.version not in VERSIONS:
            raise ProtocolError(f"unknown deck protocol version {msg.version!r}",
                                code=ViolationCode.DECK_WRONG_VERSION)
        if self.version is not None and msg.version != self.version:
            # A downgrade to the unproved version is refused, not negotiated.
            raise Cheating(
                msg.seat,
                f"runs deck protocol version {msg.version} in a version {self.version} hand",
                (*self._commits.values(), msg),
             code=ViolationCode.DECK_WRONG_VERSION)
        self.version = msg.version
        self._setup.append(msg)
        self._commits[msg.seat] = msg

    def _receive_pass(self, msg: ShufflePass | LockPass) -> None:
        kind = "shuffle" if isinstance(msg, ShufflePass) else "lock"
        self._check_turn(kind, msg)
        points = msg.points
        if type(points) is not tuple or len(points) != self.n_slots:
            raise Cheating(msg.seat, f"its {kind} pass does not hold {self.n_slots} points", (msg,),
                           code=ViolationCode.DECK_BAD_PASS)
        own = msg == self._made
        if (msg.proof is None) != (self.version == 1):
            proved = "an unproved" if msg.proof is None else "a proved"
            raise Cheating(
                msg.seat, f"sent {proved} {kind} pass in a version {self.version} hand", (msg,),
                code=ViolationCode.DECK_WRONG_VERSION,
            )
        for j, p in enumerate(points):
            if type(p) is not bytes or len(p) != self._suite.point_bytes:
                raise Cheating(
                    msg.seat, f"point {j} of its {kind} pass is not the size of this version's",
                    (msg,), code=ViolationCode.DECK_BAD_PASS,
                )
            # Version 2 and 3 proofs multiply every point, which checks it anyway.
            if not own and self.version == 1 and not self._suite.is_valid_point(p):
                raise Cheating(
                    msg.seat,
                    f"point {j} of its {kind} pass is not a valid prime-order point",
                    (msg,),
                 code=ViolationCode.DECK_BAD_PASS)
            if p in POINT_TO_CARD:
                raise Cheating(
                    msg.seat, f"point {j} of its {kind} pass is a plaintext card", (msg,),
                    code=ViolationCode.DECK_BAD_PASS,
                )
        if len(set(points)) != len(points):
            raise Cheating(msg.seat, f"its {kind} pass repeats a point", (msg,),
                           code=ViolationCode.DECK_BAD_PASS)
        previous = self._last_pass()
        if previous is not None and not set(points).isdisjoint(previous.points):
            raise Cheating(
                msg.seat, f"its {kind} pass leaves a point of the previous pass", (previous, msg),
                code=ViolationCode.DECK_BAD_PASS,
            )
        if self.version != 1 and not own:
            self._check_proof(msg, previous)
        if isinstance(msg, ShufflePass) and msg.key is not None:
            self._shuffle_keys[msg.seat] = msg.key
        if isinstance(msg, LockPass) and msg.keys is not None:
            self._key_commitments[msg.seat] = msg.keys
            self._lock_messages[msg.seat] = msg
        self._setup.append(msg)

    def precheck(
        self, message: DeckMessage, next_keys: Sequence[int] = ()
    ) -> Callable[[], None] | None:
        """A job that checks a pass's proof now, away from the caller's thread.

        For a proved pass that is due now (its turn), returns a function of
        immutable inputs only (the deck it is due on, its context, the keys
        it depends on) that verifies the proof and, when it holds, records a
        digest of everything the check read; ``receive`` then skips the
        check it would repeat. Returns None when there is nothing to check
        ahead. Running the job is optional and never changes a verdict: a
        failed proof records nothing, and a pass received in another state
        (another deck, another step) has another digest and is checked in
        ``receive`` as usual.

        When this seat's own pass comes right after that pass, the job also
        makes it on the pass's points, in a second thread beside the check
        (the per-seat critical path: SPEC 2.8); ``make_shuffle``/``make_lock``
        take it only if the deck they are due on is that deck, and nothing
        is sent before the check in ``receive`` has passed. For the commit
        due just before this seat's first shuffle, the job makes that
        shuffle (of the plain deck) and checks nothing.

        Version 4: a keys message is checked the same way, and ``next_keys``
        (the table knows them) are the slots of this seat's own keys message
        when it is due right after ``message`` (a deal keys message, or the
        last shuffle): the job makes it beside the check, on the points the
        slots will have once ``message`` is accepted, and ``make_keys``
        takes it only if they are. Nothing is sent before the check passes:
        a strip of an unchecked point would open it for whoever forged it.
        """
        if isinstance(message, Keys):
            return self._precheck_strips(message, tuple(next_keys))
        if isinstance(message, Commit):
            # The last commit before this seat's first shuffle: nothing to
            # check, but the shuffle of the plain deck can be made now.
            if message.seat == self.seat or self.expected() != ("commit", message.seat):
                return None
            return self._make_ahead(self._deck0, len(self._setup) + 1)
        if not isinstance(message, ShufflePass | LockPass) or message.proof is None:
            return None
        kind = "shuffle" if isinstance(message, ShufflePass) else "lock"
        if self.version not in (2, 3, 4) or self.expected() != (kind, message.seat):
            return None
        if message.seat == self.seat:
            return None
        if isinstance(message, LockPass) and message.seat not in self._shuffle_keys:
            return None
        deck = self._current_deck()
        ctx = self._context(message.seat)
        big_e = self._shuffle_keys.get(message.seat)
        digest = self._proof_digest(message, deck, ctx, big_e)
        suite = self._suite
        done = self._prechecked

        def job() -> None:
            try:
                if isinstance(message, ShufflePass):
                    assert message.proof is not None and message.key is not None
                    suite.verify_shuffle(ctx, deck, message.points, message.key, message.proof)
                else:
                    assert message.proof is not None and message.keys is not None
                    assert big_e is not None
                    suite.verify_lock(ctx, deck, message.points, big_e, message.keys,
                                      message.proof)
            except (ProofError, ValueError, TypeError, AssertionError):
                return  # receive checks it again and names the culprit
            done.add(digest)

        ahead = self._make_ahead(message.points, len(self._setup) + 1)
        if ahead is None and next_keys and len(self._setup) + 1 == len(self._schedule):
            # The last shuffle: this seat's first deal keys strip the deck it makes.
            ahead = self._strips_ahead(tuple(next_keys), dict(enumerate(message.points)),
                                       whole_deck=True)
        return job if ahead is None else _beside(job, ahead)

    def _precheck_strips(
        self, message: Keys, next_keys: tuple[int, ...]
    ) -> Callable[[], None] | None:
        """Version 4: a job checking another seat's keys message (and making this
        seat's next one beside it), or None where there is nothing it may do."""
        if (self.version != 4 or not self.setup_done or message.proof is None
                or message.seat == self.seat or type(message.keys) is not tuple
                or not message.keys or message.seat not in self._shuffle_keys):
            return None
        slots: list[int] = []
        outs: list[bytes] = []
        for pair in message.keys:
            if (type(pair) is not tuple or len(pair) != 2 or type(pair[0]) is not int
                    or not 0 <= pair[0] < self.n_slots or type(pair[1]) is not bytes
                    or len(pair[1]) != self._suite.point_bytes
                    or (message.seat, pair[0]) in self._keys):
                return None  # receive refuses it, with its words
            slots.append(pair[0])
            outs.append(pair[1])
        if len(set(slots)) != len(slots):
            return None
        ins = [self._slot_point(slot) for slot in slots]
        ctx = self._keys_context(message.seat)
        big_e = self._shuffle_keys[message.seat]
        digest = self._proof_digest(message, ins, ctx, big_e)
        suite, done, proof = self._v4, self._prechecked, message.proof

        def job() -> None:
            try:
                suite.verify_strip(ctx, big_e, ins, outs, proof)
            except (ProofError, ValueError, TypeError):
                return  # receive checks it again and names the culprit
            done.add(digest)

        after = dict(self._slot_points)
        after.update(zip(slots, outs, strict=True))
        ahead = self._strips_ahead(next_keys, after)
        return job if ahead is None else _beside(job, ahead)

    def _strips_ahead(
        self, slots: tuple[int, ...], points: dict[int, bytes], whole_deck: bool = False
    ) -> Callable[[], None] | None:
        """Version 4: a job making this seat's keys for ``slots`` on ``points`` (each
        slot's point once the message being checked is accepted; the slot's current
        one where ``points`` has none), at the place after that message (or None).
        ``whole_deck``: ``points`` is the deck the last shuffle makes.
        """
        if self.seat is None or self._seed is None or self.version != 4 or not slots:
            return None
        big_e = self._shuffle_keys.get(self.seat)
        if big_e is None or any(type(s) is not int or not 0 <= s < self.n_slots for s in slots):
            return None
        if whole_deck and (len(points) != self.n_slots
                           or any(type(p) is not bytes for p in points.values())):
            return None
        ins = tuple(points[s] if s in points else self._slot_point(s) for s in slots)
        me, seed, hand_id, suite = self.seat, self._seed, self.hand_id, self._v4
        # The place after the message being checked, which is where this seat's is due.
        ctx = context(hand_id, me, self._place() + 1)
        key: _AheadKey = (ctx, slots, ins)
        if key in self._ahead:
            return None
        store = self._ahead

        def job() -> None:
            try:
                outs, proof = suite.strip(seed, hand_id, me, ctx, big_e, ins)
            except (GleekError, ValueError, TypeError):
                return  # a forged point: the message it came in is refused anyway
            store.put(key, Keys(me, tuple(zip(slots, outs, strict=True)), proof))

        return job

    def _make_ahead(
        self, deck: tuple[bytes, ...], step: int
    ) -> Callable[[], None] | None:
        """A job making this seat's pass of setup step ``step`` on ``deck`` (or None)."""
        if self.seat is None or self._seed is None or step >= len(self._schedule):
            return None
        # Only a deck of the right size and form: a forger must not make this
        # seat do more work than the check it will fail.
        if (type(deck) is not tuple or len(deck) != self.n_slots
                or any(type(p) is not bytes for p in deck)):
            return None
        kind, seat = self._schedule[step]
        if (seat != self.seat or kind not in ("shuffle", "lock")
                or self.version not in (2, 3, 4)):
            return None
        big_e = self._shuffle_keys.get(seat)
        if kind == "lock" and big_e is None:
            return None
        key = (step, deck)
        if key in self._ahead:
            return None
        suite, seed, hand_id = self._suite, self._seed, self.hand_id
        ctx = context(hand_id, seat, step)
        store = self._ahead

        def job() -> None:
            made: ShufflePass | LockPass
            try:
                if kind == "shuffle":
                    points, e_point, shuffle_proof = suite.prove_shuffle(
                        seed, hand_id, seat, ctx, deck)
                    made = ShufflePass(seat, points, e_point, shuffle_proof)
                else:
                    assert big_e is not None
                    points, big_k, lock_proof = suite.prove_lock(
                        seed, hand_id, seat, ctx, deck, big_e)
                    made = LockPass(seat, points, big_k, lock_proof)
            except (GleekError, ValueError, TypeError, RuntimeError):
                return  # a deck that is not one: its pass will be refused anyway
            store.put(key, made)

        return job

    def _proof_digest(
        self, msg: ShufflePass | LockPass | Keys, deck: Sequence[bytes], ctx: bytes,
        big_e: bytes | None,
    ) -> bytes:
        """BLAKE2b-256 of every input of a proof check (the version, deck, context, pass)."""
        h = hashlib.blake2b(digest_size=32)
        for part in (bytes([self.version or 0]), ctx, big_e or b""):
            h.update(len(part).to_bytes(4, "big"))
            h.update(part)
        # The message and the deck as tagged parts, not their repr: the same
        # injective record at a fifth of the cost, twice a pass on the path
        # (precheck, then receive).
        parts: list[bytes] = []
        _digest_parts(msg, parts)
        _digest_parts(tuple(deck), parts)
        h.update(b"".join(parts))
        return h.digest()

    def _check_proof(self, msg: ShufflePass | LockPass, previous: DeckMessage | None) -> None:
        """Verify a version 2 pass's proof against the deck it was applied to."""
        evidence = (msg,) if previous is None else (previous, msg)
        deck = self._current_deck()
        ctx = self._context(msg.seat)
        digest = self._proof_digest(msg, deck, ctx, self._shuffle_keys.get(msg.seat))
        if self._prechecked.take(digest):
            return
        try:
            if isinstance(msg, ShufflePass):
                assert msg.proof is not None and msg.key is not None
                self._suite.verify_shuffle(ctx, deck, msg.points, msg.key, msg.proof)
            else:
                assert msg.proof is not None and msg.keys is not None
                self._suite.verify_lock(
                    ctx, deck, msg.points, self._shuffle_keys[msg.seat], msg.keys, msg.proof
                )
        except ProofError as exc:
            kind = "shuffle" if isinstance(msg, ShufflePass) else "lock"
            shuffle = next(
                (m for m in self._setup if isinstance(m, ShufflePass) and m.seat == msg.seat),
                None,
            )
            if kind == "lock" and shuffle is not None:
                evidence = (shuffle, *evidence)
            # An unreduced scalar would verify as its reduction: refused with
            # its own code, so a second verifier knows it must check (SPEC 2.8).
            code = (ViolationCode.DECK_UNREDUCED_SCALAR if isinstance(exc, UnreducedScalar)
                    else ViolationCode.DECK_BAD_PROOF)
            raise Cheating(
                msg.seat, f"the proof of its {kind} pass fails: {exc}", evidence, code=code,
            ) from None

    def _receive_keys(self, msg: Keys) -> None:
        seat = msg.seat
        if not self.setup_done:
            raise Cheating(seat, "published keys before the deck was locked", (msg,),
                           code=ViolationCode.DECK_KEYS_EARLY)
        # A seat does not check its own keys against its own commitments.
        committed = self._key_commitments.get(seat) if seat != self.seat else None

        def matches(slot: int, key: bytes) -> None:
            if committed is not None and not self._suite.key_matches(key, committed[slot]):
                raise Cheating(
                    seat,
                    f"its key for slot {slot} does not match the commitment of its lock pass",
                    (self._lock_messages[seat], msg),
                    code=ViolationCode.DECK_KEY_COMMITMENT)

        new = self._pairs(msg, "key", self._suite.is_valid_scalar,
                          "not a canonical non-zero scalar", matches)

        keys_after = dict(self._keys)
        keys_after.update(((seat, slot), key) for slot, key in new.items())
        openings: dict[int, int] = {}
        going_public: set[int] = set()
        disputes: list[tuple[int, str]] = []
        final = self._current_deck()
        for slot in new:
            if all((s, slot) in keys_after for s in range(self.n_seats)):
                going_public.add(slot)
        for slot in sorted(new):
            everyone = slot in going_public
            if slot in self._opened and everyone:
                # Opened alone before; now everyone opens it with the published
                # keys, and must get the same card.
                scalars = [keys_after[(s, slot)] for s in range(self.n_seats)]
                opened = self._suite.unlock(final[slot], scalars)
                if self._pack.get(opened) != self._opened[slot]:
                    evidence = self._slot_evidence(slot, msg)
                    raise Cheating(seat, f"its key opens slot {slot} to another card", evidence,
                                   code=ViolationCode.DECK_KEY_OPENS_WRONG)
                continue
            if slot in self._opened or slot in self._disputed:
                continue
            if not everyone and not self._holds_rest(slot, keys_after):
                continue
            card, problem = self._open(slot, final[slot], keys_after, openings)
            if problem is None:
                assert card is not None
                openings[slot] = card
            elif everyone and (
                card is None or card not in self._private_cards(openings, going_public)
            ):
                # Whoever completes a slot held every other key and could
                # open it first: publishing a key that opens it to a non-card
                # (or to a card already shown) is that seat's doing.
                evidence = self._slot_evidence(slot, msg)
                raise Cheating(seat, f"its key opens slot {slot} to {problem}", evidence,
                               code=ViolationCode.DECK_KEY_OPENS_WRONG)
            else:
                disputes.append((slot, problem))
        self._take(msg, keys_after, openings, going_public, disputes)

    def _pairs(
        self, msg: Keys, value: str, valid: Callable[[bytes], bool], invalid: str,
        more: Callable[[int, bytes], None] | None = None,
    ) -> dict[int, bytes]:
        """A keys message's pairs, slot -> value, checked pair by pair in the message's
        order (SPEC 2.6): the slot exists, the value is ``valid`` (else "its key for slot
        s is ``invalid``"), the slot is not keyed twice by the seat, then ``more``."""
        seat = msg.seat
        if type(msg.keys) is not tuple:
            raise ProtocolError(f"the keys must be a tuple of (slot, {value}) pairs",
                                code=ViolationCode.FORM_DECK_MESSAGE)
        new: dict[int, bytes] = {}
        for pair in msg.keys:
            if type(pair) is not tuple or len(pair) != 2:
                raise ProtocolError(f"a key is a (slot, {value}) pair",
                                    code=ViolationCode.FORM_DECK_MESSAGE)
            slot, key = pair
            if type(slot) is not int or not 0 <= slot < self.n_slots:
                raise Cheating(
                    seat, f"published a key for slot {slot!r}, which does not exist", (msg,),
                    code=ViolationCode.DECK_KEYS_SLOTS,
                )
            if not valid(key):
                raise Cheating(seat, f"its key for slot {slot} is {invalid}", (msg,),
                               code=ViolationCode.DECK_BAD_KEY)
            if (seat, slot) in self._keys or slot in new:
                raise Cheating(seat, f"published its key for slot {slot} twice", (msg,),
                               code=ViolationCode.DECK_KEYS_SLOTS)
            if more is not None:
                more(slot, key)
            new[slot] = key
        return new

    def _take(
        self, msg: Keys, keys_after: dict[tuple[int, int], bytes], openings: dict[int, int],
        going_public: set[int], disputes: list[tuple[int, str]],
    ) -> None:
        """Commit an accepted keys message and what it opened; a dispute is raised
        only now, with the message recorded (the class docstring's exception)."""
        self._keys = keys_after
        self._key_messages.append(msg)
        self._opened.update(openings)
        self._public |= going_public
        for slot, _ in disputes:
            self._disputed.add(slot)
        if disputes:
            raise DealDispute(*disputes[0])

    def _receive_strips(self, msg: Keys) -> None:
        """Version 4's keys: each slot's point with the sender's layer stripped, proved."""
        seat = msg.seat
        size = self._suite.point_bytes

        def point_ok(point: bytes) -> bool:
            return (type(point) is bytes and len(point) == size
                    and self._suite.is_valid_point(point))

        new = self._pairs(msg, "point", point_ok, "not a point of the group")
        ins = [self._slot_point(slot) for slot in new]
        # A seat does not check its own proof again, if made for this place and these points.
        ctx = self._keys_context(seat)
        big_e = self._shuffle_keys[seat]
        if (self._made_strip != (msg, ctx, tuple(ins))
                and not self._prechecked.take(self._proof_digest(msg, ins, ctx, big_e))):
            assert msg.proof is not None
            try:
                self._v4.verify_strip(ctx, big_e, ins, list(new.values()), msg.proof)
            except ProofError as exc:
                code = (ViolationCode.DECK_UNREDUCED_SCALAR if isinstance(exc, UnreducedScalar)
                        else ViolationCode.DECK_BAD_PROOF)
                raise Cheating(seat, f"the proof of its keys fails: {exc}",
                               self._strip_evidence(seat, set(new), msg), code=code) from None

        keys_after = dict(self._keys)
        keys_after.update(((seat, slot), point) for slot, point in new.items())
        openings: dict[int, int] = {}
        going_public = {slot for slot in new
                        if all((s, slot) in keys_after for s in range(self.n_seats))}
        disputes: list[tuple[int, str]] = []
        pack = self._pack
        for slot in sorted(new):
            everyone = slot in going_public
            if everyone:
                card = pack.get(new[slot])
            elif self.seat is not None and self._holds_rest(slot, keys_after):
                assert self._seed is not None
                card = pack.get(self._v4.open_own(self._seed, self.hand_id, self.seat, new[slot]))
            else:
                continue
            if slot in self._opened:
                if card != self._opened[slot]:
                    raise Cheating(seat, f"its key opens slot {slot} to another card",
                                   self._strip_evidence(seat, {slot}, msg),
                                   code=ViolationCode.DECK_KEY_OPENS_WRONG)
                continue
            if slot in self._disputed:
                continue
            seen = {**self._opened, **openings}
            repeated = next((o for o, c in seen.items() if c == card and o != slot), None)
            if card is not None and repeated is None:
                openings[slot] = card
                continue
            problem = ("no card of the pack" if card is None
                       else f"card {card}, already seen in slot {repeated}")
            if everyone and (card is None
                             or card not in self._private_cards(openings, going_public)):
                raise Cheating(seat, f"its key opens slot {slot} to {problem}",
                               self._strip_evidence(seat, {slot}, msg),
                               code=ViolationCode.DECK_KEY_OPENS_WRONG)
            disputes.append((slot, problem))
        self._slot_points.update(new)
        self._take(msg, keys_after, openings, going_public, disputes)

    @property
    def _v4(self) -> Secp256k1Suite:
        suite = self._suite
        assert isinstance(suite, Secp256k1Suite) and self.version == 4
        return suite

    def _slot_point(self, slot: int) -> bytes:
        """Version 4: the slot's point as the log has left it (the final deck's, or the
        last strip of it)."""
        point = self._slot_points.get(slot)
        return self._current_deck()[slot] if point is None else point

    def _place(self) -> int:
        """The index in the hand of the message due now: every set-up message and
        every keys message before it (one naming no slot, harmless and unproved,
        does not count)."""
        return len(self._setup) + sum(1 for k in self._key_messages if k.keys)

    def _keys_context(self, seat: int) -> bytes:
        """What a version 4 strip proof binds: the hand, the seat, its place in the hand."""
        return context(self.hand_id, seat, self._place())

    def _strip_evidence(self, seat: int, slots: set[int], msg: Keys) -> list[DeckMessage]:
        """What re-checks a version 4 keys message from the log: the seat's shuffle (its
        E), the final deck, every earlier keys message on those slots, the message."""
        evidence: list[DeckMessage] = [
            m for m in self._setup if isinstance(m, ShufflePass) and m.seat == seat]
        last = self._last_pass()
        if last is not None and last not in evidence:
            evidence.append(last)
        evidence.extend(k for k in self._key_messages if any(s in slots for s, _ in k.keys))
        evidence.append(msg)
        return evidence

    def _receive_seed(self, msg: SeedReveal) -> None:
        commit = self._commits.get(msg.seat)
        if commit is None:
            raise Cheating(msg.seat, "revealed a seed it never committed to", (msg,),
                           code=ViolationCode.DECK_SEED_MISMATCH)
        if msg.seat in self._seeds:
            raise Cheating(msg.seat, "revealed its seed twice", (self._seeds[msg.seat], msg),
                           code=ViolationCode.DECK_SEED_MISMATCH)
        seed = msg.seed
        if (
            type(seed) is not bytes
            or len(seed) != SEED_BYTES
            or commitment(seed, self.hand_id, msg.seat) != commit.digest
        ):
            raise Cheating(msg.seat, "its seed does not match its commitment", (commit, msg),
                           code=ViolationCode.DECK_SEED_MISMATCH)
        self._seeds[msg.seat] = msg

    # ------------------------------------------------------------------- audit

    def audit(self) -> dict[int, int]:
        """Recompute every pass and every published key from the revealed seeds.

        Raises ``Cheating`` on the first deviation, in the order the messages
        were sent. Returns the whole deal, slot -> card (empty if the setup
        never finished).
        """
        missing = [s for s in range(self.n_seats) if s not in self._seeds]
        if missing:
            raise ProtocolError(f"the audit needs every seed (missing: seats {missing})",
                                code=ViolationCode.LOCAL_MISUSE)
        seeds = {s: r.seed for s, r in self._seeds.items()}

        suite = self._suite
        deck = self._deck0
        previous: DeckMessage | None = None
        for msg in self._setup:
            if not isinstance(msg, ShufflePass | LockPass):
                continue
            s = msg.seat
            if isinstance(msg, ShufflePass):
                kind = "shuffle"
                last = self.version == 1 and s == self.order[-1]
                want = suite.shuffle_pass(seeds[s], self.hand_id, s, deck, lock=last)
            else:
                kind = "lock"
                want = suite.lock_pass(seeds[s], self.hand_id, s, deck)
            if want != msg.points:
                j = next(i for i, (a, b) in enumerate(zip(want, msg.points, strict=True)) if a != b)
                evidence = [self._commits[s], self._seeds[s]]
                if previous is not None:
                    evidence.append(previous)
                evidence.append(msg)
                raise Cheating(
                    s, f"its {kind} pass differs from its seed's (first at slot {j})", evidence,
                    code=ViolationCode.AUDIT_PASS_DIFFERS,
                )
            deck = msg.points
            previous = msg

        if self.version == 4:
            return self._audit_strips(seeds, deck)
        all_keys = {s: suite.lock_keys(seeds[s], self.hand_id, s, self.n_slots) for s in seeds}
        for km in self._key_messages:
            for slot, key in km.keys:
                if key != all_keys[km.seat][slot]:
                    raise Cheating(
                        km.seat,
                        f"its key for slot {slot} differs from its seed's",
                        (self._commits[km.seat], self._seeds[km.seat], km),
                     code=ViolationCode.AUDIT_KEY_DIFFERS)

        return self._audited_deal(deck, lambda slot, point: suite.unlock(
            point, [all_keys[s][slot] for s in range(self.n_seats)]))

    def _audited_deal(
        self, deck: tuple[bytes, ...], opened: Callable[[int, bytes], bytes]
    ) -> dict[int, int]:
        """The whole deal, slot -> card, each final point opened with every seat's layer
        taken off (``opened``), and checked against what was opened during the hand."""
        if not self.setup_done:
            return {}
        deal: dict[int, int] = {}
        pack = self._pack
        for slot, point in enumerate(deck):
            card = pack.get(opened(slot, point))
            # Unreachable once every pass matched its seed; kept as a guard.
            if card is None or card in deal.values():
                raise ProtocolError(f"slot {slot} does not open to a card of the pack",
                                    code=ViolationCode.AUDIT_CARDS_DIFFER)
            deal[slot] = card
        for slot, card in self._opened.items():
            if deal[slot] != card:
                raise ProtocolError(f"slot {slot} opened to a different card during the hand",
                                    code=ViolationCode.AUDIT_CARDS_DIFFER)
        return deal

    def _audit_strips(self, seeds: dict[int, bytes], deck: tuple[bytes, ...]) -> dict[int, int]:
        """Version 4's audit after the passes: every strip and the deal, from the seeds."""
        suite = self._v4
        keys = {s: suite.shuffle_scalar(seed, self.hand_id, s) for s, seed in seeds.items()}
        points: dict[int, bytes] = {}
        for km in self._key_messages:
            for slot, out in km.keys:
                if suite.unstrip_all(points.get(slot, deck[slot]), [keys[km.seat]]) != out:
                    raise Cheating(
                        km.seat, f"its key for slot {slot} differs from its seed's",
                        (self._commits[km.seat], self._seeds[km.seat], km),
                        code=ViolationCode.AUDIT_KEY_DIFFERS)
                points[slot] = out
        layers = list(keys.values())
        return self._audited_deal(deck, lambda _slot, point: suite.unstrip_all(point, layers))

    # ---------------------------------------------------------------- helpers

    def _me(self) -> int:
        if self.seat is None:
            raise ProtocolError("an observer sends no messages", code=ViolationCode.LOCAL_MISUSE)
        return self.seat

    def _context(self, seat: int) -> bytes:
        """What a proof made now binds: the hand (with its session), the seat, the step."""
        return context(self.hand_id, seat, len(self._setup))

    def _own_turn(self, kind: str) -> bytes:
        me = self._me()
        if self.expected() != (kind, me):
            raise ProtocolError(f"it is not seat {me}'s turn to {kind}",
                                code=ViolationCode.LOCAL_MISUSE)
        assert self._seed is not None
        return self._seed

    def _own_lock_keys(self) -> tuple[bytes, ...]:
        if self._own_keys is None:
            assert self._seed is not None and self.seat is not None
            self._own_keys = self._suite.lock_keys(
                self._seed, self.hand_id, self.seat, self.n_slots
            )
        return self._own_keys

    def _check_slot_arg(self, slot: int) -> None:
        if type(slot) is not int or not 0 <= slot < self.n_slots:
            raise ProtocolError(f"no slot {slot!r}", code=ViolationCode.LOCAL_MISUSE)

    def _last_pass(self) -> ShufflePass | LockPass | None:
        for msg in reversed(self._setup):
            if isinstance(msg, ShufflePass | LockPass):
                return msg
        return None

    def _current_deck(self) -> tuple[bytes, ...]:
        last = self._last_pass()
        return self._deck0 if last is None else last.points

    def _holds_rest(self, slot: int, keys: dict[tuple[int, int], bytes]) -> bool:
        me = self.seat
        if me is None:
            return False
        return all((s, slot) in keys for s in range(self.n_seats) if s != me)

    def _private_cards(self, pending: dict[int, int], going_public: set[int]) -> set[int]:
        """Cards this seat opened alone: only it can know a show repeats one."""
        public = self._public | going_public
        opened = {**self._opened, **pending}
        return {card for slot, card in opened.items() if slot not in public}

    def _open(
        self,
        slot: int,
        point: bytes,
        keys: dict[tuple[int, int], bytes],
        pending: dict[int, int],
    ) -> tuple[int | None, str | None]:
        """Open a slot: (card, None), or (card or None, what is wrong)."""
        scalars = []
        for s in range(self.n_seats):
            key = keys.get((s, slot))
            if key is None:
                key = self._own_lock_keys()[slot]
            scalars.append(key)
        card = self._pack.get(self._suite.unlock(point, scalars))
        if card is None:
            return None, "no card of the pack"
        seen = {**self._opened, **pending}
        for other, other_card in seen.items():
            if other_card == card and other != slot:
                return card, f"card {card}, already seen in slot {other}"
        return card, None

    def _slot_evidence(self, slot: int, msg: Keys) -> list[DeckMessage]:
        evidence: list[DeckMessage] = []
        last = self._last_pass()
        if last is not None:
            evidence.append(last)
        evidence.extend(k for k in self._key_messages if any(s == slot for s, _ in k.keys))
        evidence.append(msg)
        return evidence


def audit_transcript(
    n_seats: int,
    cards: Sequence[int],
    hand_id: bytes,
    order: Sequence[int],
    messages: Iterable[DeckMessage | list[Any]],
) -> dict[int, int]:
    """Check a whole hand's deck messages as an observer and audit them.

    ``messages`` are in the order they were sent (message objects or wire
    lists), seed reveals included. Returns slot -> card; raises ``Cheating``
    naming the first seat that deviated, ``ProtocolError`` on a malformed or
    incomplete transcript. A version 2 hand reveals no seed: every pass and
    key was proved as it came in, and the result is the cards shown to all;
    so does a version 3 hand.
    """
    observer = DeckProtocol(None, n_seats, cards, hand_id, order, None)
    for message in messages:
        observer.receive(message)
    if observer.version in (2, 3, 4) and len(observer._seeds) < n_seats:
        return observer.public_cards()
    return observer.audit()
