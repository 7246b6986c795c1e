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
