"""Shrinking a failing run to the few steps that matter.

Every candidate is replayed on an app started fresh from its profile (the
soundness baseline: no state carries over from one candidate to the next),
and it counts only if the same signature comes back. A step of a candidate
that cannot be applied (its element is not there: the step that opened its
dialog was dropped) is left out and the replay goes on: the app never saw it,
so the steps that did apply are the candidate, a shorter one. A different
failure is not a repro.

Starting an app costs seconds, so the search spends its candidates where runs
of a GUI usually hide their bug. Every candidate keeps the failing step last.
The stages, cheapest first:

1. the steps after the failure are dropped (the run stopped there anyway);
2. last N: the last 1, 2 and 4 steps alone (most bugs need the last few);
3. by element: every step on one element removed at once, biggest group
   first (whole controls that played no part go in one run each);
4. by action: every step of one kind (action, element, arguments) that
   occurs more than once removed at once;
5. repetitions: a kind that repeats (Add clicked seven times) is cut by
   bisection to the fewest repetitions that still fail, the bug that needs
   accumulated state;
6. ddmin (Zeller) over what is left, when it is still long;
7. one by one: each step removed alone until none can be (1-minimal).

Candidates are cached by their content (the same actions in the same order
are the same run, whichever recorded steps they came from), and each step
keeps its own recorded pause before it, not the pauses of steps removed
around it. Bounded by a time budget and a number of candidates; when either
runs out the shortest repro found so far is kept and the ticket says
minimization did not finish. The result is confirmed by replaying it
``confirm`` more times, every step required to apply: its repro rate goes
into the ticket, and a failure that does not come back every time is
labelled flaky.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wpfprobe.core.trace import TraceStep
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.replay import Invariant, ReplayResult, replay
from wpfprobe.testkit.runner import Runner

#: Above this many steps after the structural stages, ddmin runs before the one-by-one pass.
DDMIN_ABOVE = 12


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


def rebased(steps: Sequence[TraceStep], indexes: Sequence[int]) -> list[TraceStep]:
    """``steps[i]`` for ``i`` in ``indexes``, renumbered, each with its own recorded pause before it.

    A step's pause is the time between it and the step recorded just before
    it; the steps removed between two kept ones take their time with them.
    """
    out: list[TraceStep] = []
    offset = steps[indexes[0]].offset_ms if indexes else 0
    for n, i in enumerate(indexes):
        step = steps[i]
        if n:
            before = steps[i - 1] if i > 0 else None
            pause = max(0, step.offset_ms - before.offset_ms - before.duration_ms) if before is not None else 0
            offset += pause
        out.append(step.model_copy(update={"seq": n + 1, "offset_ms": offset}))
        offset += step.duration_ms
    return out


def kind_of(step: TraceStep) -> str:
    """What a replay of ``step`` does: its action, element, arguments and checks (equal kinds, equal runs)."""
    locator = step.target.locator if step.target else None
    return json.dumps([step.action, locator, step.args, step.expect], sort_keys=True, default=str)


def element_of(step: TraceStep) -> str:
    return (step.target.locator if step.target else None) or f"({step.action})"


class _Search:
    """The reduction, apart from how a candidate is run: ``attempt`` answers the positions (in the
    candidate) of the steps that applied when it reproduced, None when it did not."""

    def __init__(
        self,
        kinds: Sequence[str],
        elements: Sequence[str],
        attempt: Callable[[list[int]], list[int] | None],
        *,
        max_candidates: int,
        deadline: float,
        log: Callable[[str], None],
    ) -> None:
        self.kinds = list(kinds)
        self.elements = list(elements)
        self._attempt = attempt
        self._max = max_candidates
        self._deadline = deadline
        self._log = log
        self._cache: dict[tuple[str, ...], tuple[int, ...] | None] = {}
        self.tries = 0
        self.best: list[int] = list(range(len(kinds)))
        """The shortest repro found so far (every stage works on it; it survives a budget that runs out)."""

    def test(self, candidate: list[int], *, fresh: bool = False) -> bool:
        key = tuple(self.kinds[i] for i in candidate)
        if fresh or key not in self._cache:
            if self.tries >= self._max or time.monotonic() >= self._deadline:
                raise _Budget
            self.tries += 1
            applied = self._attempt(candidate)
            self._cache[key] = tuple(applied) if applied is not None else None
            shown = candidate if len(candidate) <= 40 else [*candidate[:20], "...", *candidate[-5:]]
            verdict = f"reproduced with {len(applied)}" if applied is not None else "no"
            self._log(f"candidate {self.tries}: {len(candidate)} steps {shown} -> {verdict}")
        kept = self._cache[key]
        if kept is None:
            return False
        found = [candidate[p] for p in kept]
        if len(found) < len(self.best) or candidate == self.best:
            self.best = found
        return True

    # -- the stages ---------------------------------------------------------------------------

    def last_n(self) -> None:
        for n in (1, 2, 4):
            if n >= len(self.best) or self.test(self.best[-n:]):
                return

    def without_groups(self, key: Sequence[str], *, smallest: int = 1) -> None:
        """Each group of steps (same ``key``, ``smallest`` steps or more) removed at once, the biggest first."""
        counts = Counter(key[i] for i in self.best[:-1])
        order = {g: n for n, g in enumerate(dict.fromkeys(key[i] for i in self.best[:-1]))}
        for group in sorted((g for g in counts if counts[g] >= smallest), key=lambda g: (-counts[g], order[g])):
            last = self.best[-1]
            candidate = [i for i in self.best[:-1] if key[i] != group] + [last]
            if len(candidate) < len(self.best):
                self.test(candidate)

    def repetitions(self) -> None:
        """A kind that repeats, cut by bisection to the fewest repetitions that still fail (the last ones kept)."""
        counts = Counter(self.kinds[i] for i in self.best[:-1])
        for kind in sorted((k for k, n in counts.items() if n > 1), key=lambda k: -counts[k]):
            lo, hi = 0, sum(1 for i in self.best[:-1] if self.kinds[i] == kind)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                positions = [i for i in self.best[:-1] if self.kinds[i] == kind]
                dropped = set(positions[: len(positions) - mid])
                if self.test([i for i in self.best if i not in dropped]):
                    hi = sum(1 for i in self.best[:-1] if self.kinds[i] == kind)
                    lo = min(lo, hi)
                else:
                    lo = mid

    def ddmin(self) -> None:
        n = 2
        while len(self.best) > 2:
            body, last = self.best[:-1], self.best[-1]
            chunks = _split(body, n)
            reduced = False
            for chunk in chunks:
                if len(chunks) > 1 and self.test([*chunk, last]):
                    n, reduced = 2, True
                    break
            if not reduced:
                for i in range(len(chunks)):
                    complement = [x for j, c in enumerate(chunks) if j != i for x in c]
                    if self.test([*complement, last]):
                        n, reduced = max(n - 1, 2), True
                        break
            if not reduced:
                if n >= len(body):
                    break
                n = min(len(body), n * 2)

    def one_by_one(self) -> None:
        changed = True
        while changed:
            changed = False
            for i in reversed(self.best[:-1]):
                if i in self.best and self.test([j for j in self.best if j != i]):
                    changed = True


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
        self._runner: Runner | None = None
        self._steps: list[TraceStep] = []
        #: The session folder of the recorded confirmation (its trees and screenshots are the ticket's evidence).
        self.evidence_path: Path | None = None

    def _attempt(self, indexes: list[int]) -> list[int] | None:
        outcome = self._replay(rebased(self._steps, indexes), record=False, skip_unapplied=True)
        if not outcome.reproduced:
            self._log(f"  {outcome.summary()}")
            return None
        return [p for p in range(outcome.steps_run) if p not in outcome.skipped]

    def _replay(self, steps: list[TraceStep], *, record: bool, skip_unapplied: bool = False) -> ReplayResult:
        runner = self._runner if self._runner is not None and not record else self._make_runner(record)
        if not record:
            self._runner = runner
        else:
            self.evidence_path = runner.session.path
        try:
            return replay(
                runner, steps, expected_signature=self.signature, checks=self._checks, skip_unapplied=skip_unapplied
            )
        finally:
            runner.stop_app()
            if record:
                runner.close()

    def run(self, steps: Sequence[TraceStep]) -> MinimizeResult:
        started = time.monotonic()
        self._steps = list(steps)
        search = _Search(
            [kind_of(s) for s in self._steps], [element_of(s) for s in self._steps], self._attempt,
            max_candidates=self.options.max_candidates, deadline=started + self.options.budget_seconds, log=self._log,
        )  # fmt: skip
        stages: list[str] = ["drop-after-failure"]
        complete = True
        reproduced_original = True
        try:
            everything = list(range(len(self._steps)))
            # Once more when it does not come back: a failure that needs luck is flaky, its whole run the repro.
            reproduced_original = search.test(everything) or search.test(everything, fresh=True)
            if reproduced_original:
                plan: list[tuple[str, Callable[[], None]]] = [
                    ("last-n", search.last_n),
                    ("by-element", lambda: search.without_groups(search.elements)),
                    # A kind that occurs once is a single step: the one-by-one pass (or ddmin) covers it.
                    ("by-action", lambda: search.without_groups(search.kinds, smallest=2)),
                    ("repetitions", search.repetitions),
                    ("ddmin", lambda: search.ddmin() if len(search.best) > DDMIN_ABOVE else None),
                    ("one-by-one", search.one_by_one),
                ]
                for name, stage in plan:
                    if len(search.best) <= 1:
                        break
                    stages.append(name)
                    stage()
        except _Budget:
            complete = False
            stages.append("budget-exhausted")
        finally:
            if self._runner is not None:
                self._runner.close()
                self._runner = None
        result = MinimizeResult(
            steps=rebased(self._steps, search.best), original=len(self._steps), candidates=search.tries,
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
