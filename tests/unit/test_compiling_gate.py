"""The walk's compile thread calls its ``after`` before it compiles (wpfprobe_clr._compiling)."""

from __future__ import annotations

import threading

import pytest

from wpfprobe_clr import _compiling


def test_the_compile_waits_for_after_then_compiles_on_its_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    import wpfprobe_clr.toolkits as toolkits

    events: list[tuple[str, str]] = []
    gate = threading.Event()
    entered = threading.Event()

    def after() -> None:
        events.append(("after", threading.current_thread().name))
        entered.set()
        gate.wait(30)

    monkeypatch.setattr(toolkits, "prepare_walk", lambda kind: events.append(("compile", kind)))
    monkeypatch.setattr(_compiling, "suspend_mode_is_safe", lambda: True)
    monkeypatch.setattr(_compiling, "_started", set())
    _compiling.compile_walk("gate-test", None, after=after)
    assert entered.wait(30)
    # While after holds the thread, nothing is compiled.
    assert not _compiling.wait(0)
    assert events == [("after", _compiling.THREAD_NAME)]
    gate.set()
    assert _compiling.wait(30)
    assert events == [("after", _compiling.THREAD_NAME), ("compile", "gate-test")]


def test_the_compile_returns_the_heap_it_freed_on_its_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compile's JIT memory, freed when it ends, goes back to the system right after it (``_heap``)."""
    import wpfprobe_clr.toolkits as toolkits

    events: list[tuple[str, str]] = []
    monkeypatch.setattr(toolkits, "prepare_walk", lambda kind: events.append(("compile", kind)))
    monkeypatch.setattr(
        _compiling, "return_freed_memory", lambda: events.append(("trim", threading.current_thread().name)) or True
    )
    monkeypatch.setattr(_compiling, "suspend_mode_is_safe", lambda: True)
    monkeypatch.setattr(_compiling, "_started", set())
    _compiling.compile_walk("trim-test", None)
    assert _compiling.wait(30)
    assert events == [("compile", "trim-test"), ("trim", _compiling.THREAD_NAME)]


def test_the_build_gives_way_while_a_call_uses_the_ui_thread_and_within_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The compile's build waits at its steps while a probe call waits for or runs on the UI thread
    (a slice's .NET calls each took the GIL back behind the build), and no longer than its budget."""
    import types

    import wpfprobe_clr.toolkits as toolkits
    from wpfprobe_clr import _pausing, _ui_thread

    clock = [0.0]
    asked: list[float] = []

    def calls_done(timeout: float) -> bool:
        asked.append(timeout)
        if _ui_thread._IN_FLIGHT.wait_none(0):
            return True
        clock[0] += timeout  # waited it all: the call went on
        return False

    monkeypatch.setattr(_ui_thread, "calls_done", calls_done)
    monkeypatch.setattr(_compiling, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    steps: list[str] = []

    def build(kind: str) -> None:
        for _ in range(3):
            _pausing.pause_point()
            steps.append(kind)

    monkeypatch.setattr(toolkits, "prepare_walk", build)
    monkeypatch.setattr(_compiling, "suspend_mode_is_safe", lambda: True)
    monkeypatch.setattr(_compiling, "_started", set())
    _compiling.compile_walk("give-way-test", None)
    assert _compiling.wait(30)
    assert steps == ["give-way-test"] * 3
    assert asked == [_compiling.GIVE_WAY_STEP] * 3  # asked at each step; no call: no wait
    assert clock[0] == 0.0
    _pausing.pause_point()  # outside the build, a pause point does nothing
    assert len(asked) == 3

    # A call in flight the whole time: each step waits, until the budget is spent.
    step = _compiling.GIVE_WAY_STEP
    with _ui_thread._IN_FLIGHT:
        assert not _ui_thread._IN_FLIGHT.wait_none(0)
        with _pausing.pausing(_compiling._giving_way(2.5 * step)):
            for _ in range(5):
                _pausing.pause_point()
    # Then no budget was left: the last two steps did not wait.
    assert asked[3:] == pytest.approx([step, step, step / 2])
    assert clock[0] == pytest.approx(2.5 * step)
    assert _ui_thread._IN_FLIGHT.wait_none(0)
