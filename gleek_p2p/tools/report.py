"""Words, tables and a chart for a verified session (``gleek verify``).

Pure formatting: it reads a ``VerifyReport`` and the engine states it
holds, and returns text or a JSON-ready dict. Amounts are halfpence in the
data and pence (with ½) on the screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gleek_p2p.base.errors import ViolationCode
from gleek_p2p.base.i18n import N_, _, ngettext, pgettext
from gleek_p2p.base.text import display_width, pad, printable
from gleek_p2p.log.envelope import PROTOCOL_VERSION
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.log.store import LogFault
from gleek_p2p.rules import (
    OPENING_BID,
    PHASE_NAMES,
    SUIT_SYMBOLS,
    State,
    Variant,
    card_rank,
    honours_taken,
    max_bid,
    ruling_switches,
    rulings_in_force,
    variant_name,
)
from gleek_p2p.rules.limits import BID_STEP
from gleek_p2p.rules.money import pence
from gleek_p2p.session.abort_words import abort_reason, signer_words
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Retake, SeatChange
from gleek_p2p.table.verify import Ending, Judgement, VerifyReport, Violation
from gleek_p2p.tools.card_words import card_label
from gleek_p2p.tools.seat_words import seat_labels
from gleek_p2p.tools.verdict_words import detail_words, stop_words, violation_words

# Whole phrases, one per rank: the rank's article and elision differ by language.
GLEEK_WORDS = (N_("gleek of Aces"), N_("gleek of Kings"), N_("gleek of Queens"),
               N_("gleek of Jacks"), N_("gleek of Tens"), N_("gleek of Nines"),
               N_("gleek of Eights"), N_("gleek of Sevens"), N_("gleek of Sixes"),
               N_("gleek of Fives"), N_("gleek of Fours"))
MOURNIVAL_WORDS = (N_("mournival of Aces"), N_("mournival of Kings"),
                   N_("mournival of Queens"), N_("mournival of Jacks"),
                   N_("mournival of Tens"), N_("mournival of Nines"),
                   N_("mournival of Eights"), N_("mournival of Sevens"),
                   N_("mournival of Sixes"), N_("mournival of Fives"),
                   N_("mournival of Fours"))
PHASE_WORDS = {"tiddy": N_("tiddy"), "auction": N_("auction"), "ruff": N_("ruff"),
               "combinations": N_("combinations"), "tricks": N_("tricks")}
"""Ledger row labels (at most 12 columns in every language)."""
RUFF_MOVES = {"vie": N_("{name} vies (stake {stake})"), "see": N_("{name} sees"),
              "pass": N_("{name} passes")}

RULING_WORDS: dict[tuple[str, bool], str] = {
    ("score_sheet_tricks", True):
        N_("trick scores on the score sheet, settled against their mean"),
    ("score_sheet_tricks", False):
        N_("trick scores settled pairwise, each pair paying the difference"),
    ("optional_declaring", True):
        N_("declaring combinations is optional; an undeclared one is not paid"),
    ("optional_declaring", False):
        N_("declaring combinations is compulsory; the hand audit looks for hidden ones"),
    ("score_sheet_combinations", True):
        N_("modern combination values on the score sheet, settled against their mean"),
    ("score_sheet_combinations", False):
        N_("modern combination values paid in total, split between the opponents"),
    ("open_auction", False): N_("bids for the talon from {opening} to {max_bid} pence"),
}
"""Each ruling switch's reading (SPEC 1.5), on and off, by the switch's name: the rules
room holds the switches and which are in force, the words live here."""

RECEIVED_WORDS: dict[tuple[bool, bool], str] = {
    (True, True): N_("each seat receives its whole trick score and its combination values, "
                     "half from each opponent"),
    (True, False): N_("each seat receives its whole trick score and its combination values, "
                      "from its opponent"),
    (False, True): N_("each seat receives its whole trick score, half from each opponent"),
    (False, False): N_("each seat receives its whole trick score, from its opponent"),
}
"""``received_scores`` on (it supersedes the score-sheet readings, and off is never said),
by (modern combination values, three players): whole sentences, as each language builds
them."""


def ruling_words(v: Variant, switch: str, on: bool) -> str:
    """The reading of ruling ``switch`` (``on`` or off) in ``v``, in the chosen language."""
    if switch == "received_scores":
        return _(RECEIVED_WORDS[v.modern_combinations, v.players == 3])
    if (switch, on) == ("open_auction", True):
        words = ngettext("bids for the talon rise by at least {step} penny with no table "
                         "ceiling (at most {max_bid} pence, the most a hand's other phases "
                         "can pay one seat)",
                         "bids for the talon rise by at least {step} pence with no table "
                         "ceiling (at most {max_bid} pence, the most a hand's other phases "
                         "can pay one seat)", BID_STEP)
    else:
        words = _(RULING_WORDS[switch, on])
    return words.format(step=BID_STEP, opening=OPENING_BID, max_bid=max_bid(v))


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else _("seat {seat}").format(seat=seat)


def describe_hand(state: State, names: Sequence[str]) -> list[str]:
    """A few lines telling what happened in one finished hand."""
    def who(seat: int) -> str:
        return _name(names, seat)

    lines: list[str] = []
    if state.bids:
        bids = ", ".join(
            f"{who(s)} {a}" if a else _("{name} passes").format(name=who(s))
            for s, a in state.bids
        )
        result = (
            _("{name} takes the talon at {bid}").format(name=who(state.talon_taker),
                                                        bid=state.high_bid)
            if state.talon_taker >= 0
            else _("all pass; the talon stays dead")
        )
        lines.append(_("auction: {bids}; {result}").format(bids=bids, result=result))
    if state.ruff_played or state.ruff_log:
        moves = ", ".join(
            _(RUFF_MOVES[kind]).format(name=who(s), stake=stake)
            for s, kind, stake in state.ruff_log
        )
        then = pgettext("list", "; ")  # French: a no-break space before ";"
        shows = then.join(
            _("{name} shows {suit} worth {value}").format(
                name=who(s), suit=SUIT_SYMBOLS[suit], value=_ruff_value(state, slots))
            for s, suit, slots in state.ruff_shows
        )
        winner = (" -> " + _("{name} takes the pot").format(name=who(state.ruff_winner))
                  if state.ruff_winner >= 0 else "")
        lines.append(_("ruff: {moves}").format(moves=moves)
                     + (then + shows if shows else "") + winner)
    if state.declarations:
        decl = ", ".join(
            _("{combination} ({name})").format(
                combination=_((MOURNIVAL_WORDS if len(slots) == 4 else GLEEK_WORDS)[
                    card_rank(state.cards[slots[0]])]), name=who(s))
            for s, slots in state.declarations
            if state.cards[slots[0]] >= 0
        )
        lines.append(_("combinations: {declared}").format(declared=decl))
    else:
        lines.append(_("combinations: none declared"))
    if state.trump_named or state.trump is not None:
        trump = _("Kiss (no trump)") if state.trump is None else SUIT_SYMBOLS[state.trump]
        tiddy = (
            pgettext("list", "; ")
            + _("Tiddy claimed by {name}").format(name=who(state.tiddy_claimant))
            if state.tiddy_claimant >= 0 else ""
        )
        lines.append(_("trump: {trump}").format(trump=trump) + tiddy)
    if state.tricks:
        won = [0] * len(names)
        for _leader, _played, taker in state.tricks:
            won[taker] += 1
        ledger = state.ledgers[-1] if state.ledgers else None
        points = (
            " - " + _("trick scores: {scores}").format(scores=" / ".join(
                f"{who(s)} {p}" for s, p in enumerate(ledger.trick_points)))
            if ledger else ""
        )
        lines.append(_("tricks won: {won}").format(won=", ".join(
            tricks_won(who(s), w) for s, w in enumerate(won))) + points)
        honours = _honours(state, who)
        if honours:
            lines.append(_("honours: {honours}").format(honours=honours))
    return lines


def tricks_won(name: str, count: int) -> str:
    """'Anne 1 trick', 'Anne 2 tricks', in the chosen language."""
    return ngettext("{name} {n} trick", "{name} {n} tricks", count).format(name=name, n=count)


def _ruff_value(state: State, slots: Sequence[int]) -> int:
    from gleek_p2p.rules import ruff_value

    return ruff_value([state.cards[s] for s in slots if state.cards[s] >= 0])


def _honours(state: State, who: Callable[[int], str]) -> str:
    # Tib and Tom as the rules see them (no Tib under the whist ranking);
    # the Tiddy has its own line with the trump.
    return ", ".join(_("{honour} ({card}) to {name}").format(
                         honour=h.name, card=card_label(h.card), name=who(h.seat))
                     for h in honours_taken(state) if h.name != "Tiddy")


def ledger_rows(state: State, names: Sequence[str]) -> list[str]:
    """The hand's ledger: one row per phase and the net, a column per seat."""
    ledger = state.ledgers[-1]
    width = max(8, *(len(n) for n in names))
    head = " " * 14 + "".join(f"{n:>{width + 1}}" for n in names)
    rows = [head]

    def row(label: str, amounts: Sequence[int]) -> str:
        return f"  {label:<12}" + "".join(
            f"{pence(a, True, leading_zero=True):>{width + 1}}" for a in amounts)

    rows.extend(row(_(PHASE_WORDS[p]), ledger.phases[p])
                for p in PHASE_NAMES if any(ledger.phases[p]))
    rows.append(row(_("net"), ledger.net))
    return rows


