"""Exploration, minimization, tickets and replay on a fake app with planted bugs (fresh on every start).

The same machinery runs against real apps in tests/integration/test_testkit.py;
here each start costs nothing, so the properties are checked thoroughly: every
planted bug is found, the destructive button is never pressed, the same seed
makes the same choices, each distinct failure is one minimized ticket, and a
ticket's repro replays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit_fakes import ShopFactory

from wpfprobe.core.trace import load_trace
from wpfprobe.testkit.artifacts import SessionDir
from wpfprobe.testkit.explore import ExploreConfig, ExploreOptions, explore
from wpfprobe.testkit.explore.config import Precondition
from wpfprobe.testkit.minimize import MinimizeOptions
from wpfprobe.testkit.replay import replay, run_replay
from wpfprobe.testkit.runner import Runner
from wpfprobe.testkit.tickets import all_tickets, load_ticket

KEY_ERROR = "exception|KeyError|#processButton"
DIALOG = "error-dialog|Error|#applyButton"
CRASH = "crash|RuntimeError|#crashButton"
SECTIONS = [
    "## Title", "## Summary", "## Repro Steps", "## Actual Result", "## Expected Result", "## Environment",
    "## Evidence", "## Root Cause Hypothesis",
]  # fmt: skip


def run(
    tmp_path: Path, seed: int, *, steps: int = 120, minimize: bool = True, **options: object
) -> tuple[object, ShopFactory]:
    factory = ShopFactory()
    report = explore(
        factory,
        ExploreOptions(
            seed=seed, max_steps=steps, artifacts=tmp_path, minimize=minimize,
            minimize_options=MinimizeOptions(confirm=2), **options,  # type: ignore[arg-type]
        ),
    )  # fmt: skip
    return report, factory


@pytest.fixture(scope="module")
def explored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, ShopFactory]:
    """One exploration with seed 7, minimized, shared by the tests that read its report and tickets."""
    path = tmp_path_factory.mktemp("explored")
    report, factory = run(path, seed=7)
    return path, report, factory


def recorded(session_path: str) -> list[tuple[str, str | None, str]]:
    steps = load_trace(Path(session_path) / "steps.jsonl").steps
    return [(s.action, s.target.locator if s.target else None, json.dumps(s.args, sort_keys=True)) for s in steps]


def test_exploration_finds_every_planted_bug_and_never_presses_the_destructive_button(
    explored: tuple[Path, object, ShopFactory],
) -> None:
    _, report, factory = explored
    assert {f.signature for f in report.failures} == {KEY_ERROR, DIALOG, CRASH}  # type: ignore[attr-defined]
    assert not factory.deleted, "Delete all was pressed"
    assert {"locator": "Button#deleteAllButton", "action": "click"} in [
        {k: b[k] for k in ("locator", "action")}
        for b in report.blocked  # type: ignore[attr-defined]
    ]
    assert all("deleteAllButton" not in (loc or "") for _, loc, _ in recorded(report.session_path))  # type: ignore[attr-defined]
    assert report.coverage["elementsActedOn"] >= 6 and report.launches >= 4  # type: ignore[attr-defined]


def test_each_distinct_failure_is_one_complete_minimized_ticket(explored: tuple[Path, object, ShopFactory]) -> None:
    path, report, _ = explored
    tickets = {t.signature: t for t in all_tickets(path)}
    assert set(tickets) == {KEY_ERROR, DIALOG, CRASH} and len(report.tickets) == 3  # type: ignore[attr-defined]
    expected_sizes = {KEY_ERROR: 3, DIALOG: 2, CRASH: 2}
    for signature, ticket in tickets.items():
        folder = Path(str(ticket.path))
        text = (folder / "ticket.md").read_text(encoding="utf-8")
        assert [s for s in SECTIONS if s not in text] == [], signature
        for part in ("ticket.json", "repro.actions.json", "runner.log", "screens", "snapshots"):
            assert (folder / part).exists(), (signature, part)
        assert ticket.repro_rate is not None and ticket.repro_rate.text() == "2/2"
        assert ticket.minimization is not None and ticket.minimization.complete
        assert len(ticket.repro_steps) == expected_sizes[signature], (signature, ticket.repro_steps)
        assert ticket.environment["seed"] == "7" and ticket.hypothesis
    key_error = tickets[KEY_ERROR]
    assert key_error.repro_steps == [
        "Click the button 'Add' (Button#addButton)",
        "Click the button 'Add' (Button#addButton)",
        "Click the button 'Process' (Button#processButton)",
    ]
    assert "KeyError" in key_error.actual and "process" in key_error.hypothesis[0]


def test_a_crash_ticket_keeps_the_screen_and_tree_from_just_before_the_fatal_step(
    explored: tuple[Path, object, ShopFactory],
) -> None:
    """Regression (issue 18): a crash ticket's screens/ was empty; the app was gone before anything could be
    captured after the step, and nothing was kept from before it."""
    crash = next(t for t in all_tickets(explored[0]) if t.signature == CRASH)
    folder = Path(str(crash.path))
    last = len(crash.repro_steps)
    assert [p.name for p in (folder / "screens").glob("*.png")] == [f"before-step-{last:02d}.png"]
    assert (folder / "screens" / f"before-step-{last:02d}.png").read_bytes().startswith(b"\x89PNG")
    tree = (folder / "snapshots" / f"before-step-{last:02d}.txt").read_text(encoding="utf-8")
    assert "crashButton" in tree
    assert {e.path for e in crash.evidence} >= {
        f"screens/before-step-{last:02d}.png",
        f"snapshots/before-step-{last:02d}.txt",
    }
    repro = json.loads((folder / "repro.actions.json").read_text(encoding="utf-8"))
    assert all("screenshotBefore" not in s and "treeBefore" not in s for s in repro["steps"])


def test_the_same_seed_makes_the_same_choices_and_finds_the_same_failures(tmp_path: Path) -> None:
    first, _ = run(tmp_path / "a", seed=11, steps=60, minimize=False)
    second, _ = run(tmp_path / "b", seed=11, steps=60, minimize=False)
    other, _ = run(tmp_path / "c", seed=12, steps=60, minimize=False)
    assert recorded(first.session_path) == recorded(second.session_path)  # type: ignore[attr-defined]
    assert [f.signature for f in first.failures] == [f.signature for f in second.failures]  # type: ignore[attr-defined]
    assert recorded(first.session_path) != recorded(other.session_path)  # type: ignore[attr-defined]


def test_a_tickets_repro_replays_and_reproduces(tmp_path: Path, explored: tuple[Path, object, ShopFactory]) -> None:
    ticket = next(t for t in all_tickets(explored[0]) if t.signature == KEY_ERROR)
    document = load_trace(Path(str(ticket.path)) / "repro.actions.json")
    assert document.expected_failure is not None and document.expected_failure["signature"] == KEY_ERROR
    report = run_replay(document, ShopFactory(), artifacts=tmp_path / "replay", runs=3, pace=False)
    assert report.failed and report.reproduced_runs == 3 and report.failures[0].signature == KEY_ERROR
    assert report.ticket is not None and load_ticket(Path(report.ticket)).repro_rate.text() == "3/3"  # type: ignore[union-attr]


def test_a_replay_says_where_it_diverged_and_uses_fallback_locators(
    tmp_path: Path, explored: tuple[Path, object, ShopFactory]
) -> None:
    ticket = next(t for t in all_tickets(explored[0]) if t.signature == KEY_ERROR)
    document = load_trace(Path(str(ticket.path)) / "repro.actions.json")
    # The Process button got another name: its text still finds it (a fallback), and the bug is still there.
    renamed = run_replay(document, ShopFactory(rename_process=True), artifacts=tmp_path / "r1", pace=False)
    assert renamed.fallbacks == [{"step": 3, "locator": 'Button[text="Process"]'}]
    assert renamed.failures and renamed.failures[0].kind == "exception"
    # Without the crash button a recorded step cannot be applied: the replay says where.
    crash = next(t for t in all_tickets(explored[0]) if t.signature == CRASH)
    gone = run_replay(
        load_trace(Path(str(crash.path)) / "repro.actions.json"), ShopFactory(with_crash=False),
        artifacts=tmp_path / "r2", pace=False,
    )  # fmt: skip
    assert gone.diverged is not None and gone.diverged["code"] == "LOCATOR_NOT_FOUND"
    assert gone.failed and gone.failures[0].kind == "missing-element"


def test_a_candidate_with_a_step_that_cannot_apply_does_not_count_as_a_repro(
    tmp_path: Path, explored: tuple[Path, object, ShopFactory]
) -> None:
    ticket = next(t for t in all_tickets(explored[0]) if t.signature == CRASH)
    steps = load_trace(Path(str(ticket.path)) / "repro.actions.json").steps
    session = SessionDir(tmp_path / "x", "check")
    runner = Runner(ShopFactory(with_crash=False), session, source="minimize", record=False)
    try:
        outcome = replay(runner, steps, expected_signature=CRASH, pace=False)
    finally:
        runner.close()
        session.close()
    assert not outcome.reproduced and not outcome.valid


def test_invariants_declared_and_in_python_are_checked_after_every_step(tmp_path: Path) -> None:
    config = ExploreConfig(
        invariants=[{"name": "status-short", "assert": "regex", "locator": "#statusLabel", "value": "^.{0,7}$"}]
    )

    def never_three(view: object) -> object:
        return "three items" if view.text("#statusLabel") == "3 items" else None  # type: ignore[attr-defined]

    report, _ = run(tmp_path, seed=7, minimize=False, config=config, invariants=[never_three])
    kinds = {f.signature.split("|")[1] for f in report.failures if f.kind == "invariant"}  # type: ignore[attr-defined]
    assert {"status-short", "never_three"} <= kinds


def test_preconditions_keep_the_explorer_off_an_element_while_they_do_not_hold(tmp_path: Path) -> None:
    never = {"assert": "gone", "locator": "#shop"}  # the window is always there
    config = ExploreConfig(
        preconditions=[Precondition.model_validate({"locator": "Button#processButton", "when": never})]
    )
    report, _ = run(tmp_path, seed=7, steps=60, minimize=False, config=config)
    assert [loc for _, loc, _ in recorded(report.session_path) if loc == "Button#processButton"] == []  # type: ignore[attr-defined]
    assert KEY_ERROR not in {f.signature for f in report.failures}  # type: ignore[attr-defined]


def test_a_dry_run_lists_what_the_policy_blocks_and_acts_on_nothing(tmp_path: Path) -> None:
    report, factory = run(tmp_path, seed=1, dry_run=True)
    assert report.dry_run and report.steps == 0  # type: ignore[attr-defined]
    assert {b["locator"] for b in report.blocked} == {"Button#deleteAllButton"}  # type: ignore[attr-defined]
    assert factory.states and factory.states[0].items == 0


def test_a_dry_run_lists_what_it_would_act_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression (issue 20): a dry run listed only what was blocked, never what the explorer would do."""
    from wpfprobe.cli.testing import _print_explore

    report, _ = run(tmp_path, seed=1, dry_run=True)
    listed = {(c["action"], c["locator"]) for c in report.candidates}  # type: ignore[attr-defined]
    assert ("click", "Button#processButton") in listed
    assert not any(loc == "Button#deleteAllButton" for _, loc in listed)  # blocked, so not among them
    _print_explore(report)
    out = capsys.readouterr().out
    assert "the explorer may take on the first screen" in out and "click      Button#processButton" in out


