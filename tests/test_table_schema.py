"""protocol/events.json describes every event the code writes, and nothing looser."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.cli.commands import read_log
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.rules import ACTION_FIELDS, event_declarations, event_from_wire
from gleek_p2p.table.schema import render

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "protocol" / "events.json").read_text())


def _chars(ranges: str) -> set[str]:
    """The characters of a schema's 'chars' ('a-z0-9.-': ranges, and single characters)."""
    out, i = set(), 0
    while i < len(ranges):
        if i + 2 < len(ranges) and ranges[i + 1] == "-":
            out.update(chr(c) for c in range(ord(ranges[i]), ord(ranges[i + 2]) + 1))
            i += 3
        else:
            out.add(ranges[i])
            i += 1
    return out


def conforms(value: Any, spec: dict[str, Any]) -> bool:
    if "ref" in spec:
        return conforms(value, SCHEMA["types"][spec["ref"]])
    kind = spec["type"]
    if kind == "const":
        return bool(value == spec["value"])
    if kind == "int":
        return (type(value) is int and spec.get("min", -(2**63)) <= value
                <= spec.get("max", 2**63 - 1))
    if kind == "bytes":
        if not isinstance(value, bytes):
            return False
        if "size" in spec:
            return len(value) == spec["size"]
        return bool(spec.get("min", 0) <= len(value) <= spec.get("max", 1 << 20))
    if kind == "str":
        return isinstance(value, str) and (
            spec.get("min", 0) <= len(value) <= spec.get("max", 1 << 20)) and (
            "chars" not in spec or set(value) <= _chars(spec["chars"])) and (
            value not in spec.get("except", ()))
    if kind == "list":
        if not isinstance(value, list) or not spec.get("min", 0) <= len(value) <= spec.get(
                "max", 1 << 20):
            return False
        if spec.get("ascending") and any(a >= b for a, b in itertools.pairwise(value)):
            return False
        if spec.get("ascending_first") and any(
                not isinstance(a, list) or not isinstance(b, list) or not a or not b
                or a[0] >= b[0] for a, b in itertools.pairwise(value)):
            return False
        return "items" not in spec or all(conforms(v, spec["items"]) for v in value)
    if kind == "tuple":
        items = spec["items"]
        return (isinstance(value, list) and len(value) == len(items)
                and all(conforms(v, s) for v, s in zip(value, items, strict=True)))
    if kind == "oneof":
        return any(conforms(value, option) for option in spec["options"])
    raise AssertionError(f"unknown schema type {kind}")


LOGS = sorted((ROOT / "protocol" / "vectors" / "sessions").glob("valid-*.gleeklog")) + sorted(
    (ROOT / "protocol" / "vectors" / "sessions").glob("wrong-deal-key.gleeklog"))


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_every_event_conforms_to_the_schema(path: Path) -> None:
    records, _ = read_log(path)
    kinds = set()
    for record in records:
        envelope = decode_envelope(record)
        fields = [*envelope.unsigned_fields(), envelope.signature]
        assert conforms(fields, SCHEMA["envelope"]), envelope.seq
        spec = SCHEMA["kinds"][envelope.kind]
        assert conforms(envelope.body, spec["body"]), (envelope.seq, envelope.kind)
        kinds.add(envelope.kind)
    assert {"roster", "cut-commit", "cut-reveal", "commit", "shuffle", "lock", "keys"} <= kinds
    assert ("act" in kinds) == path.name.startswith("valid")


def test_the_schema_rejects_what_the_code_rejects() -> None:
    bid = SCHEMA["types"]["action"]
    assert conforms(["bid", 1, 13], bid)
    assert not conforms(["bid", 1, 0], bid) and not conforms(["bid", 1, 1000], bid)
    assert conforms(["bid", 1, 448], bid)
    assert not conforms(["declare", 0, [5, 3, 4]], bid)  # not ascending
    assert not conforms(["play", 3, 1], bid)  # no seat 3


def test_the_committed_schema_is_the_generated_one() -> None:
    # Regenerate with: python -m gleek_p2p.table.schema protocol/events.json
    assert (ROOT / "protocol" / "events.json").read_text() == render()


def test_every_declared_move_is_in_the_schema_with_its_fields() -> None:
    options = {o["items"][0]["value"]: o for o in SCHEMA["types"]["action"]["options"]}
    assert set(options) == set(ACTION_FIELDS)
    for kind, names in ACTION_FIELDS.items():
        assert tuple(i["name"] for i in options[kind]["items"][1:]) == names


@pytest.mark.parametrize("declaration", [d for d in event_declarations() if d.is_action],
                         ids=lambda d: d.kind)
