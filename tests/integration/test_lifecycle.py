"""Every way an app ends, with the probe in it: it exits promptly, cleanly and says nothing more.

scripts/ending_app.py is a plain pythonnet app. Each case runs it with the probe
in-process (``--probe``: it calls ``wpfprobe.start``) or unmodified under
``wpfprobe run``, with or without a live MCP session (initialized, its event
stream open, a call answered), and ends it: a timer closes its window, a click
through the probe closes it, its main code raises after the UI, SIGTERM, or
SIGINT (Ctrl+C). Then:

- the process exits within END_BOUND seconds of its UI ending (the ``UI-ENDED``
  time the app prints) or of the signal, stretched by this machine's pace and by
  TEST_MARGIN (the figure itself is benchmarks/bench_exit.py's);
- the probe's manifest is gone;
- stdout holds the app's own lines only, and stderr only what the app and Python
  print themselves (a traceback the app raises, Mono's known X11 noise line);
- the exit status is the one plain ``python`` gives (SIGTERM: killed by SIGTERM;
  Ctrl+C: as KeyboardInterrupt ends Python, 130 under ``wpfprobe run``).

The bound is generous on purpose (the issue's 2 s, where exits took 6 s and more
with the probe, or never came): it is a behaviour test; the exit delay itself
is measured in benchmarks/bench_exit.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.mcp import manifest as _manifest

pytestmark = pytest.mark.timeout(600)  # several app starts each, on a machine other tests load too

SCRIPTS = Path(__file__).parent / "scripts"
APP = SCRIPTS / "ending_app.py"
END_BOUND = 2.0
"""Seconds from the UI's end (or the signal) to the process's exit: the issue's bound, on the
issue's machine, where the same app without the probe exited PLAIN_EXIT seconds after its UI."""
PLAIN_EXIT = 0.4
TEST_MARGIN = 1.5
DEADLINE = 120.0
"""Seconds any one wait may take on a loaded machine before the case fails."""
MONO_NOISE = ("Could not set X locale modifiers",)
"""Lines Mono's WinForms prints on stderr now and then, probe or not."""


@dataclass
class Ended:
    status: int
    stdout: list[str]
    stderr: list[str]
    exited_at: float
    started_from: float
    manifest: _manifest.Manifest | None
    session: dict[str, Any] = field(default_factory=dict)

    @property
    def delay(self) -> float:
        return self.exited_at - self.started_from

    def line(self, prefix: str) -> str | None:
        return next((line for line in self.stdout if line.startswith(prefix)), None)


class _Session:
    """A live MCP session on its own thread: initialized, its GET event stream open, one call made,
    held open until the app goes away (as an agent's client keeps it) and the test says so
    (``finish``): the client's own reconnecting GET stream does not always end it."""

    def __init__(self, manifest: _manifest.Manifest, click: str | None) -> None:
        self.manifest = manifest
        self.click = click
        self.facts: dict[str, Any] = {}
        self.ready = threading.Event()
        self._finished = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        assert self.ready.wait(DEADLINE), "the MCP session never opened"
        assert "error" not in self.facts, self.facts

    def finish(self) -> None:
        """Close the session (its app has ended) and wait for its thread: none is left behind."""
        self._finished.set()
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive(), "the MCP session's thread did not end"

    def _run(self) -> None:
        try:
            asyncio.run(self._converse())
        except BaseException as exc:
            self.facts.setdefault("ended", type(exc).__name__)
        finally:
            self.ready.set()

    async def _converse(self) -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {self.manifest.token}"}
        try:
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(self.manifest.url, http_client=http)) as client:
                    windows = await client.call_tool("wpf_get_windows", {})
                    self.facts["windows"] = [w["title"] for w in windows.structured_content["windows"]]
                    self.ready.set()
                    if self.click is not None:
                        answer = await client.call_tool("wpf_click", {"locator": self.click})
                        self.facts["click"] = answer.structured_content
                    while not self._finished.is_set():  # held open while the app ends
                        await asyncio.sleep(0.05)
        except Exception as exc:
            if not self.ready.is_set():
                self.facts["error"] = repr(exc)
            raise


