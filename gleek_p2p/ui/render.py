"""The screen as formatted text: pure functions from a ``Scene`` to styled lines.

Each pane is a list of lines; a line is a list of ``(style, text)``
fragments, prompt_toolkit's formatted text. Every function takes the width
it may use and never returns a longer line, so the screen fits an 80x24
terminal. Colour is only ever a second cue: legal cards, the cursor and
whose turn it is are also marked with characters, so NO_COLOR loses nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples

from gleek_p2p.base.i18n import N_, _, ngettext, pgettext
from gleek_p2p.rules import (
    PHASE_NAMES,
    Phase,
    State,
    card,
    card_rank,
    card_suit,
    ruff_pot,
    running_ledger,
    to_act,
    tricks_won,
    variant_name,
)
from gleek_p2p.rules.honours import honour_names
from gleek_p2p.rules.limits import OPENING_BID
from gleek_p2p.rules.summary import suit_ruff_values
from gleek_p2p.session.link_words import table_words
from gleek_p2p.session.lobby_status import LobbyStatus

from .choices import Chooser
from .words import (
    SUIT_SYMBOLS,
    Namer,
    card_text,
    card_worth,
    honours,
    rank_plural,
    suit_name,
)
from .words import pence as _pence

__all__ = [
    "CHOICE_ROWS",
    "HAND_ROWS",
    "LEDGER_WIDTH",
    "TABLE_ROWS",
    "Fragments",
    "Scene",
    "choice_pane",
    "fit",
    "hand_pane",
    "header",
    "join",
    "ledger_pane",
    "phase_words",
    "plain",
    "table_pane",
]

Fragments = StyleAndTextTuples

TABLE_ROWS = 9
HAND_ROWS = 4
CHOICE_ROWS = 2
LEDGER_WIDTH = 28
"""The ledger pane's narrowest width (at 80 columns); a wider terminal gives it more."""
_LABEL = 8
_LEDGER_LABEL = 8
_TABLE_NEEDS = 51
"""Columns the table pane needs before the ledger may take more than its narrowest."""


def ledger_width(names: Sequence[str], width: int) -> int:
    """How wide the ledger pane is at a terminal ``width``: enough for whole names if room."""
    n = max(1, len(names))
    longest = max((len(name) for name in names), default=5)
    wanted = _LEDGER_LABEL + n * (max(longest, 6) + 1)
    return max(LEDGER_WIDTH, min(wanted, width - _TABLE_NEEDS - 1))

_PHASE_WORDS = {
    Phase.CUT: N_("the cut"),
    Phase.DEAL: N_("shuffling"),
    Phase.AUCTION: N_("auction"),
    Phase.DISCARD: N_("discard"),
    Phase.RUFF: N_("ruff: vying"),
    Phase.RUFF_SHOW: N_("ruff: showdown"),
    Phase.DECLARE: N_("combinations"),
    Phase.TRUMP: N_("trump"),
    Phase.TIDDY: N_("Tiddy"),
    Phase.TRICKS: N_("tricks"),
    Phase.HAND_OVER: N_("hand over"),
    Phase.SESSION_OVER: N_("session over"),
}


@dataclass
class Scene:
    """Everything the screen shows at one moment.

    ``state`` is the engine state as the viewer knows it (a seat's own
    state has -1 for every card it may not see); ``viewer`` is the seat at
    the screen, or None to show every hand (the replay with all cards).
    """

    state: State | None
    names: tuple[str, ...]
    viewer: int | None
    chooser: Chooser | None = None
    status: str = ""
    log: Sequence[tuple[str, str]] = field(default_factory=list)
    title: str = "Gleek"
    named: bool = False
    """Call every seat by its name, the viewer too (a replay from one seat's view)."""
    lobby: LobbyStatus | None = None
    """Who is at the table (names, fingerprints) as the lobby last said."""
    public: bool = False
    """Nobody's view (a watcher's, with ``viewer`` None): the talon and the discards
    are told face down as to any player, never shown as unknown cards."""

    @property
    def who(self) -> Namer:
        return Namer(self.names, None if self.named else self.viewer)


def phase_words(state: State | None) -> str:
    """A short name for where the hand stands."""
    if state is None:
        return _("joining")
    return _(_PHASE_WORDS[state.phase])


# ------------------------------------------------------------------ helpers


