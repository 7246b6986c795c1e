"""The parts of `wpfprobe attach` that need no running app: the injected code, the checks
before anything is injected, the request the app reads, gdb's answers, ``ps``'s reading of
mapped files, and the choice of mechanism per platform and Python version."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.apps.attach import attacher, inject, payload, processes
from wpfprobe.apps.attach.bootstrap import read_request
from wpfprobe.core.errors import AppNotAvailableError, AttachRefusedError, InvalidArgumentError, ProbeError


def code_for(tmp_path: Path, **extra: Any) -> str:
    return payload.injected_code(
        request=tmp_path / "r.request.json", result=tmp_path / "r.result.json", root=tmp_path / "site", **extra
    )


# -- the injected code ---------------------------------------------------------------------------


def stage2_of(code: str, monkeypatch: pytest.MonkeyPatch) -> str:
    import _thread

    started: list[tuple[Any, ...]] = []
    with monkeypatch.context() as patch:
        patch.setattr(_thread, "start_new_thread", lambda fn, args: started.append(args))
        exec(code, {"__builtins__": __builtins__})
    return str(started[0][0])


def test_the_injected_code_is_fixed_text_around_our_own_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = code_for(tmp_path)
    elsewhere = tmp_path / "x"
    other = payload.injected_code(request=elsewhere / "a.json", result=elsewhere / "b.json", root=tmp_path / "site")
    first, second = stage2_of(code, monkeypatch), stage2_of(other, monkeypatch)
    # The first stage is the same text around the second; the second differs only in the paths.
    assert code.replace(payload.literal(first), "S") == other.replace(payload.literal(second), "S")
    for path in (tmp_path / "r.request.json", tmp_path / "r.result.json"):
        first = first.replace(payload.literal(str(path)), "P")
    for path in (elsewhere / "a.json", elsewhere / "b.json"):
        second = second.replace(payload.literal(str(path)), "P")
    assert first == second, "only the paths may differ between two injections"
    assert code.isascii() and "'" not in code and len(code) <= payload.MAX_LENGTH
    compile(code, "<injected>", "exec")


def test_the_interrupted_thread_only_starts_a_thread_and_binds_no_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[tuple[Any, tuple[Any, ...]]] = []
    import _thread

    monkeypatch.setattr(_thread, "start_new_thread", lambda fn, args: started.append((fn, args)))
    namespace: dict[str, Any] = {"__builtins__": __builtins__}
    exec(code_for(tmp_path), namespace)  # as PyRun_SimpleString runs it, in the app's __main__
    assert set(namespace) == {"__builtins__"}, "the injected code bound a name in the app's __main__"
    assert len(started) == 1 and started[0][0] is exec
    stage2, globals_ = started[0][1]
    assert "from wpfprobe.apps.attach.bootstrap import start" in stage2
    assert globals_ == {"__name__": "__wpfprobe_attach__"}


def test_an_import_failure_in_the_app_is_answered_not_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import _thread

    runs: list[Any] = []
    monkeypatch.setattr(_thread, "start_new_thread", lambda fn, args: runs.append(args))
    exec(code_for(tmp_path), {"__builtins__": __builtins__})
    stage2, globals_ = runs[0]
    monkeypatch.setitem(sys.modules, "wpfprobe.apps.attach.bootstrap", None)  # importing it fails
    exec(stage2, dict(globals_))
    answer = json.loads((tmp_path / "r.result.json").read_text())
    assert answer["ok"] is False and answer["code"] == "ATTACH_REFUSED" and answer["stage"] == "import"
    assert capsys.readouterr() == ("", "")
    if not sys.platform.startswith("win"):
        assert (tmp_path / "r.result.json").stat().st_mode & 0o077 == 0


def test_a_path_that_cannot_be_written_into_the_code_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError):
        payload.injected_code(request=Path("relative.json"), result=tmp_path / "b", root=None)
    with pytest.raises(InvalidArgumentError):
        payload.literal("/tmp/\U0001f600")  # JSON writes it as a surrogate pair


def test_paths_with_quotes_and_other_letters_round_trip(tmp_path: Path) -> None:
    odd = tmp_path / 'it\'s "here" Zoë'
    import ast

    assert ast.literal_eval(payload.literal(str(odd))) == str(odd)
    code = payload.injected_code(request=odd / "a", result=odd / "b", root=odd)
    assert "'" not in code


# -- the request the app reads ------------------------------------------------------------------------


def request(tmp_path: Path, **changes: Any) -> Path:
    data = {
        "pid": os.getpid(), "tier": "interact", "name": "app", "deadline": time.time() + 30, "uiTimeout": 5.0,
        "sessionsDir": str(tmp_path / "sessions"), **changes,
    }  # fmt: skip
    path = tmp_path / "x.request.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
    return path


def test_a_good_request_is_read_once(tmp_path: Path) -> None:
    path = request(tmp_path)
    assert read_request(path)["tier"] == "interact"
    assert not path.exists()


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"pid": 1}, "another process"),
        ({"tier": "root"}, "tier"),
        ({"tier": "read\nimport os"}, "tier"),
        ({"name": 5}, "name"),
        ({"deadline": "soon"}, "deadline"),
        ({"sessionsDir": "relative"}, "sessions"),
    ],
)
def test_a_bad_request_is_refused(tmp_path: Path, changes: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        read_request(request(tmp_path, **changes))


@pytest.mark.skipif(sys.platform.startswith("win"), reason="file modes are POSIX")
def test_a_request_others_could_write_is_refused_and_deleted(tmp_path: Path) -> None:
    path = request(tmp_path)
    path.chmod(0o666)
    with pytest.raises(ValueError, match="not this user's, or others"):
        read_request(path)
    assert not path.exists()


# -- checks before anything is injected ------------------------------------------------------------------


@pytest.mark.parametrize(("scope", "cap", "refused"), [(0, False, False), (1, True, False), (1, False, True),
                                                     (2, False, True), (2, True, False), (3, True, True)])  # fmt: skip
def test_yama_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope: int, cap: bool, refused: bool) -> None:
    policy = tmp_path / "ptrace_scope"
    policy.write_text(f"{scope}\n")
    monkeypatch.setattr(attacher, "YAMA_SCOPE", policy)
    monkeypatch.setattr(attacher, "has_cap_sys_ptrace", lambda: cap)
    verdict = attacher.ptrace_refusal(1234)
    assert (verdict is not None) == refused
    if verdict is not None:
        assert verdict.code == "ATTACH_REFUSED" and "ptrace_scope" in verdict.suggestion


def test_no_yama_means_no_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attacher, "YAMA_SCOPE", tmp_path / "absent")
    assert attacher.ptrace_refusal(1234) is None


def test_a_pid_that_is_no_process_id_is_a_usage_error() -> None:
    for pid in (0, -3, True):
        with pytest.raises(InvalidArgumentError):
            attacher.check(pid)  # type: ignore[arg-type]


def test_a_gone_process_is_not_available() -> None:
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(30)
    with pytest.raises(AppNotAvailableError):
        attacher.check(proc.pid)


def test_wpfprobe_does_not_attach_to_itself() -> None:
    with pytest.raises(AttachRefusedError):
        attacher.check(os.getpid())


# -- what gdb answered ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("out", "err", "expected"),
    [
        ("WPFPROBE-INJECT ran 0 thread 12\n", "", "ran"),
        ("WPFPROBE-INJECT no-safe-thread\n", "", "no-safe-thread"),
        ("", "ptrace: Operation not permitted.\n", "ATTACH_REFUSED"),
        # gdb goes on without a process after a refused attach; the refusal wins.
        ("WPFPROBE-INJECT not-attached\n", "ptrace: Operation not permitted.\n", "ATTACH_REFUSED"),
        ("", "ptrace: No such process.\n", "APP_NOT_AVAILABLE"),
        ("WPFPROBE-INJECT no-python-symbols\n", "", "ATTACH_REFUSED"),
        ("WPFPROBE-INJECT unsupported-architecture riscv\n", "", "ATTACH_REFUSED"),
        ("something else\n", "", "INTERNAL"),
    ],
)
def test_gdb_outcomes(out: str, err: str, expected: str) -> None:
    if expected in ("ran", "no-safe-thread"):
        assert inject._gdb_outcome(5, out, err) == expected
        return
    with pytest.raises(ProbeError) as info:
        inject._gdb_outcome(5, out, err)
    assert info.value.code == expected


def test_the_gdb_script_compiles() -> None:
    compile(inject._GDB_SCRIPT, "<gdb script>", "exec")


def test_the_mechanism_per_platform_and_version(monkeypatch: pytest.MonkeyPatch) -> None:
    target = inject.Target(pid=5, python=(3, 14), exe="/usr/bin/python3.14")
    assert inject.choose(target, platform="linux").name == "remote_exec"
    assert inject.choose(target, platform="darwin").name == "remote_exec"
    older = inject.Target(pid=5, python=(3, 11), exe="/usr/bin/python3.11")
    monkeypatch.setattr(inject.shutil, "which", lambda name: "/usr/bin/gdb")
    assert inject.choose(older, platform="linux").name == "gdb"
    monkeypatch.setattr(inject.shutil, "which", lambda name: None)
    with pytest.raises(AttachRefusedError, match="needs gdb"):
        inject.choose(older, platform="linux")
    with pytest.raises(AttachRefusedError, match=r"3\.14"):
        inject.choose(older, platform="darwin")
    import importlib.util

    if importlib.util.find_spec("debugpy") is None:  # a dependency on Windows only
        with pytest.raises(AttachRefusedError, match="injector, which is not installed"):
            inject.choose(older, platform="win32")
    else:
        assert inject.choose(older, platform="win32").name == "debugpy"


# -- ps: what the mapped files say ------------------------------------------------------------------------


def facts(**changes: Any) -> processes.ProcessFacts:
    base = processes.ProcessFacts(
        pid=7, uid=0, name="python", exe="/usr/bin/python3.11", cmdline=("python", "app.py"), start_time=1.0,
        status="sleeping",
    )  # fmt: skip
    return processes._replace(base, **changes)


@pytest.mark.parametrize(
    ("files", "python", "runtime", "pythonnet"),
    [
        (["/usr/lib/libpython3.11.so.1.0", "/usr/lib/libmonosgen-2.0.so.1.0.0", "/x/Python.Runtime.dll"],
         "3.11", "mono", True),
        (["C:\\Python312\\python312.dll", "C:\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll",
          "C:\\app\\Python.Runtime.dll"], "3.12", "netfx", True),
        (["/usr/lib/libpython3.13.so", "/dotnet/shared/Microsoft.NETCore.App/8.0.1/libcoreclr.so"], "3.13",
         "coreclr", False),
        (["/usr/lib/x86_64-linux-gnu/libc.so.6"], "3.11", "", False),  # static python: its executable says
    ],
)  # fmt: skip
def test_mapped_files_say_what_runs(files: list[str], python: str, runtime: str, pythonnet: bool) -> None:
    found = processes._classify(facts(), files)
    assert (found.python, found.runtime, found.pythonnet) == (python, runtime, pythonnet)
    assert found.is_pythonnet_app == (pythonnet and bool(runtime))


def test_the_default_name_is_the_scripts() -> None:
    assert attacher.default_name(facts(cmdline=("python", "-u", "/srv/orders.py", "--x"))) == "orders"
    assert attacher.default_name(facts(cmdline=("myhost",), name="myhost")) == "myhost"


def test_find_pid_by_name_and_title(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [
        processes.ClrProcess(pid=1, name="python", cmdline=("python", "orders.py"), exe="", python="3.11",
                             runtime="mono", titles=("Orders - main",)),
        processes.ClrProcess(pid=2, name="python", cmdline=("python", "stock.py"), exe="", python="3.11",
                             runtime="mono", titles=("Stock",)),
    ]  # fmt: skip
    monkeypatch.setattr(attacher, "list_processes", lambda titles=True: rows)
    assert attacher.find_pid(name="orders") == 1
    assert attacher.find_pid(name="stock.py") == 2
    assert attacher.find_pid(title="^orders") == 1
    with pytest.raises(ProbeError) as info:
        attacher.find_pid(name="python")
    assert info.value.code == "APP_AMBIGUOUS"
    with pytest.raises(AppNotAvailableError):
        attacher.find_pid(title="nothing")
    with pytest.raises(InvalidArgumentError):
        attacher.find_pid(title="(")


def test_waiting_for_an_answer_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attacher, "_alive", lambda f: True)
    started = time.monotonic()
    assert attacher._await_answer(tmp_path / "none.json", facts(), time.monotonic() + 0.3) is None
    assert time.monotonic() - started < 5
    answer = tmp_path / "late.json"
    threading.Timer(0.2, lambda: answer.write_text('{"ok": true}')).start()
    assert attacher._await_answer(answer, facts(), time.monotonic() + 10) == {"ok": True}
