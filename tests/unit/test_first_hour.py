"""What a newcomer trips over in the first hour (issue 20), checked without an app: the command line's
output when piped, its usage messages, and the words and counts it prints."""

from __future__ import annotations

import json
import os
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
