"""Canonical msgpack: exactly one byte string for every value.

Signatures and hash chains are computed over bytes, so two peers must turn
the same value into the same bytes, and a decoder must refuse every other
spelling of it (otherwise one event would have several hashes). The value
model is deliberately small: 64-bit signed ints, bytes, UTF-8 str, bool,
None and lists. No maps (free key order), no floats (several spellings of one
number, NaN payloads), no extension types.

Decoding is bounded before anything is allocated (msgpack's own length
limits stop a hostile length header) and ends with a re-encode: the input is
accepted only if it is byte for byte the canonical encoding of what it
decoded to. See protocol/encoding.md for the language-neutral rules.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import msgpack

from gleek_p2p.base.errors import ProtocolError

# Older msgpack releases differ in edge cases of the limits we rely on; the
# project pins >= 1.2.1 and the log refuses to run on anything older rather
# than produce or accept bytes it has not been tested with.
MIN_MSGPACK_VERSION = (1, 2, 1)
if tuple(msgpack.version) < MIN_MSGPACK_VERSION:  # pragma: no cover - environment check
    raise ImportError(
        f"gleek-p2p needs msgpack >= 1.2.1, found {'.'.join(map(str, msgpack.version))}"
    )

Value: TypeAlias = int | bytes | str | bool | list[Any] | None
"""A canonical value: int, bytes, str, bool, None, or a list of values."""

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1

DEFAULT_MAX_LEN = 1 << 20
"""Largest encoding ``decode`` accepts by default (1 MiB)."""
DEFAULT_MAX_DEPTH = 32
"""Deepest list nesting accepted by default (a bare scalar has depth 0)."""
DEFAULT_MAX_ITEMS = 100_000
"""Most values (scalars and lists, counted together) accepted by default."""


def _check_value(value: object, max_depth: int, max_items: int) -> None:
    """Raise ProtocolError unless ``value`` fits the canonical value model.

    Iterative, so hostile nesting cannot exhaust the Python stack; the depth
    bound also stops a list that contains itself.
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    items = 0
    while stack:
        item, depth = stack.pop()
        items += 1
        if items > max_items:
            raise ProtocolError(f"the value holds more than {max_items} items")
        if item is None or isinstance(item, bool | bytes | str):
            continue
        if isinstance(item, int):
            if not INT_MIN <= item <= INT_MAX:
                raise ProtocolError(f"the integer {item} does not fit in 64 signed bits")
            continue
        if isinstance(item, list | tuple):
            if depth >= max_depth:
                raise ProtocolError(f"the value is nested deeper than {max_depth} lists")
            stack.extend((child, depth + 1) for child in item)
            continue
        if isinstance(item, float):
            raise ProtocolError("floats have no canonical encoding and are not allowed")
        if isinstance(item, dict):
            raise ProtocolError("maps have no canonical key order and are not allowed")
        raise ProtocolError(f"a {type(item).__name__} cannot be encoded canonically")


def _pack(value: object) -> bytes:
    # msgpack-python always picks the shortest form for ints, strings, binary
    # and arrays, and with use_bin_type=True writes bytes as bin and str as
    # str (str8 included); that is exactly the canonical form.
    try:
        packed: bytes = msgpack.packb(value, use_bin_type=True, datetime=False)
    except UnicodeEncodeError as exc:
        raise ProtocolError("a string is not valid Unicode (lone surrogate)") from exc
    except (TypeError, ValueError, OverflowError) as exc:
        raise ProtocolError(f"the value cannot be encoded: {exc}") from exc
    return packed


def encode(value: Value | tuple[Any, ...], *, max_depth: int = DEFAULT_MAX_DEPTH) -> bytes:
    """Return the one canonical msgpack encoding of ``value``.

    Tuples are accepted and encoded as lists (they decode as lists).
    Raises ProtocolError for anything outside the value model: floats, maps,
    ints outside [-2**63, 2**63 - 1], other types, nesting deeper than
    ``max_depth``.
    """
    _check_value(value, max_depth, max_items=2**62)
    return _pack(value)


