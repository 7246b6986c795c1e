"""Calls from several threads at once, with the CLR collecting garbage meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "hammer.py"


@pytest.mark.toolkit("winforms")
@pytest.mark.timeout(400)
def test_concurrent_calls_during_garbage_collection_do_not_deadlock() -> None:
    """Regression: under Mono's default (hybrid) thread suspend, a caller waiting for the
    GIL and a UI thread entering managed code during a GC deadlocked. The probe now
    loads Mono with MONO_THREADS_SUSPEND=preemptive.

    The run takes ~45 s alone and several times that on a loaded CI machine (every call
    meets a collection in progress), so the deadline is generous: a deadlock never ends."""
    env = {k: v for k, v in os.environ.items() if k != "MONO_THREADS_SUSPEND"}
    try:
        done = subprocess.run([sys.executable, str(SCRIPT), "60"], env=env, capture_output=True, text=True, timeout=360)
    except subprocess.TimeoutExpired:
        pytest.fail("three threads calling the probe during garbage collection hung")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DONE 180" in done.stdout
