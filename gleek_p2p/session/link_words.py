"""The network's news in the person's words: links that went down, peers refused.

``net/`` says what happened with codes (``LinkDown``, ``ByeCode``) and the
peers' ``Hello``; this module turns them into sentences in the chosen
language, from the point of view of the person reading ("you asked for").
Nothing here decides anything: behaviour hangs on the codes, never on these
words.
"""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.base.i18n import N_, _, ngettext
from gleek_p2p.net.connection import Connection, LinkDown, Refused
from gleek_p2p.net.failures import Failure, LinkError
from gleek_p2p.net.handshake import Offer, RefuseWhy
from gleek_p2p.net.messages import ByeCode, Hello, RefuseCode
from gleek_p2p.rules import Variant, variant_name

__all__ = [
    "dial_failure",
    "failure_words",
    "hands_of",
    "handshake_failure",
    "link_down",
    "mismatch",
    "refusal_words",
    "table_name",
    "table_words",
]

FAILURE_WORDS = {
    Failure.REFUSED: N_("nothing listens at that address"),
    Failure.RESET: N_("the other end dropped the connection"),
    Failure.UNREACHABLE: N_("no route to that host"),
    Failure.TIMED_OUT: N_("nothing answered in time"),
    Failure.BAD_ADDRESS: N_("that address cannot be used from here"),
    Failure.BAD_FRAME: N_("bytes that break the framing"),
    Failure.UNSEALED: N_("a frame that does not open with the link's keys"),
    Failure.MALFORMED: N_("a message that does not decode"),
    Failure.OUT_OF_PLACE: N_("a handshake message after the handshake"),
    Failure.NO_HELLO: N_("no Hello in time"),
    Failure.CUT_IN_HANDSHAKE: N_("the connection closed during the handshake"),
    Failure.SLOW_HANDSHAKE: N_("the handshake took too long"),
}
"""A failure in a few words, for the parentheses of a sentence (OS_ERROR has its number)."""

REFUSAL_WORDS = {
    RefuseWhy.NOT_HELLO: N_("it did not start with a Hello"),
    RefuseWhy.VERSION: N_("it speaks another protocol version"),
    RefuseWhy.TABLE: N_("it is at another table"),
    RefuseWhy.VARIANT: N_("it plays another variant"),
    RefuseWhy.SEATS: N_("it wants another number of seats"),
    RefuseWhy.UNSAFE_KEY: N_("its public key is unsafe"),
    RefuseWhy.OURSELVES: N_("it is this program itself (the same key)"),
    RefuseWhy.BAD_KEY_AGREEMENT: N_("its key agreement cannot be used"),
    RefuseWhy.NOT_PROOF: N_("it sent something else than its proof of identity"),
    RefuseWhy.BAD_PROOF: N_("its proof of identity does not verify"),
    RefuseWhy.TABLE_FULL: N_("the table is full"),
    RefuseWhy.NO_WATCHERS: N_("this table takes no watchers"),
    # The lobby's or the watchers' own refusals (full for now, kept out, too many
    # watchers): all say "not now".
    RefuseWhy.NOT_ADMITTED: N_("this table does not take it now; it may try again later"),
}
"""Why this program refused a peer, in a few words: the Refuse's sentence is English, for the
peer and the logs."""


def table_name(table: str) -> str:
    """The table name the person typed (``--table``), without the ``/hands`` the shell adds."""
    name, sep, hands = table.rpartition("/")
    return name if sep and hands.isdigit() else table


def hands_of(table: str) -> int | None:
    """The number of hands a table plays (the shell names tables ``NAME/HANDS``)."""
    _name, sep, hands = table.rpartition("/")
    return int(hands) if sep and hands.isdigit() else None


def table_words(table: str) -> str:
    """The table as a person named it, with its hands in words: 'oak' (12 hands)."""
    hands = hands_of(table)
    name = repr(table_name(table))
    if hands is None:
        return name
    return ngettext("{table} ({n} hand)", "{table} ({n} hands)", hands).format(
        table=name, n=hands)


def failure_words(failure: Failure | None, os_errno: int | None = None) -> str:
    """A transport failure in the chosen language: never the system's English words."""
    if failure is None:
        return _("an unknown error")
    if failure is Failure.OS_ERROR:
        return _("system error {number}").format(number=os_errno if os_errno else "?")
    return _(FAILURE_WORDS[failure])


def refusal_words(why: RefuseWhy | None) -> str:
    """Why this program refused a peer, in the chosen language (from ``Refused.why``)."""
    if why is None:
        return _("an unknown reason")
    return _(REFUSAL_WORDS[why])


def handshake_failure(exc: ProtocolError | None) -> str:
    """Why a peer's handshake with our listener failed, in the chosen language.

    None: it was pushed out for want of a handshake slot (too many at once).
    """
    if exc is None:
        return _("too many connections were handshaking at once")
    if isinstance(exc, LinkError):
        return failure_words(exc.failure, exc.os_errno)
    if isinstance(exc, Refused) and not exc.by_peer:
        return refusal_words(exc.why)
    return _("the handshake failed")


def dial_failure(exc: ProtocolError) -> str:
    """Why dialling a peer did not give a link, in the chosen language.

    A refusal whose cause the offers show is worded by ``mismatch``; this says
    the rest: the transport's failure, or that a refusal came, with the
    refusing peer's own words quoted (this program cannot translate them).
    """
    if isinstance(exc, LinkError):
        return _("the connection failed ({detail})").format(
            detail=failure_words(exc.failure, exc.os_errno))
    if isinstance(exc, Refused):
        if exc.by_peer and exc.refusal.meaning is RefuseCode.NOT_NOW:
            return _("the peer does not take this connection now; it may later")
        if exc.by_peer and exc.refusal.meaning is RefuseCode.TABLE_FULL:
            return _("the peer refused the connection: its table is full")
        if exc.by_peer:
            return _("the peer refused the connection (“{reason}”)").format(
                reason=exc.refusal.reason)
        return _("this program refused the peer: {reason}").format(
            reason=refusal_words(exc.why))
    return _("the handshake failed")


