"""Replaying recorded steps with no AI: the trace, not a seed, is what reproduces a GUI run.

Each step is run as recorded: its locators in order (the first that finds one
element is used, and a fallback is noted), its arguments, its recorded pace
(the pause before it, up to ``max_gap_ms``), and its ``expect`` assertions.
The replay stops at the first failure, or where it diverged: a step that
could not be applied (its element is gone, or the probe refused it), or a
failure other than the one the trace expects. Minimization runs its
candidates through here too, so "reproduced" means the same thing everywhere:
the expected signature recurred, every step before it applied.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from wpfprobe.core.trace import TraceDocument, TraceStep, renumber
from wpfprobe.testkit import assertions, oracles
from wpfprobe.testkit.launcher import AppFactory
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.runner import Runner, RunnerOptions, StepSpec

Invariant = Callable[[Runner, TraceStep], list[Failure]]


@dataclass
class Divergence:
    index: int
    """0-based index of the step where the replay left the recording."""
    reason: str
    code: str | None = None


@dataclass
class ReplayResult:
    failures: list[Failure] = field(default_factory=list)
    reproduced: bool = False
    """The expected failure's signature recurred (with no expected failure: nothing failed)."""
    diverged: Divergence | None = None
    steps_run: int = 0
    fallbacks: list[tuple[int, str]] = field(default_factory=list)
    """(index, locator) where a fallback locator found the element."""
    steps: list[TraceStep] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    """Indexes of the steps that could not be applied and were left out (``skip_unapplied``)."""

    @property
    def valid(self) -> bool:
        """Every step applied until the end or the failure (a minimization candidate that counts)."""
        return self.diverged is None or self.diverged.code == "different-failure"

    def summary(self) -> str:
        if self.diverged is not None:
            return f"diverged at step {self.diverged.index + 1}: {self.diverged.reason}"
        if self.failures:
            return f"failed at step {self.steps_run}: {self.failures[0].one_line()}"
        return f"ran {self.steps_run} steps, nothing failed"


class Interruption:
    """Asked while an expectation is retried: the failures that end the wait (an exception, a crash)."""

    def __init__(self, runner: Runner, *, element: str | None, step: int | None) -> None:
        self.runner = runner
        self.element = element
        self.step = step
        self.failures: list[Failure] = []

    def __call__(self) -> bool:
        self.failures = self.runner.interruption(element=self.element, step=self.step)
        return bool(self.failures)


def expectation_checker(
    base_dir: Path | None, default_timeout_ms: int, *, update_baselines: bool = False, update_snapshots: bool = False
) -> Invariant:
    """Checks a step's ``expect`` after it ran (each assertion retried until its timeout)."""

    def check(runner: Runner, step: TraceStep) -> list[Failure]:
        out: list[Failure] = []
        element = step.target.locator if step.target else None
        for raw in step.expect or []:
            stopped = Interruption(runner, element=element, step=step.seq)
            result = assertions.check(
                lambda tool, args: runner.call(tool, args), raw, default_timeout_ms=default_timeout_ms,
                base_dir=base_dir, update_baselines=update_baselines, update_snapshots=update_snapshots,
                interrupted=stopped,
            )  # fmt: skip
            if stopped.failures:
                return stopped.failures  # what the app did is the verdict, not the expectation it cut short
            if not result.ok:
                failure = oracles.make(
                    "expectation", result.message(), what=result.kind, element=result.locator, step=step.seq,
                    expected=result.expected, actual=result.actual,
                    details={"assertion": raw if isinstance(raw, dict) else assertions.as_dict(raw)},
                )  # fmt: skip
                for name, data in (result.images or {}).items():
                    path = runner.session.path / "screens" / f"step-{step.seq:04d}-{name}.png"
                    path.write_bytes(data)
                    failure.details.setdefault("images", {})[name] = runner.session.relative(path)
                out.append(failure)
        return out

    return check


def replay(
    runner: Runner,
    steps: Sequence[TraceStep],
    *,
    expected_signature: str | None = None,
    pace: bool = True,
    max_gap_ms: int = 2000,
    checks: Sequence[Invariant] = (),
    start: bool = True,
    skip_unapplied: bool = False,
) -> ReplayResult:
    """Run ``steps`` on a freshly started app (``start``) and compare with what was expected.

    ``skip_unapplied``: a step that cannot be applied is left out and the replay goes on (the app
    never saw it), instead of ending the replay as a divergence; minimization runs its candidates so.
    """
    result = ReplayResult()
    if start:
        runner.start_app()
    previous: TraceStep | None = None
    for index, step in enumerate(steps):
        if pace and previous is not None:
            gap = step.offset_ms - previous.offset_ms - previous.duration_ms
            if gap > 0:
                time.sleep(min(gap, max_gap_ms) / 1000)
        previous = step

        def extra(ran: TraceStep) -> list[Failure]:
            out: list[Failure] = []
            for check in checks:
                out.extend(check(runner, ran))
            return out

        report = runner.run_step(StepSpec.from_trace(step), extra_checks=extra if checks else None)
        result.steps_run = index + 1
        result.steps.append(report.step)
        if report.step.used_locator and step.target and report.step.used_locator != step.target.locator:
            result.fallbacks.append((index, report.step.used_locator))
        if not report.applied and skip_unapplied:
            result.skipped.append(index)
            continue
        if not report.applied:
            error = report.step.error
            result.diverged = Divergence(
                index,
                f"the step could not be applied: {error.code}: {error.message}" if error else "not applied",
                error.code if error else None,
            )
            break
        if report.failures:
            result.failures = report.failures
            signatures = [f.signature for f in report.failures]
            if expected_signature is None or expected_signature in signatures:
                result.reproduced = expected_signature is not None
            else:
                result.diverged = Divergence(
                    index, f"a different failure happened: {report.failures[0].one_line()}", "different-failure"
                )
            break
    else:
        result.reproduced = expected_signature is None
    if expected_signature is None and result.failures:
        result.reproduced = False
    return result


