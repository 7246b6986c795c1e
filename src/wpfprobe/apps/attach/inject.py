"""How code gets into a running Python process: one mechanism per platform and Python version.

- Python 3.14 and later, any platform: ``sys.remote_exec`` (PEP 768), the
  interpreter's own, supported way. It needs an interpreter of the app's version
  on this side: ours if it is that, else the app's own executable. The code runs
  on the app's main thread at its next bytecode boundary, in its ``__main__``
  (which the injected code binds no name in).
- Linux, Python 3.10 to 3.13: the OS's debugger, gdb (Debian's ``gdb`` package),
  as memray and debugpy attach: gdb stops the process, calls
  ``PyGILState_Ensure``, ``PyRun_SimpleString`` and ``PyGILState_Release`` on one
  of its threads, and detaches. The thread is chosen (``_GDB_SCRIPT``) as parked
  in a waiting system call (futex, poll, sleep ...) and not holding the GIL, so
  the call cannot land inside malloc or the interpreter with a lock held (a
  running Python thread can be stopped anywhere); when no thread is parked at that
  moment gdb detaches and the attach tries again. Signals pass straight to the app
  (Mono suspends threads with them), and ``unwindonsignal`` unwinds a call that is
  interrupted.
- Windows, Python 3.10 to 3.13: debugpy's injector (a maintained PyPI package,
  what VS Code's attach-to-process uses): it injects its DLL and runs the code on
  a thread it creates in the app. Checked on paper: Windows does not run here.

Every mechanism runs the same fixed code (``payload``) and is bounded in time.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from wpfprobe.core.errors import AppNotAvailableError, AttachRefusedError, ProbeError

Mechanism = Literal["remote_exec", "gdb", "debugpy"]

GDB_JOB_VARIABLE = "WPFPROBE_GDB_JOB"
NO_SAFE_THREAD_RETRY = 0.25
"""Seconds before gdb looks again when no thread of the app was parked."""


class Injector(Protocol):
    name: Mechanism

    def inject(self, pid: int, code: str, *, work_dir: Path, deadline: float, stem: str) -> None:
        """Run ``code`` in ``pid`` (it only starts a thread); raise a ProbeError saying why not.
        Files of its own go in ``work_dir``, named from ``stem``; ``deadline`` is time.monotonic()."""
        ...


@dataclass(frozen=True)
class Target:
    """What the choice of mechanism depends on."""

    pid: int
    python: tuple[int, int]
    exe: str


def choose(target: Target, *, platform: str = sys.platform) -> Injector:
    """The mechanism for ``target``, or ATTACH_REFUSED saying what to install."""
    if target.python >= (3, 14):
        return RemoteExec(target)
    if platform.startswith("linux"):
        gdb = shutil.which("gdb")
        if gdb is None:
            raise AttachRefusedError(
                f"Attaching to Python {target.python[0]}.{target.python[1]} on Linux needs gdb, which is not installed.",
                suggestion="Install it (Debian/Ubuntu: apt-get install gdb), then attach again.",
                detail={"reason": "no-injector", "pid": target.pid},
            )
        return Gdb(gdb)
    if platform.startswith("win"):
        return Debugpy.find()
    raise AttachRefusedError(
        f"On {platform}, wpfprobe attaches to Python 3.14 and later only (sys.remote_exec); this app runs "
        f"Python {target.python[0]}.{target.python[1]}.",
        suggestion="Start the app under `wpfprobe run`, or call wpfprobe.start() in it.",
        detail={"reason": "no-injector", "pid": target.pid},
    )


def _remaining(deadline: float, at_most: float) -> float:
    return max(0.5, min(at_most, deadline - time.monotonic()))


def _private_file(path: Path, text: str) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def not_permitted(pid: int, how: str) -> AttachRefusedError:
    """Tracing ``pid`` was refused by the OS."""
    return AttachRefusedError(
        f"Tracing process {pid} is not permitted here ({how}).",
        suggestion="Run wpfprobe with the right to trace it: as root or with CAP_SYS_PTRACE (in a container: "
        "--cap-add=SYS_PTRACE), or allow tracing your own processes with `sysctl kernel.yama.ptrace_scope=0`; "
        "or start the app under `wpfprobe run` instead.",
        detail={"reason": "tracing-not-permitted", "pid": pid},
    )


# -- sys.remote_exec (3.14+) ---------------------------------------------------------------------

_REMOTE_EXEC_HELPER = "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])"


class RemoteExec:
    name: Mechanism = "remote_exec"

    def __init__(self, target: Target) -> None:
        self.target = target

    def inject(self, pid: int, code: str, *, work_dir: Path, deadline: float, stem: str) -> None:
        # The file is read when the app's main thread next runs bytecode, maybe after we gave
        # up: the injected code deletes it when it runs (payload's ``script``), not us.
        script = _private_file(work_dir / f"{stem}.py", code)
        try:
            # The two interpreters must agree on the layout of the runtime's structures (its
            # debug offsets): ours if it is the app's version, else the app's own executable.
            if sys.version_info[:2] == self.target.python:
                sys.remote_exec(pid, str(script))  # type: ignore[attr-defined,unused-ignore]
                return
            python = self.target.exe
            if not re.match(r"^python(3(\.\d+)?)?(\.exe)?$", os.path.basename(python).lower()):
                raise AttachRefusedError(
                    f"Python {self.target.python[0]}.{self.target.python[1]} is attached with sys.remote_exec, "
                    "from an interpreter of the same version; the app's executable is not one.",
                    suggestion=f"Run wpfprobe attach with Python {self.target.python[0]}.{self.target.python[1]}.",
                    detail={"reason": "no-injector", "pid": pid},
                )
            done = subprocess.run(
                [python, "-I", "-c", _REMOTE_EXEC_HELPER, str(pid), str(script)],
                capture_output=True, text=True, timeout=_remaining(deadline, 30), check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise _remote_exec_error(pid, done.stderr)
        except PermissionError:
            raise not_permitted(pid, "sys.remote_exec: permission denied") from None
        except ProcessLookupError:
            raise AppNotAvailableError(f"Process {pid} exited.", detail={"pid": pid}) from None
        except RuntimeError as exc:
            raise _remote_exec_error(pid, str(exc)) from None
        except subprocess.TimeoutExpired:
            raise AppNotAvailableError(f"sys.remote_exec did not return for process {pid}.") from None


def _remote_exec_error(pid: int, text: str) -> ProbeError:
    last = (text.strip().splitlines() or [""])[-1]
    if "PermissionError" in text or "Operation not permitted" in text:
        return not_permitted(pid, last)
    if "not enabled" in text or "disable" in text.lower():
        return AttachRefusedError(
            f"Remote debugging is switched off in process {pid} ({last}).",
            suggestion="Start the app without PYTHON_DISABLE_REMOTE_DEBUG or -X disable_remote_debug.",
            detail={"reason": "remote-debug-disabled", "pid": pid},
        )
    return ProbeError(f"sys.remote_exec failed for process {pid}: {last}", code="INTERNAL")


# -- gdb (Linux, 3.10-3.13) ---------------------------------------------------------------------

# Runs inside gdb's own Python, never in the app. It reads the job (the code to run) from
# the owner-only file named by WPFPROBE_GDB_JOB and prints one result line.
_GDB_SCRIPT = r"""
import json, os
import gdb

