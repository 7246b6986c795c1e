"""The test kit's MCP tools, served by the broker (``wpfprobe mcp``): an agent runs scenarios and files tickets.

- ``wpf_run_scenario {path, profile?, app?}``: run a scenario file. With a
  profile (the argument, else the scenario's own target) on a fresh app, as
  ``wpfprobe scenario run`` does; otherwise on the running app the agent names
  (``app``, optional with one app), through the broker's own session to it.
  Answers pass or fail, the failures, and the ticket written.
- ``wpf_file_ticket {title, actual, expected, app?, notes?, lastSteps?}``:
  write a ticket for a bug the agent found. The broker attaches what it saw
  itself: the agent's last steps on that app (replayable as the ticket's
  repro.actions.json), a screenshot, the element tree and the app's recent
  exceptions; the agent writes only what it concluded.
- ``wpf_export_scenario {app?, format?, profile?, name?}``: what the agent did
  on that app so far, as ``wpfprobe codegen`` writes it: a scenario (yaml) or a
  pytest module, with the locators worth keeping and the assertions inferred
  from what each action changed (those need the session recorded, ``--record``).

Schema plus one call plus text, like ``wpfprobe.mcp.tools``; the broker cannot
import this layer, so the command line hands these tools to it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from wpfprobe.broker.broker import Broker, BrokerTool
from wpfprobe.broker.wire import _invalid, result
from wpfprobe.core.calls import CallCancelled, CallControl
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.trace import load_trace
from wpfprobe.testkit import oracles
from wpfprobe.testkit.codegen import Recording, generate
from wpfprobe.testkit.connection import CallOutcome, outcome_from_result
from wpfprobe.testkit.launcher import ProcessFactory, check_target, needed_tier, wait_pid_exit
from wpfprobe.testkit.scenario import ScenarioError, load_scenario
from wpfprobe.testkit.scenario_run import ScenarioResult, run_scenario
from wpfprobe.testkit.tickets import write_ticket

RUN_SCENARIO = "wpf_run_scenario"
FILE_TICKET = "wpf_file_ticket"
EXPORT_SCENARIO = "wpf_export_scenario"


class _Args(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class RunScenarioArgs(_Args):
    path: str = Field(min_length=1, max_length=4096, description="The scenario file (.yaml or .json).")
    profile: str | None = Field(
        default=None, max_length=200, description="Start this saved profile fresh (default: the scenario's target)."
    )
    app: str | None = Field(
        default=None, max_length=1000, description="Without a profile: run on this running app (from wpf_list_apps)."
    )


class FileTicketArgs(_Args):
    title: str = Field(min_length=1, max_length=300, description="One line: what is wrong.")
    actual: str = Field(min_length=1, max_length=5000, description="What happened.")
    expected: str = Field(min_length=1, max_length=5000, description="What should have happened.")
    app: str | None = Field(
        default=None, max_length=1000, description="The app (from wpf_list_apps); optional with one."
    )
    notes: str | None = Field(default=None, max_length=10_000, description="Anything else: the agent's hypothesis.")
    last_steps: int = Field(default=20, ge=0, le=50, description="How many of your last steps on the app to attach.")


class ExportScenarioArgs(_Args):
    app: str | None = Field(
        default=None, max_length=1000, description="The app (from wpf_list_apps); optional with one."
    )
    format: Literal["yaml", "pytest"] = Field(default="yaml", description="A scenario file (yaml) or a pytest module.")
    profile: str | None = Field(
        default=None,
        max_length=200,
        description="The profile the test starts (default: the one the app was launched from).",
    )
    name: str | None = Field(default=None, max_length=100, description="The scenario's id or the test's name.")


class ExportedScenario(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    format: Literal["yaml", "pytest"]
    content: str
    """The file's text: save it as a .yaml scenario or a test_*.py module."""
    steps: int
    """Recorded steps it was made from."""
    recorded: str | None = None
    """The session's steps.jsonl, when the broker records (--record)."""


