"""``codegen``: a recording becomes a scenario or a pytest module, and the scenario passes on the app it came from.

Over the fake shop (testkit_fakes.py, no CLR): a traced run records each
step with the locator worth keeping, what else it changed and a screenshot;
codegen writes a scenario with those locators and the assertions the changes
imply; that scenario passes on the same app, and fails, with a ticket and its
trace page, on an app whose Add says something else.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pytest
import yaml
from testkit_fakes import ShopFactory

from wpfprobe.cli import main as cli_main
from wpfprobe.core.trace import StepEffect, StepTarget, TraceStep, load_trace
from wpfprobe.mcp.looks import Look
from wpfprobe.mcp.recording import Recorder
from wpfprobe.testkit import codegen, trace_view
from wpfprobe.testkit.runner import RunnerOptions
from wpfprobe.testkit.scenario import load_scenario, parse_scenario
from wpfprobe.testkit.scenario_run import run_scenario

DONE = """\
id: shop-session
steps:
  - {action: type_text, locator: TextBox, text: Kay}
  - {action: toggle, locator: "#turboCheck"}
  - {action: click, locator: 'text="Add"'}
  - {action: click, locator: "#nowhere"}
"""


def traced_run(tmp_path: Path) -> Path:
    """A run as an agent's would be recorded: the steps, with what the app looked like around each."""
    path = tmp_path / "done.yaml"
    # The last step finds nothing: the run fails there, and codegen leaves it out (the app never saw it).
    path.write_text(DONE, encoding="utf-8")
    result = run_scenario(
        load_scenario(path), ShopFactory(), artifacts=tmp_path / "run", options=RunnerOptions(trace="on")
    )
    assert not result.passed and result.session is not None
    return Path(result.session)


def test_a_traced_run_records_what_each_step_started_from_changed_and_looked_like(tmp_path: Path) -> None:
    session = traced_run(tmp_path)
    steps = load_trace(session / "steps.jsonl").steps
    assert [s.action for s in steps] == ["type_text", "toggle", "click", "click"]
    assert steps[0].tree_before == "trees/start-01.txt" and steps[1].tree_before == steps[0].tree
    assert all(s.screenshot and (session / s.screenshot).is_file() for s in steps)
    add = steps[2]
    assert add.target is not None and add.target.generated == "Button#addButton", "given by text, kept by name"
    assert [(e.locator, e.field, e.after) for e in add.effects or []] == [("Label#statusLabel", "text", "1 items")]
    assert steps[3].outcome == "not-applied"


def test_codegen_writes_the_scenario_a_person_would_and_it_passes_on_the_same_app(tmp_path: Path) -> None:
    recording = codegen.load_recording(traced_run(tmp_path))
    recording.target = {"profile": "fake-shop"}
    text = codegen.to_yaml(recording, scenario="shop-again")
    data = yaml.safe_load(text)
    assert data["target"] == {"profile": "fake-shop"}
    assert data["steps"] == [
        {"action": "type_text", "locator": "TextBox#nameBox", "text": "Kay"},
        {"action": "toggle", "locator": "CheckBox#turboCheck",
         "expect": [{"assert": "checked", "locator": "CheckBox#turboCheck", "value": True}]},
        {"action": "click", "locator": "Button#addButton",
         "expect": [{"assert": "text_equals", "locator": "Label#statusLabel", "value": "1 items"}]},
    ]  # fmt: skip
    path = tmp_path / "again.yaml"
    path.write_text(text, encoding="utf-8")
    again = run_scenario(load_scenario(path), ShopFactory(), artifacts=tmp_path / "again")
    assert again.passed, again.line()


def test_the_same_scenario_fails_on_a_changed_app_with_a_ticket_whose_page_shows_the_step(tmp_path: Path) -> None:
    recording = codegen.load_recording(traced_run(tmp_path))
    path = tmp_path / "again.yaml"
    path.write_text(codegen.to_yaml(recording, scenario="shop-again"), encoding="utf-8")
    changed = ShopFactory(added="{n} item(s)")
    result = run_scenario(
        load_scenario(path), changed, artifacts=tmp_path / "changed", options=RunnerOptions(trace="retain-on-failure")
    )
    assert not result.passed and result.ticket is not None
    failure = result.failures[0]
    assert (failure.kind, failure.expected) == ("expectation", "text of Label#statusLabel equals '1 items'")
    page = trace_view.load(Path(result.ticket))
    assert page.fail_index == 2 and page.steps[2]["title"] == "Click the button 'Add' (Button#addButton)"
    assert page.steps[2]["shot"] is not None, "retain-on-failure keeps the failing run's screenshots"
    assert (Path(result.ticket) / "trace.html").is_file()


