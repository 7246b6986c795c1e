"""Running one step against the app, recording it, and asking the oracles what came of it.

Scenarios, the explorer, replay and the minimizer all run their steps here, so
a step is recorded, observed and judged the same way whoever chose it. A step
names its element by locators, tried in order: when one finds nothing (or
several), the next is tried and the step notes which one worked; a step no
locator could apply is ``not-applied`` (the app did not see it). After the
step: the app's events since the last step (exceptions, windows), whether its
process is alive and its UI thread answers, new binding errors, and the
element trees of its windows (kept per step). A failure gets a screenshot
after it, and the screen and the tree just before it (a screenshot is taken
before every step and the last one kept: a step that kills the app leaves
nothing to capture after it).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wpfprobe.core.trace import NOT_APPLIED_CODES, Source, StepTarget, TraceStep, TraceWriter, step_from_call
from wpfprobe.testkit import oracles, tracing
from wpfprobe.testkit.artifacts import SessionDir
from wpfprobe.testkit.connection import CallOutcome
from wpfprobe.testkit.launcher import AppFactory, RunningApp
from wpfprobe.testkit.oracles import Failure

#: Codes after which the next locator of a step is worth trying.
_TRY_NEXT = frozenset({"LOCATOR_NOT_FOUND", "LOCATOR_AMBIGUOUS", "NODE_NOT_FOUND"})


@dataclass
class RunnerOptions:
    trees: bool = True
    """Keep the element trees of the app's windows after every step (also what the explorer chooses from)."""
    tree_depth: int = 10
    screenshots: bool = False
    """A screenshot after every step (always one on a failure)."""
    screen_before: bool = True
    """A screenshot just before every step, the last one kept in memory and saved with a step that fails: a
    step that kills or hangs the app leaves no screen after it, and the one before is what a person wants."""
    trace: tracing.TraceMode = "off"
    """``on`` / ``retain-on-failure``: a shrunk screenshot at every step (testkit/tracing.py)."""
    binding_errors: bool = True
    hang_seconds: float = 10.0
    """How long a UI thread that does not answer gets before it counts as hung."""
    error_dialog: Any = oracles.ERROR_DIALOG


@dataclass
class StepSpec:
    """A step to run: an MCP action (without ``wpf_``) or ``check``, its arguments and its element's locators."""

    action: str
    args: dict[str, Any] = field(default_factory=dict)
    locators: list[str] = field(default_factory=list)
    name: str | None = None
    expect: list[dict[str, Any]] | None = None
    known: StepTarget | None = None
    """What a recording knew of the element (its type and text), kept when this run cannot see it."""

    @classmethod
    def from_trace(cls, step: TraceStep) -> StepSpec:
        return cls(
            action=step.action, args=step.replay_args(), locators=step.target.locators() if step.target else [],
            name=step.note, expect=step.expect, known=step.target,
        )  # fmt: skip


@dataclass
class Observation:
    """The app's visible windows and their element trees, as the MCP tools answered."""

    windows: list[dict[str, Any]] = field(default_factory=list)
    trees: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    ok: bool = True


@dataclass
class StepReport:
    step: TraceStep
    outcome: CallOutcome | None
    failures: list[Failure]
    observation: Observation | None = None

    @property
    def applied(self) -> bool:
        return self.step.applied

    @property
    def app_lost(self) -> bool:
        return any(f.kind in ("crash", "hang") for f in self.failures)


