"""Words, tables and a chart for a verified session (``gleek verify``).

Pure formatting: it reads a ``VerifyReport`` and the engine states it
holds, and returns text or a JSON-ready dict. Amounts are halfpence in the
data and pence (with ½) on the screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gleek_p2p.log.keys import fingerprint
from gleek_p2p.rules import PHASE_NAMES, State, card_label, card_rank, card_suit
from gleek_p2p.table.verify import VerifyReport

SUITS = ("♠", "♥", "♦", "♣")
RANK_WORDS = ("Aces", "Kings", "Queens", "Jacks", "Tens", "Nines", "Eights", "Sevens",
              "Sixes", "Fives", "Fours")


def pence(halfpence: int, signed: bool = False) -> str:
    """13 -> '6½', -4 -> '-2'; with ``signed`` a '+' on gains."""
    sign = "-" if halfpence < 0 else ("+" if signed and halfpence > 0 else "")
    whole, half = divmod(abs(halfpence), 2)
    return f"{sign}{whole}{'½' if half else ''}"


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def describe_hand(state: State, names: Sequence[str]) -> list[str]:
    """A few lines telling what happened in one finished hand."""
    def who(seat: int) -> str:
        return _name(names, seat)

    lines: list[str] = []
    if state.bids:
        bids = ", ".join(
            f"{who(s)} {a if a else 'passes'}" for s, a in state.bids
        )
        result = (
            f"{who(state.talon_taker)} takes the talon at {state.high_bid}"
            if state.talon_taker >= 0
            else "all pass; the talon stays dead"
        )
        lines.append(f"auction: {bids}; {result}")
    if state.ruff_played or state.ruff_log:
        moves = ", ".join(
            f"{who(s)} {kind}" + (f" (stake {stake})" if kind.startswith("vie") else "")
            for s, kind, stake in state.ruff_log
        )
        shows = "; ".join(
            f"{who(s)} shows {SUITS[suit]} worth {_ruff_value(state, slots)}"
            for s, suit, slots in state.ruff_shows
        )
        winner = f" -> {who(state.ruff_winner)} takes the pot" if state.ruff_winner >= 0 else ""
        lines.append(f"ruff: {moves}{'; ' + shows if shows else ''}{winner}")
    if state.declarations:
        decl = ", ".join(
            f"{who(s)} {'mournival' if len(slots) == 4 else 'gleek'} of "
            f"{RANK_WORDS[card_rank(state.cards[slots[0]])]}"
            for s, slots in state.declarations
            if state.cards[slots[0]] >= 0
        )
        lines.append(f"combinations: {decl}")
    else:
        lines.append("combinations: none declared")
    if state.trump_named or state.trump is not None:
        trump = "Kiss (no trump)" if state.trump is None else SUITS[state.trump]
        tiddy = (
            f"; Tiddy claimed by {who(state.tiddy_claimant)}"
            if state.tiddy_claimant >= 0 else ""
        )
        lines.append(f"trump: {trump}{tiddy}")
    if state.tricks:
        won = [0] * len(names)
        for _leader, _played, taker in state.tricks:
            won[taker] += 1
        ledger = state.ledgers[-1] if state.ledgers else None
        points = (
            " - trick scores " + " / ".join(
                f"{who(s)} {p}" for s, p in enumerate(ledger.trick_points))
            if ledger else ""
        )
        lines.append("tricks won: " + ", ".join(
            f"{who(s)} {w}" for s, w in enumerate(won)) + points)
        honours = _honours(state, who)
        if honours:
            lines.append(f"honours: {honours}")
    return lines


def _ruff_value(state: State, slots: Sequence[int]) -> int:
    from gleek_p2p.rules import ruff_value

    return ruff_value([state.cards[s] for s in slots if state.cards[s] >= 0])


def _honours(state: State, who: Callable[[int], str]) -> str:
    if state.trump is None:
        return ""
    parts = []
    for _leader, slots, winner in state.tricks:
        for slot in slots:
            card = state.cards[slot]
            if card >= 0 and card_suit(card) == state.trump and card_rank(card) in (0, 3):
                title = "Tib" if card_rank(card) == 0 else "Tom"
                parts.append(f"{title} ({card_label(card)}) to {who(winner)}")
    return ", ".join(parts)


def ledger_rows(state: State, names: Sequence[str]) -> list[str]:
    """The hand's ledger: one row per phase and the net, a column per seat."""
    ledger = state.ledgers[-1]
    width = max(8, *(len(n) for n in names))
    head = " " * 14 + "".join(f"{n:>{width + 1}}" for n in names)
    rows = [head]

    def row(label: str, amounts: Sequence[int]) -> str:
        return f"  {label:<12}" + "".join(f"{pence(a, True):>{width + 1}}" for a in amounts)

    rows.extend(row(p, ledger.phases[p]) for p in PHASE_NAMES if any(ledger.phases[p]))
    rows.append(row("net", ledger.net))
    return rows


