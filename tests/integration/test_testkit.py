"""The test kit against real apps in processes of their own, through the command line, as a user runs it.

The planted-bug app (scripts/buggy_app.py) and the example are saved as
profiles; every command runs as ``python -m wpfprobe ...``. Each app start
costs seconds, so one exploration (with its minimization) is shared by the
tests that read its tickets.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ROOT / "tests" / "integration" / "scripts" / "buggy_app.py"
EXAMPLE = ROOT / "examples" / "winforms_app.py"
SEED = 2
CRASH = "crash|RuntimeError|#applyButton"
KEY_ERROR = "exception|KeyError|#processButton"
PAGER = "exception|IndexError|#nextPageButton"
SECTIONS = [
    "## Title", "## Summary", "## Repro Steps", "## Actual Result", "## Expected Result", "## Environment",
    "## Evidence", "## Root Cause Hypothesis",
]  # fmt: skip

# An exploration with its minimization starts the app a few dozen times: seconds each.
pytestmark = [pytest.mark.toolkit("winforms"), pytest.mark.timeout(900)]


def env(display: str | None) -> dict[str, str]:
    out = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    if display:
        out["DISPLAY"] = display
    return out


def wpfprobe(
    *args: str, display: str | None, cwd: Path = ROOT, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wpfprobe", *args], cwd=cwd, env=env(display), capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def kit(wpfprobe_home: Path, display: str | None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Profiles for the planted-bug app and the example, in the session's WPFPROBE_HOME."""
    from wpfprobe.apps.profiles import add_profile, new_profile

    work = tmp_path_factory.mktemp("testkit")
    marker = work / "destructive-pressed.txt"
    src = {"PYTHONPATH": str(ROOT / "src")}
    add_profile(
        new_profile("buggy", [sys.executable, str(BUGGY), str(marker)], cwd=ROOT, allow="interact", env=src),
        replace=True,
    )
    add_profile(
        new_profile("example", [sys.executable, str(EXAMPLE)], cwd=ROOT, allow="interact", env=src), replace=True
    )
    for name, flag in (("pager", "--pager"), ("hard-exit", "--hard-exit")):
        add_profile(
            new_profile(name, [sys.executable, str(BUGGY), flag, str(marker)], cwd=ROOT, allow="interact", env=src),
            replace=True,
        )
    return {"work": work, "marker": marker}