def clip(line: Fragments, width: int) -> Fragments:
    """``line`` cut to ``width`` characters (an ellipsis marks the cut)."""
    out: Fragments = []
    used = 0
    total = sum(len(f[1]) for f in line)
    if total <= width:
        return list(line)
    for style, text, *_rest in line:
        room = width - 1 - used
        if room <= 0:
            break
        piece = text[:room]
        out.append((style, piece))
        used += len(piece)
    out.append(("", "…"))
    return out


def fit(head: str, items: Sequence[str], tail: str, width: int) -> str:
    """``head`` + items joined by ", " + ``tail``, dropping the oldest items to fit."""
    shown = list(items)
    while True:
        body = ", ".join(shown)
        if len(shown) < len(items):
            body = "…, " + body if shown else "…"
        text = head + body + tail
        if len(text) <= width or not shown:
            return text if len(text) <= width else text[: width - 1] + "…"
        shown.pop(0)


def join(lines: Sequence[Fragments]) -> Fragments:
    """Lines as one piece of formatted text, newline separated."""
    out: Fragments = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def plain(lines: Sequence[Fragments]) -> str:
    """The text of some lines without styles (for tests and the replay's dump)."""
    return "\n".join("".join(f[1] for f in line) for line in lines)


def _cards(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=f"{n:>2}")


def lobby_lines(status: LobbyStatus, width: int = 80) -> list[str]:
    """Who is at the table and their key fingerprints, while it forms or after.

    A player whose line would not fit ``width`` gets its key on a second line.
    """
    if status.formed:
        head = _("Table {table}: seated.").format(table=table_words(status.table))
    else:
        head = ngettext("Table {table}: waiting for {n} more player.",
                        "Table {table}: waiting for {n} more players.",
                        status.missing).format(table=table_words(status.table),
                                               n=status.missing)
    people = sorted([status.me, *status.peers],
                    key=lambda p: (p.seat is None, p.seat or 0, p is not status.me))
    lines = [head]
    for p in people:
        seat = _("seat {seat}").format(seat=p.seat) + "  " if p.seat is not None else ""
        name = _("{name} (you)").format(name=p.name) if p is status.me else p.name
        state = "  " + _("(link down)") if not p.connected else ""
        key = _("key {fingerprint}").format(fingerprint=p.fingerprint)
        line = f"  {seat}{name}  {key}{state}"
        if len(line) <= width:
            lines.append(line)
        else:
            lines.extend([f"  {seat}{name}{state}", f"  {' ' * len(seat)}{key}"])
    for w in status.watchers:
        lines.append("  " + _("watching: {name}  key {fingerprint}").format(
            name=w.name, fingerprint=w.fingerprint))
    if not status.formed and status.port is not None:
        lines.append(_("Others can join with --peer HOST:{port}.").format(port=status.port))
    return lines


def _pad(lines: list[Fragments], rows: int) -> list[Fragments]:
    return lines[:rows] + [[] for _row in range(rows - len(lines))]


class _Short:
    """Names cut to fit a pane's sentences."""

    def __init__(self, namer: Namer, width: int = 10) -> None:
        self.namer = namer
        self.width = width

    def __call__(self, seat: int) -> str:
        return self.namer.short(seat, self.width)

    def act(self, seat: int, you: str, other: str, **fields: object) -> str:
        """Like ``Namer.act``, with the name cut to fit."""
        return _(you if seat == self.namer.you else other).format(name=self(seat), **fields)


def _card_style(c: int | None) -> str:
    if c is None or c < 0:
        return "class:card.unknown"
    return "class:card.red" if card_suit(c) in (1, 2) else "class:card.black"


def _known(state: State, slot: int) -> int | None:
    c = state.cards[slot] if 0 <= slot < len(state.cards) else -1
    return c if c >= 0 else None


# ------------------------------------------------------------------ header


def header(scene: Scene, width: int) -> Fragments:
    """The top line: hand number, variant, phase and whose turn it is."""
    s = scene.state
    parts = [scene.title]
    if s is not None:
        if s.hand_no >= 0:
            parts.append(_("hand {number}/{hands}").format(number=s.hand_no + 1,
                                                           hands=s.session_hands))
        parts.append(variant_name(s.variant))
        parts.append(phase_words(s))
        actor = to_act(s)
        if actor is not None:
            if actor == scene.viewer and scene.chooser is not None:
                parts.append(_("YOUR TURN"))
            else:
                parts.append(_("{name} to act").format(name=scene.who(actor)))
    text = " " + " · ".join(parts)
    return clip([("class:header", text.ljust(width))], width)


