"""Scenario files: the schema, errors that name the line, and running them (on the fake shop)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from testkit_fakes import ShopFactory

from wpfprobe.testkit.scenario import Scenario, ScenarioError, json_schema, load_scenario, parse_scenario
from wpfprobe.testkit.scenario_run import run_scenario
from wpfprobe.testkit.tickets import load_ticket

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
id: fill-and-save
title: Fill the form and save
tags: [smoke]
target: {profile: shop}
steps:
  - action: type_text
    locator: "#nameBox"
    text: Ada
  - action: click
    locator: "#addButton"
    expect:
      - {assert: text_equals, locator: "#statusLabel", value: "1 items"}
      - {assert: enabled, locator: "#addButton"}
"""


def test_a_scenario_parses_into_the_tools_own_arguments() -> None:
    scenario = parse_scenario(GOOD)
    assert scenario.id == "fill-and-save" and scenario.target is not None and scenario.target.profile == "shop"
    first, second = scenario.steps
    assert (first.action, first.text, first.replace) == ("type_text", "Ada", True)  # type: ignore[attr-defined]
    assert [a.assert_ for a in second.expect] == ["text_equals", "enabled"]
    assert scenario.actions() == ["type_text", "click"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("id: x\nsteps:\n  - action: click\n    locator: '#a'\n    clickCount: 9\n", 5, "steps.0.clickCount"),
        ("id: x\nsteps:\n  - action: frobnicate\n", 3, "unknown action 'frobnicate'"),
        (
            "id: x\nsteps:\n  - action: click\n    locator: '#a'\n    expect:\n      - {assert: shiny, locator: '#a'}\n",
            6,
            "unknown",
        ),
        ("id: x\nsteps:\n  - action: click\n    locator: '#a'\n    bogus: 1\n", 5, "bogus"),
        ("id: x\nsteps: [\n", 3, "not valid YAML"),
        ("id: x\n", 1, "steps"),
        ("id: x\nsteps:\n  - {assert: count, locator: '#a'}\n", 3, "steps.0"),
        ("id: x\nsteps:\n  - expect: [{assert: regex, locator: '#a', value: '('}]\n", 3, "regular expression"),
    ],
)
def test_an_invalid_scenario_names_the_file_and_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, path="s.yaml")
    assert caught.value.line == line, str(caught.value)
    assert message in caught.value.message and str(caught.value).startswith(f"s.yaml:{line}: ")


def test_json_is_accepted_too(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(yaml.safe_load(GOOD)), encoding="utf-8")
    assert load_scenario(path).steps[1].action == "click"


def test_the_published_schema_is_the_models_and_validates_the_demo_scenarios() -> None:
    published = json.loads((ROOT / "docs" / "scenario.schema.json").read_text(encoding="utf-8"))
    assert published == json_schema(), (
        "regenerate docs/scenario.schema.json: wpfprobe scenario schema -o docs/scenario.schema.json"
    )
    validator = jsonschema.Draft202012Validator(published)
    demos = sorted((ROOT / "examples" / "scenarios").glob("*.yaml"))
    assert len(demos) >= 2
    for demo in demos:
        assert list(validator.iter_errors(yaml.safe_load(demo.read_text(encoding="utf-8")))) == [], demo
        assert isinstance(load_scenario(demo), Scenario)
    assert list(validator.iter_errors({"id": "x", "steps": [{"action": "click", "clickCount": 9}]}))


def scenario(text: str, tmp_path: Path) -> Scenario:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def test_a_scenario_that_holds_passes(tmp_path: Path) -> None:
    result = run_scenario(scenario(GOOD, tmp_path), ShopFactory(), artifacts=tmp_path / "a")
    assert result.passed and not result.failures and result.ticket is None and result.steps == 2


def test_a_wrong_expectation_fails_with_a_ticket_showing_expected_and_actual(tmp_path: Path) -> None:
    text = GOOD.replace('value: "1 items"', 'value: "2 items", timeoutMs: 200')
    result = run_scenario(scenario(text, tmp_path), ShopFactory(), artifacts=tmp_path / "a")
    assert not result.passed and result.ticket is not None
    ticket = load_ticket(Path(result.ticket))
    assert ticket.expected == "text of #statusLabel equals '2 items'"
    assert ticket.actual == "text of #statusLabel is '1 items'"
    assert ticket.signature == "expectation|text_equals|#statusLabel"
    markdown = (Path(result.ticket) / "ticket.md").read_text(encoding="utf-8")
    assert "text of #statusLabel equals '2 items'" in markdown and "is '1 items'" in markdown


def test_a_missing_element_fails_the_scenario(tmp_path: Path) -> None:
    text = "id: gone\nsteps:\n  - action: click\n    locator: '#noSuchButton'\n"
    result = run_scenario(scenario(text, tmp_path), ShopFactory(), artifacts=tmp_path / "a")
    assert not result.passed and result.failures[0].kind == "missing-element"
    assert result.failures[0].element == "#noSuchButton"


