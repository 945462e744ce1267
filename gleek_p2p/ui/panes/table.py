"""The table pane: players, auction, ruff, combinations, trump and honours, the trick."""

from __future__ import annotations

from gleek_p2p.base.i18n import N_, _, ngettext, pgettext
from gleek_p2p.rules import Phase, State, card_rank, ruff_pot, to_act, tricks_won
from gleek_p2p.rules.honours import honour_names
from gleek_p2p.rules.limits import OPENING_BID
from gleek_p2p.tools.report import GLEEK_WORDS, MOURNIVAL_WORDS

from ..words import SUIT_SYMBOLS, Namer, card_text, honours, suit_name
from .lobby import lobby_lines
from .scene import (
    TABLE_ROWS,
    Fragments,
    Scene,
    _card_style,
    _known,
    _label,
    _label_width,
    _pad,
    clip,
    fit,
)


def _cards(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=f"{n:>2}")


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


# Each move a whole phrase per person ("vous voyez", "Mary voit"): a verb glued after
# a name agrees with nobody. A vie names no amount: the line's head says the stake and
# each player's row what it put (a number after the name read as her raise).
_RUFF_MOVES = {"vie": (N_("you vie"), N_("{name} vies")),
               "see": (N_("you see"), N_("{name} sees")),
               "pass": (N_("you pass"), N_("{name} passes"))}


def _bidding_lines(s: State, namer: Namer, width: int) -> list[Fragments]:
    lines: list[Fragments] = []
    who = _Short(namer)
    lw = _label_width(_TABLE_LABELS)
    v = s.variant
    if v.has_auction:
        calls = [f"{who(seat)} {amount}" if amount
                 else who.act(seat, *_RUFF_MOVES["pass"]) for seat, amount in s.bids]
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
            moves = [who.act(seat, *_RUFF_MOVES[kind], stake=stake)
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
                    if len(text) > width - lw:
                        # Cut at 80 columns ("(mise …"): the stake gives way, the suit stays.
                        text = who.act(s.ruff_winner,
                                       N_("you won the pot of {pot} showing {suit}"),
                                       N_("{name} won the pot of {pot} showing {suit}"),
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
            if c is not None:
                # The report's whole phrases: each language elides its own way ("gleek d'As").
                # Its holder after it, in brackets: "vous gleek de Neuf" read as a verb.
                words = MOURNIVAL_WORDS if len(slots) == 4 else GLEEK_WORDS
                combos.append(_("{combination} ({name})").format(
                    combination=_(words[card_rank(c)]), name=who(seat)))
                continue
            kind = (N_("mournival of {ranks} ({name})") if len(slots) == 4
                    else N_("gleek of {ranks} ({name})"))
            combos.append(_(kind).format(name=who(seat), ranks="?"))
        text = fit("", combos or [_("none")], "", width - lw)
        lines.append([*_label(N_("Combos"), lw), ("", text)])
    if s.trump_named:
        lines.append([*_label(N_("Trump"), lw), ("class:trump", _trump_text(s, namer, width - lw))])
    return [clip(line, width) for line in lines]


def _trump_text(s: State, namer: Namer, width: int) -> str:
    """The trump and who took each honour, in ``width`` columns.

    Beside the ledger at 80 columns the line has some 43: three names cut to 10
    overflowed it, and the cut fell on the last honour's taker ("Tiddy Ali…").
    Whose honour it is must stay, so the names shorten first (to 7), then the
    suit keeps only its symbol and the names get back what that frees.
    """
    if s.trump is None:
        return _("Kiss, no trump")
    took = honours(s)
    symbol = SUIT_SYMBOLS[s.trump]

    def text(suit: str, name_width: int) -> str:
        who = _Short(namer, name_width)
        return suit + "  " + "  ".join(
            f"{h} {who(seat) if seat is not None else '-'}"
            for h in honour_names(s.variant) for seat in (took[h],))

    tries = [*(text(f"{symbol} {suit_name(s.trump)}", n) for n in range(10, 6, -1)),
             *(text(symbol, n) for n in range(10, 2, -1))]
    return next((t for t in tries if len(t) <= width), tries[-1])


def _trick_lines(s: State, namer: Namer, width: int) -> list[Fragments]:
    """The trick under way and the last one, each on one line: with long names the
    names shorten (down to 4) before a card or the trick's taker would be cut."""
    for name_width in range(10, 3, -1):
        lines = _tricks_named(s, _Short(namer, name_width))
        if all(sum(len(f[1]) for f in line) <= width for line in lines):
            break
    return [clip(line, width) for line in lines]


def _tricks_named(s: State, who: _Short) -> list[Fragments]:
    lines: list[Fragments] = []
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
        lines.append(line)
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
        lines.append(line)
    return lines
