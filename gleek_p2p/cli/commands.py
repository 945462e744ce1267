"""The bodies of the ``gleek selfplay``, ``gleek verify`` and peer commands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gleek_p2p.base.errors import GleekError, ViolationCode
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.base.terminal import put
from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.log.store import LogError, LogStore, read_log_file
from gleek_p2p.rules import parse_variant
from gleek_p2p.table.verify import VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.tools.selfplay import selfplay


def run_selfplay(args: argparse.Namespace) -> int:
    """Play a signed session in one process and write its log."""
    variant = parse_variant(args.variant)
    seed = str(args.seed).encode()
    strategies = make_strategies(args.bots, variant.players, seed)
    out = Path(args.out)
    if out.exists():
        raise GleekError(_("{file} already exists; choose another --out").format(file=out))
    result = selfplay(variant, args.hands, seed, strategies)
    if not out.parent.exists():
        out.parent.mkdir(parents=True)
        print("gleek: " + _("created the folder {folder} for the log").format(folder=out.parent),
              file=sys.stderr)
    with LogStore.open(out) as store:
        for record in result.records:
            store.append(record)
    totals = result.tables[0].hands[-1].state.totals if result.tables[0].hands else ()
    names = result.tables[0].roster.names
    from gleek_p2p.rules.money import pence

    events = ngettext("{n} event", "{n} events", len(result.records)).format(
        n=len(result.records))
    hands = len(result.tables[0].hands)
    put(_("{events}, {hands}; totals: {totals}").format(
        events=events, hands=ngettext("{n} hand", "{n} hands", hands).format(n=hands),
        totals=", ".join(f"{n} {pence(t, True, leading_zero=True)}"
                         for n, t in zip(names, totals, strict=True))))
    print(out)
    return 0


def read_log(path: Path) -> tuple[list[bytes], str]:
    """The records of a log file, read record by record without changing it, and a
    note on its tail. A file over ``MAX_LOG_BYTES`` is refused unread."""
    records, good, size = read_log_file(path)
    torn = size - good
    note = "" if not torn else ngettext("{n} byte of torn tail ignored",
                                        "{n} bytes of torn tail ignored", torn).format(n=torn)
    return records, note


def verify_file(path: Path, progress: bool = False) -> VerifyReport:
    """Verify a session log file (no change to the file)."""
    try:
        records, _note = read_log(path)
    except GleekError as exc:
        # ``error`` is English, for --json and the logs; a screen words ``log_fault``.
        return VerifyReport(readable=False, error=str(exc), error_code=ViolationCode.LOG_NOT_A_LOG,
                            log_fault=exc.fault if isinstance(exc, LogError) else None)
    bar = _ProgressBar() if progress else None
    report = verify_records(records, bar.update if bar else None)
    if bar:
        bar.close()
    return report


def run_verify(args: argparse.Namespace) -> int:
    """``gleek verify FILE``: exit 0 fair and complete, 1 violations, 2 unreadable."""
    path = Path(args.file)
    if not path.exists():
        print("gleek: " + _("no such file: {file}").format(file=path), file=sys.stderr)
        return 2
    show_progress = not args.no_progress and not args.json and sys.stderr.isatty()
    report = verify_file(path, show_progress)
    if args.json:
        print(json.dumps(json_report(report), indent=2))
    else:
        put(text_report(report))
    return report.exit_code


LOG_PATTERN = "*.gleeklog"
"""The session logs in a folder (as the peers name them)."""


def log_files(paths: list[str], data_dir: str | None) -> list[Path]:
    """The session logs ``gleek results`` reads: the files and folders given, or else the
    data folder's sessions; oldest first (by the time each log was last written)."""
    if not paths:
        if data_dir is None:
            from gleek_p2p.session.play import default_data_dir

            base = default_data_dir()
        else:
            base = Path(data_dir)
        if not (base / "sessions").is_dir():
            return []  # no session played with this data folder yet: nothing to add up
        paths = [str(base / "sessions")]
    found: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found.extend(sorted(path.glob(LOG_PATTERN)))
        elif path.exists():
            found.append(path)
        else:
            raise GleekError(_("no such file or folder: {path}").format(path=path))
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return sorted(unique, key=lambda p: (p.stat().st_mtime, str(p)))


def run_results(args: argparse.Namespace) -> int:
    """``gleek results``: verify every log, add up the evening; exit 0 (1 if no log counts)."""
    from gleek_p2p.tools.results import evening, json_results, session_result, text_results

    files = log_files(args.files, args.data_dir)
    night = evening([session_result(path, verify_file(path)) for path in files])
    if args.json:
        print(json.dumps(json_results(night), indent=2))
    else:
        if not files:
            print(_("No session log found."))
        else:
            put(text_results(night))
    return 0 if any(s.counted for s in night.sessions) else 1


class _ProgressBar:
    """A one-line progress bar on stderr, for long logs on a terminal."""

    def __init__(self) -> None:
        self._shown = -1

    def update(self, done: int, total: int) -> None:
        if total < 200:
            return
        percent = done * 100 // max(1, total)
        if percent == self._shown:
            return
        self._shown = percent
        filled = percent * 30 // 100
        bar = "#" * filled + "." * (30 - filled)
        sys.stderr.write("\r" + _("verifying [{bar}] {percent}%").format(
            bar=bar, percent=f"{percent:3d}"))
        sys.stderr.flush()

    def close(self) -> None:
        if self._shown >= 0:
            sys.stderr.write("\r" + " " * 50 + "\r")
            sys.stderr.flush()