def running_totals(report: VerifyReport) -> list[tuple[int, ...]]:
    """Each seat's total after every hand, in halfpence."""
    out: list[tuple[int, ...]] = []
    for record in report.hands:
        out.append(record.state.totals)
    return out


def chart(series: Sequence[Sequence[int]], names: Sequence[str], height: int = 10,
          per_session: bool = False) -> list[str]:
    """A text chart of running totals: one column per hand (or per session with
    ``per_session``), one mark per player (its initial, or its number when two
    initials are alike). Every column is as wide as the widest mark (a number of two
    digits, a wide letter), so the columns, the axis and the ticks line up."""
    if not series:
        return []
    marks = [(n[:1].upper() or "?") for n in names]
    # A mark must be told apart from the others and from "*", and be seen at all.
    if len(set(marks)) < len(marks) or any(
            m == "*" or not m.strip() or display_width(m) < 1 for m in marks):
        marks = [str(i) for i in range(len(names))]
    col = max(display_width(m) for m in [*marks, "*"])
    values = [v for row in series for v in row] + [0]
    low, high = min(values), max(values)
    span = max(1, high - low)
    grid = [[" "] * len(series) for _row in range(height)]
    for x, row in enumerate(series):
        for seat, value in enumerate(row):
            y = round((value - low) * (height - 1) / span)
            cell = grid[height - 1 - y]
            cell[x] = marks[seat] if cell[x] == " " else "*"
    labels = [pence(round(high - i * span / (height - 1)), leading_zero=True)
              if i in (0, height // 2, height - 1) else "" for i in range(height)]
    label_width = max(len(label) for label in labels) + 1
    lines = [(f"{label:>{label_width}} |" + "  ".join(pad(c, col) for c in cells)).rstrip()
             for label, cells in zip(labels, grid, strict=True)]
    lines.append(" " * label_width + " +" + "-" * (len(series) * (col + 2) - 1))
    ticks = "  ".join(pad(str((i + 1) % 10 ** col), col) for i in range(len(series)))
    lines.append(" " * label_width + "  " + ticks.rstrip())
    legend = ", ".join(f"{m} = {n}" for m, n in zip(marks, names, strict=True))
    key = (_("sessions; {legend}; * = several") if per_session
           else _("hands; {legend}; * = several"))
    lines.append(" " * label_width + "  " + key.format(legend=legend))
    return lines


#: How each deck protocol version's deal was checked, in the report's words.
DECK_CHECKS = {
    1: N_("deal audited after each hand (deck protocol v1: every seed revealed, discards "
          "shown)"),
    2: N_("deal proved pass by pass (deck protocol v2: every shuffle, lock and key proved; "
          "discards never shown)"),
    3: N_("deal proved pass by pass (deck protocol v3: every shuffle, lock and key proved, "
          "on secp256k1; discards never shown)"),
    4: N_("deal proved pass by pass (deck protocol v4: every shuffle and every card opened "
          "proved, on secp256k1; discards never shown)"),
}


LOG_FAULT_WORDS = {
    LogFault.TOO_BIG: N_("it is larger than any session log can be, so it was not read"),
    LogFault.NOT_A_FILE: N_("it is not a regular file"),
    LogFault.NOT_A_LOG: N_("it is not a gleek-p2p log file"),
    LogFault.BAD_VERSION: N_("its log format version is one this program cannot read"),
    LogFault.CORRUPT: N_("a record inside it is damaged"),
}
"""Why a file is not a readable log, in a few words (the report's ``error`` is English)."""


def unreadable_words(report: VerifyReport) -> str:
    """Why ``report``'s log cannot be read, in the chosen language: never its English."""
    if report.log_fault is not None:
        return _(LOG_FAULT_WORDS[report.log_fault])
    if report.error_code is ViolationCode.LOG_EMPTY:
        return _("it holds no event")
    if report.error_code is ViolationCode.LOG_NO_ROSTER:
        return _("it does not open with a table's roster")
    if report.error_code is ViolationCode.LOG_NEWER_VERSION:
        return _("a newer program wrote it (log version {theirs}; this program reads "
                 "version {ours}): update this program to check it").format(
            theirs=report.log_version, ours=PROTOCOL_VERSION)
    code = report.error_code.value if report.error_code is not None else "?"
    return _("it cannot be read - {what} (violation {code})").format(
        what=violation_words(report.error_code), code=code)


def text_report(report: VerifyReport) -> str:
    """The full human report: per hand, totals, verdict, chart."""
    if not report.readable:
        return (_("Not a readable session log: {error}").format(error=unreadable_words(report))
                + "\n"
                + _("Verdict: UNREADABLE"))
    assert report.roster is not None
    names = seat_labels(report.roster)
    out = [
        _("Session of {hands}, {players}, {events}.").format(
            hands=ngettext("{n} hand", "{n} hands", report.roster.hands).format(
                n=report.roster.hands),
            players=ngettext("{n} player", "{n} players", len(names)).format(n=len(names)),
            events=ngettext("{n} event checked", "{n} events checked", report.events).format(
                n=report.events)),
    ]
    for seat, (name, public) in enumerate(zip(names, report.roster.publics, strict=True)):
        out.append("  " + _("seat {seat}: {name}  key {key}").format(
            seat=seat, name=name, key=fingerprint(public)))
    variant = report.roster.variant
    out.append(_("Variant {variant}, replayed under the rulings the log records (SPEC 1.5):")
               .format(variant=variant_name(variant)))
    out.extend("  - " + ruling_words(variant, switch, on)
               for switch, on in rulings_in_force(variant))
    for record in report.hands:
        state = record.state
        out.append("")
        out.append(_("Hand {number} - dealer {name} (events {first}-{last})").format(
            number=record.number + 1, name=_name(names, state.dealer),
            first=record.first_seq, last=record.last_seq))
        out.extend("  " + line for line in describe_hand(state, names))
        out.append("  " + _(DECK_CHECKS.get(record.deck_version,
                                             N_("deal: unknown deck protocol"))))
        out.extend(ledger_rows(state, names))
    if report.hands:
        totals = report.hands[-1].state.totals
        out.append("")
        out.append(_("Totals: {totals} (pence)").format(totals=", ".join(
            f"{n} {pence(t, True, leading_zero=True)}"
            for n, t in zip(names, totals, strict=True))))
    out.append("")
    out.extend(verdict_lines(report))
    out.extend(handover_lines(report))
    series = running_totals(report)
    if series:
        out.append("")
        out.append(_("Running totals (pence):"))
        out.extend(chart(series, names))
    # Each line's peer-provided parts were made inert where they were written;
    # this is the last guard before a terminal.
    return "\n".join(printable(line) for line in out)


def verdict_lines(report: VerifyReport) -> list[str]:
    """The verdict in words: fair (complete, or how it ended early), NOT FAIR with
    each proven violation, or STOPPED with where it stops or the claim it ends on."""
    assert report.roster is not None
    names = seat_labels(report.roster)
    judgement = report.judgement
    out: list[str] = []
    if judgement is Judgement.FAIR and report.complete:
        out.append(_("Verdict: FAIR. Every signature, every shuffle and key, and every move "
                     "checks out; the session is complete."))
    elif judgement is Judgement.FAIR:
        assert report.ending is not None
        out.append(_("Verdict: FAIR, ended early. {ending} Every signature, shuffle, key and "
                     "move up to there checks out; nobody is blamed.").format(
                         ending=ending_sentence(report.ending, names)))
    elif judgement is Judgement.STOPPED and not report.claims:
        out.append(_("Verdict: STOPPED. Every event checks out, but the log ends before the "
                     "session does: {stopped}. Nobody is blamed: a log cut short proves "
                     "nothing against anyone.").format(stopped=stop_words(report)))
    elif judgement is Judgement.STOPPED:
        out.append(_("Verdict: STOPPED. Every event checks out, but the session ended on a "
                     "claim the log cannot prove; nobody is blamed:"))
    else:
        out.append(_("Verdict: NOT FAIR."))
        out.extend("  - " + violation_sentence(v, names) for v in report.violations)
    out.extend("  - " + claim_sentence(c, names) for c in report.claims)
    return out


def ending_sentence(ending: Ending, names: Sequence[str]) -> str:
    """How a seat's own signed word ended the session, e.g. 'Anne left the table during
    hand 2 (signed by Anne, event 57).'"""
    name = _name(names, ending.seat)
    # A local-failure abort's reason (the signer's English) is the log's detail: its
    # code says it all here.
    fields = {"name": name, "event": ending.seq,
              "hand": None if ending.hand is None else ending.hand + 1}
    if ending.cause == ev.LEFT:
        if ending.hand is None:
            return _("{name} left the table before the first hand (signed by {name}, "
                     "event {event}).").format(**fields)
        return _("{name} left the table during hand {hand} (signed by {name}, "
                 "event {event}).").format(**fields)
    if ending.hand is None:
        return _("{name}'s peer failed (an internal error) and ended the session before "
                 "the first hand (signed by {name}, event {event}).").format(**fields)
    return _("{name}'s peer failed (an internal error) and ended the session during hand "
             "{hand} (signed by {name}, event {event}).").format(**fields)


def handover_lines(report: VerifyReport) -> list[str]:
    """Who handed their seat to a bot, and took it back, from which event (each a
    signed ``handover`` or ``retake``), in log order."""
    if report.roster is None:
        return []
    names = seat_labels(report.roster)
    return ["  - " + handover_sentence(h, names) for h in report.seat_changes]


def handover_sentence(change: SeatChange, names: Sequence[str]) -> str:
    """'From event 57, Anne's seat was played by a bot (signed by Anne).', or for a
    ``retake`` 'From event 80, Anne took the seat back from the bot (signed by Anne).'"""
    name = _name(names, change.seat)
    if isinstance(change, Retake):
        return _("From event {event}, {name} took the seat back from the bot (signed by "
                 "{name}).").format(event=change.seq, name=name)
    return _("From event {event}, {name}'s seat was played by a bot (signed by "
             "{name}).").format(event=change.seq, name=name)


def claim_sentence(claim: Violation, names: Sequence[str]) -> str:
    """An abort's claim in words: who says what; never that anyone is to blame."""
    signer = claim.signer if claim.signer is not None else -1
    name = names[signer] if 0 <= signer < len(names) else ""
    who = (_("seat {seat} ({name})").format(seat=signer, name=name) if name
           else _("seat {seat}").format(seat=signer))
    # Worded from the abort's code; else its reason, quoted as the signer's words
    # (shown inert, on one line).
    reason = abort_reason(claim.abort, names) if claim.abort is not None \
        else signer_words(claim.reason)
    if claim.seq is None:
        return _("{signer} says: {reason}. The log cannot prove it.").format(
            signer=who, reason=reason)
    return _("event {number}: {signer} says: {reason}. The log cannot prove it.").format(
        number=claim.seq, signer=who, reason=reason)


def violation_sentence(violation: Violation, names: Sequence[str]) -> str:
    """A proven violation in the chosen language, worded from its code: where, who, what
    was broken, then the table layer's English reason quoted as the program's detail."""
    if not violation.proven:
        return claim_sentence(violation, names)
    parts = []
    if violation.seq is not None:
        parts.append(_("event {number}:").format(number=violation.seq) + " ")
    if violation.seat is not None:
        name = names[violation.seat] if 0 <= violation.seat < len(names) else ""
        seat = (_("seat {seat} ({name})").format(seat=violation.seat, name=name) if name
                else _("seat {seat}").format(seat=violation.seat))
        parts.append(seat + " - ")
    parts.append(violation_words(violation.code) + " " + detail_words(violation.reason))
    return "".join(parts)


def json_report(report: VerifyReport) -> dict[str, Any]:
    """A JSON-ready summary; amounts in halfpence."""
    data: dict[str, Any] = {
        "unit": "halfpence",
        "readable": report.readable,
        "complete": report.complete,
        "fair": report.fair,
        "verdict": report.judgement.value,
        "events": report.events,
        "violations": [
            {
                "event": v.seq,
                "seat": v.seat,
                "code": None if v.code is None else v.code.value,
                "reason": v.reason,
                "proven": v.proven,
                "evidence": [e.hex() for e in v.evidence],
            }
            for v in report.violations
        ],
        "claims": [
            {
                "event": c.seq,
                "signer": c.signer,
                "seat": c.seat,
                "code": None if c.code is None else c.code.value,
                "reason": c.reason,
                "cause": None if c.abort is None else c.abort.cause,
                "evidence": [e.hex() for e in c.evidence],
            }
            for c in report.claims
        ],
        "ended": None if report.ending is None else {
            "how": report.ending.cause,
            "seat": report.ending.seat,
            "event": report.ending.seq,
            "hand": None if report.ending.hand is None else report.ending.hand + 1,
        },
        "handovers": [{"event": h.seq, "seat": h.seat, "bot": h.bot}
                      for h in report.handovers],
        "retakes": [{"event": r.seq, "seat": r.seat} for r in report.seat_changes
                    if isinstance(r, Retake)],
    }
    if report.code is not None:
        data["code"] = report.code.value
    if not report.readable:
        data["error"] = report.error
        return data
    assert report.roster is not None
    data["variant"] = variant_name(report.roster.variant)
    data["rulings"] = ruling_switches(report.roster.variant)
    data["players"] = [
        {"seat": s, "name": n, "fingerprint": fingerprint(p)}
        for s, (n, p) in enumerate(zip(report.roster.names, report.roster.publics, strict=True))
    ]
    data["hands"] = [
        {
            "dealer": r.state.dealer,
            "ledger": {k: list(v) for k, v in r.state.ledgers[-1].phases.items()},
            "net": list(r.state.ledgers[-1].net),
            "deck_version": r.deck_version,
        }
        for r in report.hands
    ]
    totals = report.hands[-1].state.totals if report.hands else (0,) * report.roster.seats
    data["totals"] = list(totals)
    best = max(totals)
    data["winner"] = totals.index(best) if report.complete and totals.count(best) == 1 else None
    return data
