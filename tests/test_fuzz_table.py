"""Fuzzing the table with validly signed events whose bodies are nonsense.

Signatures stop strangers, not players: a seat can sign anything. So each
input here is an envelope at the right position, chained to the right head
and signed with a real seat key, carrying a random or mutated body (and
sometimes another kind). The table must judge the body itself: accept it
only if it is a legal event, otherwise raise ``ProtocolError`` or
``Cheating`` with a sentence and stay exactly as it was, so the genuine
event is still accepted afterwards.
"""

from __future__ import annotations

import copy
import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import Cheating, ProtocolError
from gleek_p2p.log.envelope import Envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Table
from gleek_p2p.tools.selfplay import _derive

EXAMPLES = int(os.environ.get("GLEEK_FUZZ_EXAMPLES", "200"))
"""Examples per property; raise it for a deeper run (e.g. 20000)."""
SEED = b"fuzz-table"
VARIANT = VARIANTS["standard"]
VIEWPOINTS = (None, 0, 1, 2)


def _load_targets() -> Any:
    """fuzz/targets.py, which builds the snapshotted session for the harnesses too."""
    path = Path(__file__).resolve().parent.parent / "fuzz" / "targets.py"
    spec = importlib.util.spec_from_file_location("gleek_fuzz_targets", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def session() -> tuple[list[Envelope], dict[tuple[int, int | None], Table]]:
    result: tuple[list[Envelope], dict[tuple[int, int | None], Table]]
    result = _load_targets().play_one_hand(SEED, 1)
    return result


IDENTITIES = [Identity.generate(_derive(SEED, "identity", s)) for s in range(3)]

leaves = (
    st.none() | st.booleans() | st.integers(-3, 60) | st.integers(-(2**63), 2**63 - 1)
    | st.binary(min_size=32, max_size=32) | st.binary(max_size=70)
    | st.sampled_from(["bid", "play", "pass", "discard", "buy", "vie", "keys", "commit", ""])
    | st.text(max_size=12)
)
values = st.recursive(leaves, lambda children: st.lists(children, max_size=8), max_leaves=40)


def paths(value: Any, here: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Every position inside a nested list (the root included)."""
    out = [here]
    if isinstance(value, list):
        for i, child in enumerate(value):
            out += paths(child, (*here, i))
    return out


def mutate_body(body: list[Any], draw: st.DrawFn) -> list[Any]:
    """One to three structural edits of a genuine body: the nastiest near-misses."""
    body = copy.deepcopy(body)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        where = draw(st.sampled_from(paths(body)))
        if not where:
            op = draw(st.sampled_from(["append", "pop", "wrap"]))
            if op == "append":
                body.append(draw(values))
            elif op == "pop" and body:
                body.pop(draw(st.integers(0, len(body) - 1)))
            else:
                body = [body]
            continue
        parent = body
        for index in where[:-1]:
            parent = parent[index]
        index = where[-1]
        old = parent[index]
        op = draw(st.sampled_from(["replace", "nudge", "nudge", "nudge", "delete", "duplicate",
                                   "insert"]))
        if op == "replace":
            parent[index] = draw(values)
        elif op == "nudge":
            if isinstance(old, bool):
                parent[index] = not old
            elif isinstance(old, int):
                parent[index] = old + draw(st.sampled_from([-1, 1, 44, -44]))
            elif isinstance(old, bytes) and old:
                flipped = bytearray(old)
                flipped[draw(st.integers(0, len(old) - 1))] ^= 1 << draw(st.integers(0, 7))
                parent[index] = bytes(flipped)
            elif isinstance(old, list) and len(old) > 1:
                i, j = draw(st.permutations(range(len(old))))[:2]
                old[i], old[j] = old[j], old[i]
            else:
                parent[index] = draw(values)
        elif op == "delete":
            del parent[index]
        elif op == "duplicate":
            parent.insert(index, copy.deepcopy(old))
        else:
            parent.insert(index, draw(values))
    return body


def fingerprint(table: Table) -> tuple[Any, ...]:
    return (
        len(table.envelopes), len(table.encoded), table.head, table.stage, table.state,
        table.verdict, len(table.hands), table.expected(), table.audit_failure,
    )


@st.composite
def hostile_events(draw: st.DrawFn) -> tuple[int, int | None, int, str, list[Any]]:
    log, _ = session()
    position = draw(st.integers(0, len(log)))
    viewpoint = draw(st.sampled_from(VIEWPOINTS))
    genuine = log[min(position, len(log) - 1)]
    signer = draw(st.sampled_from([genuine.seat] * 8 + [0, 1, 2]))
    kind = draw(st.sampled_from([genuine.kind] * 30 + [*ev.KINDS, "move", "κ"]))
    if draw(st.integers(0, 3)):
        body = mutate_body(genuine.body, draw)
    else:
        body = draw(st.lists(values, max_size=6))
    return position, viewpoint, signer, kind, body


@given(hostile_events())
@settings(max_examples=EXAMPLES, deadline=2000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
def test_signed_nonsense_is_judged_not_crashed_on(
    case: tuple[int, int | None, int, str, list[Any]],
) -> None:
    position, viewpoint, signer, kind, body = case
    log, snapshots = session()
    table = copy.deepcopy(snapshots[(position, viewpoint)])
    before = fingerprint(table)
    try:
        envelope = sign_envelope(IDENTITIES[signer], table.session_id, position, table.head,
                                 signer, kind, body)
    except ProtocolError:
        reject()  # a body no encoder would sign (too deep, an int past 64 bits)
    try:
        table.receive(envelope)
    except (ProtocolError, Cheating) as exc:
        assert str(exc).strip()
        if isinstance(exc, Cheating):
            assert exc.seat == signer  # only the author of a signed event can be blamed
        assert fingerprint(table) == before
        if position < len(log):
            # Nothing was lost: the genuine event is still welcome.
            table.receive(log[position])
            assert table.envelopes[-1] == log[position]
        return
    # Accepted: it must have been a legal event, taken at its position.
    assert position < len(log)
    assert len(table.envelopes) == position + 1 and table.envelopes[-1] == envelope


def test_a_late_event_after_the_end_is_refused_cleanly() -> None:
    log, snapshots = session()
    table = copy.deepcopy(snapshots[(len(log), None)])
    assert table.finished
    last = log[-1]
    envelope = sign_envelope(IDENTITIES[0], table.session_id, len(log), table.head, 0,
                             ev.ACT, last.body)
    before = fingerprint(table)
    try:
        table.receive(envelope)
    except ProtocolError as exc:
        assert "over" in str(exc)
    else:
        raise AssertionError("an event after the end was accepted")
    assert fingerprint(table) == before