# ------------------------------------------------------------------ table pane


def table_pane(scene: Scene, width: int) -> list[Fragments]:
    """Players, auction, ruff, combinations, trump and honours, the trick."""
    s = scene.state
    who = scene.who
    if s is None or s.hand_no < 0:
        if scene.lobby is not None:
            return _pad([clip([("", line)], width) for line in lobby_lines(scene.lobby, width)],
                        TABLE_ROWS)
        names = ", ".join(who(i) for i in range(len(scene.names)))
        text = (_("At the table: {names}.").format(names=names) if names
                else _("At the table: nobody yet."))
        return _pad([clip([("", text)], width)], TABLE_ROWS)
    n = s.variant.players
    actor = to_act(s)
    won = tricks_won(s)
    columns = []
    for seat in range(n):
        role = (pgettext("column", "dealer") if seat == s.dealer else
                pgettext("column", "eldest") if seat == (s.dealer + 1) % n else "")
        extra = ""
        if s.phase in (Phase.RUFF, Phase.RUFF_SHOW):
            extra = " " + (_("ruff: put {amount}").format(amount=s.ruff_put[seat])
                           if s.ruff_in[seat] else _("ruff: out"))
        tricks = ngettext("{n} trick", "{n} tricks", won[seat]).format(n=f"{won[seat]:>2}")
        columns.append((_cards(len(s.holding[seat])), tricks, role, extra))
    # Each column as wide as its longest entry in this language; names take the rest.
    widths = [max(len(row[i]) for row in columns) for i in range(3)]
    rest = 2 + 3 + sum(widths) + max(len(row[3]) for row in columns)
    name_w = max(6, min(16, width - 1 - rest))
    lines = []
    for seat, (cards, tricks, role, extra) in enumerate(columns):
        mark = "▶ " if seat == actor else "  "
        text = (f"{mark}{who.short(seat, name_w):<{name_w}} {cards:<{widths[0]}}"
                f" {tricks:<{widths[1]}} {role:<{widths[2]}}{extra}")
        style = "class:turn" if seat == actor else ("class:you" if seat == scene.viewer else "")
        lines.append(clip([(style, text.rstrip())], width))
    lines.extend(_bidding_lines(s, who, width))
    lines.extend(_trick_lines(s, who, width))
    return _pad(lines, TABLE_ROWS)


_TABLE_LABELS = (N_("Auction"), N_("Ruff"), N_("Combos"), N_("Trump"), N_("Last"))


def _label_width(labels: Sequence[str]) -> int:
    """The label column: 8 wide, or one more than the longest label in this language."""
    return max(_LABEL, 1 + max(len(_(label)) for label in labels))


def _label(text: str, width: int) -> Fragments:
    return [("class:label", _(text).ljust(width))]


_RUFF_MOVES = {"vie": N_("vie"), "see": N_("see"), "pass": N_("pass")}