def link_down(name: str, conn: Connection) -> str:
    """Why the link to ``name`` went down, in a sentence; a finished session is no failure."""
    why, detail = conn.close_why, conn.close_detail
    farewell = conn.farewell
    if why is LinkDown.PEER_BYE and farewell is not None:
        meaning = farewell.meaning
        if meaning is ByeCode.SESSION_OVER:
            return _("{name} closed the table after the last hand.").format(name=name)
        if meaning is ByeCode.LEFT_THE_TABLE:
            return _("{name} left the table.").format(name=name)
        if meaning is ByeCode.STARTING_OVER:
            return _("{name} is starting the table over.").format(name=name)
        if meaning is ByeCode.TABLE_FULL:
            return _("{name} closed the link: its table is full, with no seat for you.").format(
                name=name)
        if meaning is ByeCode.CLOSING:
            return _("{name} closed the link.").format(name=name)
        if meaning is ByeCode.SILENT:
            return _("{name} closed the link: it heard nothing from this program for too long."
                     ).format(name=name)
        if meaning is ByeCode.NOT_READING:
            return _("{name} closed the link: this program did not take what {name} sent in "
                     "time.").format(name=name)
        if meaning is ByeCode.MALFORMED:
            return _("{name} closed the link: it could not read what this program sent."
                     ).format(name=name)
        if meaning is ByeCode.DUPLICATE:
            return _("{name} closed a second link between you; the other one stays.").format(
                name=name)
        if farewell.reason:
            # The peer's own words, which this program cannot translate: quoted.
            return _("{name} closed the link, saying: “{reason}”.").format(
                name=name, reason=farewell.reason)
        return _("{name} closed the link.").format(name=name)
    if why is LinkDown.PEER_CLOSED:
        return _("The link to {name} is down: the connection closed without a goodbye "
                 "(a crash or a network cut?).").format(name=name)
    refusal = conn.refusal
    if why is LinkDown.PEER_REFUSED and refusal is not None:
        if refusal.meaning is RefuseCode.TABLE_FULL:
            return _("The link to {name} is down: {name} refused it, its table is full."
                     ).format(name=name)
        if refusal.meaning is RefuseCode.NO_WATCHERS:
            return _("The link to {name} is down: {name}'s table takes no watchers."
                     ).format(name=name)
    if why is LinkDown.PEER_REFUSED:
        return _("The link to {name} is down: {name} refused it (“{reason}”).").format(
            name=name, reason=detail)
    if why is LinkDown.SILENT:
        return _("The link to {name} is down: nothing heard for {seconds} s.").format(
            name=name, seconds=detail)
    if why is LinkDown.STALLED:
        return _("The link to {name} is down: {name} took nothing we sent for {seconds} s."
                 ).format(name=name, seconds=detail)
    if why is LinkDown.OVERFLOW:
        return _("The link to {name} is down: {name} did not keep up with what we sent."
                 ).format(name=name)
    # The English detail of these two is for the logs (``close_reason``): the
    # screen words the failure's code.
    failure = failure_words(conn.close_failure, conn.close_errno)
    if why is LinkDown.BROKE_PROTOCOL:
        return _("The link to {name} is down: {name} sent something malformed ({detail})."
                 ).format(name=name, detail=failure)
    if why is LinkDown.FAILED:
        return _("The link to {name} is down: the network failed ({detail}).").format(
            name=name, detail=failure)
    return _("The link to {name} is down.").format(name=name)


def _variant(wire: Sequence[int]) -> str:
    try:
        return variant_name(Variant.from_wire(list(wire)))
    except Exception:  # a peer's variant this version cannot read
        return "[" + ", ".join(str(v) for v in wire) + "]"


def mismatch(ours: Offer | Hello, theirs: Hello) -> str | None:
    """Why ``theirs`` cannot sit at the table ``ours`` wants, as the person at ``ours`` reads it.

    None when nothing in the offers differs (the refusal had another cause).
    "This peer" is the other one; "you" is the person reading.
    """
    name = theirs.name
    if theirs.version != ours.version:
        return _("{name} speaks protocol version {theirs}, this program {ours}: "
                 "update the older one.").format(name=name, theirs=theirs.version,
                                                 ours=ours.version)
    if theirs.table != ours.table:
        their_hands, our_hands = hands_of(theirs.table), hands_of(ours.table)
        if table_name(theirs.table) == table_name(ours.table) and their_hands and our_hands:
            return _("{name} plays {theirs} hands, you asked for {ours} (--hands): "
                     "start with the same --hands.").format(name=name, theirs=their_hands,
                                                            ours=our_hands)
        return _("{name} is at table {theirs}, you asked for table {ours} (--table).").format(
            name=name, theirs=repr(table_name(theirs.table)), ours=repr(table_name(ours.table)))
    if tuple(theirs.variant) != tuple(ours.variant):
        return _("{name} plays the variant {theirs}, you asked for {ours} (--variant).").format(
            name=name, theirs=_variant(theirs.variant), ours=_variant(ours.variant))
    if theirs.seats != ours.seats:
        return _("{name} wants {theirs} seats, your table has {ours}.").format(
            name=name, theirs=theirs.seats, ours=ours.seats)
    return None
