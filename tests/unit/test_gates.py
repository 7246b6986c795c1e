"""The gates every change passes: ruff, the formatter and mypy --strict, as ./run test runs them.

One configuration for each, in pyproject.toml; .pre-commit-config.yaml runs the
same commands before a commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ["src", "tests", "benchmarks", "examples"]


def _tool(name: str) -> str:
    # The venv's own copy first: the one ./run installed with the package.
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: ./run test installs it with the package's test extras", pytrace=False)
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_ruff_finds_nothing() -> None:
    result = _run(_tool("ruff"), "check", "--no-cache", *CHECKED)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]


def test_the_code_is_formatted() -> None:
    result = _run(_tool("ruff"), "format", "--check", "--no-cache", *CHECKED)
    assert result.returncode == 0, "run `ruff format` on:\n" + result.stdout[-8000:] + result.stderr[-2000:]


def test_mypy_strict_finds_nothing_in_src() -> None:
    # The configuration (strict, the CLR namespaces without stubs) is pyproject.toml's.
    result = _run(_tool("mypy"), "--no-incremental", "--cache-dir", os.devnull)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]


def test_no_two_test_modules_share_a_name() -> None:
    """The suite's folders are not packages, so pytest imports each test module by its bare
    name: two of the same name stop the whole run at collection, which a run of one folder
    never shows (tests/unit/test_first_hour.py and tests/integration/test_first_hour.py did)."""
    seen: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if "node_modules" not in path.parts:
            seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
