"""The hand-end summary and the session's past hands, as formatted lines.

Every number comes from ``gleek_p2p.rules.summary.hand_summary``; this
module only lays it out (a column per seat) and words it.
"""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.base.i18n import N_, _, ngettext, pgettext
from gleek_p2p.rules import State, card_rank, session_winner
from gleek_p2p.rules.summary import HandSummary, hand_summary
from gleek_p2p.tools.report import GLEEK_WORDS, MOURNIVAL_WORDS

from .render import Fragments
from .words import (
    SUIT_SYMBOLS,
    Namer,
    card_text,
    pence,
    suit_name,
    wrap_words,
)

__all__ = ["history_lines", "result_lines", "summary_lines"]

_LABEL = 14
"""The label column of the summary; every label fits in one less (tests/test_ui_width.py)."""
ROW_LABELS = (N_("in pence"), N_("this hand"), N_("tricks won"), N_("trick points"))
"""Row labels besides the phases' and the session's (for the width test)."""
_PHASE_LABELS = {"tiddy": N_("Tiddy"), "auction": N_("auction"), "ruff": N_("ruff"),
                 "combinations": N_("combinations"), "tricks": N_("tricks")}


def _columns(who: Namer, n: int, width: int) -> int:
    return max(6, min(14, (width - _LABEL) // max(1, n)))


def _row(label: str, cells: Sequence[str], col: int, style: str = "") -> Fragments:
    return [("class:label", label.ljust(_LABEL)[:_LABEL]),
            (style, "".join(c.rjust(col) for c in cells))]


def _names_row(who: Namer, n: int, col: int, head: str = "") -> Fragments:
    return _row(head, [who.short(s, col - 1) for s in range(n)], col, "class:label")


def summary_lines(state: State, names: Sequence[str], viewer: int | None,
                  width: int) -> list[Fragments]:
    """The summary of the hand that ``state`` (at the end of a hand) has just finished."""
    s = hand_summary(state)
    who = Namer(names, viewer)
    n = len(s.net)
    col = _columns(who, n, width)
    title = who.act(s.dealer, N_("Hand {number} of {hands}: You dealt."),
                    N_("Hand {number} of {hands}: {name} dealt."), number=s.hand + 1,
                    hands=s.hands)
    lines: list[Fragments] = [[("class:prompt", title)]]
    lines.append(_names_row(who, n, col, _("in pence")))
    for phase, row in s.phases:
        lines.append(_row(_(_PHASE_LABELS[phase]), [pence(v) for v in row], col))
    lines.append(_row(_("this hand"), [pence(v, True) for v in s.net], col, "class:total"))
    lines.append(_row(pgettext("ledger", "session"), [pence(v, True) for v in s.totals], col,
                      "class:total"))
    if s.trick_points and any(s.tricks_won):
        lines.append(_row(_("tricks won"), [str(x) for x in s.tricks_won], col))
        lines.append(_row(_("trick points"), [str(x) for x in s.trick_points], col))
    lines.extend([[("", text)] for text in _story(s, state, who)])
    return [_wrap_fragment(line, width) for line in lines]


def _story(s: HandSummary, state: State, who: Namer) -> list[str]:
    out: list[str] = []
    if state.variant.has_auction:
        if s.auction is None:
            out.append(_("Auction: everybody passed; the talon was dead."))
        else:
            taker, bid = s.auction
            out.append(who.act(taker, N_("Auction: you took the talon for {pence} (paid to the "
                                         "others)."),
                               N_("Auction: {name} took the talon for {pence} (paid to the "
                                  "others)."), pence=_pence(bid)))
    if s.ruff is not None:
        winner, pot, suit = s.ruff
        fields = {"pence": _pence(pot), "suit": "" if suit is None
                  else f"{suit_name(suit)} {SUIT_SYMBOLS[suit]}"}
        if suit is None:
            out.append(who.act(winner, N_("Ruff: you won the pot of {pence}."),
                               N_("Ruff: {name} won the pot of {pence}."), **fields))
        else:
            out.append(who.act(winner, N_("Ruff: you won the pot of {pence} showing {suit}."),
                               N_("Ruff: {name} won the pot of {pence} showing {suit}."),
                               **fields))
    if s.declarations:
        combos = []
        for seat, slots in s.declarations:
            c = state.cards[slots[0]]
            if c >= 0:
                # The report's whole phrases: each language elides its own way ("gleek d'As").
                words = MOURNIVAL_WORDS if len(slots) == 4 else GLEEK_WORDS
                combos.append(_("a {combination} ({name})").format(
                    combination=_(words[card_rank(c)]), name=who(seat)))
                continue
            kind = (N_("a mournival of {ranks} ({name})") if len(slots) == 4
                    else N_("a gleek of {ranks} ({name})"))
            combos.append(_(kind).format(ranks="?", name=who(seat)))
        out.append(_("Combinations: {combinations}.").format(combinations=", ".join(combos)))
    if s.trump_named:
        if s.trump is None:
            out.append(_("Trump: {trump}.").format(trump=_("Kiss (no trump)")))
        else:
            absent = _("not in play")
            honours = ", ".join(f"{h} {who(seat) if seat is not None else absent}"
                                for h, seat in s.honours)
            out.append(_("Trump: {trump}. {honours}.").format(
                trump=f"{suit_name(s.trump)} {SUIT_SYMBOLS[s.trump]}", honours=honours))
    if s.last_trick is not None:
        leader, plays, winner = s.last_trick
        n = len(s.net)
        cards = ", ".join(f"{who((leader + i) % n)} {card_text(state.cards[x])}"
                          for i, x in enumerate(plays))
        count = len(state.tricks)
        out.append(who.act(winner, N_("Trick {number}: {cards}; you took it and the last "
                                      "trick's {points} points."),
                           N_("Trick {number}: {cards}; {name} took it and the last trick's "
                              "{points} points."),
                           number=count, cards=cards, points=s.last_trick_bonus))
    return out


def _pence(amount: int) -> str:
    return ngettext("{n} penny", "{n} pence", amount).format(n=amount)


def _wrap_fragment(line: Fragments, width: int) -> Fragments:
    """A plain line wrapped on words to ``width`` (tables are narrower already)."""
    text = "".join(f[1] for f in line)
    if len(text) <= width or len(line) != 1:
        return line
    style = line[0][0]
    return [(style, "\n".join(wrap_words(text, width)))]


def history_lines(states: Sequence[State], names: Sequence[str], viewer: int | None,
                  width: int, selected: int) -> list[Fragments]:
    """Every finished hand's result and the running totals, with a bar chart of the totals.

    ``states`` holds the state at the end of each finished hand; ``selected``
    is the hand under the cursor (Enter opens its summary).
    """
    who = Namer(names, viewer)
    n = len(names)
    col = max(6, min(12, (width - 8 - 2) // max(1, 2 * n)))
    names_row = "".join(who.short(s, col - 1).rjust(col) for s in range(n))
    groups: Fragments = [("class:label", " " * 8 + _("the hand").rjust(n * col) + "  "
                          + _("the session").rjust(n * col))]
    head: Fragments = [("class:label", pgettext("ledger", "hand").ljust(8) + names_row + "  "
                        + names_row)]
    lines: list[Fragments] = [[("class:prompt", _("The session so far, in pence "
                                                  "(↑/↓ a hand, Enter its summary, Esc close)"))],
                              groups, head]
    summaries = [hand_summary(s) for s in states]
    for i, s in enumerate(summaries):
        style = "class:cursor" if i == selected else ""
        text = f"{s.hand + 1:>3}     " + "".join(pence(v, True).rjust(col) for v in s.net)
        text += "  " + "".join(pence(v, True).rjust(col) for v in s.totals)
        lines.append([(style, text)])
    if not summaries:
        lines.append([("", _("No hand has finished yet."))])
        return lines
    lines.append([("", "")])
    totals = summaries[-1].totals
    scale = max(1, *(abs(t) for t in totals))
    bar_room = max(4, (width - _LABEL - 10) // 2)
    for seat, total in enumerate(totals):
        length = round(abs(total) * bar_room / scale)
        left = ("█" * length).rjust(bar_room) if total < 0 else " " * bar_room
        right = ("█" * length).ljust(bar_room) if total > 0 else " " * bar_room
        lines.append([("class:label", who.short(seat, _LABEL - 1).ljust(_LABEL)),
                      ("class:card.red", left), ("class:hint", "│"),
                      ("class:total", right), ("", " " + pence(total, True))])
    return lines


def result_lines(state: State, names: Sequence[str], viewer: int | None) -> list[str]:
    """The session's result as plain lines for the terminal: each player's total, the winner.

    Printed when the full screen closes, so the result stays in the
    terminal's scrollback (the end box goes with the screen).
    """
    hands = len(state.ledgers)
    if not hands:
        return []
    who = Namer(names, viewer)
    rows = [_("{name} (you)").format(name=name) if seat == viewer else name
            for seat, name in enumerate(names)]
    width = max(12, *(len(r) for r in rows))
    lines = [ngettext("The result after {n} hand, in pence:",
                      "The result after {n} hands, in pence:", hands).format(n=hands)]
    for seat, total in enumerate(state.totals):
        lines.append(f"  {rows[seat]:<{width}} {pence(total, True):>8}")
    best = session_winner(state)
    lines.append(_("A tie for first place.") if best is None
                 else who.act(best, N_("You win the session."), N_("{name} wins the session.")))
    return lines
