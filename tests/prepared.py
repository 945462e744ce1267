"""Deterministic set-ups that many tests start from, built once per run.

A set-up here is a pure function of its arguments (seeds in, tables or logs
out), so building it again for every test proves nothing more: the suite
paid a few mental-poker passes per test for the same bytes. Each call still
gets its own deep copy, so a test that mutates what it got cannot reach
another test.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from gleek_p2p.cli.commands import verify_file as _verify_file  # before any test patches it
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import VerifyReport
from gleek_p2p.tools.selfplay import make_seats

P = ParamSpec("P")
T = TypeVar("T")


def once(build: Callable[P, T]) -> Callable[P, T]:
    """Build on the first call with these arguments; hand out a deep copy every time."""
    cache: dict[str, Any] = {}
    signature = inspect.signature(build)

    @functools.wraps(build)
    def get(*args: P.args, **kwargs: P.kwargs) -> T:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()  # f(x) and f(x, default) are one set-up
        key = repr(bound.arguments)  # lists of cards are arguments too
        if key not in cache:
            cache[key] = build(*args, **kwargs)
        return copy.deepcopy(cache[key])  # type: ignore[no-any-return]

    return get


@once
def started(seed: bytes) -> list[Table]:
    """Three seats of a 1-hand session, 12 events in (the shuffle under way)."""
    tables = make_seats(VARIANTS["standard"], 1, seed, ["Anne", "Ben", "Cat"])
    for _ in range(12):
        auto_step(tables)
    return tables


def auto_step(tables: list[Table]) -> None:
    """The next event no player decides (the cut, a deck pass), signed by its seat and
    taken by every seat."""
    exp = tables[0].expected()
    assert exp is not None
    envelope = tables[exp.seat].auto_event()
    assert envelope is not None
    for table in tables:
        table.receive(envelope)


SESSIONS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"


def verified(name: str) -> VerifyReport:
    """``gleek verify``'s report of the vector log ``protocol/vectors/sessions/<name>.gleeklog``.

    A report holds facts, not words (each screen words it in its reader's
    language), so one verification serves every language; it is the one
    tests/vector_reports.py shares with the vector tests.
    """
    from vector_reports import vector_report

    return vector_report(f"{name}.gleeklog")


_reports: dict[tuple[str, bytes], VerifyReport] = {}


def verify_file_once(path: Path, show_progress: bool = False) -> VerifyReport:
    """``verify_file`` run once per log file and content.

    For the tests that word the same logs in every language (``gleek results``,
    the shell's verdict): the report holds facts, its words are made when it is
    read. Every caller gets the same report (read-only):
    nothing that reads a report changes it.
    """
    key = (str(Path(path).resolve()), hashlib.sha256(Path(path).read_bytes()).digest())
    if key not in _reports:
        _reports[key] = _verify_file(path, show_progress)
    return _reports[key]


@once
def seated(seed: bytes, names: tuple[str, ...] = ("you", "Bob", "Carol"), events: int = 12,
           due: int | None = None) -> list[Table]:
    """Three seats of a 1-hand standard session called ``names``, ``events`` events in
    (the roster, the cut, the shuffle under way); with ``due``, played on until that
    seat is the one to sign next (a fresh copy for each call)."""
    tables = make_seats(VARIANTS["standard"], 1, seed, list(names))
    while True:
        exp = tables[0].expected()
        assert exp is not None
        if len(tables[0].encoded) >= events and due in (None, exp.seat):
            return tables
        auto_step(tables)


def verify_each_log_once(patch: Any) -> None:
    """While ``patch`` (a ``pytest.MonkeyPatch``) lasts, ``gleek results`` verifies each
    log (path and bytes) once (``verify_file_once``): for the tests that read the same
    logs again in every language, the report holding no words."""
    from gleek_p2p.cli import commands

    patch.setattr(commands, "verify_file", verify_file_once)


def aces_to_declare() -> tuple[Any, tuple[int, ...]]:
    """A hand at its declarations where seat 1 holds three aces (every bid and ruff
    passed), and the deck positions of those aces: ``Declare(1, aces)`` is a gleek
    of aces."""
    from gleek_p2p.rules import Cut, Deal, PassBid, PassRuff, Variant, apply, card, new_session
    from gleek_p2p.rules.simulate import reveals_for

    variant = Variant()
    s = apply(apply(new_session(variant, 1), Cut((0, 11, 22))), Deal())
    for r in reveals_for(variant, 0, {1: [card(0, 0), card(1, 0), card(2, 0)]}):
        s = apply(s, r)
    for seat in (1, 2, 0):
        s = apply(s, PassBid(seat))
    s = apply(apply(s, PassRuff(1)), PassRuff(2))
    return s, tuple(sorted(s.where[card(suit, 0)] for suit in range(3)))
