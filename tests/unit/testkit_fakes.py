"""A fake app with planted bugs for the test kit's unit tests, started fresh on every ``start`` (no CLR).

Shop "Shop"
  TextBox#nameBox
  CheckBox#turboCheck "Turbo"
  Button#addButton "Add"            adds an item (the status says "{n} items", or ``added``)
  Button#processButton "Process"    KeyError once Add was clicked twice (state built up first)
  Button#applyButton "Apply"        with Turbo checked, opens an error dialog "Error"
  Button#crashButton "Boom"         after Add, kills the app (a crash: the process is gone)
  Button#deleteAllButton "Delete all"   destructive: records that it was pressed
  Label#statusLabel "Ready"
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from fake_toolkit import FakeApp, FakeElement, Harness

from wpfprobe.core.app_events import AppEvent
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.testkit.connection import CallOutcome, InProcessConnection


@dataclass
class ShopState:
    items: int = 0
    crashed: bool = False
    deleted: bool = False
    renamed: bool = False


def build_shop(
    state: ShopState,
    *,
    rename_process: bool = False,
    with_crash: bool = True,
    added: str = "{n} items",
    late_crash: bool = False,
) -> FakeApp:
    E = FakeElement
    status = E("Label", "statusLabel", text="Ready")
    turbo = E("CheckBox", "turboCheck", text="Turbo")
    app: FakeApp

    def add(el: FakeElement) -> None:
        state.items += 1
        status.text = added.format(n=state.items)

    def process(el: FakeElement) -> None:
        if state.items >= 2:
            totals: dict[str, int] = {}
            status.text = f"Total {totals['items']}"
        status.text = "Processed"

    def apply(el: FakeElement) -> None:
        if turbo.checked:
            app.open(E("Window", "errorDialog", text="Error", children=[E("Button", "okButton", text="OK")]))
            return
        status.text = "Applied"

    def boom(el: FakeElement) -> None:
        if state.items >= 1:
            state.crashed = True

    def delete_all(el: FakeElement) -> None:
        state.deleted = True

    buttons = [
        E("Button", "addButton", text="Add", on_click=add),
        E("Button", "renamedProcess" if rename_process else "processButton", text="Process", on_click=process),
        E("Button", "applyButton", text="Apply", on_click=apply),
        E("Button", "deleteAllButton", text="Delete all", on_click=delete_all),
    ]
    if with_crash:
        buttons.append(E("Button", "crashButton", text="Boom", on_click=boom))
    if late_crash:
        # Its handler returns at once; the app goes down half a second later (a timer, a background load).
        later = lambda el: threading.Timer(0.5, lambda: setattr(state, "crashed", True)).start()  # noqa: E731
        buttons.append(E("Button", "laterButton", text="Later", on_click=later))
    app = FakeApp(
        E("Window", "shop", text="Shop", children=[E("TextBox", "nameBox", text=""), turbo, *buttons, status])
    )
    return app


class _Connection:
    """The in-process tools, answering APP_NOT_AVAILABLE once the fake app has "crashed"."""

    def __init__(self, inner: InProcessConnection, state: ShopState) -> None:
        self._inner = inner
        self._state = state

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None) -> CallOutcome:
        if self._state.crashed:
            return CallOutcome(ok=False, error={"code": "APP_NOT_AVAILABLE", "message": "the app is gone"})
        return self._inner.call(tool, arguments, timeout=timeout)

    def close(self) -> None:
        pass


@dataclass
class FakeRunning:
    harness: Harness
    state: ShopState
    connection: _Connection = field(init=False)
    pid: int | None = None

    def __post_init__(self) -> None:
        self.connection = _Connection(InProcessConnection(self.harness.engine), self.state)

    def alive(self) -> bool:
        return not self.state.crashed

    def wait_exit(self, timeout: float) -> bool:
        return self.state.crashed  # a fake app ends at once or not at all

    def exit_code(self) -> int | None:
        return 134 if self.state.crashed else None

    def log_tail(self, lines: int = 40) -> str:
        return "Traceback (most recent call last):\nRuntimeError: boom\n" if self.state.crashed else ""

    def fatal_events(self) -> list[AppEvent]:
        if not self.state.crashed:
            return []
        return [
            AppEvent(
                seq=1,
                kind="exception",
                time="t",
                source="appdomain",
                type="RuntimeError",
                message="boom",
                terminating=True,
            )
        ]

    def stop(self) -> None:
        self.harness.close()


class ShopFactory:
    """A fresh fake shop on every start, as ProcessFactory starts a fresh process."""

    fresh = True

    def __init__(self, **build: Any) -> None:
        self.build = build
        self.target: dict[str, Any] = {"profile": "fake-shop"}
        self.states: list[ShopState] = []
        self._ids = itertools.count(1)

    def start(self) -> FakeRunning:
        state = ShopState()
        self.states.append(state)
        return FakeRunning(
            Harness(build_shop(state, **self.build), ProbeSettings(audit=False)), state, pid=next(self._ids)
        )

    def environment(self) -> dict[str, str]:
        return {"app": "fake-shop", "command": "(fake)"}

    @property
    def deleted(self) -> bool:
        return any(s.deleted for s in self.states)
