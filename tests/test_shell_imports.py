"""The import graph of the whole package: the rooms' order, and no cycle.

Lazy imports inside functions and ``TYPE_CHECKING`` imports count like the
others (``import_graph`` reads them with ``ast``): a cycle that only type
checking or a late call closes is still a cycle for the reader, and an upward
lazy import still ties a room to the ones above it. The order is
``import_graph.ORDER`` (README, "How it is built"); no edge is exempt.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from import_graph import ORDER, cycles, import_graph, problems, room_of

from gleek_p2p.base.errors import GleekError
from gleek_p2p.cli.gleek import build_parser
from gleek_p2p.cli.peer import peer_config
from gleek_p2p.session.config import PeerConfig

PACKAGE = Path(__file__).resolve().parent.parent / "gleek_p2p"


def test_the_package_keeps_the_rooms_order_and_has_no_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert {room_of(m) for m in graph} == {"", "__main__", *ORDER}  # it read the real package
    assert problems(graph, ORDER) == []


@pytest.mark.parametrize("room", ["session", "bots"])
def test_the_peer_and_the_bots_never_read_the_command_line(room: str) -> None:
    # they take a PeerConfig; only the commands (and the offline tools' own
    # entry points, and the replay's) read argparse
    for path in sorted((PACKAGE / room).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                assert "argparse" not in {a.name for a in node.names}, path
            elif isinstance(node, ast.ImportFrom):
                assert node.module != "argparse", path


def test_the_readme_shows_the_same_order() -> None:
    readme = (PACKAGE.parent / "README.md").read_text()
    assert " < ".join(ORDER) in readme


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A throwaway package ``gleek_p2p`` with these files (each room gets an ``__init__``)."""
    root = tmp_path / "gleek_p2p"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    return root


def test_a_new_upward_import_fails_even_lazy(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "base/errors.py": "",
        "rules/engine.py": "from gleek_p2p.base.errors import *\n",
        "table/session.py": "def late():\n    from gleek_p2p.ui import words\n",
        "ui/words.py": "from ..rules import engine\n",
    })
    assert problems(import_graph(root), ORDER) == [
        "upward import: gleek_p2p.table.session -> gleek_p2p.ui.words"]


def test_an_upward_import_under_type_checking_or_by_name_fails(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "deck/protocol.py": ("from typing import TYPE_CHECKING\n"
                             "if TYPE_CHECKING:\n    from gleek_p2p.table.session import T\n"),
        "log/store.py": "import importlib\nimportlib.import_module('gleek_p2p.net.framing')\n",
        "net/framing.py": "", "table/session.py": "",
    })
    assert problems(import_graph(root), ORDER) == [
        "upward import: gleek_p2p.deck.protocol -> gleek_p2p.table.session",
        "upward import: gleek_p2p.log.store -> gleek_p2p.net.framing"]


def test_a_cycle_inside_a_room_fails(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "rules/cards.py": ("from typing import TYPE_CHECKING\n"
                           "if TYPE_CHECKING:\n    from .variant import Variant\n"),
        "rules/variant.py": "from gleek_p2p.rules.cards import Rank\n",
        "rules/engine.py": "from gleek_p2p.rules import cards\n",
    })
    assert problems(import_graph(root), ORDER) == [
        "module cycle: gleek_p2p.rules.cards <-> gleek_p2p.rules.variant"]


def test_a_cycle_between_rooms_fails_twice(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "session/peer.py": "from gleek_p2p.bots.strategy import Strategy\n",
        "bots/__init__.py": "def run_peer():\n    from gleek_p2p.session import peer\n",
        "bots/strategy.py": "",
    })
    assert problems(import_graph(root), ORDER) == [
        "upward import: gleek_p2p.session.peer -> gleek_p2p.bots.strategy",
        "module cycle: gleek_p2p.bots <-> gleek_p2p.session.peer",
        "room cycle: bots <-> session"]


def test_a_loose_module_or_an_unknown_room_fails(tmp_path: Path) -> None:
    root = _package(tmp_path, {"peer.py": "", "extras/x.py": "", "__main__.py": "import sys\n"})
    assert problems(import_graph(root), ORDER) == [
        "gleek_p2p.extras is in no room of the order (a loose module, or a new room)",
        "gleek_p2p.extras.x is in no room of the order (a loose module, or a new room)",
        "gleek_p2p.peer is in no room of the order (a loose module, or a new room)"]


def test_the_package_itself_imports_no_room(tmp_path: Path) -> None:
    root = _package(tmp_path, {"base/text.py": ""})
    (root / "__init__.py").write_text("from gleek_p2p.base import text\n")
    assert problems(import_graph(root), ORDER) == [
        "upward import: gleek_p2p -> gleek_p2p.base.text"]


def test_cycles_are_found_through_longer_paths() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]  # a self-import is no cycle of modules


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
