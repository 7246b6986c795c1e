"""wpf_get_app_events: exceptions escaping handlers and windows that come and go, read in order from any thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_toolkit import FakeApp, FakeElement, harness

from wpfprobe.core import app_events
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.target import Target
from wpfprobe.mcp.text import app_events_text
from wpfprobe.mcp.tools import AppEventsArgs, read_tools


def raise_key_error(el: FakeElement) -> None:
    totals: dict[str, int] = {}
    totals["items"] += 1


def shop() -> FakeApp:
    return FakeApp(
        FakeElement(
            "Window", "shop", text="Shop",
            children=[FakeElement("Button", "processButton", text="Process", on_click=raise_key_error)],
        )
    )  # fmt: skip


@pytest.fixture
def store() -> Iterator[app_events.EventStore]:
    """The process's store, emptied before and after (other tests record into it too)."""
    app_events.store().clear()
    yield app_events.store()
    app_events.store().clear()


def test_the_store_numbers_events_and_says_how_many_a_slow_reader_missed() -> None:
    small = app_events.EventStore(capacity=3)
    for i in range(5):
        small.add("exception", type="E", message=str(i))
    events, last, dropped = small.since(0)
    assert [e.message for e in events] == ["2", "3", "4"] and last == 5 and dropped == 2
    assert small.since(5) == ([], 5, 0)
    assert [e.seq for e in small.since(3)[0]] == [4, 5]


def test_an_exception_from_an_actions_handler_is_an_event_with_its_stack(store: app_events.EventStore) -> None:
    with harness(shop()) as h:
        start = h.engine.app_events(0).next_seq
        result = h.engine.driver.click(Target(locators=("#processButton",)))
        assert result.app_error is not None and result.app_error.type == "KeyError"
        found = h.engine.app_events(start)
    (event,) = [e for e in found.events if e.kind == "exception"]
    assert (event.source, event.type, event.message) == ("action", "KeyError", "'items'")
    assert event.stack is not None and "raise_key_error" in event.stack


def test_windows_that_open_and_close_after_the_first_look_are_events(store: app_events.EventStore) -> None:
    app = shop()
    dialog = FakeElement("Window", "errorDialog", text="Error")
    with harness(app) as h:
        first = h.engine.app_events(0)
        assert first.events == [] and first.windows is not None and [w["name"] for w in first.windows] == ["shop"]
        h.ui.run(lambda: app.open(dialog))
        opened = h.engine.app_events(first.next_seq)
        h.ui.run(lambda: app.close(dialog))
        closed = h.engine.app_events(opened.next_seq)
    assert [(e.kind, e.window["title"]) for e in opened.events if e.window] == [("window-opened", "Error")]
    assert [(e.kind, e.window["name"]) for e in closed.events if e.window] == [("window-closed", "errorDialog")]


def test_a_stuck_ui_thread_is_reported_and_exceptions_still_come_through(store: app_events.EventStore) -> None:
    release = threading.Event()
    with harness(shop(), ProbeSettings(audit=False, ui_timeout=0.2)) as h:
        h.engine.app_events(0)
        h.worker.post(lambda: release.wait(10))
        app_events.record_exception("thread-exception", "ValueError", "bad", "stack", handled=True)
        try:
            stuck = h.engine.app_events(0)
        finally:
            release.set()
    assert stuck.ui_responsive is False and stuck.windows is None
    assert [e.type for e in stuck.events] == ["ValueError"]
    assert "the UI thread did not answer" in app_events_text(stuck)


def test_the_tool_is_in_the_read_tier_and_answers_text(store: app_events.EventStore) -> None:
    spec = {s.name: s for s in read_tools(tier="read")}["wpf_get_app_events"]
    assert spec.tier == "read"
    with harness(shop()) as h:
        app_events.record_exception("dispatcher", "System.InvalidOperationException", "nope", None)
        out = spec.run(h.engine, AppEventsArgs.model_validate({"sinceSeq": 0}))
    data = out.structured_json()
    assert data["events"][0]["type"] == "System.InvalidOperationException" and data["nextSeq"] >= 1
    assert "exception (dispatcher) System.InvalidOperationException: nope" in out.text


def test_events_go_to_the_events_file_to_outlive_the_process(
    store: app_events.EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "events.jsonl"
    monkeypatch.setenv(app_events.EVENTS_FILE_VARIABLE, str(path))
    app_events.record_exception("appdomain", "RuntimeError", "fatal", "trace", terminating=True)
    (event,) = app_events.read_events_file(path)
    assert (event.source, event.type, event.terminating) == ("appdomain", "RuntimeError", True)


def test_a_python_threads_uncaught_exception_is_recorded_and_the_apps_hook_still_runs(
    store: app_events.EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(str(args.exc_value)))
    monkeypatch.setattr(store, "hooks", [])
    app_events.install_python_thread_hook()

    def fail() -> None:
        raise LookupError("in a worker")

    worker = threading.Thread(target=fail)
    worker.start()
    worker.join()
    assert seen == ["in a worker"]
    (event,) = store.since(0)[0]
    assert (event.source, event.type, event.message) == ("python-thread", "LookupError", "in a worker")
