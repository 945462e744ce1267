"""Measure the candidate groups for the deck side by side, in one run (issue 22).

Each candidate does the same work: a variable-base scalar multiplication
(from and to the wire form, and, where the library can keep a point decoded,
decoded to decoded), a base-point multiplication and a point addition. The
figures are microseconds per operation (best of a few rounds) and ratios
against PyNaCl's ed25519 (deck v1/v2) measured in the same run. A candidate
whose package is not installed is reported as missing, not guessed.

Checked by hand on 2026-12-01 (cp311, manylinux x86_64, ``pip download
--only-binary=:all:``), besides speed:

* ``coincurve`` 21 (secp256k1): wheel with libsecp256k1 inside, no
  dependency, writes nothing at import (strace), maintained; parsing a
  point yields a point of the prime-order group (cofactor 1).  Chosen.
* ``rbcl`` 1.1.2 (ristretto255): wheel, but writes its libsodium to a
  temporary ``.so`` at every import (strace shows ``/tmp/tmp*.so``).
* ``pysodium``, ``pyristretto``: no wheel (need a system libsodium or a compiler).
* ``fastecdsa`` 4 (secp256k1, Rust): wheel, but slower than PyNaCl.
* ``ecc``: pure Python (libsecp256k1 only through another optional package).

    .venv/bin/python bench/groups.py [--json] [--rounds N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

L_ED = 2**252 + 27742317777372353535851937790883648493
N_K1 = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def _scalars(order: int, count: int) -> list[int]:
    return [
        int.from_bytes(hashlib.sha512(b"groups bench %d" % i).digest(), "little") % order or 1
        for i in range(count)
    ]


Ops = dict[str, Callable[[], None]]


def _time(fn: Callable[[], None]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_pynacl(reps: int) -> Ops:
    import nacl.bindings as b

    ks = [k.to_bytes(32, "little") for k in _scalars(L_ED, reps)]
    p = bytes(b.crypto_scalarmult_ed25519_base_noclamp(ks[0]))
    q = bytes(b.crypto_scalarmult_ed25519_base_noclamp(ks[1]))

    def mul() -> None:
        for k in ks:
            b.crypto_scalarmult_ed25519_noclamp(k, p)

    def base() -> None:
        for k in ks:
            b.crypto_scalarmult_ed25519_base_noclamp(k)

    def add() -> None:
        for _ in ks:
            b.crypto_core_ed25519_add(p, q)

    return {"mul_wire": mul, "base": base,
            "add_wire": add}


def bench_rbcl(reps: int) -> Ops:
    import rbcl

    ks = [k.to_bytes(32, "little") for k in _scalars(L_ED, reps)]
    p = rbcl.crypto_scalarmult_ristretto255_base(ks[0])
    q = rbcl.crypto_scalarmult_ristretto255_base(ks[1])

    def mul() -> None:
        for k in ks:
            rbcl.crypto_scalarmult_ristretto255(k, p)

    def base() -> None:
        for k in ks:
            rbcl.crypto_scalarmult_ristretto255_base(k)

    def add() -> None:
        for _ in ks:
            rbcl.crypto_core_ristretto255_add(p, q)

    return {"mul_wire": mul, "base": base,
            "add_wire": add}


def bench_coincurve(reps: int) -> Ops:
    from coincurve._libsecp256k1 import ffi, lib
    from coincurve.context import GLOBAL_CONTEXT

    ctx = GLOBAL_CONTEXT.ctx
    ks = [k.to_bytes(32, "big") for k in _scalars(N_K1, reps)]

    def base_point(k: bytes) -> Any:
        out = ffi.new("secp256k1_pubkey *")
        assert lib.secp256k1_ec_pubkey_create(ctx, out, k)
        return out

    def encode(pk: Any) -> bytes:
        buf = ffi.new("unsigned char[33]")
        size = ffi.new("size_t *", 33)
        lib.secp256k1_ec_pubkey_serialize(ctx, buf, size, pk, lib.SECP256K1_EC_COMPRESSED)
        return bytes(ffi.buffer(buf, 33))

    def decode(data: bytes) -> Any:
        out = ffi.new("secp256k1_pubkey *")
        assert lib.secp256k1_ec_pubkey_parse(ctx, out, data, len(data))
        return out

    p, q = base_point(ks[0]), base_point(ks[1])
    p_wire = encode(p)

    def mul_wire() -> None:
        for k in ks:
            out = decode(p_wire)
            lib.secp256k1_ec_pubkey_tweak_mul(ctx, out, k)
            encode(out)

    def mul_decoded() -> None:
        for k in ks:
            out = ffi.new("secp256k1_pubkey *", p[0])
            lib.secp256k1_ec_pubkey_tweak_mul(ctx, out, k)

    def base() -> None:
        for k in ks:
            base_point(k)

    def add_decoded() -> None:
        pair = [p, q]
        for _ in ks:
            out = ffi.new("secp256k1_pubkey *")
            lib.secp256k1_ec_pubkey_combine(ctx, out, pair, 2)

    def decode_encode() -> None:
        for _ in ks:
            encode(decode(p_wire))

    return {"mul_wire": mul_wire,
            "mul_decoded": mul_decoded,
            "base": base, "add_decoded": add_decoded,
            "decode_encode": decode_encode}


def bench_fastecdsa(reps: int) -> Ops:
    from fastecdsa.curve import secp256k1

    ks = _scalars(N_K1, reps)
    g = secp256k1.G
    p, q = g * ks[0], g * ks[1]

    def mul() -> None:
        for k in ks:
            p * k

    def base() -> None:
        for k in ks:
            g * k

    def add() -> None:
        for _ in ks:
            p + q

    return {"mul_decoded": mul, "base": base,
            "add_decoded": add}


CANDIDATES: dict[str, tuple[str, Callable[[int], Ops]]] = {
    "ed25519/PyNaCl": ("nacl", bench_pynacl),
    "ristretto255/rbcl": ("rbcl", bench_rbcl),
    "secp256k1/coincurve": ("coincurve", bench_coincurve),
    "secp256k1/fastecdsa": ("fastecdsa", bench_fastecdsa),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    ops: dict[str, Ops] = {}
    for name, (module, fn) in CANDIDATES.items():
        try:
            __import__(module)
        except ImportError:
            results[name] = "not installed"
            continue
        ops[name] = fn(args.reps)
    # Interleaved: every round runs every candidate once, so load on the
    # shared machine hits them alike; the best round of each counts.
    best: dict[str, dict[str, float]] = {name: {} for name in ops}
    for _ in range(args.rounds):
        for name, row in ops.items():
            for op, call in row.items():
                took = _time(call) / args.reps * 1e6
                best[name][op] = min(best[name].get(op, took), took)
    for name, row_best in best.items():
        results[name] = {k: round(v, 1) for k, v in row_best.items()}
    ref = results["ed25519/PyNaCl"]["mul_wire"]
    for row in results.values():
        if isinstance(row, dict):
            best_mul = min(v for k, v in row.items() if k.startswith("mul"))
            row["ratio_mul_vs_pynacl"] = round(best_mul / ref, 3)
    if args.json:
        print(json.dumps(results, sort_keys=True))
        return
    for name, row in results.items():
        print(f"{name:22} {row}")


if __name__ == "__main__":
    main()