def running_totals(report: VerifyReport) -> list[tuple[int, ...]]:
    """Each seat's total after every hand, in halfpence."""
    out: list[tuple[int, ...]] = []
    for record in report.hands:
        out.append(record.state.totals)
    return out


def chart(series: Sequence[Sequence[int]], names: Sequence[str], height: int = 10) -> list[str]:
    """A text chart of running totals: one column per hand, one letter per player."""
    if not series:
        return []
    marks = [(n[:1].upper() or "?") for n in names]
    if len(set(marks)) < len(marks):
        marks = [str(i) for i in range(len(names))]
    values = [v for row in series for v in row] + [0]
    low, high = min(values), max(values)
    span = max(1, high - low)
    grid = [[" "] * len(series) for _ in range(height)]
    for x, row in enumerate(series):
        for seat, value in enumerate(row):
            y = round((value - low) * (height - 1) / span)
            cell = grid[height - 1 - y]
            cell[x] = marks[seat] if cell[x] == " " else "*"
    label_width = max(len(pence(high)), len(pence(low))) + 1
    lines = []
    for i, cells in enumerate(grid):
        labelled = i in (0, height // 2, height - 1)
        label = pence(round(high - i * span / (height - 1))) if labelled else ""
        lines.append(f"{label:>{label_width}} |" + "  ".join(cells))
    lines.append(" " * label_width + " +" + "-" * (3 * len(series) - 1))
    ticks = "  ".join(str((i + 1) % 10) for i in range(len(series)))
    lines.append(" " * label_width + "  " + ticks)
    legend = ", ".join(f"{m} = {n}" for m, n in zip(marks, names, strict=True))
    lines.append(f"{' ' * label_width}  hands; {legend}; * = several")
    return lines


#: How each deck protocol version's deal was checked, in the report's words.
DECK_CHECKS = {
    1: "deal audited after each hand (deck protocol v1: every seed revealed, discards shown)",
    2: "deal proved pass by pass (deck protocol v2: every shuffle, lock and key proved; "
       "discards never shown)",
}


def text_report(report: VerifyReport) -> str:
    """The full human report: per hand, totals, verdict, chart."""
    if not report.readable:
        return f"Not a readable session log: {report.error}\nVerdict: UNREADABLE"
    assert report.roster is not None
    names = report.roster.names
    out = [
        f"Session of {report.roster.hands} hands, {len(names)} players, "
        f"{report.events} events checked.",
    ]
    for seat, (name, public) in enumerate(zip(names, report.roster.publics, strict=True)):
        out.append(f"  seat {seat}: {name}  key {fingerprint(public)}")
    for record in report.hands:
        state = record.state
        out.append("")
        out.append(f"Hand {record.number + 1} - dealer {_name(names, state.dealer)} "
                   f"(events {record.first_seq}-{record.last_seq})")
        out.extend("  " + line for line in describe_hand(state, names))
        out.append("  " + DECK_CHECKS.get(record.deck_version, "deal: unknown deck protocol"))
        out.extend(ledger_rows(state, names))
    if report.hands:
        totals = report.hands[-1].state.totals
        out.append("")
        out.append("Totals: " + ", ".join(
            f"{n} {pence(t, True)}" for n, t in zip(names, totals, strict=True)) + " (pence)")
    out.append("")
    if report.fair:
        out.append("Verdict: FAIR. Every signature, every shuffle and key, and every move "
                   "checks out; the session is complete.")
    else:
        out.append("Verdict: NOT FAIR OR NOT COMPLETE.")
        for violation in report.violations:
            out.append("  - " + violation.sentence(names))
    series = running_totals(report)
    if series:
        out.append("")
        out.append("Running totals (pence):")
        out.extend(chart(series, names))
    return "\n".join(out)


def json_report(report: VerifyReport) -> dict[str, Any]:
    """A JSON-ready summary; amounts in halfpence."""
    data: dict[str, Any] = {
        "unit": "halfpence",
        "readable": report.readable,
        "complete": report.complete,
        "fair": report.fair,
        "verdict": "unreadable" if not report.readable else ("fair" if report.fair else "unfair"),
        "events": report.events,
        "violations": [
            {
                "event": v.seq,
                "seat": v.seat,
                "reason": v.reason,
                "proven": v.proven,
                "evidence": [e.hex() for e in v.evidence],
            }
            for v in report.violations
        ],
    }
    if not report.readable:
        data["error"] = report.error
        return data
    assert report.roster is not None
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
