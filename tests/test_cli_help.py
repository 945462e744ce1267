"""Item 12: the command line explains itself and refuses bad starts in one sentence.

Help for every subcommand and option (with defaults), verify's exit codes,
``--version``; ``gleek local`` without a terminal; ``module:Class`` from the
current folder through the installed ``gleek`` script; ``--out`` folders;
``--hands 0``; a log cut short is incomplete, not unfair.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.cli.gleek import build_parser, main
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import Variant
from gleek_p2p.tools.selfplay import selfplay

GLEEK = Path(sys.executable).with_name("gleek")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_every_subcommand_and_option_has_help_with_its_default(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _subparsers()[name]
    assert parser.description, name
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{name} {action.option_strings or action.dest} has no help"
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for action in parser._actions:
        if action.default not in (None, False, [], argparse.SUPPRESS) and action.help:
            assert f"default: {action.default}" in text or "default:" in action.help, \
                (name, action.dest)


@pytest.mark.parametrize("lang", ["en", "fr", "it", "pt", "nl"])
def test_the_top_level_help_and_every_subcommand_help_print_in_every_language(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse %-formats every help string: a stray "%" in a text or a
    # translation would turn --help into a traceback.
    for argv in (["--help"], *([name, "--help"] for name in sorted(_subparsers()))):
        with pytest.raises(SystemExit) as done:
            main(["--lang", lang, *argv])
        assert done.value.code == 0, (lang, argv)
        assert "Traceback" not in capsys.readouterr().err


def test_verify_help_lists_its_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = capsys.readouterr().out
    assert "exit codes:" in text
    for code in ("0  fair", "1  unfair", "2  ", "3  stopped"):
        assert f"\n  {code}" in text


@pytest.mark.parametrize("lang", ["fr", "it", "pt", "nl"])
def test_verify_help_lists_its_exit_codes_in_every_language(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--lang", lang, "verify", "--help"])
    text = capsys.readouterr().out
    assert "\n  3  " in text and "stopped" not in text and "unfair" not in text


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("gleek 0.")


def test_local_without_a_terminal_says_so_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = subprocess.run([sys.executable, "-m", "gleek_p2p", "local", "--hands", "1",
                           "--data-dir", str(data)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.strip().split("\n")
    assert len(lines) == 1 and "needs a terminal" in lines[0] and "--autoplay" in lines[0]
    assert not data.exists()  # refused before any peer or folder was made


@pytest.mark.parametrize("hands", ["0", "-3", "many"])
def test_local_refuses_a_session_of_no_hands_before_any_peer_starts(
    tmp_path: Path, hands: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    with pytest.raises(SystemExit) as done:
        main(["local", "--hands", hands, "--data-dir", str(data), "--autoplay", "random"])
    assert done.value.code == 2
    assert "--hands" in capsys.readouterr().err
    assert not data.exists()


def test_a_strategy_module_in_the_current_folder_through_the_gleek_script(
    tmp_path: Path,
) -> None:
    if not GLEEK.exists():
        pytest.skip("the gleek script is not installed next to this Python")
    (tmp_path / "my_local_bot.py").write_text(
        "from gleek_p2p.bots.strategy import Strategy\n"
        "class First(Strategy):\n"
        "    name = 'first'\n"
        "    def choose(self, view, legal):\n"
        "        return legal[0]\n")
    done = subprocess.run([str(GLEEK), "simulate", "--hands", "1", "--json",
                           "--bots", "my_local_bot:First"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["hands"]) == 1


def test_out_creates_a_missing_folder_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "deeper" / "s.gleeklog"
    assert main(["selfplay", "--hands", "1", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert out.exists() and f"created the folder {out.parent}" in captured.err
    assert captured.out.strip().endswith(str(out))


def test_a_log_cut_short_is_incomplete_and_blames_nobody(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = Variant()
    result = selfplay(variant, 1, b"cut-short", make_strategies("random", 3, b"cut"))
    path = tmp_path / "cut.gleeklog"
    with LogStore.open(path) as store:
        for record in result.records[: len(result.records) * 2 // 3]:
            store.append(record)
    assert main(["verify", "--no-progress", str(path)]) == 3
    text = capsys.readouterr().out
    assert "Verdict: STOPPED" in text and "Nobody is blamed" in text
    assert "seat 0 (" not in text and "seat 1 (" not in text and "seat 2 (" not in text
    assert "NOT FAIR" not in text
    assert main(["verify", "--json", str(path)]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "stopped" and report["violations"] == []
    assert not report["complete"] and not report["fair"]
