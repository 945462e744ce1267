"""The hand pane: the viewer's cards with worth and markers, the talon or discard line."""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.base.i18n import N_, _, ngettext, pgettext
from gleek_p2p.rules import Phase, State, card, card_suit
from gleek_p2p.rules.summary import suit_ruff_values

from ..choices import Chooser
from ..words import SUIT_SYMBOLS, Namer, card_text, card_worth
from .scene import (
    HAND_ROWS,
    Fragments,
    Scene,
    _card_style,
    _known,
    _label,
    _label_width,
    _pad,
    clip,
)


def _ordered(state: State, slots: Sequence[int]) -> list[int]:
    def key(x: int) -> tuple[int, int]:
        c = _known(state, x)
        return (0, c) if c is not None else (1, x)

    return sorted(slots, key=key)


def _cells_width(state: State, ordered: Sequence[int], cell: int) -> int:
    suits = {card_suit(c) if (c := _known(state, x)) is not None else None for x in ordered}
    return cell * len(ordered) + max(0, len(suits) - 1)


def _split_rows(state: State, ordered: list[int], room: int, cell: int) -> list[list[int]]:
    """The hand in one row if it fits ``room``, else two, broken between suits if possible."""
    if _cells_width(state, ordered, cell) <= room:
        return [ordered]
    best = len(ordered) // 2
    for i in range(1, len(ordered)):
        a, b = _known(state, ordered[i - 1]), _known(state, ordered[i])
        fits = (_cells_width(state, ordered[:i], cell) <= room
                and _cells_width(state, ordered[i:], cell) <= room)
        new_suit = a is not None and b is not None and card_suit(a) != card_suit(b)
        if fits and new_suit and abs(i - len(ordered) / 2) < abs(best - len(ordered) / 2) + 3:
            best = i
            if abs(i - len(ordered) / 2) <= 3:
                break
    return [ordered[:best], ordered[best:]]


def _card_cells(
    state: State, slots: Sequence[int], chooser: Chooser | None, cell: int
) -> tuple[Fragments, Fragments, Fragments]:
    """The cards, their worth and the markers, suit by suit.

    Markers: ^ the cursor, · a card that may be picked, X a card marked to
    discard, t a card that came from the talon (the taker's discard).
    """
    ordered = list(slots)
    talon = set(state.talon) if chooser is not None and chooser.picks else set()
    cards_row: Fragments = []
    worth_row: Fragments = []
    mark_row: Fragments = []
    current = chooser.current.slots if chooser is not None else ()
    last_suit: int | None = None
    for x in ordered:
        c = _known(state, x)
        suit = card_suit(c) if c is not None else None
        if last_suit is not None and suit != last_suit:
            for row in (cards_row, worth_row, mark_row):
                row.append(("", " "))
        last_suit = suit
        legal = chooser is not None and chooser.slot_marked(x)
        style = _card_style(c)
        if chooser is not None:
            style += " class:legal" if legal else " class:dim"
        marked = chooser is not None and chooser.slot_chosen(x)
        if x in current:
            style += " class:cursor"
        elif marked:
            style += " class:marked"
        cards_row.append((style, card_text(c).rjust(cell - 1)))
        cards_row.append(("", " "))
        worth = "" if c is None else str(card_worth(c, state))
        worth_row.append(("class:worth", worth.rjust(cell - 1) + " "))
        # Every marker that applies, side by side: a marked talon card under
        # the cursor keeps its t and its ^ beside the X.
        mark = (("t" if x in talon else "") + ("^" if x in current else "")
                + ("X" if marked else "")) or ("·" if legal else "")
        mark_row.append(("class:mark", mark.rjust(cell - 1) + " "))
    return cards_row, worth_row, mark_row


_HAND_LABELS = (N_("Hand"), N_("worth"), N_("Ruff"), N_("Discard"), N_("Talon"), N_("t: talon"))


def hand_pane(scene: Scene, width: int) -> list[Fragments]:
    """The viewer's hand with worth and markers, or every hand when all cards are shown."""
    s = scene.state
    who = scene.who
    if s is None or s.hand_no < 0 or s.phase is Phase.CUT:
        return _pad([], HAND_ROWS)
    label = _label_width(_HAND_LABELS)
    lines: list[Fragments] = []
    if scene.viewer is None:
        for seat in range(s.variant.players):
            ordered = _ordered(s, s.holding[seat])
            known = [x for x in ordered if _known(s, x) is not None]
            backs = len(ordered) - len(known)
            if backs > 1 and _cells_width(s, ordered, 4) > width - label:
                # More cards than the row holds (a watcher sees the talon's taker
                # before the discard): the backs as one count.
                cards, _w, _m = _card_cells(s, known, None, 4)
                cards = [*cards, ("", " "), ("class:card.unknown", f"??×{backs}")]
            else:
                cards, _w, _m = _card_cells(s, ordered, None, 4)
            lines.append(clip([("class:label", who.short(seat, label - 1).ljust(label)), *cards],
                              width))
    else:
        chooser = scene.chooser
        hand_label = who.short(scene.viewer, label - 1) if scene.named else _("Hand")
        ordered = _ordered(s, s.holding[scene.viewer])
        rows = _split_rows(s, ordered, width - label, 4)
        if len(rows) == 1:
            cards, worth, marks = _card_cells(s, ordered, chooser, 4)
            lines.append(clip([("class:label", hand_label.ljust(label)), *cards], width))
            lines.append(clip([("class:label", _("worth").ljust(label)), *worth], width))
            lines.append(clip([("", " " * label), *marks], width))
        else:
            # Too many cards for a row (the taker before discarding): two rows
            # of cards and markers, the worth row and talon line give way.
            for i, row in enumerate(rows):
                cards, _worth, marks = _card_cells(s, row, chooser, 4)
                head = hand_label if i == 0 else ""
                lines.append(clip([("class:label", head.ljust(label)), *cards], width))
                lines.append(clip([("class:hint", (_("t: talon") if i == 0 and chooser
                                                   and chooser.picks else "").ljust(label)),
                                   *marks], width))
            return _pad(lines, HAND_ROWS)
    lines.append(clip(_talon_line(s, scene.viewer, who, label, width, scene.public), width))
    return _pad(lines, HAND_ROWS)