def test_a_profile_allow_list_counts_only_with_its_confirmation(tmp_path: Path) -> None:
    unconfirmed, _ = run(tmp_path / "a", seed=1, dry_run=True, profile_policy={"allow": ["#deleteAllButton"]})
    confirmed, _ = run(
        tmp_path / "b", seed=1, dry_run=True, profile_policy={"allow": ["#deleteAllButton"], "confirmDestructive": True}
    )
    assert unconfirmed.blocked and not confirmed.blocked  # type: ignore[attr-defined]


@pytest.mark.parametrize("budget", [1, 3])
def test_minimization_stops_at_its_budget_and_says_so(tmp_path: Path, budget: int) -> None:
    factory = ShopFactory()
    report = explore(
        factory,
        ExploreOptions(
            seed=7,
            max_steps=120,
            artifacts=tmp_path,
            minimize_options=MinimizeOptions(max_candidates=budget, confirm=1),
        ),
    )
    tickets = all_tickets(tmp_path)
    assert tickets and report.failures
    assert any(t.minimization is not None and not t.minimization.complete for t in tickets)


def test_select_tries_every_item_of_a_list_before_choosing_one_again(tmp_path: Path) -> None:
    """Regression: with items as elements the planted crash behind the third item of a combo
    box went unfound in 4 of 5 seeds, because each select drew its index afresh."""
    from wpfprobe.testkit.explore.explorer import Explorer
    from wpfprobe.testkit.explore.space import Candidate

    for seed in range(20):
        explorer = Explorer(ShopFactory(), ExploreOptions(seed=seed, artifacts=tmp_path))
        combo = Candidate("select", "ComboBox#modeCombo", {"type": "ComboBox", "childCount": 3}, "Shop", True)
        first = [explorer._spec(combo).args["index"] for _ in range(3)]
        assert sorted(first) == [0, 1, 2], (seed, first)
        assert explorer._spec(combo).args["index"] in (0, 1, 2)