class _Stdout:
    """The app's stdout, read on a thread of its own so that every wait for it is bounded: an app
    stuck before its first line, or at exit, fails its test within DEADLINE with what it printed."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        self.proc = proc
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def _next(self, deadline: float, waiting_for: str) -> str | None:
        try:
            line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no {waiting_for} within {DEADLINE:g} s; the app printed {self.lines}") from None
        if line is not None:
            self.lines.append(line)
        return line

    def wait_for(self, prefix: str) -> str:
        deadline = time.monotonic() + DEADLINE
        while (line := self._next(deadline, repr(prefix))) is not None:
            if line.startswith(prefix):
                return line
        raise AssertionError(f"the app ended (status {self.proc.wait(10)}) before printing {prefix!r}: {self.lines}")

    def to_the_end(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while self._next(deadline, "end of the app's output (it did not exit)") is not None:
            pass


def _wait_for_manifest(home: Path, pid: int, proc: subprocess.Popen[str]) -> _manifest.Manifest:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        for manifest in _manifest.read_all(home / "sessions", clean=False):
            if manifest.pid == pid:
                return manifest
        assert proc.poll() is None, "the app ended before its probe wrote a manifest"
        time.sleep(0.05)
    raise AssertionError("no manifest appeared")


def run_app(
    tmp_path: Path,
    *,
    how: str,
    ui: str,
    join: bool = False,
    close: bool = False,
    then: str = "return",
    session: bool = False,
    end: str = "timer",
    extra: tuple[str, ...] = (),
) -> Ended:
    """Start ending_app.py (``how``: "start" in-process, "run" under wpfprobe run, "plain"),
    end it with ``end`` ("timer", "click", "sigterm", "sigint"), and report how it went. ``close``:
    the app's timer closes its window once the probe (and the session) are up."""
    home = tmp_path / "home"
    argv = [sys.executable]
    app_args = ["--ui", ui, "--then", then, *(["--join"] if join else []), *extra]
    control = tmp_path / "close-now"
    if close:
        app_args += ["--close-when", str(control)]
    if how == "run":
        argv += ["-m", "wpfprobe", "run", "--allow", "interact", str(APP), *app_args]
    else:
        argv += [str(APP), *app_args, *(["--probe"] if how == "start" else [])]
    env = {
        **os.environ, "WPFPROBE_HOME": str(home), "MONO_THREADS_SUSPEND": "preemptive",
        # clr-loader's warning about this machine's Mono (the app's own pythonnet.load prints it).
        "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning",
    }  # fmt: skip
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Ctrl+C reaches an app with SIGINT at its default, as from a terminal, whatever the
        # test runner's own disposition was (a background job's is "ignore").
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    out = _Stdout(proc)
    stdout = out.lines
    errors: list[str] = []
    drain = threading.Thread(target=lambda: errors.extend(proc.stderr.read().splitlines()), daemon=True)  # type: ignore[union-attr]
    drain.start()
    manifest = None
    conversation = None
    try:
        out.wait_for("UP ")
        if how != "plain":
            manifest = _wait_for_manifest(home, proc.pid, proc)
            if session or end == "click":
                conversation = _Session(manifest, click="#quitButton" if end == "click" else None)
                conversation.start()
        started_from = 0.0
        if close:
            control.write_text("close", encoding="utf-8")
        if end in ("sigterm", "sigint"):
            started_from = time.time()
            proc.send_signal(signal.SIGTERM if end == "sigterm" else signal.SIGINT)
        out.to_the_end()
        status = proc.wait(DEADLINE)
        exited_at = time.time()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    drain.join(10)
    if not started_from:
        ended = next((line for line in stdout if line.startswith("UI-ENDED ")), None)
        assert ended is not None, (stdout, errors)
        started_from = float(ended.split()[1])
    if conversation is not None:
        conversation.finish()
    errors = [line for line in errors if line not in MONO_NOISE]
    return Ended(status, stdout, errors, exited_at, started_from, manifest, conversation.facts if conversation else {})


@pytest.fixture(scope="module")
def bound(display: str | None, tmp_path_factory: pytest.TempPathFactory) -> float:
    """END_BOUND, stretched by how much slower than the issue's machine this one exits now.

    Most of an exit is pythonnet's shutdown (forty forced collections of both heaps), which
    a loaded machine slows down several times, probe or not: the app without the probe,
    ended the same way, says by how much. The bound still catches what the issue saw
    (a hang; six seconds more than without the probe, twenty on a loaded machine)."""
    delays = []
    for _ in range(2):  # the slower of two: a loaded machine's pace changes from one run to the next
        plain = run_app(tmp_path_factory.mktemp("plain"), how="plain", ui="main", close=True)
        assert plain.status == 0, plain
        delays.append(plain.delay)
    # Half again as much: this catches a hang or the old six seconds, while the 2 s figure itself is
    # measured by benchmarks/bench_exit.py (a whole-suite run once ended a `run` case at 2.02 s).
    return TEST_MARGIN * END_BOUND * max(1.0, max(delays) / PLAIN_EXIT)


def assert_clean_end(ended: Ended, tmp_path: Path, bound: float) -> None:
    assert ended.delay < bound, (
        f"exited {ended.delay:.2f} s after its UI ended / the signal (bound {bound:.1f} s): {ended}"
    )
    sessions = tmp_path / "home" / "sessions"
    left = list(sessions.glob("*.json")) if sessions.is_dir() else []
    assert left == [], f"manifests left behind: {[p.read_text() for p in left]}"
    assert all(line.split()[0] in ("UP", "UI-ENDED", "MAIN-ENDS") for line in ended.stdout), ended.stdout


