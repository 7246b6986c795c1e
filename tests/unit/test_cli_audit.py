"""``python -m wpfprobe audit verify``: its one-line verdicts, --json, and exit codes 0, 1 and 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wpfprobe.audit import _entry, _key, _verify
from wpfprobe.audit._writer import AuditLog

posix_only = pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX permission bits")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def key_file(home: Path) -> Path:
    _key.load_or_create_key(home / "audit.key")
    return home / "audit.key"


@pytest.fixture
def log_path(key_file: Path, tmp_path: Path) -> Path:
    path = tmp_path / "logs" / "app.jsonl"
    with AuditLog(path, key=_key.load_key(key_file), app_id="demo-1") as log:
        for i in range(42):
            log.record("wpf_click", target=f"Button#b{i}", action="invoke")
    return path


def run(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WPFPROBE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "wpfprobe", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_an_intact_log_exits_0(home: Path, log_path: Path, key_file: Path) -> None:
    out = run(home, "audit", "verify", log_path, "--key-file", key_file)
    assert (out.returncode, out.stdout, out.stderr) == (0, "OK: 42 entries, chain intact\n", "")


def test_the_default_key_is_the_one_in_wpfprobe_home(home: Path, log_path: Path) -> None:
    out = run(home, "audit", "verify", log_path)
    assert (out.returncode, out.stdout) == (0, "OK: 42 entries, chain intact\n")


def test_an_edited_line_exits_1_and_names_the_line(home: Path, log_path: Path) -> None:
    lines = log_path.read_bytes().splitlines(keepends=True)
    lines[16] = lines[16].replace(b"Button#b16", b"Button#zz")
    log_path.write_bytes(b"".join(lines))
    out = run(home, "audit", "verify", log_path)
    assert (out.returncode, out.stdout) == (1, "TAMPERED at line 17: entry edited (mac mismatch)\n")


def test_a_deleted_tail_exits_1(home: Path, log_path: Path) -> None:
    log_path.write_bytes(b"".join(log_path.read_bytes().splitlines(keepends=True)[:40]))
    out = run(home, "audit", "verify", log_path)
    assert out.returncode == 1
    assert out.stdout.startswith("TAMPERED at line 41: entries 41-42 deleted from the end")


def test_json_output_is_the_report(home: Path, log_path: Path) -> None:
    lines = log_path.read_bytes().splitlines(keepends=True)
    del lines[4]
    log_path.write_bytes(b"".join(lines))
    out = run(home, "audit", "verify", log_path, "--json")
    assert out.returncode == 1
    assert json.loads(out.stdout) == {
        "path": str(log_path),
        "ok": False,
        "entries": 4,
        "firstBadLine": 5,
        "kind": "deleted",
        "problem": "entry 5 deleted (1 line)",
        "head": "unchecked",
    }
    intact = run(home, "audit", "verify", log_path.with_name("missing.jsonl"), "--json")
    assert intact.returncode == 2 and intact.stdout == ""


def test_a_wrong_key_exits_1_and_says_so(home: Path, log_path: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.key"
    _key.load_or_create_key(other)
    out = run(home, "audit", "verify", log_path, "--key-file", other)
    assert out.returncode == 1 and out.stdout.startswith("WRONG KEY: log written with another key")


def test_a_missing_head_exits_1_unless_ignored(home: Path, log_path: Path) -> None:
    log_path.with_name("app.jsonl.head").unlink()
    out = run(home, "audit", "verify", log_path)
    assert out.returncode == 1 and out.stdout.startswith("TAMPERED: head file missing")
    assert "--ignore-missing-head" in out.stderr
    relaxed = run(home, "audit", "verify", log_path, "--ignore-missing-head")
    assert relaxed.returncode == 0
    assert relaxed.stdout == "OK: 42 entries, chain intact (no head file: a deleted tail would go unnoticed)\n"


def test_a_missing_log_exits_2(home: Path, key_file: Path, tmp_path: Path) -> None:
    out = run(home, "audit", "verify", tmp_path / "nope.jsonl")
    assert (out.returncode, out.stdout) == (2, "")
    assert "no such file" in out.stderr and "Traceback" not in out.stderr


def test_a_deleted_log_whose_head_remains_exits_2_and_says_so(home: Path, log_path: Path) -> None:
    log_path.unlink()
    out = run(home, "audit", "verify", log_path)
    assert out.returncode == 2 and "was the log deleted?" in out.stderr


def test_a_directory_is_not_a_log(home: Path, key_file: Path, tmp_path: Path) -> None:
    out = run(home, "audit", "verify", tmp_path)
    assert out.returncode == 2 and "not a regular file" in out.stderr


def test_a_missing_key_exits_2(tmp_path: Path, log_path: Path) -> None:
    out = run(tmp_path / "elsewhere", "audit", "verify", log_path)
    assert out.returncode == 2 and "no key file" in out.stderr and "--key-file" in out.stderr
    explicit = run(tmp_path / "elsewhere", "audit", "verify", log_path, "--key-file", tmp_path / "none.key")
    assert explicit.returncode == 2 and "no key file" in explicit.stderr


def test_a_malformed_key_exits_2_without_echoing_it(home: Path, log_path: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.key"
    bad.write_text("hunter2\n")
    out = run(home, "audit", "verify", log_path, "--key-file", bad)
    assert out.returncode == 2 and "does not hold a key" in out.stderr
    assert "hunter2" not in out.stderr + out.stdout


def test_an_unreadable_key_exits_2(home: Path, log_path: Path, tmp_path: Path) -> None:
    # A directory where the key should be: unreadable for every user, root included, on every OS.
    out = run(home, "audit", "verify", log_path, "--key-file", tmp_path)
    assert (out.returncode, out.stdout) == (2, "")
    assert "cannot read key file" in out.stderr and "Traceback" not in out.stderr


@posix_only
def test_a_key_others_can_read_still_verifies_with_a_warning(home: Path, log_path: Path, key_file: Path) -> None:
    os.chmod(key_file, 0o644)
    out = run(home, "audit", "verify", log_path)
    assert out.returncode == 0
    assert "can be read by other users" in out.stderr


@pytest.mark.parametrize(
    "args",
    [(), ("audit",), ("audit", "verify"), ("audit", "frobnicate"), ("nonsense",), ("audit", "verify", "x", "--bogus")],
)
def test_usage_errors_exit_2(home: Path, args: tuple[str, ...]) -> None:
    out = run(home, *args)
    assert out.returncode == 2 and "usage: wpfprobe" in out.stderr


def test_help_documents_the_exit_codes(home: Path) -> None:
    out = run(home, "audit", "verify", "--help")
    assert out.returncode == 0
    for text in ("exit status:", "0  the log verified", "1  the log did not verify", "2  usage error", "--key-file"):
        assert text in out.stdout
    top = run(home, "--help")
    assert top.returncode == 0 and "audit" in top.stdout


def test_main_is_callable_as_a_console_script_entry(
    log_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wpfprobe.cli.parser import main

    monkeypatch.setenv("WPFPROBE_HOME", str(home))
    assert main(["audit", "verify", str(log_path)]) == 0
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2


def test_the_cli_does_not_load_the_clr(home: Path, log_path: Path) -> None:
    code = textwrap.dedent(
        """
        import runpy, sys
        sys.argv = ["wpfprobe", "audit", "verify", sys.argv[1]]
        try:
            runpy.run_module("wpfprobe", run_name="__main__")
        except SystemExit as exc:
            print("exit", exc.code, "clr" in sys.modules, "pythonnet" in sys.modules)
        """
    )
    env = {**os.environ, "WPFPROBE_HOME": str(home)}
    out = subprocess.run(
        [sys.executable, "-c", code, str(log_path)], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert out.stdout.splitlines()[-1] == "exit 0 False False"


def test_the_docs_name_every_kind_and_exit_code() -> None:
    from typing import get_args

    docs = (Path(__file__).resolve().parents[2] / "docs" / "audit.md").read_text(encoding="utf-8")
    for kind in get_args(_verify.TamperKind):
        assert f"| `{kind}` |" in docs, kind
    for code in ("| 0 |", "| 1 |", "| 2 |"):
        assert code in docs
    for field in _entry.ENTRY_FIELDS:
        assert f"| `{field}` |" in docs, field
