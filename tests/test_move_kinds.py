"""Each move kind owns its behaviour: one registration in rules, one entry per shell part.

The kinds are read from ``rules.MOVE_KINDS`` and the event declarations, never
listed here: a new kind that lacks its engine handler, its legal-move
generator, its narration, its choice label, the bots' policy for its phase or
the bot codec fails these tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.bots import heuristic, search
from gleek_p2p.bots.heuristic import HeuristicStrategy
from gleek_p2p.bots.json_codec import ACTION_FIELDS, action_from_json, action_to_json
from gleek_p2p.bots.search import Budget, SearchStrategy
from gleek_p2p.rules import (
    EVENT_TYPES,
    MOVE_KINDS,
    Deal,
    Event,
    MoveKind,
    Phase,
    State,
    Variant,
    apply,
    event_declarations,
    event_from_wire,
    event_to_wire,
    legal_actions,
    move_kind,
    new_session,
    phase_kinds,
    seat_view,
    to_act,
)
from gleek_p2p.rules.playout import FastHand
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals
from gleek_p2p.ui.choices import CHOICES, PROMPTS, Chooser, choice_of, made_at_once
from gleek_p2p.ui.narrate import NARRATIONS, narrate

NAMES = ("Anne", "Bob", "Carol")


def missing_parts(kinds: tuple[MoveKind, ...]) -> list[str]:
    """What each kind lacks of its behaviour, in words (empty when every kind is whole)."""
    out = []
    for k in kinds:
        name = k.cls.__name__
        if not callable(k.apply):
            out.append(f"{name}: no engine handler")
        if not callable(k.legal):
            out.append(f"{name}: no legal-move generator")
        if not k.phases:
            out.append(f"{name}: legal in no phase")
        if k.cls not in NARRATIONS:
            out.append(f"{name}: no narration")
        if k.cls not in CHOICES:
            out.append(f"{name}: no choice label")
        if getattr(k.cls, "KIND", None) not in ACTION_FIELDS:
            out.append(f"{name}: not in the bot codec")
        for phase in k.phases:
            if phase not in PROMPTS:
                out.append(f"{name}: no prompt for {phase.value}")
            if phase.value not in heuristic._POLICIES:
                out.append(f"{name}: the heuristic bot has no policy for {phase.value}")
            if phase.value not in search._POLICY or not (
                    phase.value in search._SEARCHED or phase.value in search._BY_RULE_OF_THUMB):
                out.append(f"{name}: the strong bot has no policy for {phase.value}")
    return out


def test_every_move_kind_has_every_part() -> None:
    assert MOVE_KINDS
    assert missing_parts(MOVE_KINDS) == []


@dataclass(frozen=True)
class _Nod:
    """A move kind nobody registered its behaviour for."""

    KIND: ClassVar[str] = "nod"
    seat: int


def _nods(s: State, seat: int) -> list[Any]:
    return [_Nod(seat)]


def test_a_kind_without_its_parts_is_found_out() -> None:
    nod = MoveKind(_Nod, (Phase.TRICKS,), lambda s, e: s, _nods)
    lacks = missing_parts((*MOVE_KINDS, nod))
    assert [x for x in lacks if x.startswith("_Nod")] == [
        "_Nod: no narration", "_Nod: no choice label", "_Nod: not in the bot codec"]
    odd = MoveKind(_Nod, (Phase.CUT,), lambda s, e: s, _nods)
    assert "_Nod: the heuristic bot has no policy for cut" in missing_parts((odd,))
    assert "_Nod: no prompt for cut" in missing_parts((odd,))


def test_every_action_declared_is_a_registered_kind_and_only_those() -> None:
    actions = {d.cls for d in event_declarations() if d.is_action}
    assert actions == {k.cls for k in MOVE_KINDS}
    assert len(MOVE_KINDS) == len(actions)  # one registration per kind
    for k in MOVE_KINDS:
        assert move_kind(k.cls) is k
        assert EVENT_TYPES[k.kind] is k.cls
        for phase in k.phases:
            assert k in phase_kinds(phase)


def test_every_event_kind_is_told_system_events_too() -> None:
    assert set(EVENT_TYPES.values()) <= set(NARRATIONS)


# ---------------------------------------------------------------- each kind at a real decision


def _witnesses() -> dict[type[Any], tuple[State, Event, State]]:
    """For every registered kind, a full-information decision where it is legal.

    Random play, so no position is written here; every kind must be reachable.
    """
    wanted = {k.cls for k in MOVE_KINDS}
    found: dict[type[Any], tuple[State, Event, State]] = {}
    for seed in range(40):
        rng = random.Random(seed)
        v = Variant()
        s = apply(new_session(v, 3), random_cut(v, rng))
        while s.phase is not Phase.SESSION_OVER and wanted - set(found):
            s = apply(s, Deal())
            for r in random_deal_reveals(v, rng):
                s = apply(s, r)
            while (seat := to_act(s)) is not None:
                legal = legal_actions(s, seat)
                for e in legal:
                    if type(e) not in found:
                        found[type(e)] = (s, e, apply(s, e))
                s = apply(s, rng.choice(legal))
        if not wanted - set(found):
            break
    assert wanted <= set(found), f"never legal in random play: {wanted - set(found)}"
    return found


WITNESSES = _witnesses()


@pytest.mark.parametrize("kind", MOVE_KINDS, ids=lambda k: k.kind)
def test_each_kind_is_generated_applied_told_offered_and_coded(kind: MoveKind) -> None:
    before, move, after = WITNESSES[kind.cls]
    seat = move.seat  # type: ignore[union-attr]
    assert before.phase in kind.phases
    assert move in kind.legal(before, seat)
    assert kind.apply(before, move) == apply(before, move) == after
    # Told to the seat that made it and to another seat, or deliberately silent.
    for you in (seat, (seat + 1) % 3):
        text = narrate(move, before, after, NAMES, you)
        assert text is None or text.strip()
    # Offered with a label at the keyboard.
    legal = legal_actions(before, seat)
    chooser = Chooser(legal, before, seat)
    assert move in [o.event for o in chooser.options]
    assert all(o.label for o in chooser.options)
    assert chooser.prompt
    assert made_at_once(legal) in (None, legal[0])
    assert choice_of(move) is CHOICES[kind.cls]
    # The wire and the bots' JSON both give the move back.
    assert event_from_wire(event_to_wire(move)) == move
    assert action_from_json(action_to_json(move, seat_view(before, seat))) == move


@pytest.mark.parametrize("kind", MOVE_KINDS, ids=lambda k: k.kind)
def test_both_bots_play_each_kinds_decision(kind: MoveKind) -> None:
    before, move, _after = WITNESSES[kind.cls]
    seat = move.seat  # type: ignore[union-attr]
    view = seat_view(before, seat)
    legal = list(view.legal)
    assert move in legal
    assert HeuristicStrategy(1).choose(view, legal) in legal
    strong = SearchStrategy(1, Budget(playouts=8, min_samples=1))
    assert strong.choose(view, legal) in legal
    # The playouts' own hand lists the same moves (the strong bot plays on it).
    assert FastHand.from_state(before).legal() == legal_actions(before, seat)


# ---------------------------------------------------------------- unknown kinds are loud


def test_an_unregistered_kind_fails_loudly_everywhere() -> None:
    before, move, after = WITNESSES[MOVE_KINDS[-1].cls]
    seat = move.seat  # type: ignore[union-attr]
    nod: Any = _Nod(seat)
    with pytest.raises(TypeError, match="no narration for _Nod"):
        narrate(nod, before, after, NAMES)
    with pytest.raises(ValueError, match="no choice registered"):
        Chooser([nod], before, seat)
    with pytest.raises(ValueError, match="no choice registered"):
        made_at_once([nod])
    with pytest.raises(ProtocolError, match="not a move a bot makes"):
        action_to_json(nod)
    view = seat_view(before, seat)._replace(phase="nodding")
    with pytest.raises(ValueError, match="no policy for nodding"):
        HeuristicStrategy(1).choose(view, [nod, nod])
    with pytest.raises(ValueError, match="no policy for nodding"):
        SearchStrategy(1).choose(view, [nod, nod])


def test_one_decision_offers_several_kinds_in_registration_order() -> None:
    # Wherever a phase registers several kinds, the legal list holds them in
    # MOVE_KINDS order, and the keyboard and the bots take the whole list.
    for before, move, _after in WITNESSES.values():
        seat = move.seat  # type: ignore[union-attr]
        legal = legal_actions(before, seat)
        order = [k.cls for k in phase_kinds(before.phase)]
        ranks = [order.index(type(e)) for e in legal]
        assert ranks == sorted(ranks)
        assert len(Chooser(legal, before, seat).options) == len(legal)
