"""What just happened, in words: one sentence per engine event for the log pane.

``narrate`` is pure: it reads the event and the engine states before and
after it. It names only cards the ``after`` state knows, so narrating a
seat's own (masked) states never tells that seat a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.rules import (
    Bid,
    ClaimTiddy,
    Cut,
    Deal,
    Declare,
    Discard,
    EndDeclare,
    Event,
    NameTrump,
    NoTiddy,
    PassBid,
    PassRuff,
    Phase,
    Play,
    Reveal,
    See,
    ShowRuff,
    State,
    Vie,
    card_label,
    combination_value,
    ruff_pot,
    ruff_value,
)
from gleek_p2p.rules.cards import RANKS_PER_SUIT

from .words import (
    RANK_PLURALS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    Namer,
    card_worth,
    pence,
    tib_card,
    tom_card,
)

__all__ = ["hand_summary", "narrate"]

_OVER = (Phase.HAND_OVER, Phase.SESSION_OVER)


def narrate(
    event: Event,
    before: State,
    after: State,
    names: Sequence[str],
    you: int | None = None,
) -> str | None:
    """One sentence telling ``event`` (None for events not worth telling, like reveals).

    ``before``/``after`` are the engine states around the event; ``you`` is
    the seat reading the log (named "you").
    """
    who = Namer(names, you)
    text = _event_text(event, before, after, who)
    if text is None:
        return None
    if after.phase in _OVER and before.phase not in _OVER:
        text += " " + hand_summary(after, who)
    return text


def hand_summary(state: State, who: Namer) -> str:
    """The result of the hand just scored, and the end of the session if it is."""
    if not state.ledgers:
        return ""
    ledger = state.ledgers[-1]
    parts = ", ".join(f"{who(s)} {pence(v, signed=True)}" for s, v in enumerate(ledger.net))
    text = f"Hand {ledger.hand + 1} is over: {parts}."
    if state.phase is Phase.SESSION_OVER:
        totals = ", ".join(f"{who(s)} {pence(v, signed=True)}" for s, v in enumerate(state.totals))
        text += f" The session is over: {totals}."
    return text


def _card(state: State, slot: int) -> int | None:
    c = state.cards[slot] if 0 <= slot < len(state.cards) else -1
    return c if c >= 0 else None


def _event_text(event: Event, before: State, after: State, who: Namer) -> str | None:
    if isinstance(event, Reveal):
        return None
    if isinstance(event, Cut):
        cut = ", ".join(f"{who(s)} {card_label(c)}" for s, c in enumerate(event.cards))
        return f"The cut: {cut}. {who.says(after.dealer, 'deal')} first."
    if isinstance(event, Deal):
        eldest = (after.dealer + 1) % after.variant.players
        return (
            f"Hand {after.hand_no + 1} of {after.session_hands}: "
            f"{who.says(after.dealer, 'deal')}; {who(eldest)} {who.verb(eldest, 'speak')} first."
        )
    if isinstance(event, Bid | PassBid):
        return _auction(event, after, who)
    if isinstance(event, Discard):
        c = _card(after, event.slot)
        what = card_label(c) if c is not None else "a card"
        return (
            f"{who.says(event.seat, 'discard')} {what} "
            f"({len(after.discards)} of {after.variant.discard_count})."
        )
    if isinstance(event, Vie | See | PassRuff):
        return _ruff(event, before, after, who)
    if isinstance(event, ShowRuff):
        return _show(event, after, who)
    if isinstance(event, Declare):
        return _declare(event, after, who)
    if isinstance(event, EndDeclare):
        if any(seat == event.seat for seat, _ in after.declarations):
            return None
        return f"{who.says(event.seat, 'declare')} no combination."
    if isinstance(event, NameTrump):
        if event.suit is None:
            return f"{who.says(event.seat, 'call')} Kiss: no trump this hand."
        suit = event.suit
        return f"{who.says(event.seat, 'name')} {SUIT_NAMES[suit]} {SUIT_SYMBOLS[suit]} trump."
    if isinstance(event, ClaimTiddy):
        c = _card(after, event.slot)
        return (
            f"{who.says(event.seat, 'show')} Tiddy, the {card_label(c) if c is not None else '4'}, "
            f"and {who.verb(event.seat, 'take')} 2 pence from each."
        )
    if isinstance(event, NoTiddy):
        if after.phase is not Phase.TIDDY and after.tiddy_claimant < 0:
            return "Nobody claims Tiddy."
        return None
    if isinstance(event, Play):
        return _play(event, before, after, who)
    return None  # pragma: no cover - every event kind is handled above


def _auction(event: Bid | PassBid, after: State, who: Namer) -> str:
    if isinstance(event, Bid):
        text = f"{who.says(event.seat, 'bid')} {event.amount}."
    else:
        text = f"{who.says(event.seat, 'pass')}."
    if after.phase is not Phase.AUCTION:
        if after.talon_taker >= 0:
            text += (
                f" {who.says(after.talon_taker, 'take')} the talon for {after.high_bid} pence"
                f" and {who.verb(after.talon_taker, 'discard')} {after.variant.discard_count}."
            )
        else:
            text += " Nobody bids: the talon is dead."
    return text


def _ruff(event: Vie | See | PassRuff, before: State, after: State, who: Namer) -> str:
    if isinstance(event, Vie):
        text = f"{who.says(event.seat, 'vie')} {event.raise_by}: the stake is {after.ruff_stake}."
    elif isinstance(event, See):
        text = f"{who.says(event.seat, 'see')} the stake of {after.ruff_stake}."
    else:
        text = f"{who.says(event.seat, 'pass')} on the ruff."
    if after.phase is Phase.RUFF_SHOW:
        text += " Showdown: each seat still in shows a suit."
    elif before.phase is Phase.RUFF and after.phase is not Phase.RUFF and after.ruff_winner >= 0:
        text += (
            f" {who.says(after.ruff_winner, 'take')} the ruff pot of {ruff_pot(after)} pence."
        )
    return text


def _show(event: ShowRuff, after: State, who: Namer) -> str:
    cards = [c for x in event.slots if (c := _card(after, x)) is not None]
    value = ruff_value(cards)
    listed = " ".join(card_label(c) for c in cards)
    text = (
        f"{who.says(event.seat, 'show')} {SUIT_NAMES[event.suit]}: {listed}, worth {value}."
    )
    if after.phase is not Phase.RUFF_SHOW and after.ruff_winner >= 0:
        text += f" {who.says(after.ruff_winner, 'win')} the ruff pot of {ruff_pot(after)} pence."
    return text


def _declare(event: Declare, after: State, who: Namer) -> str:
    first = _card(after, event.slots[0])
    kind = "mournival" if len(event.slots) == 4 else "gleek"
    if first is None:
        return f"{who.says(event.seat, 'declare')} a {kind}."
    rank = first % RANKS_PER_SUIT
    value = combination_value(rank, len(event.slots))
    v = after.variant
    if not v.modern_combinations:
        worth = f"{value} pence from each"
    elif v.score_sheet_combinations:
        worth = f"{value} points on the score sheet"
    else:
        worth = f"{value} pence in all"
    return f"{who.says(event.seat, 'declare')} a {kind} of {RANK_PLURALS[rank]} ({worth})."


def _play(event: Play, before: State, after: State, who: Namer) -> str:
    c = _card(after, event.slot)
    text = f"{who.says(event.seat, 'play')} {card_label(c) if c is not None else 'a card'}."
    if len(after.tricks) > len(before.tricks):
        _leader, plays, winner = after.tricks[-1]
        cards = [after.cards[x] for x in plays]
        points = sum(card_worth(x, after) for x in cards if x >= 0)
        extra = []
        if tib_card(after) in cards:
            extra.append("Tib")
        if tom_card(after) in cards:
            extra.append("Tom")
        with_ = f", with {' and '.join(extra)}" if extra else ""
        text += (
            f" {who.says(winner, 'take')} trick {len(after.tricks)} "
            f"({points} points{with_})."
        )
    return text
