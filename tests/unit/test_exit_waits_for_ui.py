"""The exit's wait for a UI that Ctrl+C asked to close (``wpfprobe_clr._exit``), on real threads.

The integration test (test_lifecycle's ``test_ctrl_c_waits_for_a_ui_thread_that_is_still_closing``)
shows what it is for; here, which thread it waits for and when it does not wait at all.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from wpfprobe_clr import _exit


@dataclass
class FakeUi:
    thread_id: int | None
    ended: bool = False


def _in_thread(fn: object, *, daemon: bool) -> tuple[threading.Thread, threading.Event, threading.Event]:
    """A thread that runs until told to go, then ``fn`` (its "code after the loop"), then ends."""
    started, go = threading.Event(), threading.Event()

    def body() -> None:
        started.set()
        go.wait(30)
        if callable(fn):
            fn()

    thread = threading.Thread(target=body, daemon=daemon)
    thread.start()
    started.wait(30)
    return thread, go, started


def _wait_in_background(ui: FakeUi) -> threading.Thread:
    waiter = threading.Thread(target=_exit.wait_for_ui, args=(ui,), daemon=True)
    waiter.start()
    return waiter


def test_a_non_daemon_ui_thread_is_waited_for_until_it_is_gone_not_only_its_loop() -> None:
    """Python would have waited for this thread (its join was only interrupted): the app's code
    after the loop runs on it too, so the loop's end is not enough."""
    after_loop = threading.Event()
    thread, go, _ = _in_thread(after_loop.wait, daemon=False)
    assert thread.ident is not None
    ui = FakeUi(thread_id=thread.ident, ended=True)  # the loop has ended already
    waiter = _wait_in_background(ui)
    go.set()
    waiter.join(0.3)
    assert waiter.is_alive(), "the wait ended while the UI thread still ran the app's code"
    after_loop.set()
    thread.join(30)
    waiter.join(30)
    assert not waiter.is_alive()


def test_a_daemon_ui_thread_is_waited_for_until_its_loop_ends() -> None:
    """Python would not wait for a daemon thread (nor a .NET one): only for the UI it was told to close."""
    thread, go, _ = _in_thread(None, daemon=True)
    assert thread.ident is not None
    ui = FakeUi(thread_id=thread.ident)
    waiter = _wait_in_background(ui)
    waiter.join(0.3)
    assert waiter.is_alive(), "the wait ended before the UI's loop did"
    ui.ended = True
    waiter.join(30)
    assert not waiter.is_alive()
    go.set()
    thread.join(30)


def test_no_wait_on_the_ui_thread_itself_nor_for_a_ui_never_reached() -> None:
    me = threading.get_ident()
    _exit.wait_for_ui(FakeUi(thread_id=me))  # returns at once: it would wait for itself
    _exit.wait_for_ui(FakeUi(thread_id=None))


def test_a_second_ctrl_c_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """An app that refuses the close keeps its window; a second Ctrl+C lets the exit go on."""
    thread, go, _ = _in_thread(None, daemon=True)
    assert thread.ident is not None

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("wpfprobe_clr._exit.time.sleep", interrupted)
    _exit.wait_for_ui(FakeUi(thread_id=thread.ident))  # returns, does not raise
    go.set()
    thread.join(30)


def test_a_ui_thread_gone_with_its_loop_unreported_is_not_waited_for_forever(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by this module's first run: a UI thread that was gone by the time the exit looked
    (its handlers off, so its loop's end never reported) was waited for without end."""
    thread, go, _ = _in_thread(None, daemon=False)
    ident = thread.ident
    go.set()
    thread.join(30)
    monkeypatch.setattr("wpfprobe_clr._exit._UNSEEN_THREAD_WAIT", 0.2)
    waiter = _wait_in_background(FakeUi(thread_id=ident))
    waiter.join(30)
    assert not waiter.is_alive()


def test_the_posting_thread_is_closed_after_the_probes_own_exit_hooks(tmp_path: Path) -> None:
    """Found by a loop of Ctrl+C on an app whose UI thread the main thread joins (1 run in 4 hung
    at exit): the thread that posts to the UI thread registered its exit hook on the first post,
    which the attach makes after start() registered the probe's own exit hooks; so it closed
    first, and the close Ctrl+C asked for as the exit began could not be posted, while the exit
    waited for the UI to close. ``locate`` (in start(), before the probe's hooks) registers it
    now. In a process of its own: the order is the interpreter's exit's."""
    script = tmp_path / "order.py"
    script.write_text(
        textwrap.dedent(
            """
            import atexit
            from wpfprobe_clr import _ui_thread

            _ui_thread.hook_exit()  # what locate() does, in start()
            # The probe's own exit hook (mcp.ending's), registered by start() after locate():
            atexit.register(lambda: print("POSTER", "closed" if _ui_thread._POSTER._closed else "open"))
            # The attach's first post, later:
            _ui_thread._POSTER.submit(lambda work: work(), lambda: None, on_error=None)
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["POSTER", "open"], done.stdout + done.stderr