def describe_args(step: TraceStep) -> dict[str, Any]:
    return {"action": step.action, **step.args, **({"locator": step.target.locator} if step.target else {})}


class ReplayReport(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    file: str | None = None
    expected: str | None = None
    """The signature the trace expects to recur (a ticket's repro), if any."""
    runs: int = 1
    reproduced_runs: int = 0
    """Runs in which the expected failure recurred (or, with none expected, nothing failed)."""
    failed: bool = False
    failures: list[Failure] = Field(default_factory=list)
    diverged: dict[str, Any] | None = None
    steps_run: int = 0
    steps: int = 0
    fallbacks: list[dict[str, Any]] = Field(default_factory=list)
    ticket: str | None = None
    session: str | None = None

    def line(self) -> str:
        verdict = "FAILED" if self.failed else "OK"
        rate = f" reproduced {self.reproduced_runs}/{self.runs}" if self.expected else ""
        where = ""
        if self.diverged:
            where = f"; diverged at step {self.diverged['index'] + 1}: {self.diverged['reason']}"
        elif self.failures:
            where = f"; {self.failures[0].one_line()}"
        return f"{verdict}: ran {self.steps_run} of {self.steps} steps{rate}{where}"


def run_replay(
    document: TraceDocument,
    factory: AppFactory,
    *,
    artifacts: Path,
    file: str | None = None,
    pace: bool = True,
    runs: int = 1,
    base_dir: Path | None = None,
    options: RunnerOptions | None = None,
) -> ReplayReport:
    """Replay ``document`` ``runs`` times on fresh apps; a ticket for what failed (the first failing run)."""
    from wpfprobe.testkit import tracing  # noqa: PLC0415
    from wpfprobe.testkit.artifacts import SessionDir, new_session_id  # noqa: PLC0415
    from wpfprobe.testkit.tickets import ReproRate, write_ticket  # noqa: PLC0415

    expected = (document.expected_failure or {}).get("signature")
    steps = [s for s in document.steps if s.applied or s.action == "check"]
    report = ReplayReport(file=file, expected=expected, runs=runs, steps=len(steps))
    checks = [expectation_checker(base_dir, 10_000)]
    first: tuple[ReplayResult, SessionDir, str] | None = None
    for _ in range(runs):
        session = SessionDir(artifacts, new_session_id("replay"))
        runner = Runner(factory, session, source="replay", options=options)
        try:
            result = replay(runner, renumber(steps), expected_signature=expected, pace=pace, checks=checks)
            tail = runner.app.log_tail(40) if runner.app is not None and result.failures else ""
        finally:
            runner.close()
            session.close()
        if options is not None:
            # Only the first run can become a ticket's evidence: a later one is kept as if it passed.
            failed = bool(result.failures) or result.diverged is not None
            tracing.finish(session.path, options.trace, passed=not failed or first is not None)
        if result.reproduced or (expected is None and not result.failures and result.diverged is None):
            report.reproduced_runs += 1
        if first is None:
            first = (result, session, tail)
    assert first is not None
    result, session, tail = first
    report.session = str(session.path)
    report.steps_run = result.steps_run
    report.fallbacks = [{"step": i + 1, "locator": loc} for i, loc in result.fallbacks]
    failures = list(result.failures)
    if result.diverged is not None:
        report.diverged = {
            "index": result.diverged.index,
            "reason": result.diverged.reason,
            "code": result.diverged.code,
        }
        if result.diverged.code != "different-failure":
            ran = result.steps[-1] if result.steps else None
            locator = ran.target.locator if ran is not None and ran.target else None
            code = result.diverged.code or "INTERNAL"
            failures = [
                oracles.make(
                    "missing-element" if code in ("LOCATOR_NOT_FOUND", "NODE_NOT_FOUND") else "step-error",
                    f"The replay diverged at step {result.diverged.index + 1}: {result.diverged.reason}",
                    what=code,
                    element=locator,
                    step=ran.seq if ran else None,
                    expected="the recorded step applies as it did when recorded",
                    actual=result.diverged.reason,
                )
            ]
    report.failures = failures
    report.failed = bool(failures)
    if failures:
        ticket = write_ticket(
            session.tickets, failure=failures[0], steps=result.steps, session_id=session.session_id, source="replay",
            environment={**factory.environment(), **({"replayed": file} if file else {})}, target=factory.target,
            session_path=session.path, seed=document.seed,
            repro_rate=ReproRate(reproduced=report.reproduced_runs, attempts=runs) if expected else None,
            log_tail=tail,
        )  # fmt: skip
        report.ticket = ticket.path
    return report
