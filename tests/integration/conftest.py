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


def pytest_configure(config: pytest.Config) -> None:
    # A process started to run tests on CoreCLR (test_coreclr.py) loads it before anything loads Mono.
    from clr_runtimes import VARIABLE, load_test_clr

    if os.environ.get(VARIABLE) == "coreclr":
        load_test_clr()


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

    p = wpfprobe.attach(running_app.app, name="example", settings=wpfprobe.ProbeSettings(check_thread_affinity=True))
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
                    pytest.mark.skip(
                        reason=f"exercises {', '.join(mark.args)} only; this run drives the {EXAMPLE} example"
                    )
                )


# -- the co-located MCP server (tests/integration/test_mcp_*.py) ----------------------------

MCP_UI_TIMEOUT = 1.0  # seconds the server waits for the UI thread before DISPATCHER_BUSY


@pytest.fixture(scope="session", autouse=True)
def wpfprobe_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private WPFPROBE_HOME for the whole session: manifests, the audit key and
    the audit log of every action a test performs stay out of the user's own."""
    home = tmp_path_factory.mktemp("wpfprobe-home")
    previous = os.environ.get("WPFPROBE_HOME")
    os.environ["WPFPROBE_HOME"] = str(home)
    try:
        yield home
    finally:
        if previous is None:
            os.environ.pop("WPFPROBE_HOME", None)
        else:
            os.environ["WPFPROBE_HOME"] = previous


@pytest.fixture(scope="session")
def mcp_home(wpfprobe_home: Path) -> Path:
    """Where the session's server writes its manifest."""
    return wpfprobe_home


@pytest.fixture(scope="session")
def mcp_server(running_app: Any, mcp_home: Path) -> Iterator[Any]:
    """``wpfprobe.start`` over HTTP, once for the whole session (one start per process)."""
    import wpfprobe

    handle = wpfprobe.start(
        running_app.app,
        name="mcp-tests",
        timeout=MCP_UI_TIMEOUT,
        settings=wpfprobe.ProbeSettings(check_thread_affinity=True, ui_timeout=MCP_UI_TIMEOUT),
    )
    manifest = handle.manifest_path
    try:
        yield handle
    finally:
        handle.stop()
    assert not handle.running
    assert manifest is not None and not manifest.exists(), "stop() must remove the manifest"
    assert handle.probe.engine.thread_violations == [], handle.probe.engine.thread_violations


@pytest.fixture(scope="session")
def mcp_connect(mcp_server: Any) -> Any:
    """``async with mcp_connect() as client:`` the official SDK client over streamable HTTP,
    sending the bearer token the way an agent configured with the manifest would."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def connect(token: str | None = None, **client_options: Any) -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        bearer = mcp_server.token if token is None else token
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=30) as http:
            async with Client(streamable_http_client(mcp_server.url, http_client=http), **client_options) as client:
                yield client

    return connect


# -- scripts/zoo_app.py: controls whose classes are written in Python ------------------------


@pytest.fixture(scope="session")
def zoo(display: str | None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The zoo app in a process of its own, serving MCP at the interact tier, once for the session.

    Tests share it: they count clicks from where they start, and at the end no exception
    may have reached the app's message loop."""
    from zoo_harness import Zoo

    app = Zoo(tmp_path_factory.mktemp("zoo"))
    try:
        yield app
    finally:
        facts = app.close()
    assert facts["threadExceptions"] == [], facts


# -- examples/zoo_app.py: the widget zoo, every standard WinForms control ---------------------


@pytest.fixture(scope="module")
def widget_zoo_app(running_app: Any) -> Iterator[Any]:
    """The widget zoo (tests/integration/widget_zoo.py), shown on the example's UI thread, once per test module.

    Once per module, not per session: the example's own tests walk every open form of the
    process (Application.OpenForms), and the zoo's windows must be gone by the time they run."""
    import widget_zoo

    app = widget_zoo.ZooBeside(running_app, widget_zoo.ROWS, widget_zoo.ITEMS)
    try:
        yield app
    finally:
        app.close()


@pytest.fixture(scope="module")
def zoo_probe(widget_zoo_app: Any) -> Iterator[Any]:
    """``wpfprobe.attach`` to the widget zoo, once the documents its MDI parent opens when shown are there."""
    import wpfprobe

    p = wpfprobe.attach(
        widget_zoo_app.app, name="widget-zoo", settings=wpfprobe.ProbeSettings(check_thread_affinity=True)
    )
    p.wait_for("#document2", "exists")
    _wait_for_the_window_menu(p, widget_zoo_app)
    yield p
    assert p.engine.thread_violations == [], p.engine.thread_violations


def _wait_for_the_window_menu(p: Any, app: Any) -> None:
    """Until the documents window's Window menu stops changing: Mono lists the open documents there (MdiList)
    some time after they are shown, and a snapshot taken meanwhile differs from the next one."""
    import time

    menu = p.locator("MenuItem#windowMenu")
    deadline = time.monotonic() + 20
    counts: list[int] = []
    while time.monotonic() < deadline:
        app.invoke(lambda: None)  # what the app posted before this runs first
        counts.append(menu.node().child_count)
        if counts[-3:] == [counts[-1]] * 3:
            return
        time.sleep(0.05)
    raise AssertionError(f"the Window menu kept changing: {counts}")
