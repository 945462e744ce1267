"""The shared set-ups of tests/prepared.py: built once, and no test reaches another's copy."""

from __future__ import annotations

from prepared import once


def test_a_set_up_is_built_once_per_arguments_and_each_caller_gets_its_own_copy() -> None:
    built: list[tuple[int, int]] = []

    @once
    def board(n: int, size: int = 3) -> list[list[int]]:
        built.append((n, size))
        return [[n] * size]

    first = board(1)
    first[0].append(99)  # a test changes what it got
    assert board(1) == [[1, 1, 1]]  # the next one does not see it
    assert board(1, 3) == board(1, size=3) == [[1, 1, 1]]  # the default is part of the key
    assert board(2) == [[2, 2, 2]]
    assert built == [(1, 3), (2, 3)]
