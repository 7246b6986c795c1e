"""The pythonnet the probe installs with does not deadlock when threads build .NET classes at once."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "type_race.py"
DEADLINE = 180.0
"""Seconds for about 4,000 classes on three threads (4 s here); a deadlock never ends."""


@pytest.mark.toolkit("winforms")
def test_threads_building_net_classes_while_a_collection_runs_python_do_not_deadlock(display: str | None) -> None:
    """Regression: with pythonnet 3.2.1 the heartbeat benchmark froze during attach, for good: the
    compile's thread was building a .NET class's Python class under pythonnet's class-cache lock
    when a collection ran a Python callback and gave up the GIL; the attaching thread took it and
    waited for that lock. scripts/type_race.py does the same with no probe: 3.2.0 and 3.2.1
    deadlocked every time, 3.0.5 and 3.1.0 never, so pyproject.toml excludes those two."""
    version = importlib.metadata.version("pythonnet")
    try:
        done = subprocess.run(
            [sys.executable, "-W", "ignore", str(SCRIPT)], capture_output=True, text=True, timeout=DEADLINE
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"pythonnet {version}: threads building .NET classes at once deadlocked", pytrace=False)
    assert done.returncode == 0 and done.stdout.startswith("ok: "), (version, done.stdout, done.stderr[-3000:])


def test_an_app_with_a_pythonnet_that_deadlocks_so_is_told_which_to_install() -> None:
    """pyproject.toml keeps pip from installing those releases with wpfprobe; an app that brings its
    own pythonnet is warned when the probe attaches (the version is clr.__version__: no metadata read)."""
    from wpfprobe_clr._runtime import DEADLOCKING_PYTHONNET, pythonnet_warning

    for version in DEADLOCKING_PYTHONNET:
        text = pythonnet_warning(version)
        assert text is not None and f"pythonnet {version} can deadlock" in text and "3.1.0" in text
    assert pythonnet_warning("3.1.0") is None
    assert pythonnet_warning(None) is None
