"""What a newcomer trips over in the first hour (issue 20), checked without an app: the command line's
output when piped, its usage messages, and the words and counts it prints."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wpfprobe.cli.parser import main
from wpfprobe.core.trace import StepTarget, TraceStep
from wpfprobe.testkit import oracles
from wpfprobe.testkit.tickets import write_ticket

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def _ticket(artifacts: Path, session: str, *, occurrences: int = 1) -> Path:
    failure = oracles.make("exception", "boom", what="KeyError", element="#b", step=1, actual="KeyError: x")
    step = TraceStep(action="click", target=StepTarget(locator="#b", type="Button", text="Go"))
    made = write_ticket(
        artifacts / "tickets" / session, failure=failure, steps=[step], session_id=session, source="explore",
        environment={"app": "x"}, target={"profile": "x"}, seed=1, occurrences=occurrences,
    )  # fmt: skip
    assert made.path is not None
    return Path(made.path)


def _into_a_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``wpfprobe ARGS | head -0``: the reader is gone before the first byte is written."""
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    try:
        return subprocess.run(
            [sys.executable, "-m", "wpfprobe", *args], stdout=write, stderr=subprocess.PIPE, text=True, cwd=cwd,
            env=env, timeout=60, check=False,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [["scenario", "schema"], ["tickets", "show", "--last"], ["tickets", "list"]])
def test_output_into_a_closed_pipe_ends_quietly(args: list[str], tmp_path: Path) -> None:
    _ticket(tmp_path / "artifacts", "s1")
    done = _into_a_closed_pipe(*args, cwd=tmp_path)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.stderr == ""
    assert done.returncode == 141  # as a process that SIGPIPE ended: the output was cut


def test_run_without_a_script_says_only_the_script_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "required: SCRIPT" in err and "ARGS" not in err.split("error:")[1]


