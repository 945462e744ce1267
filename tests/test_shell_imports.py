"""The shell's imports go one way: the command line on top, the session code below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gleek_p2p.base.errors import GleekError
from gleek_p2p.cli.gleek import build_parser
from gleek_p2p.cli.peer import peer_config
from gleek_p2p.session.config import PeerConfig

PACKAGE = Path(__file__).resolve().parent.parent / "gleek_p2p"
COMMAND_LINE = {"argparse", "gleek_p2p.cli.gleek", "gleek_p2p.cli.commands", "gleek_p2p.cli.peer"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", ["session/play.py", "session/config.py", "bots/__init__.py",
                                    "session/peer.py", "cli/commands.py"])
def test_below_the_command_line_nothing_imports_it(module: str) -> None:
    found = _imports(PACKAGE / module) & COMMAND_LINE
    if module == "cli/commands.py":  # the verify/selfplay commands read argparse, never the peers'
        found -= {"argparse"}
    assert not found


def test_the_flags_become_one_config() -> None:
    args = build_parser().parse_args([
        "bot", "--name", "Ann", "--table", "t", "--hands", "3", "--no-mdns",
        "--peer", "127.0.0.1:5000", "--listen", "127.0.0.1:0", "--timeout", "30",
        "--data-dir", "/tmp/x"])
    config = peer_config(args)
    assert config == PeerConfig(name="Ann", table="t", hands=3, variant="standard",
                                listen="127.0.0.1:0", peers=("127.0.0.1:5000",), mdns=False,
                                timeout=30.0, data_dir=Path("/tmp/x"))


def test_an_unknown_variant_is_a_sentence() -> None:
    with pytest.raises(GleekError, match="unknown variant"):
        PeerConfig(name="Ann", variant="nonesuch").rules()