# -- the cases ------------------------------------------------------------------------------
# Each case starts a Mono app (5-30 s on a loaded machine), so the combinations are picked:
# both ways of running the probe for every ending, each layout of the UI thread and a live
# session or none among them.


def case(how: str, ui: str, *, join: bool = False, session: bool = False) -> Any:
    name = f"{how}-{ui}{'-joins' if join else ''}{'-session' if session else ''}"
    return pytest.param(how, ui, join, session, id=name)


@pytest.mark.parametrize(
    ("how", "ui", "join", "session"),
    [
        case("start", "main"),
        case("run", "main", session=True),
        case("start", "thread", session=True),  # the main thread returns; Python waits for the UI thread
        case("run", "thread"),
        case("start", "dotnet-thread", join=True, session=True),  # the main thread waits in native code
    ],
)
def test_the_window_closes_itself_and_the_process_exits_promptly(
    bound: float, tmp_path: Path, how: str, ui: str, join: bool, session: bool
) -> None:
    ended = run_app(tmp_path, how=how, ui=ui, join=join, close=True, session=session)
    assert ended.status == 0, ended
    assert ended.stderr == [], ended.stderr
    assert_clean_end(ended, tmp_path, bound)


@pytest.mark.parametrize("how", ["start", "run"])
def test_the_user_closes_the_last_window_through_the_probe(bound: float, tmp_path: Path, how: str) -> None:
    ended = run_app(tmp_path, how=how, ui="thread", join=True, end="click")
    assert ended.status == 0, ended
    assert ended.stderr == [], ended.stderr
    assert_clean_end(ended, tmp_path, bound)


@pytest.mark.parametrize("how", ["start", "run"])
def test_an_exception_in_the_main_code_after_the_ui(bound: float, tmp_path: Path, how: str) -> None:
    ended = run_app(tmp_path, how=how, ui="main", close=True, then="raise", session=True)
    assert ended.status == 1, ended
    assert ended.stderr[0] == "Traceback (most recent call last):", ended.stderr
    assert ended.stderr[-1] == "RuntimeError: the app's main code failed after its UI", ended.stderr
    assert not any("wpfprobe" in line for line in ended.stderr), ended.stderr
    assert_clean_end(ended, tmp_path, bound)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM cannot be sent to a process on Windows")
@pytest.mark.parametrize(
    ("how", "ui", "join", "session"),
    [case("run", "main", session=True), case("start", "dotnet-thread", join=True)],
)
def test_sigterm_ends_the_app_as_python_would_and_removes_the_manifest(
    bound: float, tmp_path: Path, how: str, ui: str, join: bool, session: bool
) -> None:
    ended = run_app(tmp_path, how=how, ui=ui, join=join, session=session, end="sigterm")
    assert ended.status == -signal.SIGTERM, ended
    assert ended.stderr == [], ended.stderr
    assert_clean_end(ended, tmp_path, bound)


@pytest.mark.skipif(sys.platform == "win32", reason="a console's Ctrl+C is not a signal one process sends another")
@pytest.mark.parametrize(
    ("how", "ui", "join", "session"),
    [
        case("start", "main", session=True),
        case("run", "main"),
        case("run", "thread", join=True),  # the main thread waits in Python: Python raises there at once
        case("start", "dotnet-thread", join=True),
    ],
)
def test_ctrl_c_closes_the_ui_and_ends_as_keyboard_interrupt(
    bound: float, tmp_path: Path, how: str, ui: str, join: bool, session: bool
) -> None:
    ended = run_app(tmp_path, how=how, ui=ui, join=join, session=session, end="sigint")
    # python ends on KeyboardInterrupt by killing itself with SIGINT; `wpfprobe run` returns 130.
    assert ended.status == (130 if how == "run" else -signal.SIGINT), ended
    # Python's own traceback, raised in the app's code, and nothing else.
    assert ended.stderr[0] == "Traceback (most recent call last):", ended.stderr
    assert ended.stderr[-1] == "KeyboardInterrupt", ended.stderr
    assert not any("wpfprobe" in line or line.startswith("Exception ignored") for line in ended.stderr), ended.stderr
    assert_clean_end(ended, tmp_path, bound)


