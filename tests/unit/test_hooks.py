"""``wpfprobe_clr._hooks``: what a stop takes off, and what it leaves when the UI thread cannot be reached.

The real handlers are counted in a live app by
``tests/integration/test_lifecycle.py::test_detach_then_attach_leaves_one_set_of_handlers``;
here the UI thread is stood in for, to reach the cases a live app rarely shows.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any

import pytest

from wpfprobe.core.errors import AppNotAvailableError, DispatcherBusyError
from wpfprobe_clr import _exit, _hooks


class _Ui:
    def __init__(self, fails: BaseException | None = None) -> None:
        self.fails = fails
        self.timeouts: list[float | None] = []

    def run(self, fn: Callable[[], Any], *, timeout: float | None = None) -> Any:
        self.timeouts.append(timeout)
        if self.fails is not None:
            raise self.fails
        return fn()


@pytest.fixture(autouse=True)
def _clean() -> Any:
    _hooks.take_off_left()
    yield
    _hooks.take_off_left()


def test_all_come_off_in_one_call_to_the_ui_thread_bounded_by_the_timeout() -> None:
    hooks, off = _hooks.Hooks(), []
    hooks.added(lambda: off.append("control"))
    hooks.added(lambda: off.append("loop end"), at_exit=True)
    ui = _Ui()
    assert _hooks.take_off([hooks], ui, timeout=2.5)
    assert off == ["control", "loop end"] and ui.timeouts == [2.5]
    assert not hooks.live and len(hooks) == 0
    assert _hooks.take_off([hooks], ui, timeout=2.5) and off == ["control", "loop end"], "nothing comes off twice"


def test_a_busy_ui_thread_leaves_its_handlers_for_the_next_attach() -> None:
    hooks, off = _hooks.Hooks(), []
    hooks.added(lambda: off.append("control"))
    assert not _hooks.take_off([hooks], _Ui(DispatcherBusyError("busy")), timeout=0.1)
    assert off == [] and not hooks.live, "nothing is run off the UI thread; what stays on is guarded"
    _hooks.take_off_left()  # the next attach, on its UI thread
    assert off == ["control"]


def test_an_ended_ui_thread_leaves_its_handlers_to_the_exit() -> None:
    hooks, off = _hooks.Hooks(), []

    def loop_end() -> None:
        off.append("loop end")

    hooks.added(lambda: off.append("control"))
    hooks.added(loop_end, at_exit=True)
    assert not _hooks.take_off([hooks], _Ui(AppNotAvailableError("ended")), timeout=0.1)
    _hooks.take_off_left()
    assert off == [], "no thread but the UI thread calls into the CLR (Mono's exit waits for it)"
    assert loop_end in _exit._unhooks, "the loop's end still comes off at exit"
    _exit.forget(loop_end)


def test_one_that_fails_to_come_off_does_not_stop_the_others() -> None:
    hooks, off = _hooks.Hooks(), []

    def gone() -> None:
        raise RuntimeError("the object is gone")

    hooks.added(gone)
    hooks.added(lambda: off.append("next"))
    assert _hooks.take_off([hooks], _Ui(), timeout=1)
    assert off == ["next"]


def test_what_comes_off_at_a_stop_is_not_taken_off_again_at_exit() -> None:
    hooks = _hooks.Hooks()

    def unhook() -> None:
        pass

    hooks.added(unhook, at_exit=True)
    assert unhook in _exit._unhooks
    _hooks.take_off([hooks], _Ui(), timeout=1)
    assert unhook not in _exit._unhooks


def test_the_shared_hooks_come_off_with_the_last_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counted from none, whatever adapters earlier tests of this process made.
    monkeypatch.setattr(_hooks, "_users", 0)
    monkeypatch.setattr(_hooks, "SHARED", _hooks.Hooks())
    _hooks.acquire()
    _hooks.acquire()
    assert _hooks.release() == []
    assert _hooks.release() == [_hooks.SHARED]
    _hooks.acquire()
    assert _hooks.SHARED.live
    assert _hooks.release() == [_hooks.SHARED]


class _Held:
    """Stands for the .NET objects an unhook holds: notes the thread that lets go of it last."""

    def __init__(self, freed_on: list[str]) -> None:
        self.freed_on = freed_on

    def __del__(self, current_thread: Callable[[], threading.Thread] = threading.current_thread) -> None:
        self.freed_on.append(current_thread().name)  # the module may be gone at interpreter exit


class _UiOnItsThread(_Ui):
    def run(self, fn: Callable[[], Any], *, timeout: float | None = None) -> Any:
        self.timeouts.append(timeout)
        if self.fails is not None:
            raise self.fails
        thread = threading.Thread(target=fn, name="ui")
        thread.start()
        thread.join()
        return None


def _holding(hooks: _hooks.Hooks, freed_on: list[str], *, at_exit: bool = False) -> None:
    held = _Held(freed_on)
    hooks.added(lambda: held.__class__, at_exit=at_exit)


@pytest.mark.parametrize("at_exit", [False, True], ids=["control", "loop end"])
def test_what_a_handler_holds_is_let_go_on_the_ui_thread_not_the_stopping_one(at_exit: bool) -> None:
    # Letting go of a .NET object calls into the CLR: the stopping thread (wpfprobe run's ending
    # thread, which lives as long as the process) then held Mono's exit up for good.
    hooks, freed_on = _hooks.Hooks(), []
    _holding(hooks, freed_on, at_exit=at_exit)
    assert _hooks.take_off([hooks], _UiOnItsThread(), timeout=1)
    gc.collect()
    assert freed_on == ["ui"]


@pytest.mark.parametrize("ui_is", ["ended", "busy"])
def test_what_cannot_come_off_is_kept_not_let_go_on_the_stopping_thread(ui_is: str) -> None:
    hooks, freed_on = _hooks.Hooks(), []
    _holding(hooks, freed_on)
    # A new error each time, as the UI thread raises it (one kept by the test would keep its frames).
    ui = _UiOnItsThread(AppNotAvailableError("ended") if ui_is == "ended" else DispatcherBusyError("busy"))
    assert not _hooks.take_off([hooks], ui, timeout=0.1)
    ui.fails = None
    gc.collect()
    assert freed_on == []
    if ui_is == "busy":
        attach = threading.Thread(target=_hooks.take_off_left, name="ui")  # the next attach's UI thread
        attach.start()
        attach.join()
        gc.collect()
        assert freed_on == ["ui"]


def test_shared_hooks_stay_on_when_a_probe_attaches_while_the_last_one_is_taken_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dropped Probe closes on a thread of its own (api/probe.py), so its stop can run beside
    the next attach: the stop released the shared hooks (no user left) and posted their removal;
    the new probe acquired them and found them still on (so added none); then the removal ran on
    the UI thread and the new probe was left without the app's exception hooks. The removal now
    asks again on the UI thread, where both run, whether anyone uses them."""
    # Its own shared set and count: in the whole suite's process, the probes of other tests use the
    # real ones, and their unhooks must not run here.
    monkeypatch.setattr(_hooks, "SHARED", _hooks.Hooks())
    monkeypatch.setattr(_hooks, "_users", 0)
    off: list[str] = []
    _hooks.acquire()
    _hooks.SHARED.added(lambda: off.append("app exceptions"))
    released = _hooks.release()
    assert released == [_hooks.SHARED]
    posted: list[Callable[[], Any]] = []

    class _Posting(_Ui):
        def run(self, fn: Callable[[], Any], *, timeout: float | None = None) -> Any:
            posted.append(fn)  # runs below, after the next attach's acquire

    taker = threading.Thread(target=lambda: _hooks.take_off(released, _Posting(), timeout=1.0))
    taker.start()
    taker.join()
    _hooks.acquire()  # the next attach, while the removal waits its turn on the UI thread
    try:
        posted[0]()  # the UI thread runs the removal
        assert off == [], "the next probe's shared hooks were taken off under it"
        assert _hooks.SHARED.live and len(_hooks.SHARED) == 1
    finally:
        assert _hooks.take_off(_hooks.release(), _Ui(), timeout=1.0)
    assert off == ["app exceptions"], "the last user's stop still takes them off"