def test_what_the_oracles_see_fails_a_scenario_with_no_expectation_written(tmp_path: Path) -> None:
    text = (
        "id: process\nsteps:\n"
        + "  - {action: click, locator: '#addButton'}\n" * 2
        + "  - {action: click, locator: '#processButton'}\n"
    )
    result = run_scenario(scenario(text, tmp_path), ShopFactory(), artifacts=tmp_path / "a")
    assert not result.passed and result.failures[0].signature == "exception|KeyError|#processButton"


def test_an_exception_at_a_step_fails_at_once_without_waiting_out_its_expectations(tmp_path: Path) -> None:
    """Regression (issue 20): a handler's exception was recorded at the click, and the scenario still retried
    each of the step's expectations for its whole timeout (2 x 10 s) before failing."""
    text = (
        "id: process\nexpectTimeoutMs: 60000\nsteps:\n"
        + "  - {action: click, locator: '#addButton'}\n" * 2
        + "  - action: click\n    locator: '#processButton'\n    expect:\n"
        + "      - {assert: text_equals, locator: '#statusLabel', value: never}\n" * 2
    )
    result = run_scenario(scenario(text, tmp_path), ShopFactory(), artifacts=tmp_path / "a")
    assert not result.passed and [f.signature for f in result.failures] == ["exception|KeyError|#processButton"]
    assert result.seconds < 30  # a bound for a loaded machine: waiting out the expectations takes 120 s


def test_an_app_that_goes_down_while_an_expectation_waits_ends_the_wait(tmp_path: Path) -> None:
    """The step itself passed; the app died half a second later, while its expectation was being retried."""
    text = (
        "id: later\nsteps:\n  - action: click\n    locator: '#laterButton'\n    expect:\n"
        "      - {assert: text_equals, locator: '#statusLabel', value: never, timeoutMs: 60000}\n"
    )
    result = run_scenario(scenario(text, tmp_path), ShopFactory(late_crash=True), artifacts=tmp_path / "a")
    assert not result.passed and [f.kind for f in result.failures] == ["crash"]
    assert result.seconds < 30  # the expectation's own timeout is 60 s


def test_a_destructive_step_needs_allow_destructive(tmp_path: Path) -> None:
    text = "id: wipe\nsteps:\n  - {action: click, locator: '#deleteAllButton'}\n"
    factory = ShopFactory()
    refused = run_scenario(scenario(text, tmp_path), factory, artifacts=tmp_path / "a")
    assert not refused.passed and refused.error is not None and "allowDestructive" in refused.error
    assert not factory.deleted and refused.ticket is None
    allowed = run_scenario(
        scenario(text.replace("'#deleteAllButton'}", "'#deleteAllButton', allowDestructive: true}"), tmp_path),
        factory, artifacts=tmp_path / "b",
    )  # fmt: skip
    assert allowed.passed and factory.deleted


def test_teardown_runs_after_a_failure(tmp_path: Path) -> None:
    text = (
        "id: t\nsteps:\n  - {action: click, locator: '#noSuchButton'}\n"
        "teardown:\n  - {action: type_text, locator: '#nameBox', text: cleaned}\n"
    )
    result = run_scenario(scenario(text, tmp_path), ShopFactory(), artifacts=tmp_path / "a")
    assert not result.passed and result.failures[0].kind == "missing-element"
    steps = (Path(str(result.session)) / "steps.jsonl").read_text(encoding="utf-8")
    assert '"text": "cleaned"' in steps


class FlakyFactory(ShopFactory):
    """The first app starts with an item already in it (a leftover of an earlier run, say)."""

    def start(self):  # type: ignore[no-untyped-def]
        running = super().start()
        if len(self.states) == 1:
            running.state.items = 1
        return running


def test_retries_label_a_later_pass_flaky_and_still_write_the_ticket(tmp_path: Path) -> None:
    text = (
        "id: f\nretries: 2\nsteps:\n  - action: click\n    locator: '#addButton'\n"
        "    expect: [{assert: text_equals, locator: '#statusLabel', value: '1 items', timeoutMs: 100}]\n"
    )
    result = run_scenario(scenario(text, tmp_path), FlakyFactory(), artifacts=tmp_path / "a")
    assert result.passed and result.flaky and (result.attempts, result.failed_attempts) == (2, 1)
    assert result.ticket is not None and load_ticket(Path(result.ticket)).flaky
    no_retry = run_scenario(
        scenario(text.replace("retries: 2\n", ""), tmp_path), FlakyFactory(), artifacts=tmp_path / "b"
    )
    assert not no_retry.passed and not no_retry.flaky
