"""Discovery manifests (SPEC section 7): atomic owner-only files, stale ones ignored and cleaned up."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from wpfprobe.core import paths
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.manifest import Manifest

posix_only = pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX permission bits and owners")

FIELDS = {
    "schemaVersion",
    "appId",
    "appName",
    "pid",
    "processStartTime",
    "exe",
    "toolkit",
    "runtime",
    "url",
    "token",
    "tier",
    "startedAt",
    "version",
}
TOKEN = "T0k3n_" + "x" * 40


def manifest(**overrides: Any) -> Manifest:
    pid = overrides.pop("pid", os.getpid())
    fields: dict[str, Any] = {
        "app_id": f"demo-{pid}",
        "app_name": "demo",
        "pid": pid,
        "process_start_time": psutil.Process(pid).create_time() if psutil.pid_exists(pid) else 1.0,
        "exe": sys.executable,
        "toolkit": "winforms",
        "runtime": "mono 6.8",
        "url": "http://127.0.0.1:5555/mcp",
        "token": TOKEN,
        "tier": "read",
        "started_at": "2025-01-01T00:00:00+00:00",
        "version": "0.1.0",
    }
    fields.update(overrides)
    return Manifest(**fields)


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(done.stdout)
    assert not psutil.pid_exists(pid)
    return pid


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return tmp_path / "home" / "sessions"


# -- where and how it is written ---------------------------------------------------------


def test_sessions_dir_follows_wpfprobe_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "h"))
    assert _manifest.sessions_dir() == tmp_path / "h" / "sessions"


@posix_only
def test_sessions_dir_defaults_to_the_users_runtime_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WPFPROBE_HOME", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    assert _manifest.sessions_dir() == tmp_path / "run" / "wpfprobe" / "sessions"


@posix_only
def test_lasting_files_never_default_to_the_runtime_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the audit key, audit logs and profiles lived in $XDG_RUNTIME_DIR, emptied at logout."""
    from wpfprobe.apps import profiles as _profiles
    from wpfprobe.audit import _files, _key

    monkeypatch.delenv("WPFPROBE_HOME", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    lasting = tmp_path / "state" / "wpfprobe"
    assert paths.home_dir() == lasting
    assert _key.default_key_path().parent == lasting
    assert _files.default_log_path("orders").parent == lasting / "audit"
    assert _profiles.profiles_path().parent == lasting
    assert _manifest.sessions_dir() == tmp_path / "run" / "wpfprobe" / "sessions"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert _manifest.sessions_dir() == lasting / "sessions"


def test_write_creates_a_file_with_exactly_the_spec_fields(sessions: Path) -> None:
    m = manifest()
    path = _manifest.write(m, sessions)
    assert path.parent == sessions and path.name == f"{m.app_id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == FIELDS
    assert data["token"] == TOKEN and data["pid"] == os.getpid() and data["schemaVersion"] == 1
    assert [p.name for p in sessions.iterdir()] == [path.name], "no temp file left behind"


@posix_only
def test_write_makes_the_file_and_directory_owner_only(sessions: Path) -> None:
    path = _manifest.write(manifest(), sessions)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(sessions.stat().st_mode) == 0o700


@posix_only
def test_write_tightens_an_existing_directory_with_loose_permissions(sessions: Path) -> None:
    sessions.mkdir(parents=True)
    sessions.chmod(0o777)
    _manifest.write(manifest(), sessions)
    assert stat.S_IMODE(sessions.stat().st_mode) == 0o700


def test_write_replaces_the_previous_manifest_whole(sessions: Path) -> None:
    first = _manifest.write(manifest(url="http://127.0.0.1:1111/mcp"), sessions)
    second = _manifest.write(manifest(url="http://127.0.0.1:2222/mcp"), sessions)
    assert first == second
    assert json.loads(second.read_text(encoding="utf-8"))["url"] == "http://127.0.0.1:2222/mcp"


def test_a_write_that_fails_midway_leaves_the_old_manifest_and_no_temp_file(
    sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _manifest.write(manifest(url="http://127.0.0.1:1111/mcp"), sessions)
    before = path.read_bytes()

    def broken_dump(obj: Any, fh: Any, **kwargs: Any) -> None:
        fh.write('{"schemaVersion": 1, "appId": "half')  # a partial write, then the crash
        raise OSError("disk full")

    monkeypatch.setattr(_manifest.json, "dump", broken_dump)
    with pytest.raises(OSError, match="disk full"):
        _manifest.write(manifest(url="http://127.0.0.1:2222/mcp"), sessions)
    assert path.read_bytes() == before, "readers never see a half-written manifest"
    assert [p.name for p in sessions.iterdir()] == [path.name]


def test_a_failed_rename_leaves_no_temp_file(sessions: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_replace(src: Any, dst: Any) -> None:
        raise OSError("rename failed")

    monkeypatch.setattr(_manifest.os, "replace", no_replace)
    with pytest.raises(OSError, match="rename failed"):
        _manifest.write(manifest(), sessions)
    assert list(sessions.iterdir()) == []


@posix_only
def test_the_temp_file_is_owner_only_before_the_token_is_written(
    sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    modes: list[int] = []
    real_dump = json.dump

    def watching_dump(obj: Any, fh: Any, **kwargs: Any) -> None:
        modes.append(stat.S_IMODE(os.fstat(fh.fileno()).st_mode))
        real_dump(obj, fh, **kwargs)

    monkeypatch.setattr(_manifest.json, "dump", watching_dump)
    _manifest.write(manifest(), sessions)
    assert modes == [0o600]


def test_remove_is_quiet_when_the_file_is_gone(sessions: Path) -> None:
    path = _manifest.write(manifest(), sessions)
    _manifest.remove(path)
    _manifest.remove(path)
    assert not path.exists()


def test_the_token_is_not_in_the_repr() -> None:
    m = manifest()
    assert TOKEN not in repr(m) and TOKEN not in str(m)


# -- reading: live, stale, untrusted ---------------------------------------------------------


def test_a_live_manifest_is_read_and_kept(sessions: Path) -> None:
    path = _manifest.write(manifest(), sessions)
    found = _manifest.read_all(sessions)
    assert [m.app_id for m in found] == [f"demo-{os.getpid()}"]
    assert found[0].token == TOKEN
    assert path.exists()


def test_read_all_of_a_missing_directory_is_empty(tmp_path: Path) -> None:
    assert _manifest.read_all(tmp_path / "nowhere") == []


def test_a_manifest_whose_pid_is_dead_is_ignored_and_deleted(sessions: Path) -> None:
    live = _manifest.write(manifest(), sessions)
    pid = dead_pid()
    stale = _manifest.write(manifest(pid=pid, app_id=f"gone-{pid}", process_start_time=1.0), sessions)
    assert [m.app_id for m in _manifest.read_all(sessions)] == [f"demo-{os.getpid()}"]
    assert not stale.exists(), "a stale manifest is cleaned up"
    assert live.exists()


def test_a_reused_pid_is_detected_by_its_start_time(sessions: Path) -> None:
    """The pid is alive, but it is another process than the one that wrote the manifest."""
    started = psutil.Process().create_time()
    stale = _manifest.write(manifest(app_id="reused", process_start_time=started - 3600), sessions)
    later = _manifest.write(manifest(app_id="reused-later", process_start_time=started + 5), sessions)
    assert _manifest.read_all(sessions) == []
    assert not stale.exists() and not later.exists()


@pytest.mark.skipif(sys.platform.startswith("win"), reason="Windows has no zombie processes")
def test_a_killed_app_its_parent_has_not_reaped_is_stale(sessions: Path) -> None:
    """A zombie keeps its pid and start time but serves nothing: it must not look alive."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        started = psutil.Process(child.pid).create_time()
        path = _manifest.write(manifest(pid=child.pid, app_id="zombie", process_start_time=started), sessions)
        assert [m.app_id for m in _manifest.read_all(sessions, clean=False)] == ["zombie"]
        child.kill()
        deadline = time.monotonic() + 10
        while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the killed child never became a zombie"
            time.sleep(0.01)
        assert _manifest.read_all(sessions) == []
        assert not path.exists()
    finally:
        child.kill()
        child.wait()


def test_clean_false_ignores_stale_manifests_but_keeps_them(sessions: Path) -> None:
    pid = dead_pid()
    stale = _manifest.write(manifest(pid=pid, app_id=f"gone-{pid}", process_start_time=1.0), sessions)
    assert _manifest.read_all(sessions, clean=False) == []
    assert stale.exists()


@posix_only
@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o666, 0o620, 0o602])
def test_a_manifest_others_may_read_or_write_is_ignored(sessions: Path, mode: int) -> None:
    path = _manifest.write(manifest(), sessions)
    path.chmod(mode)
    assert _manifest.read_all(sessions) == []


@posix_only
def test_a_manifest_of_another_owner_is_ignored(sessions: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _manifest.write(manifest(), sessions)
    if os.geteuid() == 0:
        os.chown(path, 65534, -1)  # nobody
    else:
        real = os.getuid()
        monkeypatch.setattr(_manifest.os, "getuid", lambda: real + 1)
    assert _manifest.read_all(sessions) == []


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "",
        "[]",
        '"a string"',
        json.dumps({"appId": "x"}),
        json.dumps({"schemaVersion": 1, "appId": "x", "pid": "not a number"}),
        "\x00\xff garbage",
    ],
    ids=["broken", "empty", "array", "string", "missing fields", "wrong types", "binary"],
)
def test_a_malformed_manifest_is_ignored_and_the_others_still_read(sessions: Path, content: str) -> None:
    _manifest.write(manifest(), sessions)
    bad = sessions / "bad.json"
    bad.write_text(content, encoding="latin-1")
    bad.chmod(0o600)
    assert [m.app_id for m in _manifest.read_all(sessions)] == [f"demo-{os.getpid()}"]


def test_a_manifest_with_an_unknown_tier_is_ignored(sessions: Path) -> None:
    path = _manifest.write(manifest(), sessions)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tier"] = "root"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _manifest.read_all(sessions) == []


def test_a_directory_named_like_a_manifest_is_ignored(sessions: Path) -> None:
    _manifest.write(manifest(), sessions)
    (sessions / "dir.json").mkdir(mode=0o700)
    assert len(_manifest.read_all(sessions)) == 1
