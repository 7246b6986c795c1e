"""Rewriting an app's command line to run under `wpfprobe run` (wpfprobe.apps.launch)."""

from __future__ import annotations

import sys

import pytest

from wpfprobe.apps.launch import is_python, probe_command
from wpfprobe.core.errors import InvalidArgumentError


def test_a_python_invocation_keeps_its_interpreter_options_and_the_apps_arguments() -> None:
    assert probe_command(["python3.9", "-u", "-X", "dev", "app.py", "--x", "-y"], allow="interact") == [
        "python3.9", "-u", "-X", "dev", "-m", "wpfprobe", "run", "--allow", "interact", "--name", "app",
        "app.py", "--x", "-y",
    ]  # fmt: skip


@pytest.mark.parametrize("word", ["python", "python3", f"python{sys.version_info.major}.{sys.version_info.minor}"])
def test_a_bare_python_is_the_interpreter_running_wpfprobe(word: str) -> None:
    """Regression (issue 20): from an unactivated venv, `python` found the system's, without wpfprobe."""
    assert probe_command([word, "app.py"])[0] == sys.executable


def test_a_script_runs_with_this_interpreter_and_is_named_after_its_stem() -> None:
    assert probe_command(["dir/orders_app.py", "a"]) == [
        sys.executable, "-m", "wpfprobe", "run", "--allow", "read", "--name", "orders_app", "dir/orders_app.py", "a",
    ]  # fmt: skip


def test_a_name_of_ones_own_wins() -> None:
    command = probe_command(["/opt/py/bin/python", "app.py"], name="orders")
    assert command[command.index("--name") + 1] == "orders" and command[-1] == "app.py"


@pytest.mark.parametrize(
    "word", ["python", "python3", "python3.12", "pythonw", "python.exe", "C:\\Py\\python.exe", "/usr/bin/python3", "py"]
)
def test_python_interpreters_are_recognised(word: str) -> None:
    assert is_python(word.replace("\\", "/"))


def test_this_interpreter_is_recognised_under_any_name() -> None:
    assert is_python(sys.executable)
    assert not is_python("node")


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ([], "empty"),
        (["python"], "no script"),
        (["python", "-u"], "no script"),
        (["python", "-m", "pkg"], "script file"),
        (["python", "-c", "print(1)"], "script file"),
        (["python", "-X"], "no value"),
        (["node", "app.js"], "neither a python interpreter"),
    ],
)
def test_what_is_not_a_python_script_is_refused(command: list[str], fragment: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        probe_command(command)
    assert fragment in caught.value.message


def test_an_unknown_tier_is_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        probe_command(["app.py"], allow="admin")  # type: ignore[arg-type]
