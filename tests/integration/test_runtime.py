"""Loading the CLR: the runtime the app uses, or a clear error naming what is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

PROBE = """
import json, wpfprobe_clr
from wpfprobe import ProbeError
try:
    info = wpfprobe_clr.ensure_clr()
    print(json.dumps({"ok": True, "kind": info.kind, "version": info.version}))
except ProbeError as err:
    print(json.dumps({"ok": False, "code": err.code, "message": err.message, "suggestion": err.suggestion}))
"""


def _load_in_subprocess(**env: str) -> dict[str, Any]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHONNET_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_the_platform_default_runtime_loads() -> None:
    result = _load_in_subprocess()
    assert result["ok"], result
    assert result["kind"] == ("netfx" if sys.platform.startswith("win") else "mono")
    assert result["version"]


def test_a_missing_runtime_is_named_with_what_to_install() -> None:
    # No .NET (core) runtime is installed on the Linux test machines.
    result = _load_in_subprocess(PYTHONNET_RUNTIME="coreclr", DOTNET_ROOT="/nonexistent/dotnet")
    if result["ok"]:
        pytest.fail(f"coreclr unexpectedly loaded here ({result}); this test needs a machine without it")
    assert result["code"] == "APP_NOT_AVAILABLE"
    assert "coreclr" in result["message"] and ".NET runtime" in result["message"]
    assert "PYTHONNET_RUNTIME" in result["suggestion"]


@pytest.mark.skipif(sys.platform.startswith("win"), reason="Mono is the runtime under test on Linux only")
def test_a_broken_mono_is_named_with_what_to_install() -> None:
    result = _load_in_subprocess(PYTHONNET_RUNTIME="mono", PYTHONNET_MONO_LIBMONO="/nonexistent/libmono-2.0.so")
    assert not result["ok"], result
    assert "mono" in result["message"] and "mono-complete" in result["message"]


def test_the_clr_the_app_already_loaded_is_used(running_app: Any) -> None:
    import wpfprobe_clr

    assert wpfprobe_clr.clr_is_loaded()
    assert wpfprobe_clr.ensure_clr().kind == wpfprobe_clr.describe_clr().kind


@pytest.mark.toolkit("winforms")
def test_a_process_that_posted_before_it_loaded_the_clr_still_exits(display: str | None) -> None:
    """Regression: the probe's poster thread registers its exit hook on its first post, to end it
    before pythonnet's shutdown, which (on Mono) waits with no limit for every thread that called
    into the CLR. A post made before the CLR was loaded (the test suite's fake UI threads) registered
    it before pythonnet's own hook, so it ran after it: the test process hung at exit for good, its
    poster alive. Attaching registers it again once the CLR is there."""
    from pathlib import Path

    scripts = Path(__file__).parent / "scripts"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(scripts), os.environ.get("PYTHONPATH", "")])}
    env["PYTHONWARNINGS"] = "ignore:Hosting Mono versions:UserWarning"
    try:
        done = subprocess.run(
            [sys.executable, str(scripts / "posted_before_clr.py")],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the process did not exit: {exc.stdout!r}", pytrace=False)
    assert done.returncode == 0, (done.stdout, done.stderr[-3000:])
    assert done.stdout.splitlines()[-1] == "EXITING", done.stdout


@pytest.mark.toolkit("winforms")
def test_attach_compiles_the_id_delegate_before_the_ui_thread_or_the_walks_compile_runs(
    display: str | None,
) -> None:
    """Regression: the attaching thread compiled the element-id delegate while the toolkit's hooks
    ran on the UI thread and the walk compiled on a thread of its own. Three threads making .NET
    classes at once froze bench_heartbeat for good (pythonnet 3.2.1, whose class cache's lock is
    held across a collection's Python callback) and an app whose Mono runs in its default suspend
    mode at one attach in two (pythonnet 3.1.0). The delegate is compiled first now."""
    import json
    from pathlib import Path

    scripts = Path(__file__).parent / "scripts"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(scripts), os.environ.get("PYTHONPATH", "")])}
    env["PYTHONWARNINGS"] = "ignore:Hosting Mono versions:UserWarning"
    done = subprocess.run(
        [sys.executable, str(scripts / "attach_order.py")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["windows"] >= 1
    assert seen["order"][:3] == ["id", "toolkit", "walk"], seen