# Waiting system calls: a thread parked in one holds no lock the injected code needs.
WAITING = {
    "x86_64": (b"\x0f\x05", 2, "$orig_rax",
               {202, 7, 271, 23, 270, 232, 281, 441, 35, 230, 219, 61, 247, 43, 288, 45, 47, 0, 34, 128, 130}),
    "aarch64": (b"\x01\x00\x00\xd4", 4, "$x8", {98, 73, 72, 22, 441, 101, 115, 128, 260, 95, 202, 242, 207, 212, 63, 137, 133}),
}


def say(*words):
    print("WPFPROBE-INJECT", *words, flush=True)


def arch():
    name = gdb.selected_frame().architecture().name()
    return "aarch64" if "aarch64" in name else "x86_64" if "x86-64" in name else name


def parked(inferior, table):
    marker, back, register, numbers = table
    try:
        pc = int(gdb.parse_and_eval("$pc"))
        if bytes(inferior.read_memory(pc - back, back)) != marker:
            return False
        return int(gdb.parse_and_eval(register)) in numbers
    except gdb.error:
        return False


def main():
    if gdb.selected_inferior().pid == 0:
        say("not-attached")
        return
    with open(os.environ["WPFPROBE_GDB_JOB"], encoding="utf-8") as fh:
        job = json.load(fh)
    for command in ("set pagination off", "set confirm off", "set scheduler-locking off",
                    "set unwindonsignal on", "handle all nostop noprint pass"):
        gdb.execute(command, to_string=True)
    for library in ("libc.so", "libpython"):
        try:
            gdb.execute("sharedlibrary " + library, to_string=True)
        except gdb.error:
            pass
    try:
        gdb.parse_and_eval("PyGILState_Ensure")
        gdb.parse_and_eval("PyRun_SimpleString")
    except gdb.error:
        say("no-python-symbols")
        return
    table = WAITING.get(arch())
    if table is None:
        say("unsupported-architecture", arch())
        return
    inferior = gdb.selected_inferior()
    pid = inferior.pid
    # The main thread first, then the others, as gdb lists them.
    threads = sorted(inferior.threads(), key=lambda t: t.ptid[1] != pid)
    for thread in threads:
        thread.switch()
        if not parked(inferior, table):
            continue
        try:
            if int(gdb.parse_and_eval("(int)PyGILState_Check()")) != 0:
                continue
        except gdb.error:
            continue
        literal = json.dumps(job["code"])
        state = int(gdb.parse_and_eval("(int)PyGILState_Ensure()"))
        try:
            result = int(gdb.parse_and_eval("(int)PyRun_SimpleString(%s)" % literal))
        finally:
            gdb.parse_and_eval("(void)PyGILState_Release(%d)" % state)
        say("ran", result, "thread", thread.ptid[1])
        return
    say("no-safe-thread")


