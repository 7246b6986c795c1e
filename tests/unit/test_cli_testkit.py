"""The test kit's commands without an app: exit statuses for usage and bad files, tickets, profiles, init."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wpfprobe.apps.profiles import get_profile
from wpfprobe.cli.parser import main
from wpfprobe.core.trace import StepTarget, TraceStep
from wpfprobe.testkit import oracles
from wpfprobe.testkit.scenario import json_schema
from wpfprobe.testkit.tickets import write_ticket


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def test_scenario_schema_prints_the_published_schema(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["scenario", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json_schema()
    assert main(["scenario", "schema", "-o", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text()) == json_schema()


def test_an_invalid_scenario_file_exits_2_naming_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\nsteps:\n  - action: click\n    clickCount: 7\n", encoding="utf-8")
    assert main(["scenario", "run", str(bad)]) == 2
    assert f"{bad}:4: steps.0.clickCount" in capsys.readouterr().err


def test_a_scenario_without_an_app_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("id: x\nsteps:\n  - {action: click, locator: '#b'}\n", encoding="utf-8")
    assert main(["scenario", "run", str(good)]) == 2
    assert "No app to test" in capsys.readouterr().err
    assert main(["scenario", "run", str(good), "--profile", "nope"]) == 2
    assert "No profile named 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explore", "--profile", "nope", "--seed", "1"], "No profile named 'nope'"),
        (["explore", "--profile", "x", "--max-steps", "0"], "--max-steps must be >= 1"),
        (["replay", "missing.json"], "Cannot read missing.json"),
        (["tickets", "show", "TICKET-x"], "No tickets under"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_an_explore_config_that_is_not_valid_exits_2_naming_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "explore.yaml"
    config.write_text("weights:\n  click: 1\n  dance: 2\n", encoding="utf-8")
    assert main(["explore", "--profile", "x", "--config", str(config)]) == 2
    assert f"{config}:1: weights" in capsys.readouterr().err


def test_a_replay_of_a_trace_that_names_no_app_asks_for_a_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "steps.jsonl"
    trace.write_text(json.dumps({"action": "click", "target": {"locator": "#b"}}) + "\n", encoding="utf-8")
    assert main(["replay", str(trace)]) == 2
    assert "give --profile NAME" in capsys.readouterr().err


def test_tickets_list_groups_by_signature_and_show_prints_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    failure = oracles.make("exception", "boom", what="KeyError", element="#b", step=1, actual="KeyError: x")
    step = TraceStep(action="click", target=StepTarget(locator="#b", type="Button", text="Go"))
    made = [
        write_ticket(
            tmp_path / "artifacts" / "tickets" / session,
            failure=failure,
            steps=[step],
            session_id=session,
            source="explore",
            environment={"app": "x"},
            target={"profile": "x"},
            seed=seed,
        )
        for session, seed in (("s1", 1), ("s2", 2))
    ]
    assert main(["tickets", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["tickets"] == 2 and [f["count"] for f in listed["failures"]] == [2]
    assert listed["failures"][0]["seeds"] == [1, 2]
    assert main(["tickets", "list"]) == 0
    assert "1 distinct failure in 2 tickets" in capsys.readouterr().out
    assert main(["tickets", "show", "--last"]) == 0
    shown = capsys.readouterr().out
    assert "## Repro Steps" in shown and "1. Click the button 'Go' (#b)" in shown and str(made[1].path) in shown
    assert main(["tickets", "show", made[0].id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == made[0].id


def test_profiles_edit_changes_a_profile_and_keeps_the_rest(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "app.py"
    script.write_text("", encoding="utf-8")
    assert main(["profiles", "add", "shop", "--env", "A=1", "--", sys.executable, str(script)]) == 0
    assert (
        main(["profiles", "edit", "shop", "--allow", "interact", "--allow-action", "#deleteDraft", "--env", "B=2"]) == 0
    )
    assert "only with --confirm-destructive" in capsys.readouterr().err
    assert main(["profiles", "edit", "shop", "--confirm-destructive", "--unset-env", "A"]) == 0
    profile = get_profile("shop")
    assert (profile.allow, profile.allow_actions, profile.confirm_destructive) == ("interact", ["#deleteDraft"], True)
    assert profile.env == {"B": "2"} and profile.command == [sys.executable, str(script)]
    assert main(["profiles", "edit", "shop", "--", sys.executable, str(script), "--demo"]) == 0
    assert get_profile("shop").command[-1] == "--demo"


def test_profiles_edit_opens_the_editor_and_checks_what_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "app.py"
    script.write_text("", encoding="utf-8")
    assert main(["profiles", "add", "shop", "--", sys.executable, str(script)]) == 0
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import json, sys\np = sys.argv[1]\nd = json.load(open(p))\nd['allow'] = sys.argv[0].endswith('bad.py') and 'x' or 'mutate'\n"
        "json.dump(d, open(p, 'w'))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    assert main(["profiles", "edit", "shop"]) == 0
    assert get_profile("shop").allow == "mutate"
    bad = tmp_path / "bad.py"
    bad.write_text(editor.read_text(), encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {bad}")
    assert main(["profiles", "edit", "shop"]) == 2
    assert "not valid, nothing saved" in capsys.readouterr().err and get_profile("shop").allow == "mutate"


def test_init_saves_a_profile_and_prints_how_to_register_wpfprobe(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = tmp_path / "orders_app.py"
    script.write_text("", encoding="utf-8")
    assert main(["init", "--no-smoke", str(script), "--demo"]) == 0
    out = capsys.readouterr().out
    assert "claude mcp add wpfprobe -- " in out and "wpfprobe launch --profile orders-app" in out
    profile = get_profile("orders-app")
    assert profile.command == [sys.executable, str(script.resolve()), "--demo"] and profile.allow == "interact"
    assert main(["init", "--no-smoke", str(script), "--demo"]) == 0
    assert "exists already with this command" in capsys.readouterr().out
    assert main(["init", "--no-smoke", "--name", "bad name!", str(script)]) == 2


def test_the_smoke_scenario_init_writes_is_a_valid_scenario(tmp_path: Path) -> None:
    from wpfprobe.cli.newcomers import smoke_scenario
    from wpfprobe.testkit.scenario import parse_scenario

    text = smoke_scenario("orders", {"locator": "Form#mainWindow", "title": 'Orders "2024"'})
    scenario = parse_scenario(text)
    assert scenario.target is not None and scenario.target.profile == "orders"
    assert scenario.steps[0].expect[0].value == 'Orders "2024"'  # type: ignore[union-attr]


def test_the_plugin_is_registered_as_a_pytest11_entry_point() -> None:
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["entry-points"]["pytest11"] == {"wpfprobe": "wpfprobe.testkit.pytest_plugin"}
