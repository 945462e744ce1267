"""What a proven violation broke, in the reader's words, from its ``ViolationCode``.

Every screen that tells a player of a violation (the end box, an abort's reason,
a rejected message, ``gleek verify``) says what the seat did from the stable
code, never from the table layer's English reason; the code may follow as a
detail (``protocol/violations.md`` lists them).
"""

from __future__ import annotations

from gleek_p2p.base.errors import ViolationCode
from gleek_p2p.base.i18n import N_, _

__all__ = ["VIOLATION_WORDS", "broke_the_protocol", "violation_words"]

C = ViolationCode

VIOLATION_WORDS: dict[ViolationCode, str] = {
    # A phrase set after "seat 1 (Ben) - " when a seat is blamed, alone when nobody is.
    C.LOG_NOT_A_LOG: N_("the file is not a session log"),
    C.LOG_EMPTY: N_("the log holds no event"),
    C.LOG_NO_ROSTER: N_("the log does not open with a table's roster"),
    C.LOG_UNREADABLE_EVENT: N_("an event cannot be read: the log was damaged or altered"),
    C.LOG_MISPLACED_RECORD: N_("an event stands at the wrong place: the log was reordered, "
                               "cut or padded"),
    C.LOG_INCOMPLETE: N_("the log stops before the end of the session"),
    C.LOG_NEWER_VERSION: N_("the log was written by a newer version of the program"),
    C.CHAIN_OTHER_SESSION: N_("an event of another session stands in this log"),
    C.CHAIN_OUT_OF_ORDER: N_("an event stands out of order"),
    C.CHAIN_WRONG_PREV: N_("an event does not chain to the one before it"),
    C.CHAIN_EMPTY_SEAT: N_("an event names an empty seat"),
    C.CHAIN_BAD_SIGNATURE: N_("an event's signature is not valid: the log was altered"),
    C.CHAIN_POSITION_TAKEN: N_("two different events stand at one place of the log"),
    C.CHAIN_EQUIVOCATION: N_("signed two different events for one place of the log"),
    C.CHAIN_AFTER_END: N_("an event follows the end of the session"),
    C.CHAIN_AFTER_AUDIT_FAILURE: N_("an event other than an abort follows a failed hand "
                                    "audit"),
    C.CHAIN_SIGNED_AFTER_OWN_END: N_("went on signing after ending the session in another "
                                     "copy of the log"),
    C.TURN_OUT_OF_TURN: N_("signed an event out of turn"),
    C.TURN_WRONG_KIND: N_("signed an event of another kind than the one due"),
    C.TURN_UNKNOWN_KIND: N_("signed an event of an unknown kind"),
    C.TURN_DISPUTE_MISPLACED: N_("disputed the deal when no dispute is possible"),
    C.TURN_DISPUTE_PROVEN_HAND: N_("disputed the deal of a hand whose every step is proved"),
    C.TURN_NOT_HANDED_OVER: N_("took back a seat that no bot was playing"),
    C.FORM_ROSTER: N_("signed a malformed roster"),
    C.FORM_EVENT: N_("signed a malformed event"),
    C.FORM_ACT: N_("signed a malformed move"),
    C.FORM_DECK_MESSAGE: N_("signed a malformed step of the shuffle"),
    C.FORM_ABORT: N_("signed a malformed abort"),
    C.FORM_DISPUTE: N_("signed a malformed dispute"),
    C.FORM_LOG_VERSION: N_("signed an event of another log version than its log's"),
    C.DECK_CUT_MISMATCH: N_("revealed a cut that does not match its commitment"),
    C.DECK_OUT_OF_TURN: N_("sent a step of the shuffle out of turn"),
    C.DECK_BAD_COMMITMENT: N_("sent a malformed commitment to the shuffle"),
    C.DECK_WRONG_VERSION: N_("used another version of the deck protocol than the hand's"),
    C.DECK_BAD_PASS: N_("sent an invalid pass of the shuffle"),
    C.DECK_BAD_PROOF: N_("sent a pass of the shuffle whose proof fails"),
    C.DECK_UNREDUCED_SCALAR: N_("sent a proof holding a number out of range"),
    C.DECK_KEYS_EARLY: N_("published keys before the deck was locked"),
    C.DECK_KEYS_SLOTS: N_("published keys for the wrong cards"),
    C.DECK_BAD_KEY: N_("published an invalid key"),
    C.DECK_KEY_COMMITMENT: N_("published a key that does not match its locking pass"),
    C.DECK_KEY_OPENS_WRONG: N_("published a key that opens a card wrongly"),
    C.DECK_ACT_KEYS: N_("gave keys that do not fit its move"),
    C.DECK_SHOW_DOES_NOT_OPEN: N_("showed a card that does not open"),
    C.DECK_SHOW_WRONG_CARD: N_("showed a card it does not hold"),
    C.DECK_SEED_MISMATCH: N_("revealed a seed that does not match its commitment"),
    C.DECK_DISPUTE: N_("a card of the deal does not open to a valid card"),
    C.RULES_ILLEGAL_MOVE: N_("made a move the rules forbid"),
    C.AUDIT_PASS_DIFFERS: N_("shuffled or locked the deck otherwise than its seed says, "
                             "as the hand's audit found"),
    C.AUDIT_KEY_DIFFERS: N_("published a key that differs from its seed's, as the "
                            "hand's audit found"),
    C.AUDIT_ILLEGAL_MOVE: N_("made a move the rules forbid, as the hand's audit found"),
    C.AUDIT_FALSE_DISPUTE: N_("disputed a deal that the seeds show was sound"),
    C.AUDIT_SCORES_DIFFER: N_("the audited hand scores otherwise than the hand as played"),
    C.AUDIT_CARDS_DIFFER: N_("a card of the audited hand differs from the one opened during "
                             "the hand"),
    C.ABORT_PROVEN: N_("broke the protocol, as the evidence of an abort proves"),
    C.ABORT_CLAIM: N_("is accused by an abort that the log cannot prove"),
    C.LOCAL_MISUSE: N_("this copy of the program misused its table; nobody else is to "
                       "blame"),
}
"""Every code's verdict phrase, its subject the seat to blame (third person, whatever
the language) (``tests/test_verdict_words.py`` checks that none is
missing and reads each in every language)."""


def violation_words(code: ViolationCode | None) -> str:
    """What a proven violation broke, in the chosen language, from its code."""
    if code is None:
        return _("a violation without a code")
    return _(VIOLATION_WORDS[code])


def broke_the_protocol(name: str, code: ViolationCode) -> str:
    """'Ben broke the protocol - signed an event out of turn (violation turn.out-of-turn)',
    in the chosen language: what the seat called ``name`` did, then its code."""
    return _("{name} broke the protocol - {what} (violation {code})").format(
        name=name, what=violation_words(code), code=code.value)