@pytest.mark.skipif(sys.platform == "win32", reason="a console's Ctrl+C is not a signal one process sends another")
@pytest.mark.usefixtures("display")
def test_ctrl_c_waits_for_a_ui_thread_that_is_still_closing(tmp_path: Path) -> None:
    """The UI on a Python thread the main thread joins, and a form that takes its time to close
    (it saves its work). Ctrl+C raises KeyboardInterrupt in the join, and CPython 3.11's join,
    interrupted, marks the thread it waited for as ended (``_wait_for_tstate_lock`` releases a
    lock that thread still holds): the interpreter went on to exit while the UI thread was still
    closing, pythonnet's shutdown aborted it, and the process printed a .NET crash and ended with
    status 1 (or hung in mono_jit_cleanup), now and then with a form that closes at once, every
    time with this one. Now the exit waits for a UI loop the probe was asked to end."""
    ended = run_app(tmp_path, how="start", ui="thread", join=True, end="sigint", extra=("--slow-close", "1.5"))
    assert ended.status == -signal.SIGINT, ended
    assert ended.stderr[0] == "Traceback (most recent call last):", ended.stderr
    assert ended.stderr[-1] == "KeyboardInterrupt", ended.stderr
    assert ended.line("UI-ENDED") is not None, ended.stdout
    sessions = tmp_path / "home" / "sessions"
    assert not sessions.is_dir() or list(sessions.glob("*.json")) == []


def _handler_cycles(tmp_path: Path, *args: str) -> dict[str, Any]:
    env = dict(os.environ, WPFPROBE_HOME=str(tmp_path))
    try:
        done = subprocess.run(
            [sys.executable, str(SCRIPTS / "handler_cycles.py"), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=DEADLINE * 2,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the attach cycles did not finish within {DEADLINE * 2:g} s")
    assert done.returncode == 0, done.stderr[-3000:]
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    facts: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
    return facts


@pytest.mark.usefixtures("display")
def test_attach_run_again_in_a_notebook_leaves_one_set_of_handlers(tmp_path: Path) -> None:
    """``probe = wpfprobe.attach(form)`` in a notebook cell run again and again: each Probe hooked
    the app's events (the UI loop's end, the structure watch on every container) and nothing took
    them off, since a Probe had no close: three runs, three sets, each run on every event for the
    life of the app. Now a dropped Probe takes its own off, ``close()`` and a ``with`` block do it
    at once, and a closed Probe refuses to read rather than hook the app again."""
    facts = _handler_cycles(tmp_path, "notebook")
    before, first = facts["before"], facts["attached"][0]
    assert {event for event, n in first.items() if n > before[event]} >= {
        "Application.ThreadExit", "form.ControlAdded", "panel.ControlAdded", "menu.ItemAdded",
    }, first  # fmt: skip
    for run, attached in enumerate(facts["attached"], 1):
        assert attached == first, f"attach #{run}, the last Probe dropped, left more than one set of handlers"
    assert facts["closed"] == before, "close() left the probe's handlers on the app"
    assert facts["closedRead"] == "APP_NOT_AVAILABLE"
    assert facts["afterClosedRead"] == before, "a read of a closed Probe hooked the app again"
    assert facts["inWith"] == first
    assert facts["afterWith"] == before, "leaving the with block left the probe's handlers on the app"


@pytest.mark.usefixtures("display")
def test_detach_then_attach_leaves_one_set_of_handlers(tmp_path: Path) -> None:
    """Each start added another set of .NET handlers to the app (the UI loop's end, the structure
    counters on every container, ...) and stop() took none off: an app attached and detached over
    its life ran one more set per attach on every event. Now stop() takes every one off, and a
    start after it adds exactly one set. Counted from the app's own .NET state (reflection on each
    event's delegate), not from the probe; after stop, the app's events run no Python of the probe's.
    """
    facts = _handler_cycles(tmp_path)
    before, attached_again = facts["before"], facts["attachedAgain"]
    one_set = {event: n - before[event] for event, n in facts["attached"][0].items()}
    # The probe hooks each of these once while attached (so the census can see a set at all).
    hooked = {event for event, n in one_set.items() if n > 0}
    assert hooked >= {
        "Application.ThreadExit", "form.ControlAdded", "form.ControlRemoved", "panel.ControlAdded",
        "menu.ItemAdded", "greeting.Binding.BindingComplete",
    }, one_set  # fmt: skip
    for cycle, stopped in enumerate(facts["stopped"], 1):
        assert stopped == before, f"after stop #{cycle}, handlers the probe added are still on the app's events"
    for cycle, attached in enumerate(facts["attached"], 1):
        assert attached == facts["attached"][0], f"attach #{cycle} added another set of handlers"
    assert attached_again == facts["attached"][0], "the attach after three detaches added more than one set"
    assert facts["probeFramesAfterStop"] == [], "an event fired in the app after stop() ran the probe's Python"
    # The same check while attached does see the probe's handler: it could have failed.
    assert any("_on_binding_complete" in frame for frame in facts["probeFramesAttached"])
    assert facts["probeThreadsAfterStop"] == []
