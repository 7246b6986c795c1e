"""tests/exit_watchdog.py: a test process that cannot exit fails, with the evidence, in bounded time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

HANGS_AT_EXIT = """
import threading

def test_leaves_a_thread_python_waits_for_at_exit():
    threading.Thread(target=threading.Event().wait, name="never-ends").start()
"""


def test_a_test_process_that_cannot_exit_is_ended_with_its_threads_reported(tmp_path: Path) -> None:
    """A CI run printed pytest's summary, then hung in the interpreter's exit until it was killed.
    Here a test leaves a thread that never ends and that Python waits for at exit: the process
    ends on its own, with status EXIT_HUNG and that thread's stack on stderr."""
    sys.path.insert(0, str(TESTS))
    try:
        from exit_watchdog import EXIT_HUNG
    finally:
        sys.path.remove(str(TESTS))
    (tmp_path / "test_hang.py").write_text(HANGS_AT_EXIT, encoding="utf-8")
    env = {
        **os.environ,
        "WPFPROBE_TEST_EXIT_WAIT": "1",
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "exit_watchdog", "test_hang.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "1 passed" in done.stdout, done.stdout
    assert done.returncode == EXIT_HUNG, (done.returncode, done.stderr)
    assert "has not exited 1 s after its tests ended" in done.stderr, done.stderr
    assert "Thread 0x" in done.stderr and "in wait" in done.stderr, done.stderr
