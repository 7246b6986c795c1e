"""An app that spawns processes while the probe works does not hang (Mono; ``_runtime.spawn_without_vfork``).

Regression: a Mono WinForms app whose main thread ran ``subprocess.run`` in a loop
hung for good at every ``wpfprobe.start()`` (4 in 4 runs): CPython's vfork path
waits for the GIL with every signal blocked, and the GIL's holder, a probe thread
in a .NET call, waits for Mono's collector, which waits for that blocked thread to
answer its suspend signal. The app here spawns ``true`` from its main thread while
the probe starts, and while a client reads trees. Without the fix, the first test
hung here in each of 4 runs.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

APP = Path(__file__).parent / "scripts" / "spawning_app.py"
DEADLINE = 120.0

pytestmark = pytest.mark.toolkit("winforms")


class SpawningApp:
    def __init__(self, tmp_path: Path, during: str, display: str | None, *extra: str) -> None:
        env = {
            **os.environ, "WPFPROBE_HOME": str(tmp_path / "home"), "MONO_THREADS_SUSPEND": "preemptive",
            "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning",
        }  # fmt: skip
        if display:
            env["DISPLAY"] = display
        self.proc = subprocess.Popen(
            [sys.executable, str(APP), "--while", during, *extra], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.lines: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[str] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def line(self, prefix: str, deadline: float = DEADLINE) -> str | None:
        """The first line of the app's output starting with ``prefix``; None if none came in time."""

        def found() -> str | None:
            return next((x for x in self.lines if x.startswith(prefix)), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None or self.proc.poll() is not None, deadline)
            return found()

    def tell(self, text: str = "go") -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)


@pytest.fixture
def spawning(tmp_path: Path, display: str | None) -> object:
    apps: list[SpawningApp] = []

    def make(during: str, *extra: str) -> SpawningApp:
        app = SpawningApp(tmp_path, during, display, *extra)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.kill()


def test_an_app_spawning_processes_while_the_probe_starts_does_not_hang(spawning: object) -> None:
    app = spawning("starting")  # type: ignore[operator]
    spawned = app.line("SPAWNED")
    assert spawned is not None, ("the app hung while spawning during the probe's start-up", app.stderr[-20:])
    assert int(spawned.split()[1]) >= 20
    assert app.line("ENDED") == "ENDED", app.stderr[-20:]
    assert app.proc.wait(DEADLINE) == 0


def test_an_app_spawning_processes_while_a_client_reads_trees_does_not_hang(spawning: object) -> None:
    app = spawning("serving")  # type: ignore[operator]
    started = app.line("STARTED")
    assert started is not None, app.stderr[-20:]
    _, url, token = started.split()

    async def read_trees() -> list[int]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        counts = []
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=DEADLINE) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                for _ in range(10):
                    answer = await client.call_tool("wpf_get_visual_tree", {"maxDepth": 3, "format": "json"})
                    counts.append(answer.structured_content["returnedNodeCount"])
        return counts

    answered: dict[str, list[int]] = {}
    reader = threading.Thread(target=lambda: answered.update(counts=asyncio.run(read_trees())), daemon=True)
    reader.start()
    reader.join(DEADLINE)
    assert not reader.is_alive(), ("the trees were never answered", app.stderr[-20:])
    assert answered["counts"] == [201] * 10  # the form and its 200 buttons
    app.tell()
    spawned = app.line("SPAWNED")
    assert spawned is not None, ("the app hung while spawning as a client read trees", app.stderr[-20:])
    assert app.line("ENDED") == "ENDED", app.stderr[-20:]