@pytest.fixture(scope="module")
def explored(kit: dict[str, Path], display: str | None) -> dict[str, Any]:
    artifacts = kit["work"] / "explore"
    done = wpfprobe(
        "explore", "--profile", "buggy", "--seed", str(SEED), "--max-steps", "45", "--confirm", "2",
        "--artifacts", str(artifacts), "--json", display=display, timeout=900,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    return {"report": json.loads(done.stdout), "artifacts": artifacts}


def steps_of(session: Path) -> list[tuple[str, str | None, str]]:
    out = []
    for line in (session / "steps.jsonl").read_text(encoding="utf-8").splitlines():
        step = json.loads(line)
        out.append(
            (step["action"], (step.get("target") or {}).get("locator"), json.dumps(step["args"], sort_keys=True))
        )
    return out


def test_explore_finds_every_planted_bug_with_one_minimized_ticket_each(
    explored: dict[str, Any], kit: dict[str, Path]
) -> None:
    report = explored["report"]
    assert report["seed"] == SEED
    assert {f["signature"] for f in report["failures"]} == {CRASH, KEY_ERROR}
    assert not kit["marker"].exists(), "the destructive button was pressed"
    blocked = {(b["locator"], b["action"]) for b in report["blocked"]}
    assert {("Button#deleteAllButton", "click"), ("Button#closeButton", "click")} <= blocked
    assert all(
        "deleteAllButton" not in (loc or "") and "closeButton" not in (loc or "")
        for _, loc, _ in steps_of(Path(report["sessionPath"]))
    )
    assert report["actionsPerSecond"] > 0 and report["coverage"]["elementsActedOn"] >= 5
    assert len(report["tickets"]) == 2
    for failure in report["failures"]:
        folder = Path(failure["ticket"])
        ticket = json.loads((folder / "ticket.json").read_text(encoding="utf-8"))
        markdown = (folder / "ticket.md").read_text(encoding="utf-8")
        assert [s for s in SECTIONS if s not in markdown] == []
        for part in ("repro.actions.json", "runner.log", "stack.txt"):
            assert (folder / part).is_file(), part
        assert list((folder / "snapshots").glob("*.txt")), "the element trees before the failure"
        if failure["kind"] == "exception":  # a crashed app has no screen left to capture
            assert list((folder / "screens").glob("*.png"))
        assert ticket["signature"] == failure["signature"] and ticket["reproRate"] == {"reproduced": 2, "attempts": 2}
        # Both planted bugs need exactly three steps (two Adds and Process; Expert, Turbo and Apply).
        assert failure["minimizedSteps"] == len(ticket["reproSteps"]) == 3 <= failure["steps"]
        assert ticket["minimization"]["complete"] is True
        assert ticket["environment"]["seed"] == str(SEED) and ticket["hypothesis"]
    crash = next(f for f in report["failures"] if f["signature"] == CRASH)
    crash_ticket = json.loads((Path(crash["ticket"]) / "ticket.json").read_text(encoding="utf-8"))
    assert crash_ticket["reproSteps"][-1] == "Click the button 'Apply' (Button#applyButton)"
    assert "turbo in expert mode" in crash_ticket["failure"]["exceptionMessage"]


@pytest.mark.timeout(2400)
def test_a_bug_that_needs_five_adds_is_minimized_to_them_within_the_default_candidate_budget(
    kit: dict[str, Path], display: str | None
) -> None:
    """Regression (issue 18): Next page fails once the list holds five items; exploration found it after a
    long run and minimization ended "24 to 24 steps in 60 runs (the budget ran out)". The time budget is
    raised here so that a loaded machine cannot decide the outcome; the candidate budget is the default."""
    artifacts = kit["work"] / "pager"
    done = wpfprobe(
        "explore", "--profile", "pager", "--seed", "7", "--max-steps", "45", "--confirm", "2",
        "--minimize-time", "1800", "--artifacts", str(artifacts), "--json", display=display, timeout=2300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout)
    failure = next(f for f in report["failures"] if f["signature"] == PAGER)
    ticket = json.loads((Path(failure["ticket"]) / "ticket.json").read_text(encoding="utf-8"))
    minimization = ticket["minimization"]
    assert failure["steps"] >= 20, "a long run with noise in it is what this is about"
    assert minimization["complete"] and minimization["candidates"] <= 60, minimization
    # The minimum is five activations of Add (a click, or Space while it has focus) and Next page.
    assert failure["minimizedSteps"] == len(ticket["reproSteps"]) <= 5 + 1 + 2, ticket["reproSteps"]
    assert ticket["reproSteps"][-1].endswith("the button 'Next page' (Button#nextPageButton)")  # a click, or Space
    assert sum("'Add'" in step for step in ticket["reproSteps"]) >= 5
    assert ticket["reproRate"] == {"reproduced": 2, "attempts": 2}
    replayed = wpfprobe(
        "replay", str(Path(failure["ticket"]) / "repro.actions.json"), "--artifacts", str(artifacts / "replays"),
        "--json", display=display,
    )  # fmt: skip
    assert replayed.returncode == 1, replayed.stdout[-2000:] + replayed.stderr[-2000:]
    again = json.loads(replayed.stdout)
    assert again["reproducedRuns"] == 1 and again["failures"][0]["signature"] == PAGER


def test_a_crash_ticket_shows_the_screen_from_just_before_the_app_called_os_exit(
    kit: dict[str, Path], display: str | None
) -> None:
    """Regression (issue 18): the ticket of an app that ended itself had an empty screens/: nothing is left
    to capture after such a step, and nothing was kept from before it."""
    scenario = kit["work"] / "sync.yaml"
    scenario.write_text(
        "id: sync\nsteps:\n  - {action: type_text, locator: '#nameBox', text: Ada}\n"
        "  - {action: click, locator: '#syncButton'}\n",
        encoding="utf-8",
    )
    done = wpfprobe(
        "scenario", "run", str(scenario), "--profile", "hard-exit", "--artifacts", str(kit["work"] / "sync"), "--json",
        display=display,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    folder = Path(json.loads(done.stdout)["tickets"][0])
    ticket = json.loads((folder / "ticket.json").read_text(encoding="utf-8"))
    assert ticket["kind"] == "crash" and ticket["failure"]["element"] == "#syncButton", ticket["failure"]
    shot = folder / "screens" / "before-step-02.png"
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 1000
    tree = (folder / "snapshots" / "before-step-02.txt").read_text(encoding="utf-8")
    assert "syncButton" in tree and "Ada" in tree, tree[:2000]
    assert {"screens/before-step-02.png", "snapshots/before-step-02.txt"} <= {e["path"] for e in ticket["evidence"]}


def test_the_same_seed_finds_the_same_failures_again(
    explored: dict[str, Any], kit: dict[str, Path], display: str | None
) -> None:
    again = wpfprobe(
        "explore", "--profile", "buggy", "--seed", str(SEED), "--max-steps", "45", "--no-minimize",
        "--artifacts", str(kit["work"] / "again"), "--json", display=display,
    )  # fmt: skip
    assert again.returncode == 1, again.stderr[-3000:]
    second = json.loads(again.stdout)
    first = explored["report"]
    assert [(f["signature"], f["occurrences"]) for f in second["failures"]] == [
        (f["signature"], f["occurrences"]) for f in first["failures"]
    ]
    assert steps_of(Path(second["sessionPath"])) == steps_of(Path(first["sessionPath"]))


def test_replaying_each_ticket_reproduces_it(
    explored: dict[str, Any], kit: dict[str, Path], display: str | None
) -> None:
    for failure in explored["report"]["failures"]:
        done = wpfprobe(
            "replay", str(Path(failure["ticket"]) / "repro.actions.json"), "--artifacts", str(kit["work"] / "replays"),
            "--json", display=display,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
        replayed = json.loads(done.stdout)
        assert replayed["reproducedRuns"] == 1 and replayed["failures"][0]["signature"] == failure["signature"]
        assert replayed["seed"] == SEED and Path(replayed["ticket"]).is_dir()


def test_a_wrong_expectation_exits_1_with_a_ticket_and_the_demo_scenarios_pass(
    kit: dict[str, Path], display: str | None
) -> None:
    wrong = kit["work"] / "wrong.yaml"
    wrong.write_text(
        "id: wrong-expectation\nsteps:\n  - {action: type_text, locator: '#nameBox', text: Grace}\n"
        "  - action: click\n    locator: '#saveButton'\n"
        "    expect: [{assert: text_equals, locator: '#statusLabel', value: Saved Ada, timeoutMs: 1000}]\n",
        encoding="utf-8",
    )
    demos = sorted(str(p) for p in (ROOT / "examples" / "scenarios").glob("*.yaml"))
    done = wpfprobe(
        "scenario", "run", *demos, str(wrong), "--profile", "example", "--artifacts", str(kit["work"] / "scenarios"),
        "--json", display=display,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert (summary["passed"], summary["failed"], len(summary["tickets"])) == (2, 1, 1), summary
    assert isinstance(summary["seed"], int)
    ticket = json.loads((Path(summary["tickets"][0]) / "ticket.json").read_text(encoding="utf-8"))
    assert ticket["expected"] == "text of #statusLabel equals 'Saved Ada'"
    assert ticket["actual"] == "text of #statusLabel is 'Saved Grace'"
    assert ticket["reproSteps"] == [
        "Replace the text of the text box 'nameBox' (#nameBox) with \"Grace\"",
        "Click the button 'Save' (#saveButton)",
    ]


def test_the_pytest_plugin_runs_a_scenario_from_a_fresh_project(
    kit: dict[str, Path], display: str | None, tmp_path: Path
) -> None:
    import xml.etree.ElementTree as ET

    (tmp_path / "pytest.ini").write_text("[pytest]\nwpfprobe_scenarios = scenarios/*.yaml\n", encoding="utf-8")
    (tmp_path / "scenarios").mkdir()
    save = "steps:\n  - {action: type_text, locator: '#nameBox', text: Lin}\n  - action: click\n    locator: '#saveButton'\n"
    (tmp_path / "scenarios" / "save.yaml").write_text(
        "id: save\ntarget: {profile: example}\ntags: [smoke]\n" + save
        + "    expect: [{assert: text_equals, locator: '#statusLabel', value: Saved Lin}]\n",
        encoding="utf-8",
    )  # fmt: skip
    (tmp_path / "scenarios" / "wrong.yaml").write_text(
        "id: wrong\ntarget: {profile: example}\n" + save
        + "    expect: [{assert: text_equals, locator: '#statusLabel', value: Saved Ada, timeoutMs: 500}]\n",
        encoding="utf-8",
    )  # fmt: skip
    installed = any(
        e.value == "wpfprobe.testkit.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", "wpfprobe.testkit.pytest_plugin"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", "-q", "--junitxml=out.xml"],
        cwd=tmp_path, env=env(display), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 failed, 1 passed" in done.stdout and "wpfprobe seed: " in done.stdout
    assert "expected: text of #statusLabel equals 'Saved Ada'" in done.stdout
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "out.xml").getroot().iter("testcase")}
    props = {name: {p.get("name"): p.get("value") for p in case.iter("property")} for name, case in cases.items()}
    assert set(props["save"]) == {"wpfprobe_seed"}
    assert {"wpfprobe_seed", "wpfprobe_session", "wpfprobe_ticket"} <= set(props["wrong"])
    assert (
        Path(str(props["wrong"]["wpfprobe_session"])).is_dir() and Path(str(props["wrong"]["wpfprobe_ticket"])).is_dir()
    )
    kept = list((tmp_path / "artifacts" / "sessions").glob("scenario-*"))
    assert [p.name.startswith("scenario-wrong") for p in kept] == [True], "a passing scenario keeps no session"


def test_an_exception_in_a_message_loop_handler_is_caught_and_recorded_when_testing(
    kit: dict[str, Path], display: str | None
) -> None:
    from wpfprobe.testkit.launcher import AppTarget, ProcessFactory

    factory = ProcessFactory(AppTarget(profile="buggy"), work_dir=kit["work"] / "hooks")
    app = factory.start()
    try:
        call = app.connection.call
        assert call("wpf_get_app_events", {}).ok
        for _ in range(2):
            assert call("wpf_click", {"locator": "#addButton"}).ok
        # A real mouse click: the handler runs from the message loop, not from the probe's own call.
        assert call("wpf_click", {"locator": "#processButton", "mode": "os"}).ok
        events = call("wpf_get_app_events", {"sinceSeq": 0}).structured
        caught = [e for e in events["events"] if e["kind"] == "exception"]
        assert [(e["source"], e["type"], e["handled"]) for e in caught] == [("thread-exception", "KeyError", True)]
        assert "on_process" in caught[0]["stack"] and set(events["hooks"]) >= {"appdomain", "thread-exception"}
        assert app.alive() and call("wpf_get_windows", {}).ok, "the app went on after the exception"
    finally:
        app.stop()


def test_an_agents_broker_session_is_recorded_files_a_ticket_and_replays(
    kit: dict[str, Path], display: str | None, wpfprobe_home: Path
) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    record, artifacts = kit["work"] / "record", kit["work"] / "agent"
    check = kit["work"] / "check.yaml"
    check.write_text(
        "id: saved\nsteps:\n  - expect: [{assert: text_equals, locator: '#statusLabel', value: Saved Kay}]\n",
        encoding="utf-8",
    )
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "wpfprobe", "mcp", "--record", str(record), "--artifacts", str(artifacts)],
        env=env(display), cwd=str(ROOT),
    )  # fmt: skip
    launched: list[int] = []

    async def agent() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(stdio_client(params, errlog=(kit["work"] / "broker.log").open("a"))) as client:

            async def ok(tool: str, **arguments: Any) -> dict[str, Any]:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, (tool, result.structured_content)
                return result.structured_content  # type: ignore[no-any-return]

            app = await ok("wpf_launch_app", profile="example", name="example", allow="interact", timeoutSeconds=90)
            launched.append(app["pid"])
            await ok("wpf_type_text", app="example", locator="#nameBox", text="Kay")
            await ok("wpf_click", app="example", locator="#saveButton")
            ran = await ok("wpf_run_scenario", path=str(check), app="example")
            filed = await ok(
                "wpf_file_ticket", app="example", title="Saving shows the wrong greeting",
                actual="the greeting still says Hello, Ada", expected="Hello, Kay", notes="the label is data-bound",
            )  # fmt: skip
            return ran, filed

    try:
        ran, filed = asyncio.run(asyncio.wait_for(agent(), 180))
    finally:
        for pid in launched:
            stop_process_group(pid)
    assert ran["passed"] is True
    ticket = json.loads((Path(filed["ticket"]) / "ticket.json").read_text(encoding="utf-8"))
    assert ticket["reproSteps"] == [
        "Replace the text of the text box 'nameBox' (#nameBox) with \"Kay\"",
        "Click the button 'Save' (#saveButton)",
    ]
    assert ticket["expected"] == "Hello, Kay" and "screens/screen.png" in filed["evidence"]
    assert (Path(filed["ticket"]) / "snapshots" / "tree.txt").read_text(encoding="utf-8").strip()
    (steps,) = record.glob("*/steps.jsonl")
    replayed = wpfprobe(
        "replay", str(steps), "--profile", "example", "--artifacts", str(artifacts), "--json", display=display
    )
    assert replayed.returncode == 0, replayed.stdout[-2000:] + replayed.stderr[-2000:]
    assert json.loads(replayed.stdout)["stepsRun"] == 2


def stop_process_group(pid: int) -> None:
    import signal

    import psutil

    try:
        os.killpg(pid, signal.SIGTERM)
        psutil.Process(pid).wait(10)
    except (ProcessLookupError, psutil.NoSuchProcess, psutil.TimeoutExpired, PermissionError):
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def test_init_saves_a_profile_writes_a_smoke_scenario_and_runs_it(
    kit: dict[str, Path], display: str | None, tmp_path: Path
) -> None:
    done = wpfprobe("init", "--name", "first-app", str(EXAMPLE), display=display, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "claude mcp add wpfprobe -- " in done.stdout and "PASS smoke" in done.stdout
    smoke = (tmp_path / "scenarios" / "smoke.yaml").read_text(encoding="utf-8")
    assert 'target: {profile: "first-app"}' in smoke and '"wpfprobe demo"' in smoke
    again = wpfprobe("scenario", "run", "scenarios/smoke.yaml", "--json", display=display, cwd=tmp_path)
    assert again.returncode == 0 and json.loads(again.stdout)["passed"] == 1, again.stdout[-2000:]
