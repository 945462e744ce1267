"""Stable codes for every violation a table or ``gleek verify`` can report.

A violation's ``reason`` is a sentence for people and may change wording; its
code never changes and is what programs (a second implementation, a script
reading ``gleek verify --json``) match on. ``protocol/violations.md`` is the
documented list; a test keeps it and this enum identical. A new reason gets a
new code; a code is never reused.
"""

from __future__ import annotations

from enum import Enum


class ViolationCode(Enum):
    """``area.name``: what was wrong, independent of the words used to say it."""

    # log: the file and its records (gleek verify only)
    LOG_NOT_A_LOG = "log.not-a-log"
    LOG_EMPTY = "log.empty"
    LOG_NO_ROSTER = "log.no-roster"
    LOG_UNREADABLE_EVENT = "log.unreadable-event"
    LOG_MISPLACED_RECORD = "log.misplaced-record"
    LOG_INCOMPLETE = "log.incomplete"
    LOG_NEWER_VERSION = "log.newer-version"
    # chain: the envelope's place in the session
    CHAIN_OTHER_SESSION = "chain.other-session"
    CHAIN_OUT_OF_ORDER = "chain.out-of-order"
    CHAIN_WRONG_PREV = "chain.wrong-prev"
    CHAIN_EMPTY_SEAT = "chain.empty-seat"
    CHAIN_BAD_SIGNATURE = "chain.bad-signature"
    CHAIN_POSITION_TAKEN = "chain.position-taken"
    CHAIN_EQUIVOCATION = "chain.equivocation"
    CHAIN_AFTER_END = "chain.after-end"
    CHAIN_AFTER_AUDIT_FAILURE = "chain.after-audit-failure"
    CHAIN_SIGNED_AFTER_OWN_END = "chain.signed-after-own-end"
    # turn: who may sign what now
    TURN_OUT_OF_TURN = "turn.out-of-turn"
    TURN_WRONG_KIND = "turn.wrong-kind"
    TURN_UNKNOWN_KIND = "turn.unknown-kind"
    TURN_DISPUTE_MISPLACED = "turn.dispute-misplaced"
    TURN_DISPUTE_PROVEN_HAND = "turn.dispute-proven-hand"
    TURN_NOT_HANDED_OVER = "turn.not-handed-over"
    # form: a body that does not fit its kind
    FORM_ROSTER = "form.roster"
    FORM_EVENT = "form.event"
    FORM_ACT = "form.act"
    FORM_DECK_MESSAGE = "form.deck-message"
    FORM_ABORT = "form.abort"
    FORM_DISPUTE = "form.dispute"
    FORM_LOG_VERSION = "form.log-version"
    # deck: the mental-poker steps, checked live
    DECK_CUT_MISMATCH = "deck.cut-mismatch"
    DECK_OUT_OF_TURN = "deck.out-of-turn"
    DECK_BAD_COMMITMENT = "deck.bad-commitment"
    DECK_WRONG_VERSION = "deck.wrong-version"
    DECK_BAD_PASS = "deck.bad-pass"
    DECK_BAD_PROOF = "deck.bad-proof"
    DECK_UNREDUCED_SCALAR = "deck.unreduced-scalar"
    DECK_KEYS_EARLY = "deck.keys-early"
    DECK_KEYS_SLOTS = "deck.keys-slots"
    DECK_BAD_KEY = "deck.bad-key"
    DECK_KEY_COMMITMENT = "deck.key-commitment"
    DECK_KEY_OPENS_WRONG = "deck.key-opens-wrong"
    DECK_ACT_KEYS = "deck.act-keys"
    DECK_SHOW_DOES_NOT_OPEN = "deck.show-does-not-open"
    DECK_SHOW_WRONG_CARD = "deck.show-wrong-card"
    DECK_SEED_MISMATCH = "deck.seed-mismatch"
    DECK_DISPUTE = "deck.dispute"
    # rules: a move the rules forbid, seen live
    RULES_ILLEGAL_MOVE = "rules.illegal-move"
    # audit: found when the hand is complete
    AUDIT_PASS_DIFFERS = "audit.pass-differs"
    AUDIT_KEY_DIFFERS = "audit.key-differs"
    AUDIT_ILLEGAL_MOVE = "audit.illegal-move"
    AUDIT_FALSE_DISPUTE = "audit.false-dispute"
    AUDIT_SCORES_DIFFER = "audit.scores-differ"
    AUDIT_CARDS_DIFFER = "audit.cards-differ"
    # abort: a session ended by a seat
    ABORT_PROVEN = "abort.proven"
    ABORT_CLAIM = "abort.claim"
    # local: a call this copy made wrongly (never about another seat's events)
    LOCAL_MISUSE = "local.misuse"
