"""The test process's own exit, bounded (a pytest plugin: tests/conftest.py loads it).

Mono's shutdown (``mono_jit_cleanup``, run by pythonnet at exit) waits for every thread that
ever called into the CLR and is still alive, with no limit; a Python daemon thread that did so
and idles never ends, so the process never exits (pytest's summary printed, then nothing: it
happened to a CI run). Once the tests are over, a watchdog gives the exit EXIT_WAIT seconds; past
that it reports what is left (every Python thread's stack, which threads Mono counts as its own,
Mono's dump of its managed threads) and ends the process with EXIT_HUNG, so such a hang fails the
run, with the evidence, instead of holding it until the job is killed.
"""

from __future__ import annotations

import faulthandler
import os
import shutil
import signal
import subprocess
import sys
import threading

import pytest

EXIT_WAIT = float(os.environ.get("WPFPROBE_TEST_EXIT_WAIT", "120"))
"""Seconds the process may take to exit after its last test (pythonnet's shutdown takes a few)."""
EXIT_HUNG = 70
"""The status of a test process the watchdog ended (EX_SOFTWARE)."""


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    # Asked now: pythonnet forgets its runtime as its shutdown begins.
    mono = _mono_loaded()
    threading.Thread(target=_watch_exit, args=(mono,), name="tests-exit-watchdog", daemon=True).start()


def _watch_exit(mono: bool) -> None:
    if threading.Event().wait(EXIT_WAIT):  # a deadline, not a pause: nothing sets the event
        return
    err = sys.__stderr__
    assert err is not None
    err.write(f"\nwpfprobe tests: the process has not exited {EXIT_WAIT:g} s after its tests ended.\n")
    err.write("Python's threads:\n")
    err.flush()
    faulthandler.dump_traceback(file=err, all_threads=True)
    if mono and shutil.which("gdb"):
        err.write("\nThreads Mono counts as its own (mono_thread_info_current_unchecked() != 0x0):\n")
        err.flush()
        command = ["gdb", "-p", str(os.getpid()), "-batch", "-ex", "set pagination off"]
        command += ["-ex", "thread apply all p (void*)mono_thread_info_current_unchecked()"]
        try:
            found = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False).stdout
        except (OSError, subprocess.TimeoutExpired) as exc:
            found = f"gdb failed: {exc!r}\n"
        err.write("".join(line + "\n" for line in found.splitlines() if line.startswith(("Thread ", "$"))))
        err.flush()
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGQUIT)  # Mono prints its managed threads' stacks on stdout
        threading.Event().wait(2.0)  # its dump is written by another thread: give it time to print
    err.write(f"wpfprobe tests: ending the process with status {EXIT_HUNG}.\n")
    err.flush()
    os._exit(EXIT_HUNG)


def _mono_loaded() -> bool:
    if "clr" not in sys.modules:
        return False
    import pythonnet

    info = pythonnet.get_runtime_info()
    return info is not None and info.kind.lower() == "mono"