def test_schema_and_decoder_agree_at_every_bound(declaration: Any) -> None:
    """Each field just inside and just outside its declared range: both say the same."""
    spec = SCHEMA["types"]["action"]
    base: list[Any] = [declaration.kind]
    for _, field in declaration.fields:
        if field.type == "list":
            base.append(list(range(field.min_len)))
        else:
            base.append(field.lo if field.none_wire is None else field.none_wire)
    for i, (_, field) in enumerate(declaration.fields, start=1):
        probes: list[Any]
        if field.type == "list":
            probes = [list(range(field.min_len)), list(range(field.max_len)),
                      list(range(field.min_len - 1)), list(range(field.max_len + 1)),
                      [field.hi, field.lo, *range(1, field.min_len - 1)]]
        else:
            probes = [field.lo, field.hi, field.lo - 1, field.hi + 1, True]
        for probe in probes:
            wire = [*base[:i], probe, *base[i + 1:]]
            try:
                event_from_wire(wire)
                decoded = True
            except ProtocolError:
                decoded = False
            assert conforms(wire, spec) == decoded, wire


def test_the_moves_that_show_slots_are_marked_in_the_schema() -> None:
    options = {o["items"][0]["value"]: o for o in SCHEMA["types"]["action"]["options"]}
    shown = {(kind, item["name"]) for kind, o in options.items() for item in o["items"][1:]
             if item.get("shown")}
    assert shown == {("play", "slot"), ("claim_tiddy", "slot"), ("show_ruff", "slots"),
                     ("declare", "slots")}


def test_an_abort_for_a_local_failure_conforms_and_blames_nobody() -> None:
    from gleek_p2p.table import events as ev

    spec = SCHEMA["kinds"]["abort"]["body"]
    failed = ev.Abort(None, "Anne's peer failed", (), ev.LOCAL_FAILURE).to_body()
    assert conforms(failed, spec) and ev.Abort.from_body(failed).cause == ev.LOCAL_FAILURE
    assert conforms(ev.Abort(1, "timeout").to_body(), spec)
    blaming = [1, "x", [], ev.LOCAL_FAILURE]
    assert not conforms(blaming, spec)
    with pytest.raises(ProtocolError):
        ev.Abort.from_body(blaming)


_ABORT_BODIES = [
    # (body, taken): the schema and Abort.from_body must agree on each.
    ([1, "x", []], True),
    ([-1, "x", [], "local-failure"], True),
    ([-1, "x", [], "left"], True),
    ([-1, "x", [b"e"], "forked"], True),
    ([-1, "x", [b"e"], "peer-failed"], True),
    ([2, "x", [], "timeout"], True),
    ([1, "x", [b"e"], "deck.key-commitment"], True),
    ([-1, "x", [], "leave-unlogged", 2], True),
    # a later version's code: taken, whoever it blames, with or without a seat
    ([-1, "x", [], "some-other-cause"], True),
    ([1, "x", [], "later.code-9"], True),
    ([1, "x", [], "later", 0], True),
    # a known code with the wrong blame or fifth item
    ([1, "x", [], "forked"], False),
    ([-1, "x", [], "timeout"], False),
    ([-1, "x", [], "deck.key-commitment"], False),
    ([-1, "x", [], "leave-unlogged"], False),
    ([1, "x", [], "leave-unlogged", 0], False),
    ([2, "x", [], "timeout", 1], False),
    ([-1, "x", [], "local-failure", 0], False),
    # a malformed code: huge, empty, not a word, not a str; a bad fifth item
    ([-1, "x", [], "a" * 41], False),
    ([-1, "x", [], "a" * 40], True),
    ([-1, "x", [], ""], False),
    ([-1, "x", [], "Timeout"], False),
    ([-1, "x", [], "time out"], False),
    ([-1, "x", [], "\u202etimeout"], False),
    ([-1, "x", [], 7], False),
    ([-1, "x", [], None], False),
    ([-1, "x", [], b"timeout"], False),
    ([-1, "x", [], "later", -1], False),
    ([-1, "x", [], "later", "0"], False),
    ([-1, "x", [], "leave-unlogged", 0, 0], False),
]


@pytest.mark.parametrize("body,taken", _ABORT_BODIES, ids=[repr(b[3:]) if len(b) > 3 else
                                                           "three" for b, _ in _ABORT_BODIES])
def test_the_schema_and_the_table_agree_on_every_abort_code(body: list[Any], taken: bool) -> None:
    from gleek_p2p.table import events as ev

    spec = SCHEMA["kinds"]["abort"]["body"]
    assert conforms(body, spec) == taken
    if taken:
        abort = ev.Abort.from_body(body)
        assert abort.to_body() == body  # nothing lost, and encoded as it came
    else:
        with pytest.raises(ProtocolError) as caught:
            ev.Abort.from_body(body)
        assert caught.value.code is ViolationCode.FORM_ABORT
