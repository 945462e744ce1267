"""The append-only store: durability, torn-tail recovery, corruption, secrets."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.log import store as store_module
from gleek_p2p.log.store import HEADER, LogStore, SecretStore, frame, read_log_file

RECORDS = [b"first record", b"\x00" * 40, bytes(range(256)) * 3]


def write_log(path: Path, records: list[bytes]) -> None:
    with LogStore.open(path) as log:
        for record in records:
            log.append(record)


def test_create_append_reopen(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "s.log"
    write_log(path, RECORDS)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    data = path.read_bytes()
    assert data.startswith(b"GLEEKLOG\x00\x00\x00\x01")
    assert data == HEADER + b"".join(frame(r) for r in RECORDS)
    with LogStore.open(path) as log:
        assert log.records == RECORDS and len(log) == 3
        log.append(b"more")
    with LogStore.open(path) as log:
        assert log.records == [*RECORDS, b"more"]


def test_records_is_a_copy(tmp_path: Path) -> None:
    with LogStore.open(tmp_path / "s.log") as log:
        log.append(b"a")
        log.records.append(b"b")
        assert log.records == [b"a"]


def test_torn_tail_at_every_offset_of_the_last_record(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    write_log(path, RECORDS)
    full = path.read_bytes()
    whole = len(full) - len(frame(RECORDS[-1]))
    for cut in range(whole, len(full)):
        torn = tmp_path / f"torn{cut}.log"
        torn.write_bytes(full[:cut])
        with LogStore.open(torn) as log:
            assert log.records == RECORDS[:-1], cut
        assert torn.read_bytes() == full[:whole], cut  # cut back, nothing else lost
        with LogStore.open(torn) as log:
            log.append(b"after")
        with LogStore.open(torn) as log:
            assert log.records == [*RECORDS[:-1], b"after"]


@pytest.mark.parametrize("offset_from_end", [1, 5, 100, 300])
def test_garbled_last_record_is_torn(tmp_path: Path, offset_from_end: int) -> None:
    path = tmp_path / "s.log"
    write_log(path, RECORDS)
    data = bytearray(path.read_bytes())
    data[-offset_from_end] ^= 0xFF
    path.write_bytes(bytes(data))
    with LogStore.open(path) as log:
        assert log.records == RECORDS[:-1]


def test_zero_filled_tail_is_torn(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    write_log(path, RECORDS)
    data = path.read_bytes()
    path.write_bytes(data + bytes(5000))
    with LogStore.open(path) as log:
        assert log.records == RECORDS
    assert path.read_bytes() == data


def test_crash_while_creating(tmp_path: Path) -> None:
    for cut in range(len(HEADER)):
        path = tmp_path / f"new{cut}.log"
        path.write_bytes(HEADER[:cut])
        with LogStore.open(path) as log:
            assert log.records == []
            log.append(b"x")
        with LogStore.open(path) as log:
            assert log.records == [b"x"]


@pytest.mark.parametrize("where", ["payload", "checksum", "length", "length_check"])
def test_damage_mid_file_is_corruption(tmp_path: Path, where: str) -> None:
    path = tmp_path / "s.log"
    write_log(path, RECORDS)
    data = bytearray(path.read_bytes())
    start = len(HEADER) + len(frame(RECORDS[0]))  # second record
    offset = {
        "length": start + 2,
        "length_check": start + 5,
        "payload": start + 10,
        "checksum": start + len(frame(RECORDS[1])) - 1,
    }[where]
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(ProtocolError, match="corrupt"):
        LogStore.open(path)
    assert path.read_bytes() == bytes(data)  # left alone for a human to inspect


def test_huge_length_mid_file_is_not_mistaken_for_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    write_log(path, RECORDS)
    data = bytearray(path.read_bytes())
    data[len(HEADER)] ^= 0x01  # record 0's length becomes 16 MiB + n
    path.write_bytes(bytes(data))
    with pytest.raises(ProtocolError, match="corrupt"):
        LogStore.open(path)
    assert len(path.read_bytes()) == len(data)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"not a log at all", "not a gleek-p2p log"),
        (b"GLEEKLOG\x00\x00\x00\x02", "version 2"),
        (b"GLEEKLOG\x00\x07", "unsupported"),
    ],
)
def test_foreign_files_refused(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "s.log"
    path.write_bytes(content)
    with pytest.raises(ProtocolError, match=reason):
        LogStore.open(path)
    assert path.read_bytes() == content


def test_second_open_refused_while_locked(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    with LogStore.open(path) as log:
        log.append(b"a")
        with pytest.raises(GleekError, match="in use"):
            LogStore.open(path)
    with LogStore.open(path) as log:
        assert log.records == [b"a"]


def test_bad_appends(tmp_path: Path) -> None:
    log = LogStore.open(tmp_path / "s.log")
    with pytest.raises(ProtocolError):
        log.append(b"")
    log.close()
    log.close()
    with pytest.raises(GleekError, match="closed"):
        log.append(b"a")


def test_append_is_fsynced_before_returning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[Any] = []
    real_pwrite, real_fsync = os.pwrite, os.fsync

    def pwrite(fd: int, data: Any, offset: int) -> int:
        events.append("write")
        return real_pwrite(fd, data, offset)

    def fsync(fd: int) -> None:
        events.append("fsync")
        real_fsync(fd)

    monkeypatch.setattr(os, "pwrite", pwrite)
    monkeypatch.setattr(os, "fsync", fsync)
    log = LogStore.open(tmp_path / "s.log")
    # header written and fsynced, then the directory fsynced
    assert events == ["write", "fsync", "fsync"]
    events.clear()
    log.append(b"a")
    assert events[-1] == "fsync" and "write" in events
    log.close()


def test_failed_write_is_rolled_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.log"
    log = LogStore.open(path)
    log.append(b"kept")
    real_pwrite = os.pwrite

    def half_then_fail(fd: int, data: Any, offset: int) -> int:
        real_pwrite(fd, bytes(data)[:3], offset)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "pwrite", half_then_fail)
    with pytest.raises(OSError):
        log.append(b"lost")
    monkeypatch.setattr(os, "pwrite", real_pwrite)
    assert log.records == [b"kept"]
    log.append(b"next")
    log.close()
    with LogStore.open(path) as log:
        assert log.records == [b"kept", b"next"]


def test_failed_fsync_stops_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.log"
    log = LogStore.open(path)

    def fail(fd: int) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError):
        log.append(b"unsure")
    monkeypatch.undo()
    assert log.records == []
    with pytest.raises(GleekError, match="reopen"):
        log.append(b"more")
    log.close()


@given(
    records=st.lists(st.binary(min_size=1, max_size=60), min_size=1, max_size=8),
    data=st.data(),
)
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_crash_point_keeps_every_whole_record(
    tmp_path: Path, records: list[bytes], data: st.DataObject
) -> None:
    full = HEADER + b"".join(frame(r) for r in records)
    cut = data.draw(st.integers(0, len(full)))
    path = tmp_path / "p.log"
    path.write_bytes(full[:cut])
    try:
        with LogStore.open(path) as log:
            recovered = log.records
    finally:
        path.unlink()
    ends = []
    size = len(HEADER)
    for r in records:
        size += len(frame(r))
        ends.append(size)
    assert recovered == records[: sum(1 for e in ends if e <= cut)]


def test_scan_is_pure(tmp_path: Path) -> None:
    full = HEADER + frame(b"a") + frame(b"bc")
    assert store_module.scan(full) == ([b"a", b"bc"], len(full))
    assert store_module.scan(full[:-1]) == ([b"a"], len(HEADER) + len(frame(b"a")))


def test_secret_store(tmp_path: Path) -> None:
    path = tmp_path / "secrets" / "session.secrets"
    secrets = SecretStore.open(path)
    assert secrets.get("hand") is None
    secrets.put("hand", b"\x01" * 32)
    secrets.put("deck", b"\x02")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = SecretStore.open(path)
    assert again.get("hand") == b"\x01" * 32 and again.names() == ["deck", "hand"]
    again.discard("hand")
    again.discard("absent")
    assert SecretStore.open(path).names() == ["deck"]
    # No temporary file left behind: the secrets and the lock beside them.
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "session.secrets", "session.secrets.lock"]


def test_peers_sharing_a_secrets_file_lose_nothing(tmp_path: Path) -> None:
    """Two peers (threads here; the lock is per open file, as for processes) each
    opened the file before the other wrote, then add their secrets in a race."""
    import threading

    path = tmp_path / "secrets"
    SecretStore.open(path).put("old", b"0")
    stores = [SecretStore.open(path) for _ in range(2)]  # both now hold a stale copy
    start = threading.Barrier(2)

    def peer(index: int) -> None:
        start.wait()
        for i in range(40):
            stores[index].put(f"peer{index}-{i}", bytes([index, i]))

    threads = [threading.Thread(target=peer, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = SecretStore.open(path).names()
    assert len(names) == 81 and "old" in names


def test_two_processes_racing_for_one_session_secret_agree(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "secrets"
    code = ("import sys; from gleek_p2p.log.store import SecretStore; "
            "s = SecretStore.open(sys.argv[1]); "
            "[s.put(f'{sys.argv[2]}-{i}', b'x') for i in range(30)]; "
            "print(s.setdefault('session', sys.argv[2].encode()).decode())")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), name],
                              stdout=subprocess.PIPE, text=True) for name in ("a", "b")]
    chosen = {proc.communicate(timeout=120)[0].strip() for proc in procs}
    final = SecretStore.open(path)
    assert len(chosen) == 1 and final.get("session") == chosen.pop().encode()
    assert len(final.names()) == 61


def test_secret_store_refuses_readable_or_damaged(tmp_path: Path) -> None:
    path = tmp_path / "s.secrets"
    SecretStore.open(path).put("k", b"v")
    os.chmod(path, 0o644)
    with pytest.raises(GleekError, match="other users"):
        SecretStore.open(path)
    os.chmod(path, 0o600)
    path.write_bytes(path.read_bytes()[:-1])
    os.chmod(path, 0o600)
    with pytest.raises(ProtocolError):
        SecretStore.open(path)


def test_group_commit_writes_now_and_fsyncs_once_per_batch(tmp_path: Path) -> None:
    path = tmp_path / "group.gleeklog"
    with LogStore.open(path) as store:
        store.append(b"first", sync=False)
        store.append(b"second", sync=False)
        assert store.unsynced == 2 and store.fsyncs == 0
        # Written already: a reader (or a resume after kill -9) sees them.
        assert read_log_file(path)[0] == [b"first", b"second"]
        store.append(b"mine")  # one fsync covers the whole batch
        assert store.unsynced == 0 and store.fsyncs == 1
        store.sync()
        assert store.fsyncs == 1  # nothing pending: no fsync
        store.append(b"late", sync=False)
    # close made it durable
    assert read_log_file(path)[0] == [b"first", b"second", b"mine", b"late"]