def _bidding_lines(s: State, namer: Namer, width: int) -> list[Fragments]:
    lines: list[Fragments] = []
    who = _Short(namer)
    lw = _label_width(_TABLE_LABELS)
    v = s.variant
    if v.has_auction:
        passes = _("pass")
        calls = [f"{who(seat)} {amount or passes}" for seat, amount in s.bids]
        tail = ""
        if s.phase is not Phase.AUCTION:
            # Once decided, the outcome alone (the calls are in the log and the summary).
            calls = []
            tail = (who.act(s.talon_taker, N_("you took the talon at {bid}"),
                            N_("{name} took the talon at {bid}"), bid=s.high_bid)
                    if s.talon_taker >= 0 else _("everybody passed: the talon is dead"))
        if not calls and s.phase is Phase.AUCTION:
            calls = [_("no bid yet ({bid} opens)").format(bid=OPENING_BID)]
        lines.append([*_label(N_("Auction"), lw), ("", fit("", calls, tail, width - lw))])
    if v.has_ruff:
        if s.ruff_played:
            head = _("stake {stake}, pot {pot}: ").format(stake=s.ruff_stake, pot=ruff_pot(s))
            said = {kind: _(word) for kind, word in _RUFF_MOVES.items()}
            moves = [f"{who(seat)} {said[kind]}" + (f" {stake}" if kind == "vie" else "")
                     for seat, kind, stake in s.ruff_log]
            moves += [who.act(seat, N_("you show {suit}"), N_("{name} shows {suit}"),
                              suit=SUIT_SYMBOLS[suit])
                      for seat, suit, _x in s.ruff_shows]
            if s.ruff_winner >= 0:
                shown = [f"{SUIT_SYMBOLS[suit]}" for seat, suit, _x in s.ruff_shows
                         if seat == s.ruff_winner]
                fields = {"pot": ruff_pot(s), "stake": s.ruff_stake,
                          "suit": shown[0] if shown else ""}
                if shown:
                    text = who.act(s.ruff_winner,
                                   N_("you won the pot of {pot} showing {suit} (stake {stake})"),
                                   N_("{name} won the pot of {pot} showing {suit} (stake {stake})"),
                                   **fields)
                else:
                    text = who.act(s.ruff_winner, N_("you won the pot of {pot} (stake {stake})"),
                                   N_("{name} won the pot of {pot} (stake {stake})"), **fields)
            else:
                text = fit(head, moves or [_("nobody has spoken")], "", width - lw)
        else:
            text = _("after the auction")
        lines.append([*_label(N_("Ruff"), lw), ("", text)])
    if s.phase in (Phase.DECLARE, Phase.TRUMP, Phase.TIDDY, Phase.TRICKS,
                   Phase.HAND_OVER, Phase.SESSION_OVER):
        combos = []
        for seat, slots in s.declarations:
            c = _known(s, slots[0])
            rank = rank_plural(card_rank(c)) if c is not None else "?"
            kind = (N_("{name} mournival of {ranks}") if len(slots) == 4
                    else N_("{name} gleek of {ranks}"))
            combos.append(_(kind).format(name=who(seat), ranks=rank))
        text = fit("", combos or [_("none")], "", width - lw)
        lines.append([*_label(N_("Combos"), lw), ("", text)])
    if s.trump_named:
        trump = (_("Kiss, no trump") if s.trump is None
                 else f"{SUIT_SYMBOLS[s.trump]} {suit_name(s.trump)}")
        took = honours(s)
        names = "  ".join(
            f"{h} {who(seat) if seat is not None else '-'}"
            for h in honour_names(s.variant) for seat in (took[h],)
        )
        body = trump if s.trump is None else f"{trump}   {names}"
        lines.append(clip([*_label(N_("Trump"), lw), ("class:trump", body)], width))
    return [clip(line, width) for line in lines]


def _trick_lines(s: State, namer: Namer, width: int) -> list[Fragments]:
    lines: list[Fragments] = []
    who = _Short(namer)
    lw = _label_width(_TABLE_LABELS)
    n = s.variant.players
    if s.phase is Phase.TRICKS:
        number = _("Trick {number}").format(number=len(s.tricks) + 1)
        line: Fragments = [("class:label", number.ljust(lw + 1))]
        line.append(("", who.act(s.trick_leader, N_("you led: "), N_("{name} led: "))
                     if s.trick_plays else
                     who.act(s.trick_leader, N_("you to lead"), N_("{name} to lead"))))
        for i, slot in enumerate(s.trick_plays):
            seat = (s.trick_leader + i) % n
            c = _known(s, slot)
            line.append(("", f"  {who(seat)} "))
            line.append((_card_style(c), card_text(c)))
        lines.append(clip(line, width))
    if s.tricks:
        leader, plays, winner = s.tricks[-1]
        line = _label(N_("Last"), lw)
        for i, slot in enumerate(plays):
            seat = (leader + i) % n
            c = _known(s, slot)
            line.append(("", f"{who(seat)} "))
            line.append((_card_style(c), card_text(c)))
            line.append(("", "  "))
        line.append(("", f"→ {who(winner)}"))
        lines.append(clip(line, width))
    return lines


# ------------------------------------------------------------------ ledger


