"""How a probe ends with its app (``wpfprobe.mcp.ending``), without an app: a fake probe handle.

The live cases (every way a real app ends) are tests/integration/test_lifecycle.py;
these pin what the UI thread's exit callback may do, and which signals are taken.
"""

from __future__ import annotations

import _thread
import atexit
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from wpfprobe.mcp import ending, server

DEADLINE = 10.0


class FakeHandle:
    """What ``_stop_with_ui`` and the ending thread use of a ProbeHandle."""

    def __init__(self) -> None:
        self.ending = ending.ENDING  # the test's own (the fixture's)
        self.ui_exit_callbacks: list[Callable[[], None]] = []
        ui = SimpleNamespace(run=lambda fn, **_: fn(), post=lambda fn: fn(), thread_id=None, ended=False)
        adapter = SimpleNamespace(on_ui_exit=self.ui_exit_callbacks.append, request_close=lambda then=None: None)
        self.probe = SimpleNamespace(engine=SimpleNamespace(ui=ui, adapter=adapter))
        self._manifest_path = None
        self.app_id = "fake"
        self._stop_lock = threading.Lock()
        self.stopped = threading.Event()

    def ready_probe(self, timeout: float | None = 0.0) -> Any:
        return self.probe

    def stop(self) -> None:
        self.ending.unwatch(self)  # type: ignore[arg-type]
        self.stopped.set()


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[ending._Ending]:
    """A fresh ending state with a fresh process's signals (Python's own handlers, no wakeup fd),
    and the process's signals as they were afterwards. Fresh, because an earlier test in the same
    pytest process may have left another SIGINT handler: in a full-suite run two tests here then
    found Ctrl+C not theirs to take, and failed."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    wakeup = signal.set_wakeup_fd(-1)
    state = ending._Ending()
    monkeypatch.setattr(ending, "ENDING", state)
    try:
        yield state
    finally:
        atexit.unregister(state._at_exit)  # a test that failed midway must not hold pytest's exit
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        try:
            signal.set_wakeup_fd(wakeup)
        except (ValueError, OSError):  # closed since: nobody listens there any more
            signal.set_wakeup_fd(-1)


def stop_with_ui(handle: FakeHandle) -> None:
    """What ``start()`` does: the signals and the watch on its own thread, the UI's end hooked
    once the probe is attached (on the start-up thread)."""
    ui_ended = server._watch_ending(handle)  # type: ignore[arg-type]
    server._stop_with_ui(handle.probe, ui_ended)  # type: ignore[arg-type]


def test_the_ui_exit_callback_starts_no_thread_and_waits_for_nothing(
    fresh: ending._Ending, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 18, an app hung at exit): the callback ran on the UI thread as its loop
    ended, during pythonnet's shutdown, and started a thread to stop the server; that thread
    never started, and the UI thread waited for it forever. Here no thread can start either."""
    handle = FakeHandle()
    stop_with_ui(handle)
    [ui_exit] = handle.ui_exit_callbacks

    def no_thread_starts_now(self: threading.Thread) -> None:
        raise RuntimeError(f"can't start a thread now (started from the UI's exit callback: {self.name})")

    outcome: queue.SimpleQueue[str] = queue.SimpleQueue()

    def ui_thread_ends() -> None:  # what the toolkit's exit event does, on the UI thread
        try:
            ui_exit()
            outcome.put("returned")
        except BaseException as exc:
            outcome.put(repr(exc))

    with monkeypatch.context() as patched:
        patched.setattr(threading.Thread, "start", no_thread_starts_now)
        _thread.start_new_thread(ui_thread_ends, ())
        assert outcome.get(timeout=DEADLINE) == "returned"
    # The ending thread, started with the probe, stops the server.
    assert handle.stopped.wait(DEADLINE), "the server was not stopped after the UI ended"


def test_stop_leaves_no_thread_behind(fresh: ending._Ending) -> None:
    # This state's own thread, not every thread of that name: in a whole-suite run an
    # in-process probe of the integration tests may still be running, with its own.
    handle = FakeHandle()
    stop_with_ui(handle)
    thread = fresh._thread
    assert thread is not None and thread.is_alive() and thread.name == "wpfprobe-ending"
    handle.stop()  # on this (the main) thread, as an app's own stop() would be
    assert not thread.is_alive(), "stop() returned with the ending thread still running"
    assert fresh._thread is None


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is taken on POSIX only")
def test_signals_are_taken_only_where_python_left_them(fresh: ending._Ending) -> None:
    def the_apps_own(signum: int, frame: Any) -> None: ...

    signal.signal(signal.SIGTERM, the_apps_own)
    assert fresh.take_signals()
    assert signal.getsignal(signal.SIGTERM) is the_apps_own, "the app's own SIGTERM handler was replaced"
    fresh._give_back_signals()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    assert fresh.take_signals()
    assert signal.getsignal(signal.SIGTERM) is ending._on_sigterm
    fresh._give_back_signals()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.set_wakeup_fd(-1) == -1, "the wakeup fd was not given back"


def test_ctrl_c_is_left_to_python_in_an_interactive_session(
    fresh: ending._Ending, monkeypatch: pytest.MonkeyPatch
) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(sys, "ps1", ">>> ", raising=False)
    assert fresh.take_signals()
    assert signal.SIGINT not in fresh._taken
    fresh._give_back_signals()


def test_another_wakeup_fd_means_the_probe_listens_to_nothing(fresh: ending._Ending) -> None:
    import socket

    mine, theirs = socket.socketpair()
    theirs.setblocking(False)
    try:
        signal.set_wakeup_fd(theirs.fileno())
        assert not fresh.take_signals()
        assert signal.set_wakeup_fd(-1) == theirs.fileno(), "the app's wakeup fd was replaced"
    finally:
        mine.close()
        theirs.close()


