"""Oracles that need an app to misbehave on purpose: a hung UI thread, a new binding error, a bug that does not recur."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fake_toolkit import FakeApp, FakeElement, Harness
from testkit_fakes import FakeRunning, ShopState

from wpfprobe.core.protocol import BindingErrorRecord
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.testkit.artifacts import SessionDir
from wpfprobe.testkit.explore import ExploreOptions, explore
from wpfprobe.testkit.minimize import MinimizeOptions
from wpfprobe.testkit.runner import Runner, RunnerOptions, StepSpec
from wpfprobe.testkit.tickets import all_tickets


class OneApp:
    """A factory for one fake app built by ``build`` (fresh each start)."""

    fresh = True

    def __init__(self, build: Any, settings: ProbeSettings | None = None) -> None:
        self.target: dict[str, Any] = {"profile": "one"}
        self.build = build
        self.settings = settings or ProbeSettings(audit=False)

    def start(self) -> FakeRunning:
        state = ShopState()
        return FakeRunning(Harness(self.build(), self.settings), state)

    def environment(self) -> dict[str, str]:
        return {"app": "one"}


def run_one(tmp_path: Path, factory: Any, spec: StepSpec, **options: Any) -> Any:
    session = SessionDir(tmp_path, "s")
    runner = Runner(factory, session, source="scenario", options=RunnerOptions(**options))
    try:
        runner.start_app()
        return runner.run_step(spec)
    finally:
        runner.close()
        session.close()


def test_a_handler_that_holds_the_ui_thread_is_a_hang(tmp_path: Path) -> None:
    release = threading.Event()

    def build() -> FakeApp:
        return FakeApp(FakeElement("Window", "w", text="W", children=[
            FakeElement("Button", "stuckButton", text="Sync", on_click=lambda el: release.wait(20)),
        ]))  # fmt: skip

    try:
        report = run_one(
            tmp_path, OneApp(build, ProbeSettings(audit=False, ui_timeout=0.3)), StepSpec("click", locators=["#stuckButton"]),
            hang_seconds=1.0, binding_errors=False,
        )  # fmt: skip
    finally:
        release.set()
    assert [f.signature for f in report.failures] == ["hang|ui-thread|#stuckButton"]
    assert report.app_lost


def test_a_binding_error_that_was_not_there_at_start_is_a_failure(tmp_path: Path) -> None:
    def build() -> FakeApp:
        label = FakeElement("Label", "totalLabel", text="")
        label.error_records.append(BindingErrorRecord("Text", "Path error: 'Old' not found", kind="trace"))

        def break_binding(el: FakeElement) -> None:
            label.error_records.append(BindingErrorRecord("Text", "Path error: 'Total' not found", kind="trace"))

        return FakeApp(FakeElement("Window", "w", text="W", children=[
            label, FakeElement("Button", "reloadButton", text="Reload", on_click=break_binding),
        ]))  # fmt: skip

    report = run_one(tmp_path, OneApp(build), StepSpec("click", locators=["#reloadButton"]))
    (failure,) = report.failures
    assert failure.kind == "binding-error" and "'Total'" in failure.message and "'Old'" not in failure.message
    assert failure.details["stepElement"] == "#reloadButton"


class FirstAppOnly:
    """Process raises only in the first app started: on no fresh app does the failure come back."""

    fresh = True

    def __init__(self) -> None:
        self.target: dict[str, Any] = {"profile": "first-only"}
        self.starts = 0

    def start(self) -> FakeRunning:
        self.starts += 1
        buggy = self.starts == 1

        def process(el: FakeElement) -> None:
            if buggy:
                raise KeyError("only the first time")

        app = FakeApp(FakeElement("Window", "w", text="W", children=[
            FakeElement("Button", "processButton", text="Process", on_click=process),
            FakeElement("Button", "otherButton", text="Other"),
        ]))  # fmt: skip
        return FakeRunning(Harness(app, ProbeSettings(audit=False)), ShopState())

    def environment(self) -> dict[str, str]:
        return {"app": "first-only"}


def test_a_failure_that_does_not_recur_is_reported_flaky_with_its_repro_rate(tmp_path: Path) -> None:
    report = explore(
        FirstAppOnly(),
        ExploreOptions(seed=3, max_steps=20, artifacts=tmp_path, minimize_options=MinimizeOptions(confirm=2)),
    )
    (failure,) = report.failures
    assert failure.signature == "exception|KeyError|#processButton"
    assert failure.flaky and failure.repro_rate == "0/2"
    (ticket,) = all_tickets(tmp_path)
    assert ticket.flaky and ticket.repro_rate is not None and ticket.repro_rate.text() == "0/2"
    assert ticket.minimization is not None and ticket.minimization.to_steps == ticket.minimization.from_steps
    assert "**Flaky**" in (Path(str(ticket.path)) / "ticket.md").read_text(encoding="utf-8")