def test_a_traced_exploration_and_replay_keep_a_screenshot_of_every_step_and_their_tickets_a_page(
    tmp_path: Path,
) -> None:
    from wpfprobe.testkit import trace_view
    from wpfprobe.testkit.runner import RunnerOptions

    report, _ = run(tmp_path / "explore", seed=11, steps=30, minimize=False, trace="on")
    steps = load_trace(Path(report.session_path) / "steps.jsonl").steps  # type: ignore[attr-defined]
    # Every step but one the app died in (nothing left to capture).
    assert steps and all(s.screenshot for s in steps if not (s.failure or "").startswith("crash")), [
        (s.seq, s.failure) for s in steps if not s.screenshot
    ]
    assert report.failures and all(Path(str(f.ticket), "trace.html").is_file() for f in report.failures)  # type: ignore[attr-defined]
    ticket = next(t for t in all_tickets(tmp_path / "explore"))
    document = load_trace(Path(str(ticket.path)) / "repro.actions.json")
    replayed = run_replay(
        document, ShopFactory(), artifacts=tmp_path / "replay", runs=2, pace=False,
        options=RunnerOptions(trace="retain-on-failure"),
    )  # fmt: skip
    assert replayed.failed and replayed.ticket is not None
    page = trace_view.load(Path(replayed.ticket))
    assert page.fail_index == len(page.steps) - 1 and all(s["shot"] for s in page.steps)
    second = sorted((tmp_path / "replay" / "sessions").glob("replay-*"))
    assert len(second) == 2 and sum(1 for s in second if list((s / "screens").iterdir())) == 1, (
        "the run that is not the ticket's evidence keeps no screenshots"
    )