class ClosingUi:
    """A UI thread the main thread would join that closes when asked and takes its time (the app
    saves its work), behind a probe whose attach ends when the test says: the ending thread
    waits for it before it posts a close; the exit asks without waiting (None until attached,
    unless ``seen_while_attaching``)."""

    def __init__(self, *, seen_while_attaching: bool) -> None:
        self.closed, self.release, self.attached = threading.Event(), threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run, name="ui")  # not a daemon: waited for until gone
        self.thread.start()
        outer = self

        class Attaching(FakeHandle):
            def ready_probe(self, timeout: float | None = 0.0) -> Any:
                if timeout:
                    outer.attached.wait(DEADLINE)
                return self.probe if seen_while_attaching or outer.attached.is_set() else None

        self.handle = Attaching()
        self.handle.probe.engine.ui.thread_id = self.thread.ident
        self.handle.probe.engine.adapter.request_close = lambda then=None: self.closed.set()
        server._watch_ending(self.handle)  # type: ignore[arg-type]

    def _run(self) -> None:
        self.closed.wait(DEADLINE)
        self.release.wait(DEADLINE)

    def exit_waits_for_the_attach_then_the_ui(self, state: ending._Ending) -> None:
        exiting = threading.Thread(target=state._at_exit, name="exit")  # at once, as the main thread does
        exiting.start()
        exiting.join(0.3)
        assert exiting.is_alive(), "the exit went on before the ending thread dealt with Ctrl+C's note"
        self.attached.set()
        assert self.closed.wait(DEADLINE), "the UI was not asked to close"
        exiting.join(0.3)
        assert exiting.is_alive(), "the exit went on while the UI thread was still closing"
        self.release.set()
        self.thread.join(DEADLINE)
        exiting.join(DEADLINE)
        assert not exiting.is_alive(), "the exit still waits for a UI thread that is gone"
        assert state._closing_for_sigint
        self.handle.stop()


def test_an_exit_that_begins_before_the_ending_thread_read_ctrl_c_still_waits_for_the_ui(
    fresh: ending._Ending,
) -> None:
    """Regression: with the UI on a Python thread the main thread joins, Ctrl+C raises
    KeyboardInterrupt in the join at once, and the exit could begin before the ending thread had
    read the signal's note. The exit's wait for the closing UI was registered only as that
    thread posted the close, so an exit that began first went on without it, and pythonnet's
    shutdown aborted the UI thread mid-close (status 1, 1 run in 13 here). Now the exit hook is
    registered at start and first lets the ending thread read every note sent before it: here
    that thread is still busy with an earlier note (a close asked for while the probe attaches)."""
    ui = ClosingUi(seen_while_attaching=True)
    assert signal.SIGINT in fresh._taken
    fresh.request_close(ui.handle)  # type: ignore[arg-type]
    fresh._note(signal.SIGINT)  # what Python's C handler writes to the wakeup fd
    ui.exit_waits_for_the_attach_then_the_ui(fresh)


def test_ctrl_c_while_the_probe_still_attaches_has_the_exit_wait_for_the_attach_and_the_ui(
    fresh: ending._Ending,
) -> None:
    """Found by a loop of Ctrl+C on a loaded machine (1 run in 14 still crashed): the probe had
    not attached yet when the exit began, so the exit found no probe and went on, while the
    ending thread waited for the attach to post the close; pythonnet's shutdown then aborted
    the UI thread. Now the exit waits as long as that thread does, then for the UI."""
    ui = ClosingUi(seen_while_attaching=False)
    fresh._note(signal.SIGINT)
    ui.exit_waits_for_the_attach_then_the_ui(fresh)


def test_the_exit_does_not_wait_for_an_ending_thread_that_quit_before_reading_its_note(
    fresh: ending._Ending, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a loop of Ctrl+C (an exit took 35 s): the UI had closed, and its note stopped
    the probe, whose ending thread quit before it read the exit's note; the exit waited for an
    answer nobody would give, as long as a close may wait for the attach."""
    handle = FakeHandle()
    handle.probe.engine.ui.thread_id = -1  # a UI thread other than this one, still running
    server._watch_ending(handle)  # type: ignore[arg-type]
    fresh._closing_for_sigint = True
    sent = fresh._note

    def quit_first(byte: int) -> None:
        if byte == ending._SYNC:
            handle.stop()  # the UI's end got there first: the thread quits
        sent(byte)

    monkeypatch.setattr(fresh, "_note", quit_first)
    exiting = threading.Thread(target=fresh._at_exit, name="exit", daemon=True)
    exiting.start()
    exiting.join(DEADLINE)
    assert not exiting.is_alive(), "the exit waits for a note the ending thread will never read"


def test_a_second_ctrl_c_while_the_exit_waits_for_the_ending_thread_ends_the_wait_quietly(
    fresh: ending._Ending, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Raised out of an exit hook, KeyboardInterrupt is printed by Python as the hook's failure
    ("Exception ignored in atexit callback", with the probe's frames): the app must not print."""
    ui = ClosingUi(seen_while_attaching=False)  # the ending thread waits for the attach: the exit waits too
    fresh._note(signal.SIGINT)

    def second_ctrl_c(timeout: float | None = None) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(fresh._synced, "wait", second_ctrl_c)
    try:
        fresh._at_exit()
    except KeyboardInterrupt:
        pytest.fail("the second Ctrl+C came out of the exit hook")
    ui.attached.set()
    ui.release.set()
    ui.thread.join(DEADLINE)
    ui.handle.stop()
