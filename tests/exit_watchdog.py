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
import re
import shutil
import signal
import subprocess
import sys
import threading

import pytest

EXIT_WAIT = float(os.environ.get("WPFPROBE_TEST_EXIT_WAIT", "300"))
"""Seconds the process may take to exit after its last test. pythonnet's shutdown (41 collections
of each heap) took over 20 s after the unit tests alone here, and a loaded machine is slower still;
a hang is for good, so the margin costs nothing but time when one happens."""
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
        err.write("\nPython's threads that Mono counts as its own (its exit waits for each):\n")
        try:
            names = {t.ident: t.name for t in threading.enumerate()}
            err.write("".join(f"  {names.get(i, 'not a Python thread')} ({i:#x})\n" for i in mono_threads()))
        except (OSError, subprocess.SubprocessError) as exc:
            err.write(f"  gdb could not tell: {exc!r}\n")
        err.flush()
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGQUIT)  # Mono prints its managed threads' stacks on stdout
        threading.Event().wait(2.0)  # its dump is written by another thread: give it time to print
    err.write(f"wpfprobe tests: ending the process with status {EXIT_HUNG}.\n")
    err.flush()
    os._exit(EXIT_HUNG)


def mono_threads() -> list[int]:
    """The threads of this process that Mono counts as its own (an attached thread: one that
    called into the CLR), as ``pthread_t`` values, which are Python's thread idents. Mono's exit
    waits, with no limit, for each one still alive. Asked through gdb, which calls Mono's own
    ``mono_thread_info_current_unchecked`` on every thread (a read of its thread-local state)."""
    command = ["gdb", "-p", str(os.getpid()), "-batch", "-ex", "set pagination off"]
    command += ["-ex", "thread apply all p (void*)mono_thread_info_current_unchecked()"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    attached, thread = [], None
    for line in out.splitlines():
        if header := re.match(r"Thread \d+ \(Thread (0x[0-9a-f]+)", line):
            thread = int(header.group(1), 16)
        elif line.startswith("$") and thread is not None:
            if not line.rstrip().endswith(" 0x0"):
                attached.append(thread)
            thread = None
    if thread is not None or not out:
        raise subprocess.SubprocessError(f"gdb's answer was not understood: {out[-2000:]!r}")
    return attached


def _mono_loaded() -> bool:
    if "clr" not in sys.modules:
        return False
    import pythonnet

    info = pythonnet.get_runtime_info()
    return info is not None and info.kind.lower() == "mono"