def test_an_invalid_scenario_lists_every_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text('id: bad\nsteps:\n  - action: click\n    locator: "#a"\n    clickCount: 9\n  - action: frob\n')
    assert main(["scenario", "run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:5: steps.0.clickCount" in err
    assert f"{bad}:6: steps.1" in err and "frob" in err
    assert "more problems" not in err


def test_tickets_list_counts_what_explore_counts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """explore said "x9" for a failure seen nine times; tickets list said "x1" for its one ticket."""
    _ticket(tmp_path / "artifacts", "s1", occurrences=9)
    assert main(["tickets", "list"]) == 0
    out = capsys.readouterr().out
    assert "seen 9 times, 1 ticket" in out and " x1 " not in out
    assert main(["tickets", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["failures"][0]
    assert (listed["count"], listed["occurrences"]) == (1, 9)


def test_a_signature_names_an_element_the_same_way_whoever_wrote_the_locator() -> None:
    """A scenario's ``#copyButton`` and explore's ``Button#copyButton`` are one element: one bug, one signature."""
    from_scenario = oracles.make("exception", "x", what="ValueError", element="#copyButton")
    from_explore = oracles.make("exception", "x", what="ValueError", element="Button#copyButton")
    assert from_scenario.signature == from_explore.signature == "exception|ValueError|#copyButton"
    assert from_explore.element == "Button#copyButton"  # what the ticket shows stays as the step named it
    # Only a plain Type#name is the name: a path or a combinator is left as it is.
    assert oracles.make("crash", "x", element="Form > Button#b").signature.endswith("|Form > Button#b")


# -- commands resolve against the file that declares them; a start that fails is a setup error ---------


def test_a_scenario_command_runs_relative_to_the_scenario_file_with_this_python(tmp_path: Path) -> None:
    from wpfprobe.testkit.launcher import AppTarget, check_target

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "copier.py").write_text("", encoding="utf-8")
    (tmp_path / "scenarios").mkdir()
    file = tmp_path / "scenarios" / "copy.yaml"
    declared = AppTarget(command=["python", "-u", "../app/copier.py", "--fast"])
    target = check_target(None, declared, file=str(file))
    assert target.command == [sys.executable, "-u", str(tmp_path / "app" / "copier.py"), "--fast"]
    assert target.cwd == str(tmp_path / "scenarios")  # the app's own relative arguments work from anywhere too
    with_cwd = AppTarget(command=["python", "copier.py"], cwd="../app").declared_in(file)
    assert with_cwd.command == [sys.executable, str(tmp_path / "app" / "copier.py")]
    assert with_cwd.cwd == str(tmp_path / "app")
    assert check_target("orders", declared, file=str(file)).profile == "orders"  # --profile wins, untouched


def test_a_script_missing_where_the_scenario_says_is_a_setup_error_in_two_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 20): run from another directory, the app's script was looked for there, and the
    failure was filed as a crash ticket 'The app crashes (start) after using the app'."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "copier.py").write_text("", encoding="utf-8")
    (tmp_path / "scenarios").mkdir()
    scenario = tmp_path / "scenarios" / "copy.yaml"
    scenario.write_text(
        "id: copy\ntarget: {command: [python, app/copier.py]}\nsteps:\n  - {action: click, locator: '#b'}\n"
    )
    assert main(["scenario", "run", str(scenario)]) == 2
    out = capsys.readouterr().out.splitlines()
    line = next(i for i, text in enumerate(out) if text.startswith("SETUP copy"))
    assert "app/copier.py, relative to the folder of" in out[line] and "does not exist" in out[line]
    assert out[line + 1].startswith("  hint: Give its path relative to the folder of")
    assert "0 passed, 0 failed, 1 errors" in out[-1]
    assert not (tmp_path / "artifacts" / "tickets").exists()


def test_an_app_that_dies_before_its_ui_is_up_is_a_setup_error_with_its_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    (tmp_path / "app.py").write_text("import not_a_module_anyone_has\n", encoding="utf-8")
    scenario = tmp_path / "start.yaml"
    scenario.write_text("id: start\ntarget: {command: [python, app.py]}\nsteps:\n  - {action: click, locator: '#b'}\n")
    assert main(["scenario", "run", str(scenario)]) == 2
    out = capsys.readouterr().out.splitlines()
    line = next(i for i, text in enumerate(out) if text.startswith("SETUP start"))
    assert "exited with status 1 before its UI came up" in out[line]
    assert out[line + 1].startswith("  cause: ModuleNotFoundError: No module named 'not_a_module_anyone_has'")
    assert not (tmp_path / "artifacts" / "tickets").exists()


def test_profiles_add_keeps_a_command_that_runs_from_anywhere(tmp_path: Path) -> None:
    """Regression (issue 20): `profiles add X -- python app.py` stored the bare word python and app.py."""
    from wpfprobe.apps.profiles import get_profile

    (tmp_path / "app.py").write_text("", encoding="utf-8")
    assert main(["profiles", "add", "copier", "--", "python", "app.py", "--demo"]) == 0
    profile = get_profile("copier")
    assert profile.command == [sys.executable, str(tmp_path / "app.py"), "--demo"]
    assert profile.cwd == str(tmp_path)
    assert main(["profiles", "add", "nope", "--", "python", "missing.py"]) == 2


# -- a display for every command that starts an app ---------------------------------------------------------


def _run_without_an_app(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "app.py"
    script.write_text("print('the app ran')\n", encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    base["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "wpfprobe", "run", str(script)], env={**base, **env}, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X displays are Linux's")
def test_run_refuses_a_display_that_does_not_answer_saying_what_to_do(tmp_path: Path) -> None:
    """Regression (issue 20): the app died with a Mono stack trace whose hint never named DISPLAY."""
    done = _run_without_an_app(tmp_path, {"DISPLAY": ":4242"})
    assert done.returncode == 2 and "the app ran" not in done.stdout
    assert "DISPLAY=:4242 cannot be opened" in done.stderr and "unset DISPLAY" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X displays are Linux's")
def test_run_without_a_display_or_xvfb_says_what_to_install(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = _run_without_an_app(tmp_path, {"PATH": str(empty)})
    assert done.returncode == 2 and "the app ran" not in done.stdout
    assert "DISPLAY is not set" in done.stderr and "apt-get install xvfb" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_long_wait_for_the_apps_ui_is_said_once_at_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from wpfprobe.apps import run as _run

    monkeypatch.setattr(_run, "LONG_WAIT_SECONDS", 0.0)
    waiting = _run._Waiting("copier")
    with caplog.at_level("INFO", logger="wpfprobe.run"):
        for what in ("clr", "clr", "clr", "window", "window"):
            waiting.now(what)
    said = [(r.levelname, r.getMessage().split(":")[0]) for r in caplog.records]
    assert said == [
        ("INFO", "waiting for the app to load a CLR (pythonnet.load(), or import clr)"),
        ("WARNING", "the app has not loaded a CLR after 0 s"),
        ("INFO", "the app has loaded a CLR; waiting for it to show a window"),
        ("WARNING", "the app loaded a CLR 0 s ago but shows no window yet"),
    ]


# -- what a pip user has: the locator grammar and a runnable example, in the package ----------------------


def test_help_locators_prints_the_grammar_every_example_of_which_parses(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    from wpfprobe.engine.locators import DOCS_URL, GRAMMAR, parse_locator

    assert main(["help", "locators"]) == 0
    printed = capsys.readouterr().out
    assert printed == GRAMMAR and DOCS_URL in printed
    examples = [re.split(r"\s{2,}", line.strip())[0] for line in GRAMMAR.splitlines() if line.startswith("  ")]
    assert len(examples) >= 15
    docs = (ROOT / "docs" / "locators.md").read_text(encoding="utf-8")
    for example in examples:
        parse_locator(example)  # raises on one that is not a locator
    # The short form says what the page says: each selector form is in the page's table, as written there.
    table = [e for e in examples if not any(s in e for s in ("/", ">", "logical:"))]
    assert all(f"`{e}`" in docs for e in table), [e for e in table if f"`{e}`" not in docs]


def test_a_bad_locators_hint_works_for_someone_without_the_repository() -> None:
    """Regression (issue 20): the hint said "see docs/locators.md", a file pip users do not have."""
    from wpfprobe.core.errors import InvalidArgumentError
    from wpfprobe.engine.locators import DOCS_URL, parse_locator

    with pytest.raises(InvalidArgumentError) as caught:
        parse_locator("Button[")
    assert "wpfprobe help locators" in caught.value.suggestion and DOCS_URL in caught.value.suggestion
    assert "see docs/locators.md" not in caught.value.suggestion


def test_the_wheel_ships_the_example_app_the_license_and_a_long_description_for_pypi() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert project["license-files"] == ["LICENSE"]
    assert project["authors"] and project["urls"]["Documentation"].startswith("https://")
    assert any(c.startswith("Programming Language :: Python :: 3") for c in project["classifiers"])
    readme = project["readme"]
    assert readme["content-type"] == "text/markdown"
    text = (ROOT / readme["file"]).read_text(encoding="utf-8")
    # Links that work on PyPI: absolute, never into a docs/ folder a pip user does not have.
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links and all(link.startswith("https://") for link in links), links
    assert "./run" not in text
    assert (ROOT / "src" / "wpfprobe" / "examples" / "greeter.py").is_file()