def test_retain_on_failure_keeps_no_screenshots_of_a_run_that_passed(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("id: ok\nsteps:\n  - {action: click, locator: '#addButton'}\n", encoding="utf-8")
    result = run_scenario(
        load_scenario(path), ShopFactory(), artifacts=tmp_path / "a", options=RunnerOptions(trace="retain-on-failure")
    )
    assert result.passed and result.session is not None
    assert list((Path(result.session) / "screens").iterdir()) == []
    assert (Path(result.session) / "steps.jsonl").is_file()


def test_the_pytest_module_reads_as_written_by_hand(tmp_path: Path) -> None:
    recording = codegen.load_recording(traced_run(tmp_path))
    recording.target = {"profile": "fake-shop"}
    text = codegen.to_pytest(recording, name="shop session")
    compile(text, "test_shop.py", "exec")
    body = text.split("def test_shop_session(wpfprobe_app):\n", 1)[1].splitlines()
    assert '@pytest.mark.wpfprobe(profile="fake-shop")' in text
    assert [line.strip() for line in body] == [
        "app = wpfprobe_app",
        'app.type_text("TextBox#nameBox", "Kay")',
        'app.toggle("CheckBox#turboCheck")',
        'app.expect("checked", "CheckBox#turboCheck", value=True)',
        'app.click("Button#addButton")',
        'app.expect("text_equals", "Label#statusLabel", value="1 items")',
    ]


def agent_step(seq: int, **fields: object) -> TraceStep:
    at = _dt.datetime(2026, 3, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(seconds=seq)
    return TraceStep.model_validate({"seq": seq, "at": at.isoformat(), **fields})


def test_inferred_assertions_prefer_named_elements_and_windows_and_leave_secrets_alone() -> None:
    opened = agent_step(
        1, action="click", target=StepTarget(locator="n12", generated="Button#findButton", type="Button"),
        changed=["text"], before={"text": "Find"}, after={"text": "Find again"},
        effects=[
            StepEffect(field="text", locator="Form[0]/Panel[1]/Label[0]", after="3 found"),
            StepEffect(field="text", locator="Label#countLabel", after="3"),
            StepEffect(field="window-opened", locator="Form#findWindow", after="Find"),
            StepEffect(field="enabled", locator="Button#nextButton", before=False, after=True),
            StepEffect(field="text", locator="TextBox#passwordBox", after="[REDACTED]"),
        ],
    )  # fmt: skip
    assert codegen.infer(opened, "Button#findButton") == [
        {"assert": "text_equals", "locator": "Button#findButton", "value": "Find again"},
        {"assert": "text_equals", "locator": "Label#countLabel", "value": "3"},
        {"assert": "text_equals", "locator": "Form[0]/Panel[1]/Label[0]", "value": "3 found"},
        {"assert": "visible", "locator": "Form#findWindow"},
    ]
    typed = agent_step(2, action="type_text", args={"text": "[REDACTED]"}, redacted=["text"],
                       target=StepTarget(locator="#pin", generated="TextBox#pin"), changed=["text"])  # fmt: skip
    refused = agent_step(3, action="click", outcome="not-applied", target=StepTarget(locator="#gone"))
    waited = agent_step(4, action="wait_for", args={"condition": "visible", "timeoutMs": 5000},
                        target=StepTarget(locator='text="Done"'))  # fmt: skip
    recording = codegen.Recording(steps=[typed, refused, waited], source="s.jsonl", name="agent-x")
    text = codegen.to_yaml(recording)
    assert "# a secret was typed here" in text and "#gone" not in text
    scenario = parse_scenario(text)
    assert [s.action for s in scenario.steps] == ["type_text", "wait_for"]
    assert scenario.target is None and "# target: {profile: NAME}" in text


def test_a_recorded_agent_session_keeps_its_looks_and_codegen_reads_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorder = Recorder(
        tmp_path / "record", session_id="agent-shop-1", about={"app": "shop", "target": {"profile": "shop"}}
    )
    tree = {"root": {"nodeId": "w", "type": "Window", "locator": "Window#shop", "text": "Shop", "children": [
        {"nodeId": "s", "type": "Label", "name": "statusLabel", "locator": "Label#statusLabel", "text": "Ready"}]}}  # fmt: skip
    later = json.loads(json.dumps(tree).replace('"Ready"', '"1 items"'))
    recorder.start_look(Look(trees=[tree], text='w Window#shop\n s Label#statusLabel "Ready"', next_seq=3))
    result = {
        "node": {"nodeId": "a", "type": "Button", "name": "addButton", "text": "Add", "locator": "Button#addButton"},
        "before": {"text": "Add"}, "after": {"text": "Add"}, "changed": [],
        "redo": {"locator": "Button#addButton", "step": "{}", "python": ""},
    }  # fmt: skip
    look = Look(trees=[later], text='w Window#shop\n s Label#statusLabel "1 items"', png=None, next_seq=5,
                events=[{"seq": 4, "kind": "window-opened", "window": {"title": "Hi"}, "stack": "x" * 9000}])  # fmt: skip
    recorder.record(
        "wpf_click", {"locator": 'text="Add"'}, structured=result, error=None, began=recorder.begin(), look=look
    )
    recorder.close()
    folder = tmp_path / "record" / "agent-shop-1"
    (step,) = load_trace(folder / "steps.jsonl").steps
    assert (step.tree_before, step.tree) == ("trees/start.txt", "trees/step-0001.txt")
    assert step.target is not None and (step.target.locator, step.target.fallbacks[0]) == (
        'text="Add"',
        "Button#addButton",
    )
    assert [(e.locator, e.after) for e in step.effects or []] == [("Label#statusLabel", "1 items")]
    assert step.events and step.events[0]["kind"] == "window-opened" and recorder.events_seq == 5
    assert json.loads((folder / "session.json").read_text(encoding="utf-8"))["target"] == {"profile": "shop"}
    out = tmp_path / "test_shop.py"
    assert cli_main(["codegen", str(tmp_path / "record"), "--format", "pytest", "-o", str(out)]) == 0
    assert '@pytest.mark.wpfprobe(profile="shop")' in out.read_text(encoding="utf-8")
    assert 'app.expect("text_equals", "Label#statusLabel", value="1 items")' in out.read_text(encoding="utf-8")
    assert cli_main(["codegen", str(folder), "--profile", "other"]) == 0
    assert "target: {profile: other}" in capsys.readouterr().out
    assert cli_main(["codegen", str(tmp_path / "missing")]) == 2
