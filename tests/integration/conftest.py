"""Integration harness: the real example app on its own UI thread, a real display.

On Linux a private Xvfb is started when DISPLAY is unset. The example is
chosen by WPFPROBE_EXAMPLE (winforms, the default, or wpf on Windows). The
probe runs with thread-affinity checking on, and on WinForms the toolkit's
own cross-thread check is switched on too (Mono leaves it off), so a UI
object touched off the UI thread fails the test that did it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = os.environ.get("WPFPROBE_EXAMPLE", "winforms")


@pytest.fixture(scope="session")
def display() -> Iterator[str | None]:
    from wpfprobe.testing import virtual_display

    if not sys.platform.startswith("win") and not os.environ.get("DISPLAY") and shutil.which("Xvfb") is None:
        pytest.fail("Xvfb is not installed: run the README's test command, which installs it.", pytrace=False)
    with virtual_display() as name:
        yield name


def load_example(kind: str) -> Any:
    path = ROOT / "examples" / f"{kind}_app.py"
    spec = importlib.util.spec_from_file_location(f"example_{kind}_app", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def example(display: str | None) -> Any:
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()  # load the CLR the way the probe does, before the app does
    return load_example(EXAMPLE)


@pytest.fixture(scope="session")
def running_app(example: Any) -> Iterator[Any]:
    if EXAMPLE == "winforms":
        from System.Windows.Forms import Control

        Control.CheckForIllegalCrossThreadCalls = True
    app = example.start_in_background()
    try:
        yield app
    finally:
        # The UI thread must end before the interpreter does (see DESIGN.md).
        app.close()


@pytest.fixture(scope="session")
def probe(running_app: Any) -> Iterator[Any]:
    import wpfprobe

    p = wpfprobe.attach(
        running_app.app, name="example", settings=wpfprobe.ProbeSettings(check_thread_affinity=True)
    )
    yield p
    assert p.engine.thread_violations == [], p.engine.thread_violations


@pytest.fixture
def toolkit(running_app: Any) -> str:
    return str(running_app.toolkit)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)
        for mark in item.iter_markers("toolkit"):
            if EXAMPLE not in mark.args:
                item.add_marker(
                    pytest.mark.skip(reason=f"exercises {', '.join(mark.args)} only; this run drives the {EXAMPLE} example")
                )
