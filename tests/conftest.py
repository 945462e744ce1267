"""Tests read English: the locale of the machine that runs them must not change a word."""

import os

# LC_ALL wins over LC_MESSAGES and LANG, here and in every `gleek` a test starts.
os.environ["LC_ALL"] = "C.UTF-8"


def pytest_sessionstart(session: object) -> None:
    """Compile the package (and these helpers) to bytecode once, before any test.

    Hundreds of tests start ``gleek`` or a scenario script in a new process.
    Where ``PYTHONDONTWRITEBYTECODE`` is set (sandboxes, some CI), no process
    leaves its compiled modules behind, so each one compiled the whole package
    again: a bot took 4.3 s instead of 2.8 s to listen on a loaded machine
    (about 1 s once here, nothing when the bytecode is already up to date).
    """
    import compileall
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for folder in (here.parent / "gleek_p2p", here):
        compileall.compile_dir(folder, quiet=2)
