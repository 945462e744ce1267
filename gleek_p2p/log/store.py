"""Durable storage: one append-only log file per session, and a secrets file.

Log file layout (all integers big-endian)::

    header:  b"GLEEKLOG" (8 bytes) | format version u32 (= 1)
    record:  length u32 (1..MAX_RECORD) | crc32(length) u32 | payload
             | crc32(length || payload) u32

``append`` returns only after the record is written and fsynced, so an
acknowledged record survives a crash. Group commit: ``append(record,
sync=False)`` writes without the fsync, and the next ``sync()`` (or synced
``append``, or ``close``) makes every record written so far durable with
one fsync (SPEC.md §3: the peer fsyncs once per batch of events that arrive
together, and always before it signs anything). A crash can leave a torn last record;
``open`` cuts the file back to the last whole record. The length has its own
checksum, so a damaged length is never mistaken for a record running past
the end of the file. A record that fails a checksum with more data after it
cannot be a torn write (appends only ever touch the end): that is
corruption, reported as ProtocolError, and the file is left alone for a
human to look at.
"""

from __future__ import annotations

import enum
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.log import canonical
from gleek_p2p.log.keys import check_private_file, fsync_dir, write_private_file

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

MAGIC = b"GLEEKLOG"
FORMAT_VERSION = 1
HEADER = MAGIC + struct.pack(">I", FORMAT_VERSION)
MAX_RECORD = 1 << 24
"""Largest record payload (16 MiB); a longer length field is damage."""
_LEN = struct.Struct(">I")
_HEAD_SIZE = 8
_FRAME_OVERHEAD = 12


def _crc(data: bytes, start: int = 0) -> bytes:
    return _LEN.pack(zlib.crc32(data, start))


def frame(record: bytes) -> bytes:
    """The on-disk bytes of one record: length, its checksum, payload, checksum."""
    length_field = _LEN.pack(len(record))
    return length_field + _crc(length_field) + record + _crc(record, zlib.crc32(length_field))