class Runner:
    """Runs steps on one app at a time (started with ``start_app``), for one session folder."""

    def __init__(
        self,
        factory: AppFactory,
        session: SessionDir,
        *,
        source: Source,
        options: RunnerOptions | None = None,
        record: bool = True,
    ) -> None:
        self.factory = factory
        self.session = session
        self.source: Source = source
        self.options = options or RunnerOptions()
        self.app: RunningApp | None = None
        self.writer = TraceWriter(session.steps_path) if record else None
        self.log = session.log
        self.steps: list[TraceStep] = []
        """Steps since the app was last started (what a repro of a failure now would replay)."""
        self.launches = 0
        self._seq = 0
        self._events_seq = 0
        self._bindings: set[tuple[str, str]] = set()
        self._started = time.monotonic()
        self.last_observation: Observation | None = None
        #: The tree file the next step starts from; the apps started (name, app id) and the last step's events.
        self._tree_path: str | None = None
        self._apps: list[tuple[str, str]] = []
        self._events: list[dict[str, Any]] = []

    # -- the app ------------------------------------------------------------------------------

    def start_app(self) -> Observation | None:
        self.stop_app()
        self.log.info("starting the app (%s)", self.factory.target)
        self.app = self.factory.start()
        self.launches += 1
        self.steps = []
        self._events_seq = 0
        # The first look sets the baselines: windows open now, binding errors there from the start.
        events = self.call("wpf_get_app_events", {"sinceSeq": 0})
        if events.ok:
            self._events_seq = int(events.structured.get("nextSeq") or 0)
        self._bindings = set()
        if self.options.binding_errors:
            _, self._bindings = oracles.binding_failures(set(), self._binding_findings(), element=None, step=None)
        self.last_observation = self.observe() if self.options.trees else None
        self._traced_start()
        return self.last_observation

    def stop_app(self) -> None:
        if self.app is not None:
            app, self.app = self.app, None
            with contextlib.suppress(Exception):
                app.stop()

    def close(self) -> None:
        self.stop_app()
        if self.writer is not None:
            self.writer.close()
        tracing.copy_audit(self.session.path, self._apps)

    def call(self, tool: str, args: dict[str, Any], *, timeout: float | None = None) -> CallOutcome:
        assert self.app is not None, "start_app first"
        return self.app.connection.call(tool, args, timeout=timeout)

    # -- one step -----------------------------------------------------------------------------

    def run_step(
        self,
        spec: StepSpec,
        *,
        extra_checks: Callable[[TraceStep], list[Failure]] | None = None,
    ) -> StepReport:
        """Run ``spec``, record it, and judge it: the failures it set off (if any)."""
        assert self.app is not None, "start_app first"
        self._seq += 1
        seq = self._seq
        prior = self._before(spec)
        wall = _dt.datetime.now(_dt.timezone.utc)
        mono = time.monotonic()
        outcome: CallOutcome | None = None
        used: str | None = None
        if spec.action == "check":
            step = TraceStep(
                seq=seq, action="check", source=self.source, at=_iso(wall),
                offset_ms=int((mono - self._started) * 1000), note=spec.name, expect=spec.expect,
            )  # fmt: skip
        else:
            tool = f"wpf_{spec.action}"
            known = spec.known or self._seen(spec.locators[0] if spec.locators else None)
            attempts: Sequence[str | None] = spec.locators or [None]
            for locator in attempts:
                args = dict(spec.args)
                if locator is not None:
                    args["locator"] = locator
                outcome = self.call(tool, args, timeout=_call_timeout(spec))
                used = locator
                if outcome.ok or outcome.code not in _TRY_NEXT:
                    break
                self.log.info(
                    "step %d: %s found no single element (%s); trying the next locator", seq, locator, outcome.code
                )
            assert outcome is not None
            made = step_from_call(
                tool, {**spec.args, **({"locator": spec.locators[0]} if spec.locators else {})},
                structured=outcome.structured if outcome.ok else None, error=outcome.error, started=wall,
                offset_ms=int((mono - self._started) * 1000), duration_ms=outcome.duration_ms, seq=seq,
                source=self.source,
            )  # fmt: skip
            assert made is not None
            step = made.model_copy(update={"used_locator": used, "note": spec.name, "expect": spec.expect})
            if spec.locators and step.target is not None:
                # The step's own locators stay first, in their order; what the result adds comes after.
                extra = [f for f in step.target.locators() if f not in spec.locators]
                target = step.target.model_copy(
                    update={"locator": spec.locators[0], "fallbacks": [*spec.locators[1:], *extra]}
                )
                if known is not None:
                    # An element this run could not describe (the app died under the step) keeps the words
                    # it had when it was last seen.
                    words = {k: getattr(known, k) for k in ("type", "name", "text") if getattr(target, k) is None}
                    target = target.model_copy(update=words)
                step = step.model_copy(update={"target": target})
        failures = self._judge(step, outcome)
        # A step that already failed (an exception in its handler, a crash) has its verdict: its expectations
        # would only be retried until their timeouts, 10 s each by default, to say less than the failure does.
        if extra_checks is not None and not failures:
            failures.extend(extra_checks(step))
        observation = None
        before = self.last_observation
        if self.app is not None and self.app.alive() and not any(f.kind == "hang" for f in failures):
            if self.options.trees:
                observation = self.observe()
                self.last_observation = observation
                tree_path = self.session.path / "trees" / f"step-{seq:04d}.txt"
                tree_path.write_text(observation.text + "\n", encoding="utf-8")
                step = step.model_copy(update={"tree": self.session.relative(tree_path)})
            traced = self.options.trace != "off"
            if failures or self.options.screenshots or traced:
                shot = self.screenshot(
                    f"step-{seq:04d}", shrink=traced and not failures and not self.options.screenshots
                )
                if shot is not None:
                    step = step.model_copy(update={"screenshot": self.session.relative(shot)})
        step = self._traced(step, outcome, before, observation)
        if failures:
            step = step.model_copy(update={"failure": failures[0].signature, **self._keep_before(seq, prior)})
            for failure in failures:
                self.log.warning("step %d: %s [%s]", seq, failure.one_line(), failure.signature)
        if self.writer is not None:
            self.writer.write(step)
        if step.applied or step.action == "check":
            self.steps.append(step)
        self.log.info("step %d: %s %s -> %s", seq, step.action, used or "", step.outcome if outcome else "check")
        return StepReport(step, outcome, failures, observation)

    def _before(self, spec: StepSpec) -> tuple[Observation | None, bytes | None]:
        """What the app showed just before a step: the last look at its trees, and a screenshot."""
        png = None
        if spec.action != "check" and self.options.screen_before and self.app is not None and self.app.alive():
            shot = self.call("wpf_capture_screenshot", {}, timeout=15)
            png = shot.png if shot.ok else None
        return self.last_observation, png

    def _keep_before(self, seq: int, before: tuple[Observation | None, bytes | None]) -> dict[str, str]:
        observation, png = before
        kept: dict[str, str] = {}
        if png:
            path = self.session.path / "screens" / f"step-{seq:04d}-before.png"
            path.write_bytes(png)
            kept["screenshot_before"] = self.session.relative(path)
        if observation is not None and observation.ok and observation.text:
            path = self.session.path / "trees" / f"step-{seq:04d}-before.txt"
            path.write_text(observation.text + "\n", encoding="utf-8")
            kept["tree_before"] = self.session.relative(path)
        return kept

    def _traced(
        self, step: TraceStep, outcome: CallOutcome | None, before: Observation | None, after: Observation | None
    ) -> TraceStep:
        """The step with what a trace shows of it: the tree it started from, what else changed, the app's events."""
        update: dict[str, Any] = tracing.step_extras(
            before.trees if before is not None and after is not None else None,
            after.trees if after is not None else None,
            target=tracing.node_id_of(outcome.structured if outcome is not None and outcome.ok else None),
            events=self._events,
        )
        self._events = []
        if self._tree_path is not None:
            update["tree_before"] = self._tree_path
        self._tree_path = step.tree or self._tree_path
        return step.model_copy(update=update) if update else step

    def _traced_start(self) -> None:
        """After a start: the first look is the tree the first step starts from; the app's audit entries are kept."""
        manifest = getattr(self.app.connection, "manifest", None) if self.app is not None else None
        if manifest is not None:
            self._apps.append((manifest.app_name, manifest.app_id))
        self._tree_path = None
        if self.last_observation is not None:
            path = self.session.path / "trees" / f"start-{self.launches:02d}.txt"
            path.write_text(self.last_observation.text + "\n", encoding="utf-8")
            self._tree_path = self.session.relative(path)

    def _seen(self, locator: str | None) -> StepTarget | None:
        """The element ``locator`` names as the last look at the app showed it (its own locator, or ``#name``)."""
        if locator is None or self.last_observation is None:
            return None
        stack = [t.get("root") for t in self.last_observation.trees if isinstance(t.get("root"), dict)]
        while stack:
            node = stack.pop()
            if not isinstance(node, dict):
                continue
            if locator in (node.get("locator"), f"#{node.get('name')}", f"{node.get('type')}#{node.get('name')}"):
                text = node.get("text")
                return StepTarget(
                    locator=locator, type=node.get("type"), name=node.get("name"),
                    text=text if isinstance(text, str) and text != "[REDACTED]" else None,
                )  # fmt: skip
            stack.extend(node.get("children") or [])
        return None

    # -- what came of it ----------------------------------------------------------------------

    def _judge(self, step: TraceStep, outcome: CallOutcome | None) -> list[Failure]:
        assert self.app is not None
        element = step.target.locator if step.target else None
        seq = step.seq
        failures: list[Failure] = []
        if (outcome is not None and outcome.app_gone) or not self.app.alive():
            crashed = self._crashed(element, seq)
            if crashed is not None:
                return [crashed]
        if outcome is not None and outcome.code == "DISPATCHER_BUSY":
            hang = self._hang(element, seq)
            if hang is not None:
                return [hang]
        if outcome is not None and outcome.ok and isinstance(outcome.structured.get("appError"), dict):
            app_error = outcome.structured["appError"]
            failures.append(oracles.exception_failure(app_error, element=element, step=seq, source="action"))
        if outcome is not None and outcome.ok:
            opened = outcome.structured.get("openedWindows") or []
            failures.extend(
                oracles.dialog_failures(opened, element=element, step=seq, pattern=self.options.error_dialog)
            )
        events = self.call("wpf_get_app_events", {"sinceSeq": self._events_seq})
        if not events.ok:
            if events.app_gone or not self.app.alive():
                crashed = self._crashed(element, seq)
                if crashed is not None:
                    return [crashed]
        else:
            self._events_seq = int(events.structured.get("nextSeq") or self._events_seq)
            self._events = [e for e in events.structured.get("events") or [] if isinstance(e, dict)]
            failures.extend(self._from_events(events.structured.get("events") or [], failures, element, seq))
            if events.structured.get("uiResponsive") is False:
                hang = self._hang(element, seq)
                if hang is not None:
                    return [hang]
        if outcome is not None and outcome.code == "OPERATION_TIMED_OUT" and step.action == "wait_for":
            detail = (outcome.error or {}).get("detail") or {}
            condition = step.args.get("condition", "exists")
            failures.append(
                oracles.make(
                    "expectation",
                    outcome.message,
                    what=f"wait_for {condition}",
                    element=element,
                    step=seq,
                    expected=f"{element} becomes {condition}"
                    + (f" {step.args.get('value')!r}" if step.args.get("value") else ""),
                    actual=f"last observed: {detail.get('lastObserved')!r}",
                )
            )
        quiet = NOT_APPLIED_CODES | {"DISPATCHER_BUSY", "APP_NOT_AVAILABLE", "OPERATION_TIMED_OUT"}
        if outcome is not None and not outcome.ok and outcome.code not in quiet:
            failures.append(
                oracles.make(
                    "step-error",
                    f"{step.action} failed: {outcome.code}: {outcome.message}",
                    what=outcome.code,
                    element=element,
                    step=seq,
                    actual=f"{outcome.code}: {outcome.message}",
                )
            )
        if self.options.binding_errors and self.app.alive():
            found, self._bindings = oracles.binding_failures(
                self._bindings, self._binding_findings(), element=element, step=seq
            )
            failures.extend(found)
        return oracles.dedupe(failures)

    def interruption(self, *, element: str | None, step: int | None) -> list[Failure]:
        """What ends a wait for an expectation early: an exception the app recorded since the step was judged
        (a handler that raised a moment later), or the app's process ending. Reads the events without taking
        them: the next step still judges them as its own."""
        if self.app is None:
            return []
        if not self.app.alive():
            crashed = self._crashed(element, step or 0)
            return [crashed] if crashed is not None else []
        events = self.call("wpf_get_app_events", {"sinceSeq": self._events_seq}, timeout=5)
        if not events.ok:
            return []
        return [
            oracles.exception_failure(e, element=element, step=step)
            for e in events.structured.get("events") or []
            if isinstance(e, dict) and e.get("kind") == "exception"
        ]

    def _from_events(
        self, events: list[dict[str, Any]], already: list[Failure], element: str | None, seq: int
    ) -> list[Failure]:
        out: list[Failure] = []
        for event in events:
            if event.get("kind") == "exception":
                if event.get("source") == "action":
                    # The action's result reported it already: lend it the stack the result has not.
                    for failure in already:
                        if failure.kind == "exception" and failure.stack is None:
                            failure.stack = event.get("stack")
                    continue
                out.append(oracles.exception_failure(event, element=element, step=seq))
            elif event.get("kind") == "window-opened" and isinstance(event.get("window"), dict):
                known = {f.details.get("window", {}).get("nodeId") for f in already if f.kind == "error-dialog"}
                if event["window"].get("nodeId") not in known:
                    out.extend(
                        oracles.dialog_failures(
                            [event["window"]], element=element, step=seq, pattern=self.options.error_dialog
                        )
                    )
        return out

    def _crashed(self, element: str | None, seq: int) -> Failure | None:
        assert self.app is not None
        # A crash reported by a call may reach the process a moment later: give it 5 s to end.
        if not self.app.wait_exit(5):
            return None
        fatal = [e.model_dump(by_alias=True) for e in self.app.fatal_events()]
        return oracles.crash_failure(
            self.app.exit_code(), fatal, element=element, step=seq, log_tail=self.app.log_tail(40)
        )

    def _hang(self, element: str | None, seq: int) -> Failure | None:
        """A UI thread that does not answer: wait ``hang_seconds`` for it before calling it hung."""
        started = time.monotonic()
        deadline = started + self.options.hang_seconds
        while time.monotonic() < deadline:
            answer = self.call("wpf_get_app_events", {"sinceSeq": self._events_seq}, timeout=5)
            if answer.ok and answer.structured.get("uiResponsive") is not False:
                return None
            if not answer.ok and (answer.app_gone or (self.app is not None and not self.app.alive())):
                return self._crashed(element, seq)
            time.sleep(0.5)
        return oracles.hang_failure(element=element, step=seq, waited_s=time.monotonic() - started)

    def _binding_findings(self) -> list[dict[str, Any]]:
        answer = self.call("wpf_run_diagnostics", {"providers": ["binding-errors"], "take": 200})
        if not answer.ok:
            return []
        items = answer.structured.get("items") or []
        return [i for i in items if isinstance(i, dict)]

    # -- looking --------------------------------------------------------------------------------

    def observe(self) -> Observation:
        """The visible windows (active first) and the element tree of each."""
        windows = self.call("wpf_get_windows", {})
        if not windows.ok:
            return Observation(ok=False, text=f"(no windows: {windows.code})")
        found = [w for w in windows.structured.get("windows") or [] if isinstance(w, dict)]
        found.sort(key=lambda w: not w.get("active"))
        trees: list[dict[str, Any]] = []
        texts: list[str] = []
        for window in found:
            tree = self.call(
                "wpf_get_visual_tree",
                {"nodeId": window["nodeId"], "maxDepth": self.options.tree_depth, "format": "text"},
            )
            if tree.ok:
                trees.append(tree.structured)
                texts.append(tree.text)
        return Observation(windows=found, trees=trees, text="\n".join(texts), ok=True)

    def screenshot(self, name: str, locator: str | None = None, *, shrink: bool = False) -> Path | None:
        if self.app is None or not self.app.alive():
            return None
        shot = self.call("wpf_capture_screenshot", {"locator": locator} if locator else {})
        if not shot.ok or shot.png is None:
            return None
        path = self.session.path / "screens" / f"{name}.png"
        path.write_bytes(tracing.shrink_png(shot.png) if shrink else shot.png)
        return path

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self._started) * 1000)


def _call_timeout(spec: StepSpec) -> float:
    if spec.action == "wait_for":
        waited = spec.args.get("timeoutMs")
        if isinstance(waited, int):
            return waited / 1000 + 15
    return 60.0


def _iso(moment: _dt.datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
