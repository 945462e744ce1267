"""The sans-IO session protocol: signed events in, what happens next out.

A ``Table`` is one seat's (or an observer's) copy of a session. It checks
every envelope (signature, chain, author, turn), feeds the deck protocol and
the rules engine, and says who must extend the log next and with what. At
every point exactly one seat may extend the log (``expected``), so the log is
one chain all seats agree on. The exceptions are ``abort`` and ``leave``, which
any seat may sign at any time and which end the session (and ``dispute``). A
``handover`` (a bot plays the seat from there on) is signed only by the seat
expected next, beside the event it owes, so it never crosses another event.

The table never does I/O and never reads a clock: the shell hands it
envelopes, asks it for this seat's next event (``auto_event`` for protocol
steps, ``decision``/``act`` for a player's choices), stores and sends what
it signs, and decides about timeouts.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gleek_p2p.base.errors import Cheating, GleekError, IllegalMove, ProtocolError, ViolationCode
from gleek_p2p.deck import Commit, DealDispute, DeckProtocol, Keys
from gleek_p2p.deck import protocol as deck_protocol
from gleek_p2p.log import canonical
from gleek_p2p.log.chain import check_equivocation
from gleek_p2p.log.envelope import (
    Envelope,
    decode_envelope,
    event_hash,
    sign_envelope,
    verify_envelope,
)
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import (
    TALON,
    Cut,
    Deal,
    Event,
    Phase,
    Reveal,
    SeatView,
    State,
    apply,
    card_of,
    deal_layout,
    legal_actions,
    new_session,
    pack,
    seat_view,
    talon_taker,
    to_act,
)
from gleek_p2p.table import events as ev
from gleek_p2p.table.draw import cut_cards
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.secrets import cut_commitment, cut_nonce, hand_seed
from gleek_p2p.table.shown import shown_slots_of
from gleek_p2p.table.versions import DECK_VERSIONS_OF_LOG, log_version_for


class Stage(Enum):
    """Where the session is, outside what the engine and deck track."""

    ROSTER = "roster"
    CUT_COMMIT = "cut-commit"
    CUT_REVEAL = "cut-reveal"
    DECK = "deck"
    DEAL_KEYS = "deal-keys"
    PLAY = "play"
    UNPLAYED = "unplayed"
    SEEDS = "seeds"
    OVER = "over"
    ABORTED = "aborted"


class LocalFault(Exception):
    """This copy cannot go on because of its own state, not because of any event.

    Not a ``GleekError`` on purpose: nobody else is to blame, so the shell
    treats it as its own failure (an abort that blames nobody), never as a
    reason to refuse or blame the event that revealed it.
    """


@dataclass(frozen=True)
class Expectation:
    """Who must sign the next event, which kinds are acceptable, and in words."""

    seat: int
    kinds: tuple[str, ...]
    what: str


@dataclass(frozen=True)
class Decision:
    """A choice the local player must make now."""

    seat: int
    legal: tuple[Event, ...]
    view: SeatView


@dataclass(frozen=True)
class Verdict:
    """How a session ended early: the abort event as received."""

    seq: int
    signer: int
    blamed: int | None
    reason: str
    evidence: tuple[bytes, ...]
    cause: str | None = None
    """The abort's typed cause (``events.ABORT_CAUSES``), if it has one."""
    left: int | None = None
    """The seat whose own signed ``leave`` ended the session: the signer of a ``leave``
    event, or for an abort of cause ``left`` the signer of the leave it carries
    (a valid signature of this session; ``gleek verify`` also checks its place)."""
    left_at: int | None = None
    """The position of that leave in the chain (for an abort, where the leaver signed it)."""
    about: int | None = None
    """The seat the abort's code speaks of, as the log shows it: the blamed seat (a
    timeout, a violation), the leaver (``left``: ``left``; ``leave-unlogged``: the
    body's fifth item), the signer of the abort it carries (``forked``,
    ``peer-failed``), the signer (``local-failure``); None without a known code."""
    fits: bool = True
    """Whether the abort's known code fits the log: a timeout blames the seat the
    log waited for, a ``left`` carries a leave of this session, a ``forked`` or
    ``peer-failed`` another seat's abort of this session at a position no later
    (of cause ``local-failure`` for ``peer-failed``), a ``leave-unlogged`` names
    another seat. When it does not, screens show the reason as the signer's
    words (the code is its unproven claim)."""


@dataclass(frozen=True)
class Handover:
    """A seat's signed word that a bot plays it from event ``seq`` on."""

    seq: int
    seat: int
    bot: str
    """The bot's name as signed (a strategy name: words for people, no rule)."""


@dataclass(frozen=True)
class Retake:
    """A seat's signed word that its person plays it again from event ``seq`` on
    (after its ``handover``)."""

    seq: int
    seat: int


SeatChange = Handover | Retake


@dataclass
class HandRecord:
    """A finished, audited hand: the engine state at its end, and its cards."""

    number: int
    state: State
    cards: dict[int, int]
    first_seq: int
    last_seq: int
    deck_version: int = 2
    """1: the deal was audited from the seeds after the hand (every card known);
    2: every pass and key was proved as it came, only public cards are known."""


@dataclass
class _Mutable:
    """Everything ``receive`` may change, so a failed event can be rolled back."""

    stage: Stage = Stage.ROSTER
    state: State | None = None
    deck: DeckProtocol | None = None
    hand: int = -1
    hand_start: State | None = None
    hand_first_seq: int = 0
    hand_actions: list[tuple[int, Event]] = field(default_factory=list)
    cut_commits: dict[int, bytes] = field(default_factory=dict)
    cut_nonces: dict[int, bytes] = field(default_factory=dict)
    deal_keys_done: int = 0
    talon_keys_from: set[int] = field(default_factory=set)
    public_slots: set[int] = field(default_factory=set)
    seeds_done: int = 0
    unplayed: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """Deck v2, after the hand: (seat, slots) still to open, the cards held but never played."""
    hands: list[HandRecord] = field(default_factory=list)
    verdict: Verdict | None = None
    audit_failure: Cheating | None = None
    dispute_slot: int | None = None
    """A slot of this seat that did not open: this seat must dispute the deal.

    It does so when its turn comes (its own cards are needed only then), so
    the dispute takes a position no other seat is signing for.
    """
    dispute_now: bool = False
    disputed_by: int | None = None
    seat_changes: tuple[SeatChange, ...] = ()


