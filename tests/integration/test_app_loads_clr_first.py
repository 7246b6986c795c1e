"""Apps that load the CLR themselves, build their UI, and only then meet wpfprobe.

Real apps call ``pythonnet.load("mono")`` or a bare ``import clr`` (pythonnet's
default runtime) before anything of wpfprobe is imported; the session's other
tests always load the CLR through wpfprobe first. Each app here is
scripts/zoo_app.py in a process of its own, loading the CLR its way: then
``wpfprobe.start`` (MCP), ``wpfprobe.attach`` (the Python API, from inside the
app), or no probe at all under ``wpfprobe run``.

Mono reads its thread-suspend mode when it starts, so only the app decides it;
in the default mode pythonnet calls from two threads can deadlock the process
during a garbage collection (a zoo run here hung that way before its harness
set the safe mode). The probe cannot change it any more, and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from zoo_harness import SCRIPT, Zoo, by_name, last_facts, mcp_session, ok, run_driver, zoo_env

from wpfprobe.mcp import manifest as _manifest

DEADLINE = 120.0
SUSPEND_WARNING = "Mono was started with MONO_THREADS_SUSPEND="


def test_an_app_that_loaded_mono_itself_is_served_by_start(display: str | None, tmp_path: Path) -> None:
    app = Zoo(tmp_path, "--load", "mono", "--probe", "start")
    try:

        async def look(client: Any) -> dict[str, Any]:
            return {
                "info": await ok(client, "wpf_get_session_info"),
                "tree": await ok(client, "wpf_get_visual_tree", maxDepth=4),
                "click": await ok(client, "wpf_click", locator="#fancyButton"),
            }

        seen = app.session(look)
    finally:
        facts = app.close()
    runtime = seen["info"]["runtime"]
    assert runtime["kind"] == "mono" and runtime["version"][0].isdigit(), runtime
    assert seen["info"]["toolkit"] == "winforms"
    assert by_name(seen["tree"]["root"])["fancyButton"]["type"] == "FancyButton"
    assert facts["clicks"] == 1
    assert SUSPEND_WARNING not in app.stderr, "the app started Mono in the safe mode: nothing to warn about"


def what_attach_sees(probe: Any, facts: Any, collect: Any) -> dict[str, Any]:
    """Runs inside zoo_app.py: the Python API of an app that did a bare ``import clr``."""
    info = probe.session_info()
    return {
        "runtime": info.runtime.kind,
        "windows": [(w.name, w.type) for w in probe.windows()],
        "found": probe.locator("TextBox#innerBox").count(),
        "suspendMode": os.environ.get("MONO_THREADS_SUSPEND"),
    }


def test_an_app_that_imported_clr_bare_is_read_by_attach(display: str | None, tmp_path: Path) -> None:
    result, facts, stderr = run_driver(tmp_path, what_attach_sees, "--load", "clr")
    assert result == {
        "runtime": "mono", "windows": [["zooWindow", "ZooForm"]], "found": 1, "suspendMode": "preemptive",
    }  # fmt: skip
    assert facts["threadExceptions"] == []
    assert SUSPEND_WARNING not in stderr


def test_attaching_to_an_app_whose_mono_can_deadlock_warns_at_the_app_s_own_call(
    display: str | None, tmp_path: Path
) -> None:
    # The app started Mono in its default suspend mode: the probe cannot change that any more,
    # so it says so where the app called it, and leaves the environment as Mono read it.
    env = zoo_env(tmp_path, MONO_THREADS_SUSPEND=None)
    result, _, stderr = run_driver(tmp_path, what_attach_sees, "--load", "mono", env=env)
    assert result["runtime"] == "mono" and result["found"] == 1
    assert result["suspendMode"] is None, "the probe must not claim a mode Mono never read"
    assert f"{SUSPEND_WARNING}(unset: its default)" in stderr, stderr[-2000:]
    assert "wpfprobe run" in stderr
    # Pointed at the app's line (zoo_app.py calls wpfprobe.attach), not at wpfprobe's insides.
    warning_line = next(line for line in stderr.splitlines() if SUSPEND_WARNING in line)
    assert warning_line.startswith(str(SCRIPT)), warning_line


def test_an_app_that_loads_mono_itself_runs_under_wpfprobe_run(display: str | None, tmp_path: Path) -> None:
    home = tmp_path / "home"
    close = tmp_path / "close"
    env = zoo_env(home, MONO_THREADS_SUSPEND=None)  # `wpfprobe run` sets the safe mode before the app loads Mono
    argv = [sys.executable, "-m", "wpfprobe", "run", "--allow", "interact", str(SCRIPT)]
    argv += ["--load", "mono", "--probe", "none", "--close-file", str(close)]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        manifest = wait_for_manifest(home, proc.pid, lambda: proc.poll() is None)

        async def drive(client: Any) -> dict[str, Any]:
            return {
                "tree": await ok(client, "wpf_get_visual_tree", maxDepth=4),
                "click": await ok(client, "wpf_click", locator="#fancyButton"),
                "status": await ok(client, "wpf_inspect_element", locator="#statusLabel"),
            }

        seen = mcp_session(manifest.url, manifest.token, drive)
        close.write_text("", encoding="utf-8")
        out, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, err[-3000:]
    assert manifest.app_name == "zoo_app" and manifest.tier == "interact"
    named = by_name(seen["tree"]["root"])
    assert named["zooWindow"]["type"] == "ZooForm" and named["innerPanel"]["type"] == "FancyPanel"
    assert seen["status"]["node"]["text"] == "Clicked 1"
    assert last_facts(out)["clicks"] == 1
    assert SUSPEND_WARNING not in err


def wait_for_manifest(home: Path, pid: int, alive: Any) -> _manifest.Manifest:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        for manifest in _manifest.read_all(home / "sessions"):
            if manifest.pid == pid:
                return manifest
        if not alive():
            pytest.fail("the app ended before its probe wrote a manifest")
        time.sleep(0.05)
    raise AssertionError("no manifest appeared")