def _write_all(fd: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view = view[written:]
        offset += written


MAX_LOG_BYTES = 64 << 20
"""Largest log file read (64 MiB). A session of the maximum 120 hands is about
3 MiB; anything larger is not a session log and is refused before reading."""

_CHUNK = 1 << 20

Reader = Callable[[int, int], bytes]
"""``read(offset, n)``: up to ``n`` bytes of the file from ``offset``."""


def scan(data: bytes, path: object = "log") -> tuple[list[bytes], int]:
    """Parse a whole log file: (the whole records, the offset where they end).

    Bytes after that offset are a torn tail. Raises ProtocolError if the
    header is wrong or a damaged record has data after it.
    """
    return _scan(lambda offset, n: data[offset : offset + n], len(data), path)


class LogFault(enum.Enum):
    """Why a file is not a readable session log: what a screen words (messages are English)."""

    TOO_BIG = "too-big"
    """Larger than any session log can be (``MAX_LOG_BYTES``): not read."""
    NOT_A_FILE = "not-a-file"
    """Not a regular file (a folder, a device...)."""
    NOT_A_LOG = "not-a-log"
    """It does not open with the log's magic bytes."""
    BAD_VERSION = "bad-version"
    """A log format version this program does not read."""
    CORRUPT = "corrupt"
    """A record is damaged and more data follows (not a torn tail)."""


class LogError(ProtocolError):
    """A file that is not a readable session log, with its ``fault``."""

    def __init__(self, message: str, fault: LogFault) -> None:
        super().__init__(message)
        self.fault = fault


def scan_fd(fd: int, path: object = "log") -> tuple[list[bytes], int, int]:
    """``scan`` reading an open file record by record: (records, end, file size).

    Never holds more of the file than one record (or one 1 MiB chunk of a
    zero tail); refuses a file larger than ``MAX_LOG_BYTES`` without reading it.
    """
    size = os.fstat(fd).st_size
    if size > MAX_LOG_BYTES:
        raise LogError(
            f"{path} is {size} bytes, more than any session log can be "
            f"({MAX_LOG_BYTES >> 20} MiB): it was not read", LogFault.TOO_BIG
        )
    records, end = _scan(lambda offset, n: os.pread(fd, n, offset), size, path)
    return records, end, size


def read_log_file(path: Path | str) -> tuple[list[bytes], int, int]:
    """``scan_fd`` of the file at ``path``, opened read-only: nothing is written,
    not even to an empty file. Raises ProtocolError for what is not a regular file."""
    path = Path(path)
    if not path.is_file():
        raise LogError(f"{path} is not a regular file", LogFault.NOT_A_FILE)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        return scan_fd(fd, path)
    finally:
        os.close(fd)


def _zeros_to_end(read: Reader, offset: int, size: int) -> bool:
    while offset < size:
        chunk = read(offset, min(_CHUNK, size - offset))
        if not chunk or chunk.count(0) != len(chunk):
            return False
        offset += len(chunk)
    return True


def _scan(read: Reader, size: int, path: object) -> tuple[list[bytes], int]:
    start = read(0, len(HEADER))
    if start[: len(MAGIC)] != MAGIC[: min(len(start), len(MAGIC))]:
        raise LogError(f"{path} is not a gleek-p2p log file", LogFault.NOT_A_LOG)
    if size < len(HEADER):
        if start == HEADER[: len(start)]:
            return [], 0  # crashed while creating the file: nothing was acknowledged
        raise LogError(f"{path} has an unsupported log format version", LogFault.BAD_VERSION)
    (version,) = _LEN.unpack_from(start, len(MAGIC))
    if version != FORMAT_VERSION:
        raise LogError(f"{path} has log format version {version}, expected {FORMAT_VERSION}",
                       LogFault.BAD_VERSION)
    records: list[bytes] = []
    offset = len(HEADER)
    while offset < size:
        if size - offset < _HEAD_SIZE:
            break  # not even a whole record header: torn
        head = read(offset, _HEAD_SIZE)
        length_field = head[:4]
        (length,) = _LEN.unpack(length_field)
        if _crc(length_field) != head[4:8] or not 0 < length <= MAX_RECORD:
            # The length is unreadable, so where the record ends is unknown.
            # Only a tail of zeros (the file grew but the data never reached
            # the disk) can be a torn write; anything else is damage.
            if _zeros_to_end(read, offset, size):
                break
            raise LogError(
                f"{path} is corrupt: the header of record {len(records)} at byte "
                f"{offset} is damaged", LogFault.CORRUPT
            )
        end = offset + _FRAME_OVERHEAD + length
        if end > size:
            break  # the last record was cut short
        body = read(offset + _HEAD_SIZE, length + 4)
        payload = body[:length]
        if _crc(payload, zlib.crc32(length_field)) != body[length:]:
            if end == size:
                break  # the last record is torn
            raise LogError(
                f"{path} is corrupt: record {len(records)} at byte {offset} fails its "
                "checksum and more data follows", LogFault.CORRUPT
            )
        records.append(payload)
        offset = end
    return records, offset


class LogStore:
    """An open session log: the records read at open time plus those appended."""

    def __init__(self, path: Path, fd: int, records: list[bytes], size: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self._records = records
        self._size = size
        self._broken = False
        self._unsynced = 0
        self.fsyncs = 0
        """fsync calls made on appends (for the benchmarks)."""

    @classmethod
    def open(cls, path: Path | str) -> LogStore:
        """Open (or create) the log at ``path``, recovering from a crash.

        Whole records are read; a torn tail is truncated away (and the
        truncation fsynced). Raises ProtocolError for a file that is not a
        log or is corrupt in the middle, GleekError if another process has
        it open.
        """
        path = Path(path)
        if not path.parent.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        created = False
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            created = True
        except FileExistsError:
            fd = os.open(path, os.O_RDWR)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise GleekError(f"the log {path} is in use by another process") from None
            records, end, size = scan_fd(fd, path)
            if end == 0:  # new, or a crash before the header was durable
                os.ftruncate(fd, 0)
                _write_all(fd, HEADER, 0)
                end = len(HEADER)
                os.fsync(fd)
                created = True
            elif end < size:
                os.ftruncate(fd, end)
                os.fsync(fd)
            if created:
                fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, records, end)

    @property
    def records(self) -> list[bytes]:
        """Every record in order (a copy)."""
        return list(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def append(self, record: bytes, *, sync: bool = True) -> None:
        """Append one record; it is on disk (fsynced) when this returns.

        With ``sync=False`` it is written but not yet fsynced: ``sync()``
        makes it durable, with every other record written since the last
        fsync. If the write fails, the file is cut back to its previous end
        so the log stays whole; if that or the fsync fails, the store
        refuses further appends (reopen it to recover).
        """
        if self._fd is None:
            raise GleekError(f"the log {self.path} is closed")
        if self._broken:
            raise GleekError(f"the log {self.path} had a write error; reopen it")
        record = bytes(record)
        if not 0 < len(record) <= MAX_RECORD:
            raise ProtocolError(f"a log record must be 1..{MAX_RECORD} bytes")
        data = frame(record)
        try:
            _write_all(self._fd, data, self._size)
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)
            except OSError:
                self._broken = True
            raise
        self._unsynced += 1
        if sync:
            # A failed fsync leaves the record out of ``records`` (and the
            # store broken), as the caller is told it is not durable.
            self._fsync()
        self._size += len(data)
        self._records.append(record)

    @property
    def unsynced(self) -> int:
        """Records written since the last fsync."""
        return self._unsynced

    def sync(self) -> None:
        """fsync every record written so far (nothing to do if none is pending)."""
        if self._unsynced == 0 or self._fd is None:
            return
        self._fsync()

    def _fsync(self) -> None:
        assert self._fd is not None
        try:
            os.fsync(self._fd)
        except OSError:
            # After a failed fsync the kernel may have dropped the dirty
            # pages: what is on disk is unknown until the file is re-read.
            self._broken = True
            raise
        self.fsyncs += 1
        self._unsynced = 0

    def close(self) -> None:
        """Make pending records durable and close the file (idempotent)."""
        if self._fd is not None:
            try:
                if not self._broken:
                    self.sync()
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> LogStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


SECRETS_MAGIC = b"GLEEKSEC\x00\x00\x00\x01"


class SecretStore:
    """A small name -> bytes file for per-session secrets (e.g. hand seeds).

    The file is mode 0600 and replaced atomically (write, fsync, rename,
    fsync the directory) on every change, so it is always either the old or
    the new content. Layout: ``SECRETS_MAGIC`` then the canonical encoding
    of a list of ``[name, value]`` pairs sorted by name. Every change holds
    an exclusive lock on ``<file>.lock`` and re-reads the file under it:
    peers sharing a data directory each add their own secret, and neither
    writes back a stale copy over the other's.
    """

    def __init__(self, path: Path, entries: dict[str, bytes]) -> None:
        self.path = path
        self._entries = entries

    @classmethod
    def open(cls, path: Path | str) -> SecretStore:
        """Load ``path`` (empty if absent); refuse a file others can read."""
        path = Path(path)
        return cls(path, cls._read(path))

    @staticmethod
    def _read(path: Path) -> dict[str, bytes]:
        if not path.exists():
            return {}
        check_private_file(path, "secrets file")
        data = path.read_bytes()
        if not data.startswith(SECRETS_MAGIC):
            raise ProtocolError(f"{path} is not a gleek-p2p secrets file")
        value = canonical.decode(data[len(SECRETS_MAGIC) :], max_len=1 << 24)
        entries: dict[str, bytes] = {}
        if not isinstance(value, list):
            raise ProtocolError(f"{path} is damaged")
        for pair in value:
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or not isinstance(pair[0], str)
                or not isinstance(pair[1], bytes)
                or pair[0] in entries
            ):
                raise ProtocolError(f"{path} is damaged")
            entries[pair[0]] = pair[1]
        return entries

    def get(self, name: str) -> bytes | None:
        """The secret stored under ``name``, or None."""
        return self._entries.get(name)

    def names(self) -> list[str]:
        """The stored names, sorted."""
        return sorted(self._entries)

    def put(self, name: str, value: bytes) -> None:
        """Store ``value`` under ``name``, durably, before returning."""
        def edit(entries: dict[str, bytes]) -> None:
            entries[name] = bytes(value)
        self._change(edit)

    def setdefault(self, name: str, value: bytes) -> bytes:
        """The secret under ``name`` as the file holds it now; if it holds none,
        store ``value`` (durably) and return it."""
        def edit(entries: dict[str, bytes]) -> None:
            entries.setdefault(name, bytes(value))
        self._change(edit)
        return self._entries[name]

    def discard(self, name: str) -> None:
        """Forget ``name`` (durably); no error if absent."""
        def edit(entries: dict[str, bytes]) -> None:
            entries.pop(name, None)
        self._change(edit)

    def _change(self, edit: Callable[[dict[str, bytes]], None]) -> None:
        if not self.path.parent.exists():
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = os.open(self.path.with_name(self.path.name + ".lock"),
                       os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            current = self._read(self.path)
            entries = dict(current)
            edit(entries)
            if entries != current:
                pairs = [[name, entries[name]] for name in sorted(entries)]
                write_private_file(self.path, SECRETS_MAGIC + canonical.encode(pairs),
                                   replace=True)
            self._entries = entries
        finally:
            os.close(lock)  # closing the descriptor releases the lock
