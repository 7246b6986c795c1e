"""Minimization over a fake runner: many bug shapes, each candidate costing nothing.

The fake app is a rule over the history of what was clicked since it started:
which clicks apply (a click on an element that is not there yet is not
applied: the app never sees it) and which click sets off which failure. The
minimizer runs through the real ``replay``, as it does against a real app, so
what is checked here is the search: how few steps it ends with, how many
candidates it spends (the default budget is 60), and that what it returns is
a repro (the rule says so again at the end).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.core.trace import StepError, StepTarget, TraceStep
from wpfprobe.testkit import oracles
from wpfprobe.testkit.minimize import MinimizeOptions, Minimizer, MinimizeResult, rebased
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.runner import StepReport, StepSpec

Fails = Callable[[list[str]], str | None]
"""The failure (its exception type) the last click of a history sets off, or None."""
Applies = Callable[[list[str], str], bool]


@dataclass
class FakeSession:
    path: Path


@dataclass
class FakeRunner:
    """Duck-typed ``Runner``: a fresh history on every start, a failure when the rule says so."""

    fails: Fails
    applies: Applies
    session: FakeSession
    starts: list[int] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    seq: int = 0

    def start_app(self) -> None:
        self.history = []
        self.starts.append(1)

    def run_step(self, spec: StepSpec, *, extra_checks: Any = None) -> StepReport:
        self.seq += 1
        target = StepTarget(locator=spec.locators[0])
        name = spec.locators[0] + (f":{spec.args['text']}" if "text" in spec.args else "")
        if not self.applies(self.history, name):
            error = StepError(code="LOCATOR_NOT_FOUND", message=f"no {name}")
            step = TraceStep(seq=self.seq, action="click", target=target, outcome="not-applied", error=error)
            return StepReport(step, None, [])
        self.history.append(name)
        failures: list[Failure] = []
        what = self.fails(self.history)
        if what is not None:
            failures.append(oracles.make("exception", what, what=what, element=target.locator, step=self.seq))
        return StepReport(TraceStep(seq=self.seq, action=spec.action, target=target), None, failures)

    def stop_app(self) -> None:
        pass

    def close(self) -> None:
        pass


def recorded(names: Sequence[str]) -> list[TraceStep]:
    """Clicks on ``#element``, and ``#element:TEXT`` for typing TEXT into it."""
    out = []
    for i, name in enumerate(names, start=1):
        locator, _, text = name.partition(":")
        action, args = ("type_text", {"text": text}) if text else ("click", {})
        out.append(
            TraceStep(
                seq=i, action=action, args=args, target=StepTarget(locator=locator), offset_ms=i * 10, duration_ms=10
            )
        )
    return out


def minimize(
    names: Sequence[str],
    fails: Fails,
    applies: Applies = lambda _h, _n: True,
    *,
    tmp_path: Path,
    options: MinimizeOptions | None = None,
    log: list[str] | None = None,
) -> tuple[MinimizeResult, list[str], FakeRunner]:
    runner = FakeRunner(fails, applies, FakeSession(tmp_path))
    lines = log if log is not None else []
    history: list[str] = []
    signature = None
    for n in names:
        if applies(history, n):
            history.append(n)
            signature = fails(history)
    assert signature is not None, "the recorded run must end in its failure"
    sig = oracles.signature("exception", signature, names[-1].partition(":")[0])
    minimizer = Minimizer(
        lambda _record: runner,  # type: ignore[arg-type,return-value]
        sig,
        options=options or MinimizeOptions(confirm=1),
        log=lines.append,
    )
    result = minimizer.run(recorded(names))
    return result, kept_names(result), runner


def kept_names(result: MinimizeResult) -> list[str]:
    return [
        (s.target.locator if s.target else "?") + (f":{s.args['text']}" if "text" in s.args else "")
        for s in result.steps
    ]


def reproduces(kept: list[str], fails: Fails, applies: Applies = lambda _h, _n: True) -> bool:
    history: list[str] = []
    for n in kept:
        assert applies(history, n), f"{n} does not apply after {history}: the result holds a step the app never saw"
        history.append(n)
        if fails(history) is not None:
            return n is kept[-1]
    return False