class FiledTicket(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    ticket: str
    id: str
    steps: int
    evidence: list[str]


class _BrokerConnection:
    """Tool calls through the broker's own session to a live app (from a worker thread).

    Once ``control`` is cancelled, the call in flight is cancelled (and with it the app's
    own call) and CallCancelled raised, so the scenario stops at once."""

    def __init__(self, client: Any, loop: asyncio.AbstractEventLoop, control: CallControl | None = None) -> None:
        self._client = client
        self._loop = loop
        self._control = control

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None) -> CallOutcome:
        import concurrent.futures  # noqa: PLC0415
        import time  # noqa: PLC0415

        from wpfprobe.core.errors import ProbeError  # noqa: PLC0415

        started = time.perf_counter()
        wait = timeout or 60.0
        if self._control is not None:
            self._control.check()
        future = asyncio.run_coroutine_threadsafe(
            self._client.call_tool(tool, dict(arguments), timeout=wait), self._loop
        )
        deadline = time.monotonic() + wait + 5
        try:
            while True:
                try:
                    answer = future.result(min(0.1, max(deadline - time.monotonic(), 0.0)))
                    break
                except concurrent.futures.TimeoutError:
                    if self._control is not None and self._control.cancelled:
                        future.cancel()
                        raise CallCancelled from None
                    if time.monotonic() >= deadline:
                        raise
        except ProbeError as err:
            return CallOutcome.from_error(err)
        return outcome_from_result(answer, int((time.perf_counter() - started) * 1000))

    def close(self) -> None:
        pass


class _LiveApp:
    def __init__(self, connection: _BrokerConnection, pid: int) -> None:
        self.connection = connection
        self.pid = pid

    def alive(self) -> bool:
        import psutil  # noqa: PLC0415

        return psutil.pid_exists(self.pid)

    def wait_exit(self, timeout: float) -> bool:
        return wait_pid_exit(self.pid, timeout)

    def exit_code(self) -> int | None:
        return None

    def log_tail(self, lines: int = 40) -> str:
        return ""

    def fatal_events(self) -> list[Any]:
        return []

    def stop(self) -> None:
        pass


class _LiveFactory:
    """The app the agent is using, as it is now (not started again)."""

    fresh = False

    def __init__(self, app: _LiveApp, name: str) -> None:
        self._app = app
        self._name = name
        self.target: dict[str, Any] = {"app": name}

    def start(self) -> _LiveApp:
        return self._app

    def environment(self) -> dict[str, str]:
        from wpfprobe.testkit.launcher import _platform  # noqa: PLC0415

        return {"app": self._name, "command": "(running app, via the broker)", **_platform()}


