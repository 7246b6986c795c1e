"""The pytest plugin stays out of a test suite that does not use it, and collects scenarios only when asked."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    # Installed (./run installs the package), the entry point loads it; from a checkout, -p does.
    installed = any(
        e.value == "wpfprobe.testkit.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", "wpfprobe.testkit.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", *args],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def project(tmp_path: Path) -> Path:
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n", encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("id: x\nsteps:\n  - action: click\n    clickCount: 9\n", encoding="utf-8")
    return tmp_path


def test_a_suite_that_does_not_use_the_plugin_sees_no_trace_of_it(tmp_path: Path) -> None:
    done = pytest_in(project(tmp_path), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "wpfprobe" not in done.stdout + done.stderr
    assert not (tmp_path / "artifacts").exists()


def test_scenario_files_are_collected_only_when_named_and_a_bad_one_names_its_line(tmp_path: Path) -> None:
    done = pytest_in(project(tmp_path), "-q", "--wpfprobe-scenarios", "*.yaml", "--wpfprobe-seed", "5")
    assert done.returncode != 0
    assert "broken.yaml:4: steps.0.clickCount" in done.stdout
    assert "wpfprobe seed: 5" in done.stdout
