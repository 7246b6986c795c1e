"""The .NET-side code that needs no UI toolkit, on CoreCLR as well as on Mono.

CoreCLR is what modern WPF apps run on, and it differs from Mono where this
code lives: expressions are compiled by another JIT, assemblies resolve
otherwise (System.Data's DataColumn is in System.Data.Common there), and
pythonnet hosts it through another loader. One process hosts one CLR, so
the tests that cover that code (the expression builder and the bridge,
Python-defined classes read through ``net/``: test_net_bridge.py; the walk
frame, its packed form and the WPF walk over stand-in types:
test_wpf_walker_stub.py) run here once more, in a pytest of their own on
CoreCLR 3.1 from PyPI's ``dotnetcore2`` (``clr_runtimes.py``). In this
process they run on Mono.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest
from clr_runtimes import VARIABLE, coreclr_root

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ON_CORECLR = ("test_net_bridge.py", "test_wpf_walker_stub.py")

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() != "x86_64",
    reason="dotnetcore2 carries CoreCLR for Linux x86_64 only; elsewhere the Windows workflow runs CoreCLR",
)


def test_the_toolkit_free_net_code_passes_its_tests_on_coreclr() -> None:
    if coreclr_root() is None:
        pytest.fail("dotnetcore2 is not installed: it is in the test extras (./run installs them)", pytrace=False)
    env = {**os.environ, VARIABLE: "coreclr"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
         *(str(HERE / name) for name in ON_CORECLR)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    tail = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, tail
    summary = done.stdout.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed is not None and int(passed.group(1)) >= 16, tail
    assert "skipped" not in summary and "failed" not in summary, tail
