"""Shrinking a failing run to the few steps that matter, staged like syzkaller's repro pipeline.

Every candidate is replayed on an app started fresh from its profile, and it
counts only if every step applied and the same signature came back (a step
that could not be applied makes the candidate invalid: it is not a "repro").
The stages, cheapest first:

1. the steps after the failure are dropped (the run stopped there anyway);
2. the last N steps alone, N = 1, 2, 4, ... (most bugs need the last few);
3. halves: either half of what is left, as long as one reproduces alone;
4. ddmin (Zeller) over what is left: subsets, then complements, finer each time.

Bounded by a time budget and a number of candidates; when either runs out the
best repro found so far is kept and the ticket says minimization did not
finish. The result is confirmed by replaying it ``confirm`` more times: its
repro rate goes into the ticket, and a failure that does not come back every
time is labelled flaky.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wpfprobe.core.trace import TraceStep, renumber
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.replay import Invariant, ReplayResult, replay
from wpfprobe.testkit.runner import Runner


@dataclass
class MinimizeOptions:
    budget_seconds: float = 300.0
    max_candidates: int = 60
    confirm: int = 3
    """Replays of the result to measure its repro rate."""


@dataclass
class MinimizeResult:
    steps: list[TraceStep]
    original: int
    candidates: int
    seconds: float
    stages: list[str] = field(default_factory=list)
    complete: bool = True
    reproduced_original: bool = True
    confirmations: int = 0
    confirmed: int = 0
    last_failure: Failure | None = None
    confirm_steps: list[TraceStep] = field(default_factory=list)
    """The steps as recorded by the first confirming replay (with trees and screenshots: the ticket's evidence)."""

    @property
    def flaky(self) -> bool:
        return self.confirmations > 0 and self.confirmed < self.confirmations


class _Budget(Exception):
    pass


class Minimizer:
    """Minimizes one failure's steps; ``make_runner`` gives a runner (fresh app each start) per candidate."""

    def __init__(
        self,
        make_runner: Callable[[bool], Runner],
        signature: str,
        *,
        options: MinimizeOptions | None = None,
        checks: Sequence[Invariant] = (),
        log: Callable[[str], None] = lambda _m: None,
    ) -> None:
        self._make_runner = make_runner
        self.signature = signature
        self.options = options or MinimizeOptions()
        self._checks = checks
        self._log = log
        self._cache: dict[tuple[int, ...], bool] = {}
        self._tries = 0
        self._deadline = 0.0
        self._runner: Runner | None = None
        self._steps: list[TraceStep] = []
        #: The session folder of the recorded confirmation (its trees and screenshots are the ticket's evidence).
        self.evidence_path: Path | None = None

    def _test(self, indexes: Sequence[int]) -> bool:
        key = tuple(indexes)
        if key in self._cache:
            return self._cache[key]
        if self._tries >= self.options.max_candidates or time.monotonic() >= self._deadline:
            raise _Budget
        self._tries += 1
        outcome = self._replay([self._steps[i] for i in key], record=False)
        ok = outcome.reproduced and outcome.valid
        self._log(
            f"candidate {self._tries}: {len(key)} steps {list(key)} -> {'reproduced' if ok else outcome.summary()}"
        )
        self._cache[key] = ok
        return ok

    def _replay(self, steps: list[TraceStep], *, record: bool) -> ReplayResult:
        runner = self._runner if self._runner is not None and not record else self._make_runner(record)
        if not record:
            self._runner = runner
        else:
            self.evidence_path = runner.session.path
        try:
            return replay(runner, renumber(steps), expected_signature=self.signature, checks=self._checks)
        finally:
            runner.stop_app()
            if record:
                runner.close()

    def run(self, steps: Sequence[TraceStep]) -> MinimizeResult:
        started = time.monotonic()
        self._deadline = started + self.options.budget_seconds
        self._steps = list(steps)
        all_steps = list(range(len(self._steps)))
        current = all_steps
        stages: list[str] = ["drop-after-failure"]
        complete = True
        reproduced_original = True
        try:
            reproduced_original = self._test(all_steps)
            if not reproduced_original:
                # Once more: a failure that needs luck is flaky, and its whole run is the repro.
                self._cache.pop(tuple(all_steps), None)
                reproduced_original = self._test(all_steps)
            if reproduced_original:
                current = self._last_n(current, stages)
                current = self._halves(current, stages)
                current = self._ddmin(current, stages)
        except _Budget:
            complete = False
            stages.append("budget-exhausted")
        finally:
            if self._runner is not None:
                self._runner.close()
                self._runner = None
        chosen = [self._steps[i] for i in current]
        result = MinimizeResult(
            steps=renumber(chosen), original=len(self._steps), candidates=self._tries,
            seconds=time.monotonic() - started, stages=stages, complete=complete,
            reproduced_original=reproduced_original,
        )  # fmt: skip
        try:
            self._confirm(result)
        finally:
            if self._runner is not None:
                self._runner.close()
                self._runner = None
        result.seconds = time.monotonic() - started
        return result

    def _last_n(self, current: list[int], stages: list[str]) -> list[int]:
        stages.append("last-n")
        n = 1
        while n < len(current):
            if self._test(current[-n:]):
                return current[-n:]
            n *= 2
        return current

    def _halves(self, current: list[int], stages: list[str]) -> list[int]:
        stages.append("halves")
        while len(current) >= 2:
            half = len(current) // 2
            first, second = current[:half], current[half:]
            if self._test(second):
                current = second
            elif self._test(first):
                current = first
            else:
                break
        return current

    def _ddmin(self, current: list[int], stages: list[str]) -> list[int]:
        stages.append("ddmin")
        n = 2
        while len(current) >= 2:
            chunks = _split(current, n)
            reduced = False
            for chunk in chunks:
                if self._test(chunk):
                    current, n, reduced = chunk, 2, True
                    break
            if not reduced:
                for i in range(len(chunks)):
                    complement = [x for j, c in enumerate(chunks) if j != i for x in c]
                    if complement and self._test(complement):
                        current, n, reduced = complement, max(n - 1, 2), True
                        break
            if not reduced:
                if n >= len(current):
                    break
                n = min(len(current), n * 2)
        return current

    def _confirm(self, result: MinimizeResult) -> None:
        for attempt in range(self.options.confirm):
            outcome = self._replay(result.steps, record=attempt == 0)
            result.confirmations += 1
            if outcome.reproduced and outcome.valid:
                result.confirmed += 1
                if result.last_failure is None:
                    result.last_failure = next((f for f in outcome.failures if f.signature == self.signature), None)
            if attempt == 0:
                result.confirm_steps = list(outcome.steps)
            self._log(f"confirmation {attempt + 1}: {'reproduced' if outcome.reproduced else outcome.summary()}")


def _split(items: list[int], n: int) -> list[list[int]]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out
