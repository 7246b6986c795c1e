"""``wpfprobe explore``: seeded exploration that finds crashes, exceptions and broken invariants on its own.

Each step looks at the screen (the trees of the visible windows), builds the
action space (sorted, filtered by the safety policy and the config), weighs it
toward what has not been seen (elements never acted on, actions that led to
new screens before, the window on top), and lets the seeded generator pick.
The step runs through the runner, which records it and asks the oracles;
invariants are checked after it. A failure is kept with the steps since the
app was last started (its repro), and the app is started again: exploration
goes on after a crash. When the steps or the time run out, each distinct
failure (by signature) is minimized on fresh apps, confirmed, and written as
one ticket.

Coverage is reported as windows seen, elements seen and acted on, and states
(the window on top plus the set of actionable elements), with actions per
second.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from wpfprobe.core.patterns import compile_pattern
from wpfprobe.core.trace import TraceStep
from wpfprobe.testkit import assertions, oracles
from wpfprobe.testkit.artifacts import DEFAULT_ARTIFACTS, SessionDir, new_session_id
from wpfprobe.testkit.connection import CallOutcome
from wpfprobe.testkit.explore import space
from wpfprobe.testkit.explore.config import ExploreConfig, Invariant
from wpfprobe.testkit.explore.policy import SafetyPolicy
from wpfprobe.testkit.explore.textgen import TextGenerator
from wpfprobe.testkit.launcher import AppFactory
from wpfprobe.testkit.minimize import MinimizeOptions, Minimizer
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.runner import Observation, Runner, RunnerOptions, StepSpec
from wpfprobe.testkit.tickets import Minimization, ReproRate, write_ticket
from wpfprobe.testkit.tracing import TraceMode, finish


class AppView:
    """What a Python invariant sees: the app through the read tools, and the step just taken."""

    def __init__(self, runner: Runner, step: TraceStep) -> None:
        self._runner = runner
        self.step = step

    def call(self, tool: str, args: dict[str, Any] | None = None) -> CallOutcome:
        return self._runner.call(tool, dict(args or {}))

    def node(self, locator: str) -> dict[str, Any] | None:
        answer = self.call("wpf_find_elements", {"locator": locator, "maxResults": 1})
        results = answer.structured.get("results") or [] if answer.ok else []
        return results[0]["node"] if results else None

    def exists(self, locator: str) -> bool:
        return self.node(locator) is not None

    def text(self, locator: str) -> str | None:
        node = self.node(locator)
        return None if node is None else node.get("text")


PythonInvariant = Callable[[AppView], Any]
"""Returns None/True when it holds; False, a message, or an AssertionError when it does not."""


class FailureSummary(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    signature: str
    kind: str
    message: str
    occurrences: int
    steps: int
    minimized_steps: int | None = None
    repro_rate: str | None = None
    flaky: bool = False
    ticket: str | None = None


class ExploreReport(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    seed: int
    session_id: str
    session_path: str
    steps: int
    launches: int
    seconds: float
    actions_per_second: float
    coverage: dict[str, int]
    failures: list[FailureSummary] = Field(default_factory=list)
    tickets: list[str] = Field(default_factory=list)
    blocked: list[dict[str, str]] = Field(default_factory=list)
    """What the safety policy kept the explorer from (the distinct element and action pairs)."""
    candidates: list[dict[str, str]] = Field(default_factory=list)
    """A dry run: every action the explorer could take on the first screen ({action, locator, window})."""
    dry_run: bool = False

    @property
    def failed(self) -> int:
        return len(self.failures)


@dataclass
class ExploreOptions:
    seed: int
    max_steps: int = 200
    time_seconds: float | None = None
    config: ExploreConfig = field(default_factory=ExploreConfig)
    artifacts: Path = DEFAULT_ARTIFACTS
    minimize: bool = True
    minimize_options: MinimizeOptions = field(default_factory=MinimizeOptions)
    invariants: Sequence[PythonInvariant] = ()
    dry_run: bool = False
    profile_policy: dict[str, Any] | None = None
    trace: TraceMode = "off"
    """``on`` / ``retain-on-failure``: a shrunk screenshot at every step (docs/testing.md, Traces)."""
    """The app's profile allow-list ({allow, confirmDestructive}) beside the config's."""


@dataclass
class _Found:
    failure: Failure
    steps: list[TraceStep]
    occurrences: int = 1


class Explorer:
    def __init__(
        self, factory: AppFactory, options: ExploreOptions, *, log: Callable[[str], None] = lambda _m: None
    ) -> None:
        self.factory = factory
        self.options = options
        self.config = options.config
        self.policy = SafetyPolicy.combine(options.config.policy.model_dump(by_alias=True), options.profile_policy)
        self.rng = random.Random(options.seed)
        self.text = TextGenerator(self.config.texts)
        self._say = log
        self.acted: Counter[tuple[str, str]] = Counter()
        self.refused: Counter[tuple[tuple[str, tuple[str, ...]], tuple[str, str]]] = Counter()
        self.discoveries: Counter[tuple[str, str]] = Counter()
        self.failing: set[tuple[str, str]] = set()
        self.picked: dict[str, set[int]] = {}
        """The indices selected in each list or combo box, by locator, since the app last started."""
        self.states: set[tuple[str, tuple[str, ...]]] = set()
        self.windows: set[str] = set()
        self.elements: set[str] = set()
        self.blocked: dict[tuple[str, str], str] = {}
        self.found: dict[str, _Found] = {}
        self._ticket_for: dict[str, tuple[str, Minimization | None, ReproRate | None, bool]] = {}
        self.declared = self.config.parsed_invariants()
        oracle = self.config.oracles
        self.runner_options = RunnerOptions(
            trees=True, screenshots=self.config.screenshots, binding_errors=oracle.binding_errors,
            hang_seconds=oracle.hang_seconds, trace=options.trace,
            error_dialog=compile_pattern(oracle.error_dialog) if oracle.error_dialog else oracles.ERROR_DIALOG,
        )  # fmt: skip

    # -- the loop ---------------------------------------------------------------------------------

    def run(self) -> ExploreReport:
        options = self.options
        session = SessionDir(options.artifacts, new_session_id("explore"))
        session.log.info("explore: seed %d, at most %d steps", options.seed, options.max_steps)
        runner = Runner(self.factory, session, source="explore", options=self.runner_options)
        started = time.monotonic()
        steps = 0
        try:
            observation = self._start(runner)
            if options.dry_run:
                assert observation is not None
                candidates, blocked = self._space(observation)
                self._note_blocked(blocked)
                session.log.info("dry run: %d actions possible, %d blocked", len(candidates), len(blocked))
                dry = self._report(session, runner, steps, time.monotonic() - started, dry_run=True)
                dry.candidates = [
                    {"action": c.action, "locator": c.locator, "window": c.window}
                    for c in sorted(self._preconditions(runner, candidates), key=lambda c: (c.locator, c.action))
                ]
                return dry
            since_launch = 0
            while steps < options.max_steps:
                if options.time_seconds is not None and time.monotonic() - started >= options.time_seconds:
                    session.log.info("time is up after %d steps", steps)
                    break
                assert observation is not None
                candidates, blocked = self._space(observation)
                self._note_blocked(blocked)
                state = space.state_key(observation.windows, candidates)
                self.states.add(state)
                candidates = self._preconditions(runner, candidates)
                if not candidates:
                    session.log.info("nothing to act on in state %r: starting the app again", state[0])
                    observation = self._start(runner)
                    since_launch = 0
                    steps += 1
                    continue
                chosen, spec = self._choose(candidates, state)
                steps += 1
                since_launch += 1
                report = runner.run_step(spec, extra_checks=self._invariants(runner))
                self.acted[chosen.key] += 1
                if not report.applied:
                    self.refused[(state, chosen.key)] += 1
                    observation = report.observation or runner.observe()
                    continue
                if report.failures:
                    self.failing.add(chosen.key)
                    for failure in report.failures:
                        self._keep(failure, runner.steps)
                    observation = self._start(runner)
                    since_launch = 0
                    continue
                observation = report.observation or runner.observe()
                after = space.state_key(
                    observation.windows, space.build(observation.trees, observation.windows, self.policy)[0]
                )
                if after not in self.states:
                    self.discoveries[chosen.key] += 1
                if self.config.restart_every and since_launch >= self.config.restart_every:
                    observation = self._start(runner)
                    since_launch = 0
            explored = time.monotonic() - started
            runner.stop_app()
            tickets = self._tickets(session, runner)
            report_ = self._report(session, runner, steps, explored)
            report_.tickets = tickets
            return report_
        finally:
            runner.close()
            session.close()
            finish(session.path, self.options.trace, passed=not self.found)

    def _start(self, runner: Runner) -> Observation | None:
        # A new app has its lists back at their first state: their items are worth trying again.
        self.picked.clear()
        return runner.start_app()

    def _space(self, observation: Observation) -> tuple[list[space.Candidate], list[space.Blocked]]:
        candidates, blocked = space.build(
            observation.trees, observation.windows, self.policy, include=self.config.include,
            exclude=self.config.exclude, weights=self.config.weights,
        )  # fmt: skip
        for window in observation.windows:
            self.windows.add(str(window.get("title") or window.get("type") or "?"))
        self.elements.update(c.locator for c in candidates)
        return candidates, blocked

    def _note_blocked(self, blocked: Sequence[space.Blocked]) -> None:
        for b in blocked:
            self.blocked.setdefault((b.locator, b.action), b.decision.reason)

    def _preconditions(self, runner: Runner, candidates: list[space.Candidate]) -> list[space.Candidate]:
        if not self.config.preconditions:
            return candidates
        out = []
        verdicts: dict[int, bool] = {}
        for c in candidates:
            ok = True
            for index, rule in enumerate(self.config.preconditions):
                if rule.locator not in (c.locator, f"#{c.node.get('name')}"):
                    continue
                if index not in verdicts:
                    checked = assertions.check(
                        lambda tool, args: runner.call(tool, args), rule.when, default_timeout_ms=0
                    )
                    verdicts[index] = checked.ok
                ok = ok and verdicts[index]
            if ok:
                out.append(c)
        return out

    def _weight(self, c: space.Candidate, state: tuple[str, tuple[str, ...]]) -> float:
        base = self.config.weights.get(c.action, 1.0)
        times = self.acted[c.key]
        novelty = 3.0 if times == 0 else 1.0 / (1 + times)
        fresh_element = (
            1.5 if not any(self.acted[(c.locator, a)] for a in [*space.actions_for(c.node), "scroll"]) else 1.0
        )
        curiosity = 1.0 + self.discoveries[c.key] / (1 + times)
        top = 1.0 if c.top else 0.1
        refused = 0.05 if self.refused[(state, c.key)] else 1.0
        # An action that already set off a known failure is likely to set it off again: look elsewhere.
        known = 0.2 if c.key in self.failing else 1.0
        return base * novelty * fresh_element * curiosity * top * refused * known

    def _choose(
        self, candidates: list[space.Candidate], state: tuple[str, tuple[str, ...]]
    ) -> tuple[space.Candidate, StepSpec]:
        weights = [self._weight(c, state) for c in candidates]
        chosen = self.rng.choices(candidates, weights=weights, k=1)[0]
        return chosen, self._spec(chosen)

    def _spec(self, c: space.Candidate) -> StepSpec:
        args: dict[str, Any] = {}
        action = c.action
        if action == "type_text":
            args = {"text": self.text.next(self.rng), "replace": self.rng.random() < 0.8}
        elif action == "select":
            count = max(1, min(int(c.node.get("totalCount") or c.node.get("childCount") or 3), 10))
            # Coverage of values as well as elements: an item not chosen yet before one chosen
            # already, so a mode that only the third item sets is reached in three selects.
            picked = self.picked.setdefault(c.locator, set())
            fresh = [i for i in range(count) if i not in picked]
            index = fresh[self.rng.randrange(len(fresh))] if fresh else self.rng.randrange(count)
            picked.add(index)
            args = {"index": index}
        elif action == "send_keys":
            keys = [k for k in self.config.keys if self.policy.decide(c.node, "send_keys", {"keys": k}).allowed]
            args = {"keys": keys[self.rng.randrange(len(keys))] if keys else "Tab"}
        elif action == "scroll":
            action = "send_keys"
            args = {"keys": space.SCROLL_KEYS[self.rng.randrange(len(space.SCROLL_KEYS))]}
        return StepSpec(action=action, args=args, locators=[c.locator])

    def _invariants(self, runner: Runner) -> Callable[[TraceStep], list[Failure]] | None:
        if not self.declared and not self.options.invariants:
            return None

        def check(step: TraceStep) -> list[Failure]:
            return check_invariants(runner, step, self.declared, self.options.invariants)

        return check

    def _keep(self, failure: Failure, steps: list[TraceStep]) -> None:
        known = self.found.get(failure.signature)
        if known is not None:
            known.occurrences += 1
            # The shortest run that showed it is the best start for minimization.
            if len(steps) < len(known.steps):
                known.steps = list(steps)
            return
        self.found[failure.signature] = _Found(failure, list(steps))

    # -- after the loop ------------------------------------------------------------------------

    def _tickets(self, session: SessionDir, runner: Runner) -> list[str]:
        paths: list[str] = []
        checks = [lambda r, s: check_invariants(r, s, self.declared, self.options.invariants)] if (
            self.declared or self.options.invariants
        ) else []  # fmt: skip
        for number, found in enumerate(self.found.values(), start=1):
            steps = found.steps
            evidence_path: Path | None = session.path
            repro = None
            minimization = None
            flaky = False
            failure = found.failure
            if self.options.minimize and self.factory.fresh and steps:
                self._say(f"minimizing {failure.signature} ({len(steps)} steps)")

                def make_runner(record: bool, n: int = number) -> Runner:
                    if record:
                        sub = SessionDir(session.artifacts, f"{session.session_id}/minimize-{n}")
                        return Runner(self.factory, sub, source="minimize", options=self.runner_options)
                    # A candidate only answers "reproduced or not": its evidence is never shown.
                    options = RunnerOptions(
                        trees=False, screen_before=False, binding_errors=self.runner_options.binding_errors,
                        hang_seconds=self.runner_options.hang_seconds, error_dialog=self.runner_options.error_dialog,
                    )  # fmt: skip
                    return Runner(self.factory, session, source="minimize", options=options, record=False)

                minimizer = Minimizer(
                    make_runner, failure.signature, options=self.options.minimize_options, checks=checks,
                    log=session.log.info,
                )  # fmt: skip
                result = minimizer.run(steps)
                repro = ReproRate(reproduced=result.confirmed, attempts=result.confirmations)
                flaky = result.flaky
                minimization = Minimization(
                    from_steps=result.original, to_steps=len(result.steps), candidates=result.candidates,
                    seconds=round(result.seconds, 1), stages=result.stages, complete=result.complete,
                )  # fmt: skip
                if result.confirm_steps and minimizer.evidence_path is not None and result.confirmed:
                    steps, evidence_path = result.confirm_steps, minimizer.evidence_path
                else:
                    steps = result.steps
                if result.last_failure is not None:
                    failure = result.last_failure
            ticket = write_ticket(
                session.tickets, failure=failure, steps=steps, session_id=session.session_id, source="explore",
                environment={**self.factory.environment(), "seed": str(self.options.seed)},
                target=self.factory.target, session_path=evidence_path, seed=self.options.seed, repro_rate=repro,
                minimization=minimization, flaky=flaky, occurrences=found.occurrences,
                log_tail=str(failure.details.get("logTail") or ""),
            )  # fmt: skip
            found.failure = failure
            assert ticket.path is not None
            paths.append(ticket.path)
            self._ticket_for[failure.signature] = (ticket.path, minimization, repro, flaky)
        return paths

    def _report(
        self, session: SessionDir, runner: Runner, steps: int, seconds: float, *, dry_run: bool = False
    ) -> ExploreReport:
        tickets = self._ticket_for
        failures = []
        for signature, found in self.found.items():
            path, minimization, repro, flaky = tickets.get(signature, (None, None, None, False))
            failures.append(
                FailureSummary(
                    signature=signature,
                    kind=found.failure.kind,
                    message=found.failure.message,
                    occurrences=found.occurrences,
                    steps=len(found.steps),
                    minimized_steps=minimization.to_steps if minimization else None,
                    repro_rate=repro.text() if repro else None,
                    flaky=flaky,
                    ticket=path,
                )
            )
        acted_elements = {loc for (loc, _a), n in self.acted.items() if n}
        return ExploreReport(
            seed=self.options.seed, session_id=session.session_id, session_path=str(session.path), steps=steps,
            launches=runner.launches, seconds=round(seconds, 2),
            actions_per_second=round(steps / seconds, 2) if seconds > 0 else 0.0,
            coverage={
                "windows": len(self.windows), "elementsSeen": len(self.elements),
                "elementsActedOn": len(acted_elements), "states": len(self.states),
            },
            failures=failures,
            blocked=[{"locator": loc, "action": action, "reason": reason} for (loc, action), reason in sorted(self.blocked.items())],
            dry_run=dry_run,
        )  # fmt: skip


def check_invariants(
    runner: Runner, step: TraceStep, declared: Sequence[Invariant], python: Sequence[PythonInvariant]
) -> list[Failure]:
    out: list[Failure] = []
    for invariant in declared:
        result = assertions.check(lambda tool, args: runner.call(tool, args), invariant.assertion, default_timeout_ms=0)
        if not result.ok:
            out.append(
                oracles.make(
                    "invariant",
                    f"Invariant {invariant.name!r} broke: {result.message()}",
                    what=invariant.name,
                    element=result.locator,
                    step=step.seq,
                    expected=result.expected,
                    actual=result.actual,
                )
            )
    for fn in python:
        name = getattr(fn, "__name__", "invariant")
        message: str | None = None
        try:
            verdict = fn(AppView(runner, step))
        except AssertionError as exc:
            message = str(exc) or "assertion failed"
        else:
            if verdict is False:
                message = "returned False"
            elif isinstance(verdict, str) and verdict:
                message = verdict
        if message is not None:
            out.append(
                oracles.make(
                    "invariant",
                    f"Invariant {name!r} broke: {message}",
                    what=name,
                    element=None,
                    step=step.seq,
                    expected=f"{name} holds",
                    actual=message,
                )
            )
    return out


def explore(
    factory: AppFactory, options: ExploreOptions, *, log: Callable[[str], None] = lambda _m: None
) -> ExploreReport:
    return Explorer(factory, options, log=log).run()