def noisy(needed: Sequence[str], noise: Sequence[str], *, total: int, seed: int) -> list[str]:
    """``needed`` in order, with noise drawn from ``noise`` spread around them, ``total`` steps in all."""
    rng = random.Random(seed)
    slots = sorted(rng.sample(range(total - 1), len(needed) - 1))
    out = [rng.choice(noise) for _ in range(total)]
    for slot, name in zip(slots, needed[:-1], strict=True):
        out[slot] = name
    out[-1] = needed[-1]
    return out


def after_k_adds(k: int) -> Fails:
    """Next page raises once the list holds k or more items (Add adds one, Clear empties it)."""

    def rule(history: list[str]) -> str | None:
        items = 0
        for name in history[:-1]:
            items = 0 if name == "#clear" else items + (name == "#add")
        return "IndexError" if history[-1] == "#next" and items >= k else None

    return rule


NOISE = ["#name", "#sort", "#details", "#previous", "#help", "#refresh", "#next"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 5, 8])
def test_a_bug_that_needs_k_repetitions_of_an_action_minimizes_to_k_plus_one_steps(
    tmp_path: Path, seed: int, k: int
) -> None:
    """Regression (issue 18): 24 to 24 steps; a stateful bug needs every Add, and ddmin spent the budget
    on candidates that dropped one, then forgot the shorter repros it had found when the budget ran out."""
    names = noisy(["#add"] * (k + 1) + ["#next"], NOISE, total=24 + 2 * k, seed=seed)
    result, kept, _ = minimize(names, after_k_adds(k), tmp_path=tmp_path)
    assert reproduces(kept, after_k_adds(k)), kept
    # The target is the minimum plus two at most; over a fake app the search reaches the minimum.
    assert kept == ["#add"] * k + ["#next"], (len(names), kept, result.stages, result.candidates)
    assert result.complete and result.candidates <= 20, result.candidates
    assert result.confirmed == result.confirmations == 1


def test_a_bug_that_needs_two_actions_in_order_keeps_both_in_that_order(tmp_path: Path) -> None:
    def rule(history: list[str]) -> str | None:
        if history[-1] != "#process":
            return None
        opened = [i for i, n in enumerate(history) if n == "#open"]
        saved = [i for i, n in enumerate(history) if n == "#save"]
        return "KeyError" if opened and saved and opened[0] < saved[-1] else None

    for seed in range(8):
        names = noisy(["#open", "#save", "#process"], [*NOISE, "#save"], total=40, seed=seed)
        result, kept, _ = minimize(names, rule, tmp_path=tmp_path)
        assert kept == ["#open", "#save", "#process"], (seed, kept, result.stages)
        assert result.complete and result.candidates <= 60


def test_one_typed_text_among_many_on_the_same_element_is_found(tmp_path: Path) -> None:
    """Every step on the needed element differs by its text: no group to drop, ddmin and one by one do it."""

    def rule(history: list[str]) -> str | None:
        return "ValueError" if history[-1] == "#save" and "#name:1e309" in history else None

    for seed in range(4):
        rng = random.Random(seed)
        noise = [f"#name:{rng.randrange(10_000)}" for _ in range(20)] + ["#sort", "#details"]
        names = noisy(["#name:1e309", "#save"], noise, total=36, seed=seed)
        result, kept, _ = minimize(names, rule, tmp_path=tmp_path)
        assert kept == ["#name:1e309", "#save"], (seed, kept, result.stages)
        assert result.complete and result.candidates <= 40, (seed, result.candidates)


def test_a_bug_in_the_last_step_alone_costs_a_few_candidates(tmp_path: Path) -> None:
    names = noisy(["#boom"], NOISE, total=200, seed=3)
    result, kept, _ = minimize(names, lambda h: "RuntimeError" if h[-1] == "#boom" else None, tmp_path=tmp_path)
    assert kept == ["#boom"] and result.candidates <= 3, (result.candidates, result.stages)


def test_steps_that_no_longer_apply_are_left_out_instead_of_spoiling_the_candidate(tmp_path: Path) -> None:
    """A click in a dialog only applies once the dialog is open: removing the opener leaves the click
    unapplied (the app never saw it), which must not throw the shorter candidate away."""

    def applies(history: list[str], name: str) -> bool:
        return name != "#dialogOk" or (history[-1:] == ["#openDialog"])

    names = []
    for i in range(12):
        names += ["#openDialog", "#dialogOk"] if i % 3 == 0 else ["#add" if i % 2 else "#name"]
    names += ["#add", "#add", "#next"]
    result, kept, _ = minimize(names, after_k_adds(5), applies, tmp_path=tmp_path)
    assert reproduces(kept, after_k_adds(5), applies)
    assert kept == ["#add"] * 5 + ["#next"], (kept, result.stages)


