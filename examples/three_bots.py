"""Three bot peers on this machine, over real TCP on 127.0.0.1, then ``gleek verify``.

Each bot is its own process with its own identity and data directory,
started as ``gleek bot --no-mdns --listen 127.0.0.1:PORT --peer ...``; they
shuffle by mental poker, play the session, and each writes the signed log.
The script then audits one of the logs with ``gleek verify`` and exits with
its code: 0 fair, 1 unfair (a proven violation), 2 unreadable, 3 stopped
(nothing proven: the log stops waiting for a seat, or ends on a claim).

    python examples/three_bots.py [--hands 3] [--strategy heuristic] [--variant standard]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

GLEEK = [sys.executable, "-m", "gleek_p2p"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--strategy", default="heuristic")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    names = ["anne", "thomas", "mary"]
    ports = [free_port() for _ in names]
    work = Path(tempfile.mkdtemp(prefix="gleek-three-bots-"))
    bots: list[subprocess.Popen[str]] = []
    try:
        for i, name in enumerate(names):
            command = [
                *GLEEK,
                "bot",
                "--name",
                name,
                "--no-mdns",
                "--listen",
                f"127.0.0.1:{ports[i]}",
                "--data-dir",
                str(work / name),
                "--table",
                "three-bots",
                "--hands",
                str(args.hands),
                "--variant",
                args.variant,
                "--strategy",
                args.strategy,
                "--seed",
                name,
                "--timeout",
                str(args.timeout),
            ]
            for port in ports[:i]:  # each bot dials the ones started before it
                command += ["--peer", f"127.0.0.1:{port}"]
            bots.append(
                subprocess.Popen(
                    command, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL
                )
            )
        logs = []
        for name, bot in zip(names, bots, strict=True):
            out, _ = bot.communicate(timeout=args.timeout * 2 + 60 * args.hands)
            print(f"{name}: exit {bot.returncode}, log {out.strip() or '(none)'}")
            if out.strip():
                logs.append(out.strip().splitlines()[-1])
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    if not logs:
        print("no bot wrote a log", file=sys.stderr)
        return 1
    print(f"$ gleek verify {logs[0]}")
    return subprocess.run([*GLEEK, "verify", "--no-progress", logs[0]]).returncode


if __name__ == "__main__":
    sys.exit(main())
