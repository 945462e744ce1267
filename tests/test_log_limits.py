"""Reading a log is bounded: record by record, and nothing past ``MAX_LOG_BYTES``.

A hostile or broken file (a 1 GiB sparse file, a small header followed by a
hole) must be refused or scanned without reading it all into memory, by
``gleek verify``, ``gleek replay`` (``read_log``) and resume (``LogStore.open``).
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.cli.commands import read_log, verify_file
from gleek_p2p.log.store import HEADER, MAX_LOG_BYTES, LogStore, frame, scan


def sparse(path: Path, size: int, head: bytes = HEADER) -> Path:
    with open(path, "wb") as out:
        out.write(head)
        out.truncate(size)  # a hole: no disk blocks, but reads as zeros
    return path


def peak_of(work: object) -> int:
    tracemalloc.start()
    try:
        work()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_file_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    path = sparse(tmp_path / "huge.gleeklog", 1 << 30)
    peak = peak_of(lambda: verify_file(path))
    report = verify_file(path)
    assert report.exit_code == 2 and not report.readable
    assert "was not read" in report.error and str(MAX_LOG_BYTES >> 20) in report.error
    assert peak < 1 << 20  # nothing like the file's size was held
    with pytest.raises(ProtocolError, match="was not read"):
        read_log(path)
    with pytest.raises(ProtocolError, match="was not read"):
        LogStore.open(path)
    assert path.stat().st_size == 1 << 30  # resume refused it without touching it


def test_a_hole_under_the_limit_is_read_a_chunk_at_a_time(tmp_path: Path) -> None:
    record = b"a record"
    path = sparse(tmp_path / "holey.gleeklog", 48 << 20, HEADER + frame(record))
    peak = peak_of(lambda: read_log(path))
    records, note = read_log(path)
    assert records == [record] and "torn tail" in note
    assert peak < 4 << 20  # a 1 MiB chunk at a time, not 48 MiB
    assert "was not read" not in verify_file(path).error


def test_the_stream_reader_agrees_with_the_whole_file_reader(tmp_path: Path) -> None:
    path = tmp_path / "log.gleeklog"
    with LogStore.open(path) as store:
        for i in range(20):
            store.append(bytes([i]) * (i + 1))
    data = path.read_bytes()
    for cut in (len(data), len(data) - 3, len(HEADER) + 5, 7):
        path.write_bytes(data[:cut])
        expected = scan(data[:cut], path)
        records, note = read_log(path)
        assert records == expected[0]
        assert (note == "") == (expected[1] == cut)
    assert os.path.getsize(path) == 7


def test_a_resume_marker_naming_an_empty_file_writes_nothing_into_it(tmp_path: Path) -> None:
    from gleek_p2p.log import canonical
    from gleek_p2p.rules import VARIANTS
    from gleek_p2p.session.play import SessionFiles
    from gleek_p2p.tools.selfplay import make_seats

    table = make_seats(VARIANTS["standard"], 1, b"marker")[1]
    assert table._identity is not None
    files = SessionFiles(tmp_path / "data")
    marker = files.current_marker("t/1")
    marker.parent.mkdir(parents=True)
    roster_line = canonical.encode(table.roster.to_body()).hex()
    precious = tmp_path / "precious.txt"
    for content in (b"", b"not a log at all"):
        precious.write_bytes(content)
        marker.write_text(f"{precious}\n{roster_line}\n")
        assert files.unfinished("t/1", table._identity) is None
        assert precious.read_bytes() == content  # no header written, nothing cut
    # The session's own log, empty after a crash while it was created: resumed.
    own = files.log_path(table.roster.session_id)
    own.parent.mkdir(parents=True)
    own.write_bytes(b"")
    marker.write_text(f"{own}\n{roster_line}\n")
    assert files.unfinished("t/1", table._identity) == (table.roster, own)
    assert own.read_bytes() == b""  # looking is not writing