def test_a_candidate_that_fails_differently_is_not_a_repro(tmp_path: Path) -> None:
    """Next page with an empty list raises another error (ZeroDivisionError): a candidate that drops the
    Adds sees that one, which is not the failure being minimized."""

    def rule(history: list[str]) -> str | None:
        if history[-1] != "#next":
            return None
        items = history.count("#add")
        return "ZeroDivisionError" if items == 0 else "IndexError" if items >= 3 else None

    names = noisy(["#add"] * 3 + ["#next"], ["#name", "#sort", "#details"], total=20, seed=5)
    result, kept, _ = minimize(names, rule, tmp_path=tmp_path)
    assert kept == ["#add"] * 3 + ["#next"], (kept, result.stages)
    assert result.last_failure is not None and result.last_failure.signature == "exception|IndexError|#next"


@pytest.mark.parametrize("seed", range(4))
def test_a_flaky_bug_never_yields_a_result_that_is_not_a_repro(tmp_path: Path, seed: int) -> None:
    """Half the time the bug does not show: the minimizer can only be fooled into keeping too much."""
    rng = random.Random(seed)
    needs = after_k_adds(4)

    def flaky(history: list[str]) -> str | None:
        return needs(history) if rng.random() < 0.5 else None

    names = noisy(["#add"] * 4 + ["#next"], NOISE, total=30, seed=seed)
    runner = FakeRunner(flaky, lambda _h, _n: True, FakeSession(tmp_path))
    sig = oracles.signature("exception", "IndexError", "#next")
    result = Minimizer(lambda _r: runner, sig, options=MinimizeOptions(confirm=6)).run(recorded(names))  # type: ignore[arg-type,return-value]
    kept = kept_names(result)
    assert reproduces(kept, needs), kept
    assert len(kept) <= len(names) and result.candidates <= 60
    if result.reproduced_original:
        assert 0 < result.confirmed <= result.confirmations == 6


def test_the_shortest_repro_found_is_kept_when_the_budget_runs_out(tmp_path: Path) -> None:
    """Regression (issue 18): a 38-step run where ddmin had found a 14-step repro by candidate 22
    ended '38 to 38 steps' when the budget ran out, the progress thrown away with the stage."""
    names = noisy(["#add"] * 5 + ["#next"], NOISE, total=40, seed=1)
    full, _, _ = minimize(names, after_k_adds(5), tmp_path=tmp_path)
    assert full.complete
    for budget in range(2, full.candidates):
        log: list[str] = []
        result, kept, _ = minimize(
            names, after_k_adds(5), tmp_path=tmp_path, options=MinimizeOptions(max_candidates=budget, confirm=1),
            log=log,
        )  # fmt: skip
        assert not result.complete and "budget-exhausted" in result.stages
        assert reproduces(kept, after_k_adds(5)), (budget, kept)
        accepted = [line for line in log if line.startswith("candidate") and "-> reproduced with " in line]
        shortest = min(int(line.rsplit(" ", 1)[1]) for line in accepted)
        assert len(kept) == shortest, (budget, len(kept), shortest)


def test_a_candidate_keeps_its_own_pauses_and_not_those_of_the_steps_it_dropped() -> None:
    """Regression: with pacing, a candidate slept the recorded time of every step removed between two
    steps (up to 2 s a gap), so short candidates from a long run cost seconds each."""
    steps = [
        TraceStep(seq=1, action="click", offset_ms=0, duration_ms=100),
        TraceStep(seq=2, action="click", offset_ms=5_000, duration_ms=100),
        TraceStep(seq=3, action="click", offset_ms=5_150, duration_ms=100),
        TraceStep(seq=4, action="click", offset_ms=9_000, duration_ms=100),
    ]
    kept = rebased(steps, [0, 2])
    assert [(s.seq, s.offset_ms, s.duration_ms) for s in kept] == [(1, 0, 100), (2, 150, 100)]
    assert [s.offset_ms for s in rebased(steps, [0, 1, 2, 3])] == [0, 4_900 + 100, 5_150, 5_150 + 100 + 3_750]
