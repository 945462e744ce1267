"""Which table settings the command line gave, as opposed to their defaults.

A default and a value typed equal to it look alike once parsed; a table
picked from the LAN (``cli.peer.choose_table``) must tell them apart: only
what the person asked for is worth a word when the table plays otherwise.
"""

from __future__ import annotations

import argparse

__all__ = ["GIVEN", "Given", "given"]

GIVEN = "given_on_command_line"
"""The namespace attribute naming the table settings the command line gave (``given``)."""


class Given(argparse.Action):
    """Stores the value, as ``store`` does, and notes that the command line gave it."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, GIVEN, given(namespace) | {self.dest})


def given(args: argparse.Namespace) -> frozenset[str]:
    """The table settings (``hands``, ``variant``) the command line gave, not defaulted."""
    return frozenset(getattr(args, GIVEN, ()))