def broker_tools(artifacts: Path) -> list[BrokerTool]:
    import mcp_types as types  # noqa: PLC0415

    async def run_scenario_tool(broker: Broker, raw: dict[str, Any]) -> Any:
        try:
            args = RunScenarioArgs.model_validate(raw, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(RUN_SCENARIO, exc) from None
        try:
            scenario = load_scenario(args.path)
        except ScenarioError as err:
            raise InvalidArgumentError(str(err), suggestion="Fix the scenario file at that line.") from None
        tier = needed_tier(scenario.actions())
        control = CallControl()
        if args.profile or (scenario.target is not None and args.app is None):
            target = check_target(args.profile, scenario.target, file=scenario.source_path)
            factory: Any = ProcessFactory(target, tier=tier, work_dir=artifacts / "sessions" / ".apps")
        else:
            rec = await broker.select_app(args.app)
            live = _LiveApp(_BrokerConnection(rec.client, asyncio.get_running_loop(), control), rec.manifest.pid)
            factory = _LiveFactory(live, rec.manifest.app_name)
        try:
            outcome: ScenarioResult = await asyncio.to_thread(
                run_scenario, scenario, factory, artifacts=artifacts, control=control
            )
        except asyncio.CancelledError:
            # The agent cancelled: the run stops before its next step (the step in flight is
            # cancelled in the app), closes what it started and writes no ticket.
            control.cancel()
            raise
        return result(outcome, outcome.line() + (f"\nticket: {outcome.ticket}" if outcome.ticket else ""))

    async def file_ticket_tool(broker: Broker, raw: dict[str, Any]) -> Any:
        try:
            args = FileTicketArgs.model_validate(raw, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(FILE_TICKET, exc) from None
        rec = await broker.select_app(args.app)
        recorder = broker.recorder_for(rec)
        steps = list(recorder.recent)[-args.last_steps :] if args.last_steps else []
        shot = await rec.client.call_tool("wpf_capture_screenshot", {}, timeout=30)
        tree = await rec.client.call_tool("wpf_get_visual_tree", {"maxDepth": 10, "format": "text"}, timeout=30)
        events = await rec.client.call_tool("wpf_get_app_events", {"sinceSeq": 0}, timeout=30)
        shot_out, tree_out, events_out = (outcome_from_result(a, 0) for a in (shot, tree, events))
        exceptions = [e for e in events_out.structured.get("events") or [] if e.get("kind") == "exception"]
        last = steps[-1] if steps else None
        element = last.target.locator if last is not None and last.target else None
        failure = oracles.make(
            "reported", args.title, what=oracles.normalize_title(args.title), element=element,
            step=last.seq if last else None, expected=args.expected, actual=args.actual,
            exception_type=exceptions[-1].get("type") if exceptions else None,
            exception_message=exceptions[-1].get("message") if exceptions else None,
            stack=exceptions[-1].get("stack") if exceptions else None,
            details={"notes": args.notes} if args.notes else {},
        )  # fmt: skip

        def write() -> Any:
            from wpfprobe.testkit.launcher import _platform  # noqa: PLC0415

            return write_ticket(
                artifacts / "tickets" / recorder.session_id, failure=failure, steps=steps,
                session_id=recorder.session_id, source="agent",
                environment={"app": rec.manifest.app_name, "toolkit": rec.manifest.toolkit, "runtime": rec.manifest.runtime, **_platform()},
                target={"app": rec.manifest.app_name}, extra_screens={"screen": shot_out.png or b""},
                extra_snapshots={"tree": tree_out.text} if tree_out.ok else None, notes=args.notes,
            )  # fmt: skip

        ticket = await asyncio.to_thread(write)
        filed = FiledTicket(
            ticket=str(ticket.path), id=ticket.id, steps=len(steps), evidence=[e.path for e in ticket.evidence]
        )
        return result(filed, f"filed {ticket.id} with {len(steps)} steps: {ticket.path}")

    async def export_scenario_tool(broker: Broker, raw: dict[str, Any]) -> Any:
        try:
            args = ExportScenarioArgs.model_validate(raw, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(EXPORT_SCENARIO, exc) from None
        rec = await broker.select_app(args.app)
        recorder = broker.recorder_for(rec)
        path = recorder.steps_path
        if path is not None and path.is_file():
            steps = (await asyncio.to_thread(load_trace, path)).steps
        else:
            steps, path = list(recorder.recent), None
        target = {"profile": args.profile} if args.profile else dict(recorder.about.get("target") or {})
        recording = Recording(
            steps=steps, source=str(path or "the broker's session"), name=recorder.session_id, target=target
        )
        content = generate(recording, format=args.format, name=args.name)
        exported = ExportedScenario(
            format=args.format, content=content, steps=len(steps), recorded=str(path) if path else None
        )
        return result(exported, content)

    def tool(name: str, title: str, description: str, args: type[BaseModel], out: type[BaseModel]) -> Any:
        return types.Tool(
            name=name, title=title, description=description,
            input_schema=args.model_json_schema(by_alias=True), output_schema=out.model_json_schema(by_alias=True),
            annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
        )  # fmt: skip

    return [
        BrokerTool(
            tool(
                RUN_SCENARIO,
                "Run scenario",
                "Run a scenario file (YAML/JSON steps with expectations, https://github.com/wpfprobe/wpfprobe/blob/main/docs/testing.md): on a fresh app from a "
                "profile (profile, or the scenario's target), else on the running app named by app. Answers "
                "passed, the failures (expected and actual) and the ticket written for a failure.",
                RunScenarioArgs,
                ScenarioResult,
            ),
            run_scenario_tool,
        ),
        BrokerTool(
            tool(
                FILE_TICKET,
                "File ticket",
                "File a bug you found as a ticket a developer can act on. Give title, actual and expected (and "
                "notes: your hypothesis); the broker attaches your last steps on the app (replayable), a "
                "screenshot, the element tree and the app's recent exceptions. Answers the ticket's folder.",
                FileTicketArgs,
                FiledTicket,
            ),
            file_ticket_tool,
        ),
        BrokerTool(
            tool(
                EXPORT_SCENARIO,
                "Export scenario",
                "What you did on the app so far as a test a person would write (as wpfprobe codegen writes it): a "
                "scenario file (format yaml) or a pytest module, with the most stable locators and assertions "
                "inferred from what each action changed. Answers the file's text; save it and run it with wpfprobe "
                "scenario run or pytest.",
                ExportScenarioArgs,
                ExportedScenario,
            ),
            export_scenario_tool,
        ),
    ]