def _as_evidence(first: tuple[bytes, ...], items: tuple[Any, ...]) -> tuple[bytes, ...]:
    """Evidence as bytes: signed envelopes first, then any deck message encoded."""
    out = list(first)
    for item in items:
        if isinstance(item, Envelope):
            data = item.encode()
        elif isinstance(item, bytes):
            data = item
        elif hasattr(item, "to_wire"):
            data = canonical.encode(item.to_wire())
        else:
            continue
        if data not in out:
            out.append(data)
    return tuple(out[: ev.MAX_EVIDENCE])


def _fork(deck: DeckProtocol | None) -> DeckProtocol | None:
    """A copy of the deck protocol that a failed event can be rolled back to.

    Its containers are copied one level deep: what they hold (points, keys,
    messages) is immutable, so this is as good as a deep copy and far cheaper.
    """
    if deck is None:
        return None
    fork = copy.copy(deck)
    for name, value in vars(deck).items():
        if isinstance(value, dict | list | set):
            setattr(fork, name, copy.copy(value))
    return fork


class Table:
    """One copy of a session: a seat's (with its identity and secret) or an observer's.

    ``receive`` takes every event of the log in order, the local seat's own
    included; it raises ``ProtocolError`` or ``Cheating`` and then leaves the
    table exactly as it was.

    A seat runs the deck protocol version current when its table is made
    (``deck.protocol.CURRENT_VERSION``) and writes the log version that goes
    with it (``table.versions``): version 2 for deck version 4, version 1 for
    deck versions 1 to 3. It continues only a log of that version.
    """

    def __init__(
        self,
        roster: Roster,
        seat: int | None = None,
        identity: Identity | None = None,
        secret: bytes | None = None,
    ) -> None:
        if seat is not None:
            if identity is None or secret is None:
                raise ValueError("a seated table needs the seat's identity and secret")
            if roster.publics[seat] != identity.public:
                raise ValueError("the identity does not own that seat of the roster")
        self.roster = roster
        self.seat = seat
        self.session_id = roster.session_id
        self._identity = identity
        self._secret = secret
        # Read when the table is made, as a seat's deck version is fixed for
        # the whole session: the log's version goes with it.
        self._deck_version: int | None = None
        self._writes: int | None = None
        if seat is not None:
            # The module's attribute, read now: the vectors and tests pin it there.
            self._deck_version = deck_protocol.CURRENT_VERSION
            self._writes = log_version_for(self._deck_version)
        self.envelopes: list[Envelope] = []
        self.encoded: list[bytes] = []
        self._head = bytes(32)
        self._m = _Mutable()

    # ----------------------------------------------------------------- queries

    @property
    def stage(self) -> Stage:
        return self._m.stage

    @property
    def state(self) -> State | None:
        """The engine state as this copy knows it (None before the cut)."""
        return self._m.state

    @property
    def hands(self) -> list[HandRecord]:
        return self._m.hands

    @property
    def verdict(self) -> Verdict | None:
        return self._m.verdict

    @property
    def handovers(self) -> tuple[Handover, ...]:
        """Every signed hand-over to a bot, in log order."""
        return tuple(c for c in self._m.seat_changes if isinstance(c, Handover))

    @property
    def seat_changes(self) -> tuple[SeatChange, ...]:
        """Every signed hand-over and retake, in log order."""
        return self._m.seat_changes

    def handed_over(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` now: its last hand-over has no retake after it."""
        mine = [c for c in self._m.seat_changes if c.seat == seat]
        return bool(mine) and isinstance(mine[-1], Handover)

    @property
    def audit_failure(self) -> Cheating | None:
        """A violation found by a hand audit (the session cannot go on after it)."""
        return self._m.audit_failure

    @property
    def finished(self) -> bool:
        return self._m.stage in (Stage.OVER, Stage.ABORTED)

    @property
    def head(self) -> bytes:
        """The hash the next event must chain to."""
        return self._head

    @property
    def log_version(self) -> int | None:
        """The log's version: its roster event's; before that, the one this seat
        writes (None for an observer, which takes the roster's)."""
        if self.envelopes:
            return self.envelopes[0].version
        return self._writes

    @property
    def order(self) -> tuple[int, ...]:
        """This hand's turn order: clockwise from the eldest (seat order before the cut)."""
        n = self.roster.seats
        state = self._m.state
        if state is None or state.phase is Phase.CUT:
            return tuple(range(n))
        first = (state.dealer + 1) % n
        return tuple((first + i) % n for i in range(n))

    def hand_at(self, seq: int) -> int | None:
        """The hand (from 0) under way when event ``seq`` was signed; None before the cut."""
        for record in self._m.hands:
            if record.first_seq <= seq <= record.last_seq:
                return record.number
        m = self._m
        if m.hand >= 0 and seq >= m.hand_first_seq:
            return m.hand
        return None

    def expected(self) -> Expectation | None:
        """Who must extend the log next, with which kinds; None once finished."""
        if self._m.audit_failure is not None:
            return None
        expect = _EXPECT.get(self._m.stage)
        return None if expect is None else expect(self)

    # One function per stage, found in ``_EXPECT`` (the stage machine's table).

    def _expect_roster(self) -> Expectation:
        return Expectation(0, (ev.ROSTER,), "the roster")

    def _expect_cut_commit(self) -> Expectation:
        return Expectation(len(self._m.cut_commits), (ev.CUT_COMMIT,), "a commitment for the cut")

    def _expect_cut_reveal(self) -> Expectation:
        return Expectation(len(self._m.cut_nonces), (ev.CUT_REVEAL,), "the cut")

    def _expect_deck(self) -> Expectation:
        assert self._m.deck is not None
        step = self._m.deck.expected()
        assert step is not None
        name, seat = step
        return Expectation(seat, (_DECK_STEP_KIND[name],), f"the {name} step of the shuffle")

    def _expect_deal_keys(self) -> Expectation:
        return Expectation(self.order[self._m.deal_keys_done], (ev.KEYS,), "the keys of the deal")

    def _expect_play(self) -> Expectation:
        m = self._m
        giver = self._talon_giver()
        if giver is not None:
            return Expectation(giver, (ev.KEYS,), "the keys of the talon")
        assert m.state is not None
        actor = to_act(m.state)
        assert actor is not None
        return Expectation(actor, (ev.ACT,), f"a move ({m.state.phase.name.lower()})")

    def _expect_unplayed(self) -> Expectation:
        return Expectation(self._m.unplayed[0][0], (ev.KEYS,),
                           "the keys of the cards left unplayed")

    def _expect_seeds(self) -> Expectation:
        seat = self.order[self._m.seeds_done % self.roster.seats]
        return Expectation(seat, (ev.SEED,), "the seed of the hand")

    def _talon_giver(self) -> int | None:
        m = self._m
        if m.state is None or m.state.phase is not Phase.DISCARD:
            return None
        taker = talon_taker(m.state)
        if taker is None:
            return None
        for seat in self.order:
            if seat != taker and seat not in m.talon_keys_from:
                return seat
        return None

    def decision(self) -> Decision | None:
        """The choice the local player must make now, if it is theirs."""
        exp = self.expected()
        if self.seat is None or exp is None or exp.seat != self.seat or exp.kinds != (ev.ACT,):
            return None
        state = self._m.state
        assert state is not None
        legal = tuple(legal_actions(state, self.seat))
        return Decision(self.seat, legal, seat_view(state, self.seat))

    # ----------------------------------------------------------- local events

    def _sign(self, kind: str, body: list[Any]) -> Envelope:
        if self.seat is None or self._identity is None:
            raise ProtocolError("an observer cannot sign events", code=ViolationCode.LOCAL_MISUSE)
        version = self.log_version
        assert version is not None
        return sign_envelope(
            self._identity,
            self.session_id,
            len(self.envelopes),
            self.head,
            self.seat,
            kind,
            body,
            version=version,
        )

    def roster_event(self) -> Envelope:
        """Seat 0's first event: the roster itself."""
        if self.seat != 0 or self.envelopes:
            raise ProtocolError("only seat 0 opens the log, with the roster",
                                code=ViolationCode.LOCAL_MISUSE)
        return self._sign(ev.ROSTER, self.roster.to_body())

    def auto_event(self) -> Envelope | None:
        """This seat's next protocol step (anything but a player's decision), signed."""
        m = self._m
        exp = self.expected()
        if (self.seat is not None and m.dispute_slot is not None and m.disputed_by is None
                and not self.finished
                and (m.dispute_now or (exp is not None and exp.seat == self.seat))):
            return self._sign(ev.DISPUTE, [m.dispute_slot])
        if self.seat is None or exp is None or exp.seat != self.seat:
            return None
        kind = exp.kinds[0]
        make = _MAKE.get(kind)
        return None if make is None else make(self, kind)

    # One function per kind this seat signs on its own, found in ``_MAKE``.

    def _make_roster(self, kind: str) -> Envelope:
        return self.roster_event()

    def _make_cut_commit(self, kind: str) -> Envelope:
        assert self._secret is not None and self.seat is not None
        nonce = cut_nonce(self._secret, self.session_id)
        return self._sign(kind, [cut_commitment(self.session_id, self.seat, nonce)])

    def _make_cut_reveal(self, kind: str) -> Envelope:
        assert self._secret is not None
        return self._sign(kind, [cut_nonce(self._secret, self.session_id)])

    def _make_deck_step(self, kind: str) -> Envelope:
        deck = self._m.deck
        assert deck is not None
        makers: dict[str, Callable[[], ev.DeckMessage]] = {
            ev.COMMIT: deck.make_commit, ev.SHUFFLE: deck.make_shuffle, ev.LOCK: deck.make_lock,
        }
        return self._sign(kind, ev.deck_body(makers[kind]()))

    def _make_keys(self, kind: str) -> Envelope:
        assert self._m.deck is not None
        return self._sign(kind, ev.deck_body(self._m.deck.make_keys(self._keys_to_give())))

    def _make_seed(self, kind: str) -> Envelope:
        assert self._m.deck is not None
        return self._sign(kind, ev.deck_body(self._m.deck.make_seed_reveal()))

    def _keys_to_give(self) -> tuple[int, ...]:
        """The slots whose keys the expected seat must publish now."""
        m = self._m
        assert m.state is not None
        exp_seat = self.expected()
        assert exp_seat is not None
        seat = exp_seat.seat
        if m.stage is Stage.UNPLAYED:
            return m.unplayed[0][1]
        layout = deal_layout(m.state.variant, m.state.dealer)
        if m.stage is Stage.DEAL_KEYS:
            return tuple(s for s, owner in enumerate(layout) if owner not in (TALON, seat))
        return tuple(s for s, owner in enumerate(layout) if owner == TALON)

    def act(self, action: Event) -> Envelope:
        """Sign the local player's decision, with the keys of the cards it shows."""
        decision = self.decision()
        if decision is None:
            raise IllegalMove("it is not your turn to play", self.seat)
        if action not in decision.legal:
            # Let the engine say why, in a player's words.
            assert self._m.state is not None
            apply(self._m.state, action)
            raise IllegalMove("that move is not allowed now", self.seat)
        keys = self._keys_for(action)
        return self._sign(ev.ACT, ev.Act(action, keys).to_body())

    def _keys_for(self, action: Event) -> Keys | None:
        slots = tuple(s for s in shown_slots_of(action) if s not in self._m.public_slots)
        if not slots:
            return None
        assert self._m.deck is not None
        return self._m.deck.make_keys(slots)

    def abort_event(
        self, blamed: int | None, reason: str, evidence: tuple[bytes, ...] = (),
        cause: str | None = None, about: int | None = None,
    ) -> Envelope:
        """An abort signed by this seat: ends the session, blaming ``blamed``; ``cause``
        is its code (``events.ABORT_CAUSES`` or a violation's), ``about`` the seat a
        ``leave-unlogged`` is about."""
        reason = reason[: ev.MAX_REASON]
        abort = ev.Abort(blamed, reason, evidence[: ev.MAX_EVIDENCE], cause, about)
        return self._sign(ev.ABORT, abort.to_body())

    def leave_event(self) -> Envelope:
        """This seat's signed ``leave``: its player leaves the table, which ends the session.

        Signed at the next position whoever's turn it is (like an abort); it
        blames nobody and claims nothing about anyone else.
        """
        if not self.envelopes or self.finished:
            raise ProtocolError("there is no session under way to leave",
                                code=ViolationCode.LOCAL_MISUSE)
        return self._sign(ev.LEAVE, [])

    def handover_event(self, bot: str) -> Envelope:
        """This seat's signed ``handover``: a bot named ``bot`` plays the seat from here.

        Only when this seat is the one to sign next (before the event it
        owes), so it takes a position no other seat is signing for; it changes
        nothing in the game.
        """
        exp = self.expected()
        if not self.envelopes or exp is None or exp.seat != self.seat:
            raise ProtocolError("a seat hands over only when it is its turn to sign",
                                code=ViolationCode.LOCAL_MISUSE)
        ev.handover_body([bot])
        return self._sign(ev.HANDOVER, [bot])

    def retake_event(self) -> Envelope:
        """This seat's signed ``retake``: its person plays the seat again from here.

        Only while a bot plays this seat (its last ``handover`` has no retake
        after it), and only when this seat is the one to sign next, like the
        ``handover``: it never crosses another seat's event.
        """
        exp = self.expected()
        if exp is None or exp.seat != self.seat or self.seat is None \
                or not self.handed_over(self.seat):
            raise ProtocolError("a seat takes itself back only from its bot, at its turn",
                                code=ViolationCode.LOCAL_MISUSE)
        return self._sign(ev.RETAKE, [])

    # --------------------------------------------------------------- receiving

    def precheck(self, envelope: Envelope) -> Callable[[], None] | None:
        """A job checking a deck pass's proof ahead, for a worker thread (or None).

        ``DeckProtocol.precheck``: running it is optional and changes no
        verdict; ``receive`` then skips the check it already passed, and this
        seat's pass made beside it (when its turn is next) is taken as made.
        """
        deck = self._m.deck
        if (deck is None or envelope.kind not in (ev.COMMIT, ev.SHUFFLE, ev.LOCK, ev.KEYS)
                or envelope.seq != len(self.envelopes)
                or envelope.session_id != self.session_id):
            return None
        # Only what the seat signed is worth a worker's time.
        if not 0 <= envelope.seat < self.roster.seats:
            return None
        try:
            verify_envelope(envelope, self.roster.publics[envelope.seat])
            message = ev.deck_from_body(envelope.kind, envelope.seat, envelope.body)
        except GleekError:
            return None
        return deck.precheck(message, self._deal_keys_after(envelope))

    def _deal_keys_after(self, envelope: Envelope) -> tuple[int, ...]:
        """The deal slots this seat gives right after ``envelope`` (the last pass, or
        another seat's deal keys), if it gives the next deal keys; else none."""
        m = self._m
        deck = m.deck
        if self.seat is None or m.state is None or deck is None:
            return ()
        if envelope.kind == ev.KEYS and m.stage is Stage.DEAL_KEYS:
            position = m.deal_keys_done + 1
        elif (envelope.kind in (ev.SHUFFLE, ev.LOCK) and m.stage is Stage.DECK
                and deck.steps_left() == 1):
            position = 0
        else:
            return ()
        if position >= len(self.order) or self.order[position] != self.seat:
            return ()
        layout = deal_layout(m.state.variant, m.state.dealer)
        return tuple(s for s, owner in enumerate(layout) if owner not in (TALON, self.seat))

    def receive(self, envelope: Envelope, encoded: bytes | None = None) -> list[Event]:
        """Check and take one event; returns the engine events it caused.

        Raises ``ProtocolError`` (malformed, out of turn, bad chain) or
        ``Cheating`` (provable misbehaviour) with the table unchanged. A
        duplicate of an event already taken is ignored (returns ``[]``).
        """
        if envelope.seq < len(self.envelopes):
            return self._check_duplicate(envelope)
        self._check_envelope(envelope)
        saved = self._m
        self._m = copy.copy(saved)
        self._m.cut_commits = dict(saved.cut_commits)
        self._m.cut_nonces = dict(saved.cut_nonces)
        self._m.hand_actions = list(saved.hand_actions)
        self._m.talon_keys_from = set(saved.talon_keys_from)
        self._m.public_slots = set(saved.public_slots)
        self._m.hands = list(saved.hands)
        self._m.deck = _fork(saved.deck)
        try:
            self._check_version(envelope)
            self._check_turn(envelope)
            applied = self._take(envelope)
        except Cheating as exc:
            self._m = saved
            raise Cheating(exc.seat, exc.reason,
                           _as_evidence((envelope.encode(),), exc.evidence), code=exc.code) from exc
        except IllegalMove as exc:
            self._m = saved
            raise Cheating(envelope.seat, f"illegal move: {exc}", (envelope.encode(),),
                           code=ViolationCode.RULES_ILLEGAL_MOVE) from exc
        except LocalFault:
            self._m = saved
            raise
        except ProtocolError as exc:
            # The envelope is validly signed by its seat, at the right position:
            # whatever is wrong with it, that seat said it.
            self._m = saved
            raise Cheating(envelope.seat, str(exc), (envelope.encode(),),
                           code=exc.code or ViolationCode.FORM_EVENT) from exc
        if self._hand_complete():
            # The hand's audit belongs to this event: it runs before the event
            # is committed, so whatever it raises leaves the table as it was.
            # (A violation it finds is kept as ``audit_failure``, not raised.)
            try:
                self._finish_hand(envelope.seq)
            except GleekError:
                self._m = saved
                raise
        self._append(envelope, encoded)
        return applied

    def _hand_complete(self) -> bool:
        """Every seed is in (v1, or a dispute), or every unplayed card is open (v2)."""
        m = self._m
        if m.stage is Stage.SEEDS:
            return m.seeds_done == self.roster.seats
        return m.stage is Stage.UNPLAYED and not m.unplayed

    def _append(self, envelope: Envelope, encoded: bytes | None) -> None:
        self.envelopes.append(envelope)
        self.encoded.append(envelope.encode() if encoded is None else encoded)
        self._head = event_hash(envelope)

    def _check_duplicate(self, envelope: Envelope) -> list[Event]:
        known = self.envelopes[envelope.seq]
        if known == envelope:
            return []
        if envelope.session_id != self.session_id:
            raise ProtocolError("that event belongs to another session",
                                code=ViolationCode.CHAIN_OTHER_SESSION)
        equivocation = check_equivocation(known, envelope, self.roster.publics)
        if equivocation is not None and known.kind != ev.ABORT:
            raise Cheating(
                envelope.seat,
                f"signed two different events at position {envelope.seq}",
                (known.encode(), envelope.encode()),
             code=ViolationCode.CHAIN_EQUIVOCATION)
        raise ProtocolError(f"a different event already holds position {envelope.seq}",
                            code=ViolationCode.CHAIN_POSITION_TAKEN)

    def _check_envelope(self, envelope: Envelope) -> None:
        if self.finished:
            raise ProtocolError("the session is over; no event may follow",
                                code=ViolationCode.CHAIN_AFTER_END)
        if self._m.audit_failure is not None and envelope.kind != ev.ABORT:
            raise ProtocolError("a hand audit failed; only an abort may follow",
                                code=ViolationCode.CHAIN_AFTER_AUDIT_FAILURE)
        if envelope.session_id != self.session_id:
            raise ProtocolError("that event belongs to another session",
                                code=ViolationCode.CHAIN_OTHER_SESSION)
        if envelope.seq != len(self.envelopes):
            raise ProtocolError(
                f"event number {envelope.seq} arrived where {len(self.envelopes)} was expected",
                code=ViolationCode.CHAIN_OUT_OF_ORDER,
            )
        if envelope.prev != self.head:
            raise ProtocolError(f"event {envelope.seq} does not chain to the event before it",
                                code=ViolationCode.CHAIN_WRONG_PREV)
        if not 0 <= envelope.seat < self.roster.seats:
            raise ProtocolError(f"event {envelope.seq} names seat {envelope.seat}, which is empty",
                                code=ViolationCode.CHAIN_EMPTY_SEAT)
        verify_envelope(envelope, self.roster.publics[envelope.seat])
        if (not self.envelopes and self._writes is not None
                and envelope.version != self._writes):
            # The roster's version is the log's, chosen by its signer: not a fault
            # of anyone's, but this seat cannot sign a hand that log may hold.
            raise ProtocolError(
                f"the log is of version {envelope.version}, this seat writes version "
                f"{self._writes} (deck protocol version {self._deck_version}): the "
                "programs are of different releases, update the older one",
                code=ViolationCode.LOCAL_MISUSE)

    def _check_version(self, envelope: Envelope) -> None:
        # One program writes a whole log: an event of another version than the
        # roster's was signed so by its seat (both versions decode, so it is
        # no altered record), and a hand of the log may not run its deck version.
        version = self.log_version
        if self.envelopes and envelope.version != version:
            raise ProtocolError(
                f"signed event {envelope.seq} as log version {envelope.version} in a log of "
                f"version {version} (every event carries its roster's)",
                code=ViolationCode.FORM_LOG_VERSION)

    def _check_turn(self, envelope: Envelope) -> None:
        # A kind no table knows is named as such before whose turn it is: the
        # signer broke the format, not merely the order (protocol/violations.md).
        if envelope.kind not in _TAKE:
            raise ProtocolError(f"unknown event kind {envelope.kind!r}",
                                code=ViolationCode.TURN_UNKNOWN_KIND)
        if envelope.kind in ev.OUT_OF_TURN and self.envelopes:
            return
        exp = self.expected()
        if exp is None:
            raise ProtocolError("no event is expected now", code=ViolationCode.CHAIN_AFTER_END)
        if envelope.kind in (ev.HANDOVER, ev.RETAKE) and self.envelopes:
            # The seat to sign next may hand over (or take itself back) before the
            # event it owes. A handover right after a handover or a retake says
            # nothing new and would let a seat grow the log without playing; a
            # retake needs a bot playing the seat, so at most two such events
            # (handover, retake) stand between two others.
            if envelope.seat != exp.seat:
                raise ProtocolError(
                    f"signed a {envelope.kind} as event {envelope.seq} out of turn: only "
                    f"seat {exp.seat}, the one to sign next, may sign one now",
                    code=ViolationCode.TURN_OUT_OF_TURN)
            last = self.envelopes[-1].kind
            if envelope.kind == ev.HANDOVER and last in (ev.HANDOVER, ev.RETAKE):
                raise ProtocolError(f"a handover may not follow a {last}",
                                    code=ViolationCode.TURN_WRONG_KIND)
            if envelope.kind == ev.RETAKE and not self.handed_over(envelope.seat):
                raise ProtocolError(
                    f"signed a retake as event {envelope.seq}, but no bot plays seat "
                    f"{envelope.seat} (it has no handover without a retake after it)",
                    code=ViolationCode.TURN_NOT_HANDED_OVER)
            return
        if envelope.seat != exp.seat:
            raise ProtocolError(
                f"signed event {envelope.seq} out of turn: it is seat "
                f"{exp.seat}'s turn ({exp.what})",
                code=ViolationCode.TURN_OUT_OF_TURN,
            )
        if envelope.kind not in exp.kinds:
            raise ProtocolError(
                f"signed a {envelope.kind!r} as event {envelope.seq}, where {exp.what} "
                "was expected",
                code=ViolationCode.TURN_WRONG_KIND,
            )

    def _take(self, envelope: Envelope) -> list[Event]:
        take = _TAKE.get(envelope.kind)
        if take is None:
            raise ProtocolError(f"unknown event kind {envelope.kind!r}",
                                code=ViolationCode.TURN_UNKNOWN_KIND)
        return take(self, envelope)

    # One function per kind received, found in ``_TAKE``.

    def _take_abort(self, envelope: Envelope) -> list[Event]:
        abort = ev.Abort.from_body(envelope.body)
        if abort.blamed is not None and abort.blamed >= self.roster.seats:
            # protocol/events.json: blamed is -1 (nobody) or a seat of the table.
            raise ProtocolError(f"an abort blames seat {abort.blamed}, which is empty",
                                code=ViolationCode.FORM_ABORT)
        if abort.about is not None and abort.about >= self.roster.seats:
            raise ProtocolError(f"an abort names seat {abort.about}, which is empty",
                                code=ViolationCode.FORM_ABORT)
        left = left_at = None
        if abort.cause == ev.LEFT and abort.evidence:
            leave = self._leave_of(abort.evidence[0], envelope.seq)
            if leave is not None:
                left, left_at = leave.seat, leave.seq
        about, fits = self._abort_fits(abort, envelope, left)
        self._m.verdict = Verdict(envelope.seq, envelope.seat, abort.blamed, abort.reason,
                                  abort.evidence, abort.cause, left, left_at, about, fits)
        self._m.stage = Stage.ABORTED
        return []

    def _abort_fits(self, abort: ev.Abort, envelope: Envelope,
                    left: int | None) -> tuple[int | None, bool]:
        """The seat an abort's known code speaks of, and whether the code fits this log
        (``Verdict.about``, ``Verdict.fits``); read before the abort is taken."""
        cause = abort.cause
        if cause == ev.LOCAL_FAILURE:
            return envelope.seat, True
        if cause == ev.LEFT:
            return left, left is not None
        if cause == ev.TIMEOUT:
            exp = self.expected()
            return abort.blamed, exp is not None and exp.seat == abort.blamed
        if cause == ev.LEAVE_UNLOGGED:
            return abort.about, abort.about != envelope.seat
        if cause in (ev.FORKED, ev.PEER_FAILED):
            other = self._abort_of(abort.evidence[0], envelope) if abort.evidence else None
            if other is None:
                return None, False
            seat, other_cause = other
            return seat, cause == ev.FORKED or other_cause == ev.LOCAL_FAILURE
        if cause in ev.VIOLATION_CODES:
            return abort.blamed, True
        return None, False

    def _abort_of(self, item: bytes, envelope: Envelope) -> tuple[int, str | None] | None:
        """``item`` as another seat's abort of this session, validly signed at a position
        up to ``envelope``'s: its signer and cause; else None."""
        try:
            other = decode_envelope(item)
            if (other.kind != ev.ABORT or other.session_id != self.session_id
                    or not 0 < other.seq <= envelope.seq or other.seat == envelope.seat
                    or not 0 <= other.seat < self.roster.seats):
                return None
            cause = ev.Abort.from_body(other.body).cause
            verify_envelope(other, self.roster.publics[other.seat])
        except ProtocolError:
            return None
        return other.seat, cause

    def _take_leave(self, envelope: Envelope) -> list[Event]:
        ev.leave_body(envelope.body)
        self._m.verdict = Verdict(envelope.seq, envelope.seat, None, "", (), ev.LEFT,
                                  envelope.seat, envelope.seq, envelope.seat)
        self._m.stage = Stage.ABORTED
        return []

    def _take_handover(self, envelope: Envelope) -> list[Event]:
        bot = ev.handover_body(envelope.body)
        self._m.seat_changes = (*self._m.seat_changes,
                                Handover(envelope.seq, envelope.seat, bot))
        return []

    def _take_retake(self, envelope: Envelope) -> list[Event]:
        ev.retake_body(envelope.body)
        self._m.seat_changes = (*self._m.seat_changes, Retake(envelope.seq, envelope.seat))
        return []

    def _leave_of(self, item: bytes, upto: int) -> Envelope | None:
        """``item`` as a leave a seat of this session signed at a position up to ``upto``."""
        try:
            leave = decode_envelope(item)
            if (leave.kind != ev.LEAVE or leave.session_id != self.session_id
                    or not 0 < leave.seq <= upto or not 0 <= leave.seat < self.roster.seats):
                return None
            ev.leave_body(leave.body)
            verify_envelope(leave, self.roster.publics[leave.seat])
        except ProtocolError:
            return None
        return leave

    def _take_roster(self, envelope: Envelope) -> list[Event]:
        if Roster.from_body(envelope.body) != self.roster:
            raise ProtocolError("the roster event is not the roster this table was made for",
                                code=ViolationCode.FORM_ROSTER)
        self._m.stage = Stage.CUT_COMMIT
        return []

    def _take_cut_commit(self, envelope: Envelope) -> list[Event]:
        m = self._m
        m.cut_commits[envelope.seat] = ev.digest_body(envelope.body, "cut commitment")
        if len(m.cut_commits) == self.roster.seats:
            m.stage = Stage.CUT_REVEAL
        return []

    def _take_cut_reveal(self, envelope: Envelope) -> list[Event]:
        m, seat = self._m, envelope.seat
        nonce = ev.digest_body(envelope.body, "cut")
        if cut_commitment(self.session_id, seat, nonce) != m.cut_commits[seat]:
            raise Cheating(seat, "revealed a cut that does not match its commitment",
                           (envelope.encode(),), code=ViolationCode.DECK_CUT_MISMATCH)
        m.cut_nonces[seat] = nonce
        if len(m.cut_nonces) < self.roster.seats:
            return []
        return self._after_cut()

    def _take_deck_step(self, envelope: Envelope) -> list[Event]:
        m = self._m
        assert m.deck is not None
        message = ev.deck_from_body(envelope.kind, envelope.seat, envelope.body)
        if isinstance(message, Commit):
            # The log's version fixes its hands' deck versions: a commit of another
            # is a provable downgrade, whichever commit of the hand it is.
            log_version = self.log_version
            assert log_version is not None
            allowed = DECK_VERSIONS_OF_LOG[log_version]
            if message.version not in allowed:
                held = (f"{min(allowed)} to {max(allowed)}" if len(allowed) > 1
                        else f"{min(allowed)} only")
                raise ProtocolError(
                    f"committed to deck protocol version {message.version} in a log of "
                    f"version {log_version}, whose hands run deck version {held}",
                    code=ViolationCode.DECK_WRONG_VERSION)
        m.deck.receive(message)
        if m.deck.expected() is None:
            m.stage = Stage.DEAL_KEYS
        return []

    def _take_seed(self, envelope: Envelope) -> list[Event]:
        m = self._m
        assert m.deck is not None
        m.deck.receive(ev.deck_from_body(envelope.kind, envelope.seat, envelope.body))
        m.seeds_done += 1
        return []

    def _after_cut(self) -> list[Event]:
        m = self._m
        nonces = [m.cut_nonces[s] for s in range(self.roster.seats)]
        cut = Cut(cut_cards(self.session_id, nonces, pack(self.roster.variant)))
        m.state = apply(new_session(self.roster.variant, self.roster.hands), cut)
        return [cut, *self._start_hand()]

    def _start_hand(self) -> list[Event]:
        m = self._m
        assert m.state is not None
        m.hand += 1
        m.hand_start = m.state
        m.state = apply(m.state, Deal())
        m.hand_first_seq = len(self.envelopes) + 1
        m.hand_actions = []
        m.deal_keys_done = 0
        m.talon_keys_from = set()
        m.public_slots = set()
        m.seeds_done = 0
        hand_id = hashlib.sha256(
            b"gleek-p2p/hand/v1\x00" + self.session_id + m.hand.to_bytes(4, "big")
        ).digest()
        seed = None
        if self.seat is not None:
            assert self._secret is not None
            seed = hand_seed(self._secret, self.session_id, m.hand)
        m.deck = DeckProtocol(
            self.seat, self.roster.seats, pack(self.roster.variant), hand_id, self.order, seed,
            self._deck_version,
        )
        m.stage = Stage.DECK
        return [Deal()]

    def _take_keys(self, seat: int, body: list[Any]) -> list[Event]:
        m = self._m
        assert m.deck is not None and m.state is not None
        message = ev.deck_from_body(ev.KEYS, seat, body)
        assert isinstance(message, Keys)
        wanted = self._keys_to_give()
        if tuple(slot for slot, _ in message.keys) != wanted:
            raise ProtocolError(f"seat {seat} published keys for the wrong slots",
                                code=ViolationCode.DECK_KEYS_SLOTS)
        self._receive_keys(message)
        if m.stage is Stage.UNPLAYED:
            m.unplayed = m.unplayed[1:]
            return []
        if m.stage is Stage.DEAL_KEYS:
            m.deal_keys_done += 1
            if m.deal_keys_done < self.roster.seats:
                return []
            m.stage = Stage.PLAY
            return self._reveal_own(lambda owner: owner == self.seat)
        m.talon_keys_from.add(seat)
        if self._talon_giver() is None and talon_taker(m.state) == self.seat:
            return self._reveal_own(lambda owner: owner == TALON)
        return []

    def _receive_keys(self, keys: Keys) -> bool:
        """Feed keys to the deck; True if this seat must now dispute the deal.

        A slot of ours that does not open is not proof against anyone yet:
        the deck keeps the keys as evidence and this seat signs a dispute,
        after which the seeds are revealed and the audit names the culprit.
        """
        m = self._m
        assert m.deck is not None
        try:
            m.deck.receive(keys)
        except DealDispute as exc:
            if m.deck.version != 1:
                # Proved passes and checked keys always open (SPEC 2.9): only this
                # seat's own keys (v2, v3) or seed (v4: its shuffle key) can be wrong
                # (a bug, a corrupted store).
                own = "seed" if m.deck.version == 4 else "keys"
                raise LocalFault(f"slot {exc.slot} of this seat does not open in a proved "
                                 f"hand ({exc.reason}): this peer's own {own} "
                                 f"{'is' if own == 'seed' else 'are'} wrong") from exc
            if m.dispute_slot is None:
                m.dispute_slot = exc.slot
            return True
        return m.dispute_slot is not None

    def _take_dispute(self, seat: int, body: list[Any]) -> list[Event]:
        m = self._m
        if (m.deck is not None and m.deck.version is not None and m.deck.version >= 2
                and m.stage in (Stage.DEAL_KEYS, Stage.PLAY, Stage.UNPLAYED)):
            # Every pass is proved and every key checked (against its commitment,
            # or, in v4, by its strip proof), so every slot opens to a distinct
            # card of the pack: no honest seat
            # can need a dispute. Taking one would make every seat reveal its
            # seed, and whoever reveals last would read every card first.
            raise ProtocolError(
                f"disputed the deal of a hand whose every pass and key is proved (deck "
                f"version {m.deck.version}); no seed is revealed for it",
                code=ViolationCode.TURN_DISPUTE_PROVEN_HAND)
        # Only a published key can fail to open a slot, and keys come after every
        # seat has committed, shuffled and locked: a dispute before that (or after
        # the play, or a second one) disputes nothing.
        if m.deck is None or m.disputed_by is not None or m.stage not in (
                Stage.DEAL_KEYS, Stage.PLAY):
            raise ProtocolError("a dispute is only possible once the deal keys are being "
                                "published and until the hand is played out",
                                code=ViolationCode.TURN_DISPUTE_MISPLACED)
        if len(body) != 1 or not isinstance(body[0], int):
            raise ProtocolError("a dispute names one slot", code=ViolationCode.FORM_DISPUTE)
        m.disputed_by = seat
        m.stage = Stage.SEEDS
        m.seeds_done = 0
        return []

    def _reveal_own(self, mine: Any) -> list[Event]:
        """Reveal to the local engine every slot the local seat can now open."""
        m = self._m
        assert m.deck is not None and m.state is not None
        if self.seat is None:
            return []
        out: list[Event] = []
        if m.dispute_slot is not None:
            return []
        for slot, owner in enumerate(deal_layout(m.state.variant, m.state.dealer)):
            if mine(owner) and card_of(m.state, slot) is None:
                card = m.deck.card_at(slot)
                if card is None:
                    raise DealDispute(slot, "the keys published for it do not open it")
                reveal = Reveal(slot, card)
                m.state = apply(m.state, reveal)
                out.append(reveal)
        return out

    def _take_act(self, seq: int, seat: int, body: list[Any]) -> list[Event]:
        m = self._m
        assert m.deck is not None and m.state is not None
        act = ev.Act.from_body(seat, body)
        needed = tuple(s for s in shown_slots_of(act.action) if s not in m.public_slots)
        given = () if act.keys is None else tuple(slot for slot, _ in act.keys.keys)
        if given != needed:
            raise ProtocolError(
                f"seat {seat}'s move shows slots {list(needed)} but gives keys for {list(given)}",
                code=ViolationCode.DECK_ACT_KEYS,
            )
        out: list[Event] = []
        if act.keys is not None:
            if self._receive_keys(act.keys):
                # A show that clashes with a card only we have seen: the move
                # cannot be judged, so dispute at once, out of turn.
                m.dispute_now = True
                return []
            for slot in needed:
                card = m.deck.card_at(slot)
                if card is None:
                    raise Cheating(seat, f"showed slot {slot} but it does not open",
                                   code=ViolationCode.DECK_SHOW_DOES_NOT_OPEN)
                m.public_slots.add(slot)
                known = card_of(m.state, slot)
                if known is None:
                    reveal = Reveal(slot, card)
                    m.state = apply(m.state, reveal)
                    out.append(reveal)
                elif known != card:
                    raise Cheating(seat, f"showed slot {slot} as a card it does not hold",
                                   code=ViolationCode.DECK_SHOW_WRONG_CARD)
        m.state = apply(m.state, act.action)
        m.hand_actions.append((seq, act.action))
        out.append(act.action)
        if m.state.phase in (Phase.HAND_OVER, Phase.SESSION_OVER):
            self._end_of_hand()
        return out

    def _end_of_hand(self) -> None:
        """Version 1: every seed is revealed. Version 2: only the cards held and never played.

        With every pass and key proved, the seeds would show nothing more
        about the deal, only the discards and the unused talon, which the
        rules keep secret. The full replay needs every card a seat held, so
        a seat still holding unplayed cards (the talon taker's 13th) opens
        them, and nothing else is opened (SPEC.md 2.9).
        """
        m = self._m
        assert m.deck is not None and m.state is not None
        if m.deck.version == 1:
            m.stage = Stage.SEEDS
            return
        m.unplayed = tuple(
            (seat, tuple(x for x in m.state.holding[seat] if x not in m.public_slots))
            for seat in self.order
            if any(x not in m.public_slots for x in m.state.holding[seat])
        )
        m.stage = Stage.UNPLAYED

    def _finish_hand(self, last_seq: int) -> None:
        """The hand is complete (its last event at ``last_seq``, not yet committed):
        replay it with every card held, then deal the next.

        Deck v1 (or a dispute): the seeds are in and the audit gives every
        card. Deck v2: the cards played, shown and left unplayed are public.
        """
        m = self._m
        assert m.deck is not None and m.state is not None and m.hand_start is not None
        try:
            # Deck v2: every pass and key was proved as it came; what is public
            # now (every card played or shown, and the unplayed ones just
            # opened) is all a rule check needs.
            cards = m.deck.public_cards() if m.stage is Stage.UNPLAYED else m.deck.audit()
            if m.disputed_by is not None:
                raise Cheating(m.disputed_by, "disputed a deal that the seeds show was sound",
                               code=ViolationCode.AUDIT_FALSE_DISPUTE)
            self._replay_full(cards)
        except Cheating as exc:
            m.audit_failure = Cheating(exc.seat, exc.reason, _as_evidence((), exc.evidence),
                                       code=exc.code)
            return
        m.hands.append(HandRecord(m.hand, m.state, dict(cards), m.hand_first_seq, last_seq,
                                  m.deck.version or 1))
        if m.state.phase is Phase.SESSION_OVER:
            m.stage = Stage.OVER
        else:
            self._start_hand()

    def _replay_full(self, cards: dict[int, int]) -> None:
        """Replay the hand's moves knowing every card: catches what no seat could see live."""
        m = self._m
        assert m.hand_start is not None and m.state is not None
        state = apply(m.hand_start, Deal())
        for slot in sorted(cards):
            state = apply(state, Reveal(slot, cards[slot]))
        for seq, action in m.hand_actions:
            try:
                state = apply(state, action)
            except IllegalMove as exc:
                seat = getattr(action, "seat", exc.seat)
                raise Cheating(
                    seat if seat is not None else -1,
                    f"{exc} (found by the audit of hand {m.hand + 1})",
                    (self.encoded[seq],),
                 code=ViolationCode.AUDIT_ILLEGAL_MOVE) from exc
        if state.ledgers != m.state.ledgers:
            raise ProtocolError("the audited hand scores differently from the live hand",
                                code=ViolationCode.AUDIT_SCORES_DIFFER)


# The stage machine, as tables (like the engine's handler table): who is
# expected in each stage, what this seat signs for each kind on its own, and
# how each kind received changes the table. A stage or kind not listed has
# nothing expected, nothing to sign, or is unknown.
_EXPECT: dict[Stage, Callable[[Table], Expectation]] = {
    Stage.ROSTER: Table._expect_roster,
    Stage.CUT_COMMIT: Table._expect_cut_commit,
    Stage.CUT_REVEAL: Table._expect_cut_reveal,
    Stage.DECK: Table._expect_deck,
    Stage.DEAL_KEYS: Table._expect_deal_keys,
    Stage.PLAY: Table._expect_play,
    Stage.UNPLAYED: Table._expect_unplayed,
    Stage.SEEDS: Table._expect_seeds,
}

_DECK_STEP_KIND = {"commit": ev.COMMIT, "shuffle": ev.SHUFFLE, "lock": ev.LOCK}

_MAKE: dict[str, Callable[[Table, str], Envelope]] = {
    ev.ROSTER: Table._make_roster,
    ev.CUT_COMMIT: Table._make_cut_commit,
    ev.CUT_REVEAL: Table._make_cut_reveal,
    ev.COMMIT: Table._make_deck_step,
    ev.SHUFFLE: Table._make_deck_step,
    ev.LOCK: Table._make_deck_step,
    ev.KEYS: Table._make_keys,
    ev.SEED: Table._make_seed,
}

_TAKE: dict[str, Callable[[Table, Envelope], list[Event]]] = {
    ev.ABORT: Table._take_abort,
    ev.LEAVE: Table._take_leave,
    ev.HANDOVER: Table._take_handover,
    ev.RETAKE: Table._take_retake,
    # Called by name, so a subclass's own version (a test's lying table) is the one used.
    ev.DISPUTE: lambda table, e: table._take_dispute(e.seat, e.body),
    ev.ROSTER: Table._take_roster,
    ev.CUT_COMMIT: Table._take_cut_commit,
    ev.CUT_REVEAL: Table._take_cut_reveal,
    ev.COMMIT: Table._take_deck_step,
    ev.SHUFFLE: Table._take_deck_step,
    ev.LOCK: Table._take_deck_step,
    ev.KEYS: lambda table, e: table._take_keys(e.seat, e.body),
    ev.ACT: lambda table, e: table._take_act(e.seq, e.seat, e.body),
    ev.SEED: Table._take_seed,
}