def _ruff_line(s: State, viewer: int, label: int) -> Fragments:
    """What showing each suit would be worth in the ruff, for the viewer's hand."""
    values = suit_ruff_values(c for x in s.holding[viewer] if (c := _known(s, x)) is not None)
    line: Fragments = _label(N_("Ruff"), label)
    for suit, value in enumerate(values):
        line += [(_card_style(card(suit, 0)), SUIT_SYMBOLS[suit]),
                 ("class:total", f" {value:<3}  ")]
    best = max(values)
    line.append(("class:hint", _("a suit's ruff value; your best show is {best}").format(
        best=best)))
    return line


def _unplayed_note(s: State) -> str:
    """Why the talon's taker holds a card more than the tricks left (it is never played)."""
    taker = s.talon_taker
    if taker < 0 or s.phase in (Phase.AUCTION, Phase.DISCARD):
        return ""
    n = s.variant.players
    played = any((s.trick_leader + i) % n == taker for i in range(len(s.trick_plays)))
    extra = len(s.holding[taker]) - (s.variant.tricks - len(s.tricks) - played)
    if extra <= 0 or not s.variant.has_tricks:
        return ""
    return "  " + ngettext("one card more than the tricks: never played",
                           "{n} cards more than the tricks: never played", extra).format(n=extra)


def _width(line: Fragments) -> int:
    return sum(len(f[1]) for f in line)


def _talon_line(s: State, viewer: int | None, who: Namer, label: int,
                width: int, public: bool = False) -> Fragments:
    every = viewer is None and not public
    sees = every or viewer == s.talon_taker
    if viewer is not None and s.phase in (Phase.RUFF, Phase.RUFF_SHOW) and s.variant.has_ruff:
        return _ruff_line(s, viewer, label)
    if s.discards:
        line: Fragments = _label(N_("Discard"), label)
        note = _unplayed_note(s)
        if sees:
            cards: Fragments = []
            for x in s.discards:
                c = _known(s, x)
                cards += [(_card_style(c), card_text(c)), ("", " ")]
            unopened = sum(_known(s, x) is None for x in s.discards)
            if viewer is None and unopened:
                # The replay's all-cards view: a discard never opened is no bug.
                full = "  " + _("?? never opened: the discards stay secret") + note
                if label + _width(cards) + len(full) <= width:
                    return [*line, *cards, ("class:hint", full)]
                # At 80 columns the backs and both notes overflow: the backs as one
                # count and the shorter words keep both notes whole.
                cards = [(_card_style(c), card_text(c) + " ") for x in s.discards
                         if (c := _known(s, x)) is not None]
                cards.append(("class:card.unknown", f"??×{unopened}"))
                note = "  " + ngettext("never opened", "never opened", unopened) + note
            line += cards
            line.append(("class:hint", note))
        else:
            said = who.act(s.talon_taker, N_("you discarded {count} face down"),
                           N_("{name} discarded {count} face down"), count=len(s.discards))
            if note and len(said) + len(note) + label > width:
                # The note is what the others need to read: the shorter sentence makes room.
                said = who.act(s.talon_taker, N_("you discarded {count}"),
                               N_("{name} discarded {count}"), count=len(s.discards))
            line.append(("", said))
            line.append(("class:hint", pgettext("list", "; ") + note.lstrip() if note else ""))
        return line
    if s.talon and s.talon_taker < 0:
        if every:
            line = _label(N_("Talon"), label)
            for x in sorted(s.talon, key=lambda x: _known(s, x) or 0):
                c = _known(s, x)
                line += [(_card_style(c), card_text(c)), ("", " ")]
            return line
        dead = s.phase is not Phase.AUCTION and s.variant.has_auction
        text = (_("{count} cards, dead") if dead
                else _("{count} cards, face down")).format(count=len(s.talon))
        return [*_label(N_("Talon"), label), ("", text)]
    return []