try:
    main()
except gdb.error as exc:
    say("gdb-error", " ".join(str(exc).split()))
"""


class Gdb:
    name: Mechanism = "gdb"

    def __init__(self, gdb: str) -> None:
        self.gdb = gdb

    def inject(self, pid: int, code: str, *, work_dir: Path, deadline: float, stem: str) -> None:
        script = _private_file(work_dir / f"{stem}.gdb.py", _GDB_SCRIPT)
        job = _private_file(work_dir / f"{stem}.gdb.json", json.dumps({"code": code}))
        try:
            while True:
                outcome = self._run_once(pid, script, job, deadline)
                if outcome != "no-safe-thread":
                    return
                if time.monotonic() + NO_SAFE_THREAD_RETRY >= deadline:
                    raise AppNotAvailableError(
                        f"No thread of process {pid} was idle long enough to enter it safely (every try found "
                        "each thread running or holding Python's lock).",
                        suggestion="Attach again in a moment.",
                        detail={"pid": pid, "reason": "busy"},
                    )
                time.sleep(NO_SAFE_THREAD_RETRY)
        finally:
            for path in (script, job):
                with contextlib.suppress(OSError):
                    path.unlink()

    def _run_once(self, pid: int, script: Path, job: Path, deadline: float) -> str:
        argv = [
            self.gdb, "-nx", "-batch", "-iex", "set auto-load off", "-iex", "set auto-solib-add off",
            "-iex", "set debuginfod enabled off", "-p", str(pid), "-x", str(script),
        ]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env[GDB_JOB_VARIABLE] = str(job)
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            start_new_session=True,
        )  # fmt: skip
        try:
            out, err = proc.communicate(timeout=_remaining(deadline, 30))
        except subprocess.TimeoutExpired:
            out, err = _interrupt(proc)
            raise AppNotAvailableError(
                f"gdb did not finish entering process {pid} in time (a thread of the app held Python's lock "
                "throughout); it was interrupted and the call unwound.",
                suggestion="Attach again once the app responds.",
                detail={"pid": pid, "reason": "timeout", "gdb": _tail(out + err)},
            ) from None
        return _gdb_outcome(pid, out, err)


def _interrupt(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGINT first: gdb stops the app and unwinds the call it made (unwindonsignal); then kill."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate(timeout=5)


def _tail(text: str, lines: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _gdb_outcome(pid: int, out: str, err: str) -> str:
    marks = [line.split()[1:] for line in out.splitlines() if line.startswith("WPFPROBE-INJECT ")]
    if marks and marks[-1][:1] == ["ran"]:
        return "ran"
    if marks and marks[-1][:1] == ["no-safe-thread"]:
        return "no-safe-thread"
    text = out + err
    if "ptrace: Operation not permitted" in text or "Could not attach to process" in text:
        raise not_permitted(pid, "ptrace: Operation not permitted")
    if "ptrace: No such process" in text or (marks and marks[-1][:1] == ["not-attached"]):
        raise AppNotAvailableError(f"Process {pid} exited.", detail={"pid": pid, "reason": "gone"})
    if marks and marks[-1][:1] == ["no-python-symbols"]:
        raise AttachRefusedError(
            f"gdb found no Python C API (PyGILState_Ensure, PyRun_SimpleString) in process {pid}.",
            suggestion="Use a Python built with its symbols exported (every python.org, distribution and pyenv "
            "build is), or start the app under `wpfprobe run`.",
            detail={"reason": "no-python-symbols", "pid": pid},
        )
    if marks and marks[-1][:1] == ["unsupported-architecture"]:
        raise AttachRefusedError(
            f"wpfprobe attach with gdb supports x86-64 and AArch64, not {' '.join(marks[-1][1:])}.",
            suggestion="Start the app under `wpfprobe run` instead.",
            detail={"reason": "unsupported-architecture", "pid": pid},
        )
    raise ProbeError(
        f"gdb could not enter process {pid}.",
        code="INTERNAL",
        suggestion="Run `gdb -p PID` yourself to see why, or start the app under `wpfprobe run`.",
        detail={"pid": pid, "gdb": _tail(text)},
    )


# -- debugpy (Windows, 3.10-3.13) ----------------------------------------------------------------


class Debugpy:  # pragma: no cover - Windows only; checked on paper and in the Windows workflow
    name: Mechanism = "debugpy"

    def __init__(self, script: Path) -> None:
        self.script = script

    @classmethod
    def find(cls) -> Debugpy:
        import importlib.util  # noqa: PLC0415

        spec = importlib.util.find_spec("debugpy")
        if spec is None or spec.origin is None:
            raise AttachRefusedError(
                "Attaching on Windows to Python 3.13 and earlier uses debugpy's injector, which is not installed.",
                suggestion="pip install debugpy (into the environment that runs wpfprobe), then attach again.",
                detail={"reason": "no-injector"},
            )
        script = (
            Path(spec.origin).parent
            / "_vendored"
            / "pydevd"
            / "pydevd_attach_to_process"
            / "add_code_to_python_process.py"
        )
        if not script.is_file():
            raise AttachRefusedError(
                f"This debugpy has no injector at {script}.",
                suggestion="pip install --upgrade debugpy",
                detail={"reason": "no-injector"},
            )
        return cls(script)

    def inject(self, pid: int, code: str, *, work_dir: Path, deadline: float, stem: str) -> None:
        # Its script takes the pid and the code; it injects its DLL, which runs the code with the GIL on a
        # thread it creates in the app, and waits (15 s at most) for the code to have run.
        try:
            done = subprocess.run(
                [sys.executable, "-I", str(self.script), str(pid), code],
                capture_output=True, text=True, timeout=_remaining(deadline, 40), check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise AppNotAvailableError(f"debugpy's injector did not finish with process {pid}.") from None
        if done.returncode != 0:
            text = done.stdout + done.stderr
            if "Access is denied" in text or "error 5" in text.lower():
                raise not_permitted(pid, "OpenProcess: access denied")
            raise ProbeError(
                f"debugpy's injector could not enter process {pid}.",
                code="INTERNAL",
                detail={"pid": pid, "injector": _tail(text)},
            )