def decode(
    data: bytes,
    *,
    max_len: int = DEFAULT_MAX_LEN,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_items: int = DEFAULT_MAX_ITEMS,
) -> Value:
    """Decode untrusted canonical msgpack, refusing anything non-canonical.

    Refuses (ProtocolError, one sentence): input longer than ``max_len``;
    truncated input or trailing bytes; maps, floats, extension types;
    invalid UTF-8; ints outside 64 signed bits; more than ``max_depth``
    nested lists or ``max_items`` values; and any spelling that is not the
    canonical one (e.g. an int in a wider form than needed, str8 where
    fixstr fits, bin where str belongs). Lists come back as lists.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError(f"expected bytes to decode, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > max_len:
        raise ProtocolError(f"the encoding is {len(data)} bytes, more than the {max_len} allowed")
    if not data:
        raise ProtocolError("the encoding is empty")
    # Every length limit is bounded by the input size, so no header can make
    # the decoder allocate more than the input justifies.
    limit = len(data)
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_str_len=limit,
            max_bin_len=limit,
            max_array_len=min(limit, max_items),
            max_map_len=0,
            max_ext_len=0,
            timestamp=0,
        )
    except msgpack.ExtraData as exc:
        raise ProtocolError("the encoding has trailing bytes after the value") from exc
    except UnicodeDecodeError as exc:
        raise ProtocolError("a string in the encoding is not valid UTF-8") from exc
    except ValueError as exc:
        # msgpack reports truncation, bad type bytes, stack depth and every
        # exceeded limit as ValueError subclasses.
        raise ProtocolError(f"the encoding is malformed: {exc or type(exc).__name__}") from exc
    except Exception as exc:  # any other decoder failure is still bad input
        raise ProtocolError(f"the encoding is malformed: {type(exc).__name__}") from exc
    _check_value(value, max_depth, max_items)
    if _pack(value) != data:
        raise ProtocolError("the encoding is not canonical (a shorter or different form exists)")
    result: Value = value
    return result


def list_head(data: bytes, count: int, *, max_scalar: int) -> tuple[int, list[Value]]:
    """The length of the list ``data`` encodes and its first ``count`` items, unchecked.

    Reads only the first bytes of ``data`` (each item a scalar of at most
    ``max_scalar`` bytes), so it costs the same whatever follows: a decoder
    uses it to pick the limits for the whole value (``envelope.decode_envelope``
    reads an event's kind before its body). Nothing here is checked for
    canonical form; the full ``decode`` that follows does that. Raises
    ProtocolError if ``data`` does not open with a list of at least
    ``count`` scalars.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError(f"expected bytes to decode, got {type(data).__name__}")
    # A list header is at most 5 bytes, a scalar at most 5 + max_scalar.
    prefix = bytes(data[: 5 + count * (5 + max_scalar)])
    unpacker = msgpack.Unpacker(
        raw=False,
        use_list=True,
        max_buffer_size=max(len(prefix), 1),
        max_str_len=max_scalar,
        max_bin_len=max_scalar,
        max_array_len=0,
        max_map_len=0,
        max_ext_len=0,
        timestamp=0,
    )
    unpacker.feed(prefix)
    try:
        length: int = unpacker.read_array_header()
        if length < count:
            raise ProtocolError(f"expected a list of at least {count} items")
        items: list[Value] = [unpacker.unpack() for _ in range(count)]
    except ProtocolError:
        raise
    except UnicodeDecodeError as exc:
        raise ProtocolError("a string in the encoding is not valid UTF-8") from exc
    except Exception as exc:  # truncated, not a list, an item too large or not a scalar
        raise ProtocolError(f"the encoding is malformed: {exc or type(exc).__name__}") from exc
    return length, items
