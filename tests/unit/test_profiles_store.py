"""The profile store: one owner-only JSON file, atomic writes, loud about corruption."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from wpfprobe.apps.profiles import add_profile, get_profile, load_profiles, new_profile, profiles_path, remove_profile
from wpfprobe.core.errors import InvalidArgumentError


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    # The scripts the profiles name: a profile's script must exist when it is saved.
    monkeypatch.chdir(tmp_path)
    for script in ("a.py", "b.py", "c.py", "other.py", "work/orders.py"):
        (tmp_path / script).parent.mkdir(exist_ok=True)
        (tmp_path / script).write_text("", encoding="utf-8")
    return tmp_path / "home"


def test_the_file_lives_in_wpfprobe_home_beside_the_sessions(home: Path) -> None:
    from wpfprobe.mcp.manifest import sessions_dir

    assert profiles_path() == home / "profiles.json"
    assert sessions_dir().parent == profiles_path().parent


def test_add_get_list_remove(home: Path) -> None:
    assert load_profiles() == {}
    first = new_profile("orders", ["python", "orders.py", "--demo"], cwd="work", allow="interact", env={"K": "v"})
    assert first.cwd == os.path.abspath("work")
    # Kept as it runs from anywhere: the interpreter running wpfprobe, the script relative to cwd made absolute.
    orders = [sys.executable, os.path.abspath("work/orders.py"), "--demo"]
    assert first.command == orders
    add_profile(first)
    add_profile(new_profile("b-app_2", ["b.py"]))
    assert list(load_profiles()) == ["b-app_2", "orders"]
    assert get_profile("orders") == first
    remove_profile("b-app_2")
    assert list(load_profiles()) == ["orders"]
    data = json.loads((home / "profiles.json").read_text())
    assert data["schemaVersion"] == 1 and data["profiles"]["orders"]["command"] == orders


def test_the_file_is_owner_only_and_leaves_no_temporary_files(home: Path) -> None:
    add_profile(new_profile("a", ["a.py"]))
    if not sys.platform.startswith("win"):  # Windows: the user's profile directory's ACLs
        assert stat.S_IMODE((home / "profiles.json").stat().st_mode) == 0o600
    assert [p.name for p in home.iterdir()] == ["profiles.json"]


def test_a_duplicate_needs_replace(home: Path) -> None:
    add_profile(new_profile("a", ["a.py"]))
    with pytest.raises(InvalidArgumentError) as caught:
        add_profile(new_profile("a", ["other.py"]))
    assert "replace" in caught.value.suggestion.lower()
    add_profile(new_profile("a", ["other.py"]), replace=True)
    assert get_profile("a").command == [os.path.abspath("other.py")]


@pytest.mark.parametrize("name", ["", "has space", "a/b", "x" * 65, "dot.name"])
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        new_profile(name, ["a.py"])
    assert "profile name" in caught.value.message


def test_a_script_that_does_not_exist_is_refused_when_the_profile_is_saved() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        new_profile("a", ["python", "app/missing.py"])
    assert "app/missing.py, relative to the current directory" in caught.value.message


def test_a_command_that_is_not_a_python_app_is_refused() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        new_profile("a", ["node", "app.js"])
    assert "neither a python interpreter" in caught.value.message


def test_an_unknown_profile_lists_the_known_ones() -> None:
    add_profile(new_profile("alpha", ["a.py"]))
    add_profile(new_profile("beta", ["b.py"]))
    with pytest.raises(InvalidArgumentError) as caught:
        get_profile("gamma")
    assert "alpha, beta" in caught.value.message
    with pytest.raises(InvalidArgumentError):
        remove_profile("gamma")


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '{"profiles": {"a": {"name": "a"}}}',
        '{"profiles": {"a": {"name": "b", "command": ["b.py"]}}}',
    ],
)
def test_a_corrupt_file_is_an_error_naming_it_and_is_left_alone(home: Path, text: str) -> None:
    path = home / "profiles.json"
    path.write_text(text)
    with pytest.raises(InvalidArgumentError) as caught:
        load_profiles()
    assert str(path) in caught.value.message and "corrupt" in caught.value.message
    with pytest.raises(InvalidArgumentError):
        add_profile(new_profile("c", ["c.py"]))
    assert path.read_text() == text


def test_a_profile_may_name_a_running_app_instead_of_a_command(home: Path) -> None:
    by_title = new_profile("running", [], allow="interact", attach={"title": "^Orders"})
    add_profile(by_title)
    add_profile(new_profile("by-name", [], attach={"name": "orders"}))
    stored = json.loads((home / "profiles.json").read_text())["profiles"]
    assert stored["running"]["attach"] == {"name": None, "title": "^Orders"} and stored["running"]["command"] == []
    assert get_profile("running").attach == by_title.attach
    assert get_profile("by-name").attach is not None and get_profile("by-name").attach.describe().endswith("orders")


@pytest.mark.parametrize(
    ("command", "attach", "extra"),
    [
        ([], None, {}),  # neither
        (["python", "a.py"], {"name": "a"}, {}),  # both
        ([], {"name": "a", "title": "b"}, {}),  # two ways to name it
        ([], {}, {}),
        ([], {"title": "("}, {}),  # not a regular expression
        ([], {"name": "a"}, {"cwd": "somewhere"}),  # launch options on an attach profile
    ],
)
def test_an_attach_profile_is_checked(command: list[str], attach: dict[str, str] | None, extra: dict[str, str]) -> None:
    with pytest.raises(InvalidArgumentError):
        new_profile("x", command, attach=attach, **extra)  # type: ignore[arg-type]
