"""Tests read English: the locale of the machine that runs them must not change a word."""

import os

# LC_ALL wins over LC_MESSAGES and LANG, here and in every `gleek` a test starts.
os.environ["LC_ALL"] = "C.UTF-8"


def _fsync_checks_the_fd_only(fd: int) -> None:
    """``os.fsync`` for the tests run in this process: the descriptor is checked, the disk
    is not waited for.

    What fsync adds (a record survives a power cut or a kernel crash) no test can
    observe: a killed process loses nothing the kernel holds. But the in-process
    sessions paid up to one fsync per log append per seat (5.4 ms each on this busy
    disk: up to 1.3 s for the three logs of 83 events of a 1-hand session), and the
    ``gleek results`` tests wrote their logs record by record. The order of writes
    and fsync calls is still what the product makes (``tests/test_log_store.py``
    records it, and makes fsync fail), a closed or bad descriptor still raises, and
    ``gleek`` started in a subprocess (the kill and namespace tests) fsyncs for real.
    ``GLEEK_TEST_REAL_FSYNC=1`` turns the real fsync back on.
    """
    os.fstat(fd)


if os.environ.get("GLEEK_TEST_REAL_FSYNC") != "1":
    os.fsync = _fsync_checks_the_fd_only


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
