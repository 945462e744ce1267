"""A tiny exec-bot engine for tests/test_bots_exec.py: ``python bots_engine.py MODE [N]``.

Modes: ``index`` answers 0; ``json`` echoes the last legal move as JSON;
``slow`` sleeps N seconds before its first answer, then answers 0;
``crash`` exits with code 3 after N answers; ``garbage`` answers nonsense;
``range`` answers an index past the legal list; ``illegal`` answers a
well-formed move that is not legal. Every message received is appended to
the file named by the environment variable BOTS_ENGINE_LOG, if set.
"""

import json
import os
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    n = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    log = os.environ.get("BOTS_ENGINE_LOG")
    answered = 0
    for line in sys.stdin:
        message = json.loads(line)
        if log:
            with open(log, "a") as f:
                f.write(message["type"] + "\n")
        if message["type"] != "move":
            continue
        legal = message["legal"]
        if mode == "crash" and answered >= n:
            sys.exit(3)
        if mode == "slow" and answered == 0:
            time.sleep(n)
        if mode == "garbage":
            reply = "e2e4 please"
        elif mode == "range":
            reply = str(len(legal))
        elif mode == "illegal":
            reply = json.dumps({"kind": "play", "seat": 0, "slot": 43})
        elif mode == "json":
            reply = json.dumps(legal[-1])
        else:
            reply = "0"
        print(reply, flush=True)
        answered += 1


if __name__ == "__main__":
    main()
