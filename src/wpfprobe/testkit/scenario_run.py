"""Running scenarios: setup, steps and teardown on a fresh app, each step's expectations, a ticket on failure.

A scenario fails on the first step that fails: an expectation that did not
hold within its timeout, a step whose element cannot be found (or cannot take
the action), or anything the oracles see (a crash, an exception escaping a
handler, an error dialog, a hung UI, a new binding error). Teardown runs
anyway. A failing scenario is run again only if it says ``retries``; when a
retry passes, the scenario passes labelled flaky, and its ticket (written for
the failure) says how often it failed.

Steps a person writes are checked against the same safety policy as
exploration: a destructive step (close, delete, exit...) needs
``allowDestructive: true`` on the step, so a scenario never does that by
accident.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from wpfprobe.core.calls import CallControl
from wpfprobe.core.errors import ProbeError
from wpfprobe.core.trace import TraceStep
from wpfprobe.testkit import assertions, oracles, tracing
from wpfprobe.testkit.artifacts import DEFAULT_ARTIFACTS, SessionDir, new_session_id, safe_name
from wpfprobe.testkit.explore.policy import SafetyPolicy
from wpfprobe.testkit.launcher import AppFactory
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.replay import Invariant, expectation_checker
from wpfprobe.testkit.runner import Runner, RunnerOptions, StepSpec
from wpfprobe.testkit.scenario import Scenario, step_arguments
from wpfprobe.testkit.tickets import ReproRate, write_ticket


class ScenarioResult(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    id: str
    title: str | None = None
    file: str | None = None
    passed: bool
    flaky: bool = False
    attempts: int = 1
    failed_attempts: int = 0
    failures: list[Failure] = Field(default_factory=list)
    error: str | None = None
    """The scenario could not run as written (a destructive step not allowed), or its app did not come up
    (``setup``): no ticket, exit status 2."""
    setup: bool = False
    """The error is in the setup: the app could not be started (its command, its script, its start-up)."""
    ticket: str | None = None
    session: str | None = None
    seconds: float = 0.0
    steps: int = 0

    @classmethod
    def setup_error(cls, scenario: Scenario, err: ProbeError, *, seconds: float = 0.0) -> ScenarioResult:
        """A scenario whose app never came up: what happened and why, in two lines."""
        return cls(
            id=scenario.id, title=scenario.title, file=scenario.source_path, passed=False, setup=True,
            error=setup_text(err), seconds=round(seconds, 2),
        )  # fmt: skip

    def line(self) -> str:
        verdict = "PASS" if self.passed else ("SETUP" if self.setup else "ERROR" if self.error else "FAIL")
        flaky = f" (flaky: failed {self.failed_attempts} of {self.attempts} runs)" if self.flaky else ""
        why = ""
        if self.error:
            why = ": " + self.error.replace("\n", "\n  ")
        elif self.failures:
            why = f": {self.failures[0].one_line()}"
        return f"{verdict} {self.id}{flaky} [{self.seconds:.1f} s]{why}"


class _Unsafe(Exception):
    pass


def setup_text(err: ProbeError) -> str:
    """A failure before the app was up, as a person reads it: what happened, and the cause on a second line
    (the app's own last error line, or the hint)."""
    message = err.message.strip()
    if "\n" not in message and err.suggestion:
        message += f"\nhint: {err.suggestion}"
    first, _, rest = message.partition("\n")
    return first if not rest else f"{first}\n{rest.splitlines()[0]}"


def run_scenario(
    scenario: Scenario,
    factory: AppFactory,
    *,
    artifacts: str | os.PathLike[str] = DEFAULT_ARTIFACTS,
    update_baselines: bool = False,
    update_snapshots: bool = False,
    options: RunnerOptions | None = None,
    policy: SafetyPolicy | None = None,
    on_attempt: Callable[[int, ScenarioResult], None] | None = None,
    control: CallControl | None = None,
) -> ScenarioResult:
    """Run ``scenario`` (again on failure, as often as its ``retries`` say); a ticket for a failure.

    Once ``control`` is cancelled (an agent cancelled wpf_run_scenario), the run stops before
    its next step, closes the app it started and raises CallCancelled: no result, no ticket.
    """
    base_dir = Path(scenario.source_path).resolve().parent if scenario.source_path else Path.cwd()
    policy = policy or SafetyPolicy()
    attempts = 1 + scenario.retries
    first_failure: tuple[ScenarioResult, list[TraceStep], SessionDir, str] | None = None
    failed = 0
    result: ScenarioResult | None = None
    options = options or RunnerOptions()
    for attempt in range(1, attempts + 1):
        if control is not None:
            control.check()
        result, steps, session, log_tail = _attempt(
            scenario, factory, Path(artifacts), base_dir, (update_baselines, update_snapshots), options, policy,
            control,
        )  # fmt: skip
        tracing.finish(session.path, options.trace, passed=result.passed)
        if on_attempt is not None:
            on_attempt(attempt, result)
        if result.error is not None:
            return result
        if result.passed:
            break
        failed += 1
        if first_failure is None:
            first_failure = (result, steps, session, log_tail)
    assert result is not None
    result.attempts = attempt
    result.failed_attempts = failed
    if first_failure is not None:
        failing, steps, session, log_tail = first_failure
        flaky = result.passed
        failure = failing.failures[0]
        ticket = write_ticket(
            session.tickets, failure=failure, steps=steps, session_id=session.session_id, source="scenario",
            environment={**factory.environment(), "scenario": scenario.id, **({"file": scenario.source_path} if scenario.source_path else {})},
            target=factory.target, session_path=session.path,
            repro_rate=ReproRate(reproduced=failed, attempts=attempt), flaky=flaky, log_tail=log_tail,
            extra_screens=_images(session, failure),
        )  # fmt: skip
        result.ticket = ticket.path
        result.flaky = flaky
        if not result.passed:
            result.failures = failing.failures
    return result


def _images(session: SessionDir, failure: Failure) -> dict[str, bytes]:
    out = {}
    for name, relative in (failure.details.get("images") or {}).items():
        path = session.path / relative
        if path.exists():
            out[f"expectation-{name}"] = path.read_bytes()
    return out


def _attempt(
    scenario: Scenario,
    factory: AppFactory,
    artifacts: Path,
    base_dir: Path,
    updates: tuple[bool, bool],
    options: RunnerOptions,
    policy: SafetyPolicy,
    control: CallControl | None = None,
) -> tuple[ScenarioResult, list[TraceStep], SessionDir, str]:
    session = SessionDir(artifacts, new_session_id(f"scenario-{safe_name(scenario.id, 40)}"))
    runner = Runner(factory, session, source="scenario", options=options)
    result = ScenarioResult(
        id=scenario.id, title=scenario.title, file=scenario.source_path, passed=False, session=str(session.path)
    )
    started = time.monotonic()
    failures: list[Failure] = []
    steps: list[TraceStep] = []
    log_tail = ""
    try:
        try:
            runner.start_app()
        except ProbeError as err:
            # The app did not come up at all: a setup error (its command, its script, its start-up), said in
            # two lines. Not a crash ticket: no step of the scenario ran, so there is nothing to replay.
            session.log.warning("the app did not start: %s", err.message)
            setup = ScenarioResult.setup_error(scenario, err, seconds=time.monotonic() - started)
            setup.session = str(session.path)
            return setup, [], session, ""
        try:
            for phase, phase_steps in (("setup", scenario.setup), ("steps", scenario.steps)):
                failures = _run_steps(runner, scenario, phase, phase_steps, base_dir, updates, policy, control)
                if failures:
                    break
        except _Unsafe as exc:
            result.error = str(exc)
        steps = list(runner.steps)
        app_lost = any(f.kind in ("crash", "hang") for f in failures)
        if app_lost and runner.app is not None:
            log_tail = runner.app.log_tail(40)
        if scenario.teardown and not app_lost and result.error is None:
            try:
                teardown = _run_steps(
                    runner, scenario, "teardown", scenario.teardown, base_dir, updates, policy, control
                )
            except _Unsafe as exc:
                result.error = str(exc)
                teardown = []
            if not failures:
                failures = teardown
                steps = list(runner.steps)
    finally:
        runner.close()
        session.close()
    result.failures = failures
    result.passed = not failures and result.error is None
    result.seconds = round(time.monotonic() - started, 2)
    result.steps = len(steps)
    return result, steps, session, log_tail


def _run_steps(
    runner: Runner,
    scenario: Scenario,
    phase: str,
    steps: Sequence[Any],
    base_dir: Path,
    updates: tuple[bool, bool],
    policy: SafetyPolicy,
    control: CallControl | None = None,
) -> list[Failure]:
    """Run ``steps``; ``updates``: (write screenshot baselines, write tree snapshots) instead of comparing."""
    for index, step in enumerate(steps, start=1):
        if control is not None:
            control.check()
        timeout = step.expect_timeout_ms if step.expect_timeout_ms is not None else scenario.expect_timeout_ms
        expect = [_recorded(assertions.as_dict(a), timeout, base_dir) for a in step.expect] or None
        args = step_arguments(step)
        locator = args.pop("locator", None)
        locators = [locator, *step.fallbacks] if locator else list(step.fallbacks)
        if step.action != "check" and not step.allow_destructive:
            _check_safe(runner, policy, step.action, args, locators, f"{phase} step {index}")
        spec = StepSpec(action=step.action, args=args, locators=locators, name=step.name, expect=expect)
        check = expectation_checker(base_dir, timeout, update_baselines=updates[0], update_snapshots=updates[1])

        def expectations(ran: TraceStep, check: Invariant = check) -> list[Failure]:
            return check(runner, ran)

        report = runner.run_step(spec, extra_checks=expectations)
        if not report.applied:
            error = report.step.error
            code = error.code if error else "INTERNAL"
            kind: oracles.FailureKind = (
                "missing-element" if code in ("LOCATOR_NOT_FOUND", "NODE_NOT_FOUND") else "step-error"
            )
            where = locators[0] if locators else None
            return [
                oracles.make(
                    kind,
                    f"{phase} step {index} ({step.action} {where or ''}) could not run: {code}: {error.message if error else ''}",
                    what=code,
                    element=where,
                    step=report.step.seq,
                    expected=f"{where} is there and can take a {step.action}",
                    actual=f"{code}: {error.message if error else ''}",
                )
            ]
        if report.failures:
            for failure in report.failures:
                failure.details.setdefault("phase", phase)
            return report.failures
    return []


def _recorded(assertion: dict[str, Any], timeout_ms: int, base_dir: Path) -> dict[str, Any]:
    """An assertion as the trace keeps it: with its timeout, and a baseline path a replay finds from anywhere."""
    out = {"timeoutMs": timeout_ms, **assertion}
    if out.get("assert") == "screenshot_diff" and "baseline" in out:
        out["baseline"] = str((base_dir / str(out["baseline"])).resolve())
    if out.get("assert") == "tree_matches" and "snapshot" in out:
        out["snapshot"] = str((base_dir / str(out["snapshot"])).resolve())
    return out


def _check_safe(
    runner: Runner, policy: SafetyPolicy, action: str, args: dict[str, Any], locators: list[str], where: str
) -> None:
    node: dict[str, Any] = {}
    if locators:
        found = runner.call("wpf_find_elements", {"locator": locators[0], "maxResults": 1})
        results = found.structured.get("results") or [] if found.ok else []
        node = results[0]["node"] if results else {"locator": locators[0]}
    decision = policy.decide(node, action, args)
    if not decision.allowed:
        raise _Unsafe(
            f"{where} ({action} {locators[0] if locators else ''}) is destructive: {decision.reason}. "
            "Add allowDestructive: true to the step if the scenario means it."
        )


class RunSummary(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    passed: int
    failed: int
    errors: int
    flaky: int
    seed: int
    tickets: list[str]
    scenarios: list[ScenarioResult]