def ledger_pane(scene: Scene, width: int) -> list[Fragments]:
    """This hand's running ledger per phase and the session totals, in pence."""
    s = scene.state
    who = scene.who
    n = len(scene.names)
    label_w = 8 if width > LEDGER_WIDTH else 7
    col = max(4, (width - label_w) // max(1, n))
    head = pgettext("ledger", "pence").ljust(label_w) + "".join(
        who.short(i, col - 1).rjust(col) for i in range(n))
    lines: list[Fragments] = [clip([("class:label", head)], width)]
    if s is None:
        return _pad(lines, TABLE_ROWS)
    ledger = running_ledger(s)
    labels = {"tiddy": pgettext("ledger", "Tiddy"), "auction": pgettext("ledger", "auction"),
              "ruff": pgettext("ledger", "ruff"), "combinations": pgettext("ledger", "combos"),
              "tricks": pgettext("ledger", "tricks")}
    for phase in PHASE_NAMES:
        row = ledger.phases[phase] if ledger is not None else (0,) * n
        text = labels[phase].ljust(label_w) + "".join(_pence(v).rjust(col) for v in row)
        lines.append(clip([("", text)], width))
    net = ledger.net if ledger is not None else (0,) * n
    lines.append(clip([("class:label", pgettext("ledger", "hand").ljust(label_w)),
                       ("", "".join(_pence(v, True).rjust(col) for v in net))], width))
    # Finished hands are in the totals already; add the hand being played.
    live = s.phase not in (Phase.HAND_OVER, Phase.SESSION_OVER) and ledger is not None
    totals = [t + (net[i] if live else 0) for i, t in enumerate(s.totals)]
    lines.append(clip([("class:label", pgettext("ledger", "session").ljust(label_w)),
                       ("class:total", "".join(_pence(v, True).rjust(col) for v in totals))],
                      width))
    return _pad(lines, TABLE_ROWS)


# ------------------------------------------------------------------ hand


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
            for x in s.discards:
                c = _known(s, x)
                line += [(_card_style(c), card_text(c)), ("", " ")]
            if viewer is None and any(_known(s, x) is None for x in s.discards):
                # The replay's all-cards view: a discard never opened is no bug.
                note = "  " + _("?? never opened: the discards stay secret") + note
            line.append(("class:hint", note))
        else:
            said = who.act(s.talon_taker, N_("you discarded {count} face down"),
                           N_("{name} discarded {count} face down"), count=len(s.discards))
            if note and len(said) + len(note) + label > width:
                # The note is what the others need to read: the shorter sentence makes room.
                said = who.act(s.talon_taker, N_("you discarded {count}"),
                               N_("{name} discarded {count}"), count=len(s.discards))
            line.append(("", said))
            line.append(("class:hint", ";" + note[1:] if note else ""))
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


# ------------------------------------------------------------------ choice


def choice_pane(scene: Scene, width: int) -> list[Fragments]:
    """The prompt of the decision being made, and its menu (or the keys to use)."""
    chooser = scene.chooser
    if chooser is None:
        return _pad([clip([("class:status", scene.status)], width)], CHOICE_ROWS)
    typed = ("  " + _("[typed {typed}, Enter commits it]").format(typed=chooser.typed)
             if chooser.typed else "")
    below = ""
    if len(chooser.prompt) + 2 + len(typed) > width:
        # No room after a long prompt: the typed amount opens the menu line instead.
        typed, below = "", typed.strip()
    prompt = clip([("class:prompt", "▶ " + chooser.prompt + typed)], width)
    if below and not chooser.message and not chooser.cards:
        menu = menu_line(chooser, width - len(below) - 1)
        return [prompt, [("class:prompt", below + " "), *menu]]
    if chooser.message:
        return [prompt, clip([("class:error", "  " + chooser.message)], width)]
    if chooser.picks:
        hint = _("←/→ a card, Space/Enter mark it (X), t came from the talon, Esc unmark all")
        return [prompt, clip([("class:hint", "  " + hint)], width)]
    if chooser.cards:
        hint = _("←/→ choose a card (s h d c: suit), Enter to confirm, ? help")
        return [prompt, clip([("class:hint", "  " + hint)], width)]
    return [prompt, menu_line(chooser, width)]


def menu_line(chooser: Chooser, width: int) -> Fragments:
    """The options on one line, scrolled so the cursor stays in view."""
    labels = [o.label for o in chooser.options]
    cells = [f" {label} " for label in labels]
    start = 0
    # Scroll right until the cursor's cell fits, leaving room for the arrows.
    while sum(len(c) + 1 for c in cells[start: chooser.cursor + 1]) + 4 > width:
        start += 1
    line: Fragments = [("class:hint", "« " if start else "  ")]
    used = 2
    for i in range(start, len(cells)):
        cell = f"[{labels[i]}]" if i == chooser.cursor else cells[i]
        if used + len(cell) + 3 > width and i > chooser.cursor:
            line.append(("class:hint", " »"))
            break
        style = "class:cursor class:option" if i == chooser.cursor else "class:option"
        line.append((style, cell))
        line.append(("", " "))
        used += len(cell) + 1
    return clip(line, width)
