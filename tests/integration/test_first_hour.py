"""The first hour (issue 20) against a real app: every command that starts an app gives it a display."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from wpfprobe.mcp import manifest as _manifest

HERE = Path(__file__).parent
SCRIPT = HERE / "scripts" / "plain_winforms_app.py"
DEADLINE = 90.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X displays are Linux's")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    return {**env, "WPFPROBE_HOME": str(home)}


def _xvfb_children(pid: int) -> list[psutil.Process]:
    try:
        return [p for p in psutil.Process(pid).children(recursive=True) if p.name() == "Xvfb"]
    except psutil.NoSuchProcess:
        return []


def _manifest_of(home: Path, pid: int, alive: object) -> _manifest.Manifest:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        for found in _manifest.read_all(home / "sessions"):
            if found.pid == pid:
                return found
        assert callable(alive) and alive(), "the app ended before its probe came up"
        time.sleep(0.1)
    raise AssertionError("no manifest appeared")


def test_run_without_a_display_runs_the_app_on_a_private_one_and_says_what_it_waits_for(tmp_path: Path) -> None:
    """Regression (issue 20): with no DISPLAY, `wpfprobe run` died with a Mono stack trace, and while it
    waited for a UI it said nothing, even at DEBUG."""
    home, control = tmp_path / "home", tmp_path / "control"
    argv = [sys.executable, "-m", "wpfprobe", "run", "--log-level", "INFO", str(SCRIPT), str(control)]
    proc = subprocess.Popen(argv, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        found = _manifest_of(home, proc.pid, lambda: proc.poll() is None)
        displays = _xvfb_children(proc.pid)
        assert len(displays) == 1, "a private Xvfb, started by the run itself"
        tree = subprocess.run(
            [sys.executable, "-m", "wpfprobe", "tree", found.app_id, "--depth", "1"], env=_env(home),
            capture_output=True, text=True, timeout=DEADLINE, check=False,
        )  # fmt: skip
        assert tree.returncode == 0 and "Form" in tree.stdout, tree.stderr
        control.write_text("exit 0", encoding="utf-8")
        _out, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, err
    messages = [json.loads(line)["msg"] for line in err.splitlines() if line.startswith("{")]
    assert "no DISPLAY: the app runs on a private virtual display (Xvfb)" in messages
    assert "waiting for the app to load a CLR (pythonnet.load(), or import clr)" in messages
    assert "Traceback" not in err
    psutil.wait_procs(displays, timeout=10)
    assert not any(p.is_running() for p in displays), "the private display ends with the run"


def test_launch_without_a_display_gives_the_app_one_that_ends_with_it(tmp_path: Path) -> None:
    home, control = tmp_path / "home", tmp_path / "control"
    launched = subprocess.run(
        [sys.executable, "-m", "wpfprobe", "launch", "--json", "--", "python", str(SCRIPT), str(control)],
        env=_env(home), capture_output=True, text=True, timeout=DEADLINE, check=False,
    )  # fmt: skip
    assert launched.returncode == 0, launched.stderr
    pid = json.loads(launched.stdout)["pid"]
    try:
        displays = _xvfb_children(pid)
        assert len(displays) == 1
    finally:
        # Killed as an app can be: no exit handler runs, and the display still goes with it.
        psutil.Process(pid).kill()
    psutil.wait_procs(displays, timeout=10)
    assert not any(p.is_running() for p in displays)


def test_the_demo_that_ships_in_the_package_drives_its_app_and_leaves_nothing_running(tmp_path: Path) -> None:
    """Issue 20: no runnable example shipped in the package; `wpfprobe demo` needs only the wheel and Mono."""
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "wpfprobe", "demo"], cwd=tmp_path, env=_env(home), capture_output=True, text=True,
        timeout=DEADLINE * 2, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Label#greetingLabel "Hello, Ada"' in done.stdout and "stopped the app." in done.stdout
    assert (tmp_path / "wpfprobe-demo.png").read_bytes().startswith(b"\x89PNG")
    assert "Traceback" not in done.stderr
    assert _manifest.read_all(home / "sessions") == []
