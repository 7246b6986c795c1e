"""``wpfprobe attach`` and ``detach``: the checks, the request, the answer (SPEC section 10).

Before anything is injected the process is checked from outside, and refused with
the reason and its fix: another user's process, one that is gone or stopped
(APP_NOT_AVAILABLE: a stopped process cannot run the injected thread, and gdb
would resume it), not a pythonnet app, already traced by a debugger, or one the OS
will not let us trace (Yama's ``kernel.yama.ptrace_scope``, a missing
CAP_SYS_PTRACE). A process that already has a probe answers with that probe's app
id without being entered.

Then the request (tier, name, where to put the manifest, a deadline) is written
owner-only in the attach directory, the fixed code is injected (``inject``), and
the answer is awaited in a result file the app writes owner-only. Every wait is
bounded; a failure deletes the request, so an injected thread that runs late finds
nothing to serve. The token is made inside the app and leaves it only through its
manifest, as for every probe.

``detach`` posts to the attached probe's own ``/wpfprobe/detach`` route with the
manifest's token, and waits until the manifest is gone and the port closed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from wpfprobe.apps.attach import inject as _inject
from wpfprobe.apps.attach.bootstrap import DETACH_PATH
from wpfprobe.apps.attach.payload import injected_code
from wpfprobe.apps.attach.processes import ClrProcess, ProcessFacts, current_uid, list_processes, read_facts
from wpfprobe.core.errors import (
    AppNotAvailableError,
    AttachRefusedError,
    ErrorCode,
    InvalidArgumentError,
    ProbeError,
)
from wpfprobe.core.paths import sessions_dir, write_private_json
from wpfprobe.engine.engine import Tier
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.tools import check_tier

ATTACH_TIMEOUT = 45.0
"""Seconds an attach may take in all: entering the process, importing wpfprobe there, starting the server."""
DETACH_TIMEOUT = 20.0
UI_TIMEOUT = 5.0
MIN_PYTHON = (3, 10)
YAMA_SCOPE = Path("/proc/sys/kernel/yama/ptrace_scope")
"""Read for Yama's ptrace policy (absent where the kernel has no Yama, as on this project's machines)."""
_CAP_SYS_PTRACE = 19
_POLL = 0.05
_SWEEP_AGE = 24 * 3600.0


@dataclass(frozen=True)
class Attached:
    """A probe inside a running app, after ``attach``."""

    app_id: str
    pid: int
    tier: str
    url: str
    already: bool
    """True when the probe was already there (attach is idempotent)."""
    mechanism: str | None
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "appId": self.app_id,
            "pid": self.pid,
            "tier": self.tier,
            "url": self.url,
            "already": self.already,
            "mechanism": self.mechanism,
            "warnings": list(self.warnings),
        }


def attach_dir() -> Path:
    """Where requests and answers pass (owner-only), beside the sessions directory."""
    directory = sessions_dir().parent / "attach"
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not sys.platform.startswith("win"):
        os.chmod(directory, 0o700)
    return directory


# -- checks -------------------------------------------------------------------------------------


def check(pid: int) -> ProcessFacts:
    """The process's facts if it may be attached to; else the error that says why not."""
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        raise InvalidArgumentError(f"{pid!r} is not a process id.", suggestion="Pass a pid from `wpfprobe ps`.")
    if pid == os.getpid():
        raise AttachRefusedError("wpfprobe does not attach to itself.", detail={"reason": "self", "pid": pid})
    try:
        facts = read_facts(pid)
    except psutil.NoSuchProcess:
        raise _gone(pid) from None
    if not _ours(facts):
        owner = f"uid {facts.uid}" if facts.uid is not None else (facts.user or "an owner this user may not read")
        raise AttachRefusedError(
            f"Process {pid} belongs to another user ({owner}); wpfprobe attaches only to your own processes.",
            suggestion="Run wpfprobe attach as the user who runs the app (e.g. sudo -u THAT_USER wpfprobe attach "
            f"{pid}): its probe serves that user.",
            detail={"reason": "another-user", "pid": pid, "uid": facts.uid},
        )
    if facts.status == psutil.STATUS_ZOMBIE:
        raise _gone(pid)
    if facts.stopped:
        raise AppNotAvailableError(
            f"Process {pid} is stopped ({facts.status}): it cannot run the probe until it is continued.",
            suggestion=f"Continue it (kill -CONT {pid}, or `fg` in its shell), then attach again.",
            detail={"reason": "stopped", "pid": pid},
        )
    if not facts.maps_readable:
        raise _inject.not_permitted(pid, f"/proc/{pid}/maps cannot be read")
    if not facts.python:
        raise AttachRefusedError(
            f"Process {pid} ({facts.name}) is not a Python process, so not a pythonnet app.",
            suggestion="Pick a pid that `wpfprobe ps` lists.",
            detail={"reason": "not-pythonnet", "pid": pid},
        )
    if not facts.is_pythonnet_app:
        missing = "a CLR" if not facts.runtime else "pythonnet (Python.Runtime.dll)"
        raise AttachRefusedError(
            f"Process {pid} ({facts.name}) runs Python {facts.python} but has not loaded {missing}: "
            "it is not a pythonnet app (yet).",
            suggestion="Pick a pid that `wpfprobe ps` lists; an app that loads the CLR later can be attached then.",
            detail={"reason": "not-pythonnet", "pid": pid, "python": facts.python, "runtime": facts.runtime},
        )
    if facts.python_tuple < MIN_PYTHON:
        raise AttachRefusedError(
            f"Process {pid} runs Python {facts.python}; wpfprobe needs 3.10 or later.",
            detail={"reason": "python-version", "pid": pid, "python": facts.python},
        )
    tracer = _tracer_of(pid)
    if tracer:
        raise AttachRefusedError(
            f"Process {pid} is being traced by process {tracer} (a debugger); only one tracer at a time.",
            suggestion="Detach that debugger, then attach again.",
            detail={"reason": "traced", "pid": pid, "tracer": tracer},
        )
    return facts


def _ours(facts: ProcessFacts) -> bool:
    me = current_uid()
    if me is not None and facts.uid is not None:
        return facts.uid == me
    from wpfprobe.apps.attach.processes import _current_user  # noqa: PLC0415 - Windows: owners by name

    return facts.user is not None and facts.user == _current_user()


def _gone(pid: int) -> AppNotAvailableError:
    return AppNotAvailableError(
        f"No process {pid} is running.",
        suggestion="List the pythonnet apps with `wpfprobe ps`.",
        detail={"reason": "gone", "pid": pid},
    )


def _tracer_of(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("TracerPid:"):
                return int(line.split()[1])
    return 0


def ptrace_refusal(pid: int) -> AttachRefusedError | None:
    """Yama's verdict on tracing ``pid`` from here, before anything is tried (None: allowed)."""
    try:
        scope = int(YAMA_SCOPE.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None  # no Yama: the classic rules (same user, dumpable) apply, and gdb reports them
    if scope <= 0:
        return None
    if scope >= 3:
        why = "kernel.yama.ptrace_scope=3 forbids tracing any process until the next reboot"
    elif has_cap_sys_ptrace():
        return None
    elif scope == 2:
        why = "kernel.yama.ptrace_scope=2 lets only administrators (CAP_SYS_PTRACE) trace"
    else:
        why = "kernel.yama.ptrace_scope=1 lets a process trace only its own descendants"
    return _inject.not_permitted(pid, why)


def has_cap_sys_ptrace() -> bool:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_PTRACE & 1)
    return False


def probe_in(pid: int, start_time: float | None = None) -> _manifest.Manifest | None:
    """The live probe inside ``pid``, from its manifest."""
    for m in _manifest.read_all():
        if m.pid == pid and (start_time is None or abs(m.process_start_time - start_time) <= 0.05):
            return m
    return None


# -- attach -------------------------------------------------------------------------------------


def attach(
    pid: int,
    *,
    allow: Tier = "read",
    name: str | None = None,
    timeout: float = ATTACH_TIMEOUT,
    ui_timeout: float = UI_TIMEOUT,
) -> Attached:
    """Start the probe's server inside the running app ``pid``; idempotent.

    Raises ATTACH_REFUSED (another user's, not a pythonnet app, tracing not permitted),
    APP_NOT_AVAILABLE (gone, stopped, its UI thread not answering, no answer in time),
    INVALID_ARGUMENT for a bad tier or name.
    """
    tier = check_tier(allow)
    if name is not None and (not isinstance(name, str) or not 0 < len(name) <= 200):
        raise InvalidArgumentError("name must be 1 to 200 characters.", suggestion="Pass a short name, or none.")
    facts = check(pid)
    existing = probe_in(pid, facts.start_time)
    if existing is not None:
        return Attached(existing.app_id, pid, existing.tier, existing.url, already=True, mechanism=None)
    refusal = ptrace_refusal(pid)
    if refusal is not None:
        raise refusal
    injector = _inject.choose(_inject.Target(pid=pid, python=facts.python_tuple, exe=facts.exe))
    work = attach_dir()
    _sweep(work)
    stem = f"{pid}-{os.urandom(8).hex()}"
    request, result = work / f"{stem}.request.json", work / f"{stem}.result.json"
    started = time.monotonic()
    deadline = started + timeout
    write_private_json(
        request,
        {
            "schemaVersion": 1,
            "pid": pid,
            "tier": tier,
            "name": name or default_name(facts),
            "sessionsDir": str(sessions_dir()),
            # The app stops serving this request 2 s before we stop waiting for its answer.
            "deadline": time.time() + timeout - 2.0,
            "uiTimeout": float(ui_timeout),
        },
    )
    try:
        script = work / f"{stem}.py" if injector.name == "remote_exec" else None
        code = injected_code(request=request, result=result, root=_package_root(facts), script=script)
        injector.inject(pid, code, work_dir=work, deadline=deadline, stem=stem)
        answer = _await_answer(result, facts, deadline)
    finally:
        for path in (request, result):
            with contextlib.suppress(OSError):
                path.unlink()
    if answer is None:
        raise AppNotAvailableError(
            f"Process {pid} did not answer within {timeout:g} s of being entered.",
            suggestion="If its main thread runs no Python (sys.remote_exec waits for it), interact with the app "
            "and attach again; check that wpfprobe is installed for the app's Python "
            f"{facts.python}.",
            detail={"reason": "no-answer", "pid": pid, "mechanism": injector.name},
        )
    if not answer.get("ok"):
        code_name: ErrorCode = answer.get("code") or "INTERNAL"
        kind = {"ATTACH_REFUSED": AttachRefusedError, "APP_NOT_AVAILABLE": AppNotAvailableError}.get(
            code_name, ProbeError
        )
        raise kind(
            str(answer.get("message") or "The probe could not start in the app."),
            code=code_name,
            suggestion=str(answer.get("suggestion") or ""),
            detail={
                "pid": pid,
                "mechanism": injector.name,
                **{k: answer[k] for k in ("cause", "reason") if k in answer},
            },
        )
    return Attached(
        app_id=str(answer["appId"]), pid=pid, tier=str(answer["tier"]), url=str(answer.get("url") or ""),
        already=bool(answer.get("already")), mechanism=injector.name,
        warnings=tuple(str(w) for w in answer.get("warnings") or ()),
    )  # fmt: skip


def default_name(facts: ProcessFacts | ClrProcess) -> str:
    """The app's name as `wpfprobe run` would give it: its script's stem, else the process name."""
    for arg in facts.cmdline[1:]:
        if arg.lower().endswith((".py", ".pyw")) and not arg.startswith("-"):
            return Path(arg.replace("\\", "/")).stem[:200] or facts.name
    return facts.name or "app"


def _package_root(facts: ProcessFacts) -> Path | None:
    """Where this wpfprobe is installed: the app may import it from there when its own
    environment lacks it, if it runs the same Python version (compiled dependencies)."""
    if facts.python_tuple != sys.version_info[:2]:
        return None
    return Path(__file__).resolve().parents[3]  # .../wpfprobe/apps/attach/attacher.py -> the dir holding wpfprobe


def _await_answer(result: Path, facts: ProcessFacts, deadline: float) -> dict[str, Any] | None:
    while time.monotonic() < deadline:
        try:
            data = json.loads(result.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = None
        except (OSError, ValueError):
            data = None  # being written (the app writes it aside and renames it; a stage-2 error may not)
        if isinstance(data, dict):
            return data
        if not _alive(facts):
            raise AppNotAvailableError(
                f"Process {facts.pid} exited while the probe was starting in it.",
                detail={"reason": "gone", "pid": facts.pid},
            )
        time.sleep(_POLL)
    return None


def _alive(facts: ProcessFacts) -> bool:
    started = _manifest.process_start_time(facts.pid)
    return started is not None and abs(started - facts.start_time) <= 0.05


def _sweep(directory: Path) -> None:
    """Files an attach that was killed left behind (and remote_exec scripts never run)."""
    cutoff = time.time() - _SWEEP_AGE
    with contextlib.suppress(OSError):
        for path in directory.iterdir():
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < cutoff:
                    path.unlink()


# -- choosing a process ---------------------------------------------------------------------------


def find_pid(*, name: str | None = None, title: str | None = None) -> int:
    """The one pythonnet app (``wpfprobe ps``) whose process or script is ``name``, or whose
    window title matches ``title`` (a regular expression, case-insensitive)."""
    rows = list_processes(titles=title is not None)
    if title is not None:
        try:
            regex = re.compile(title, re.IGNORECASE)
        except re.error as exc:
            raise InvalidArgumentError(f"--title {title!r} is not a valid regular expression ({exc}).") from None
        found = [r for r in rows if any(regex.search(t) for t in r.titles)]
        what = f"a window title matching {title!r}"
    elif name:
        wanted = name.lower().removesuffix(".py").removesuffix(".exe")
        found = [r for r in rows if wanted in _names_of(r)]
        what = f"the name {name!r}"
    else:
        raise InvalidArgumentError("Give a pid, --name NAME or --title REGEX.")
    if len(found) == 1:
        return found[0].pid
    listed = [{"pid": r.pid, "name": default_name(r), "windows": list(r.titles)} for r in (found or rows)]
    if not found:
        raise AppNotAvailableError(
            f"No running pythonnet app has {what}.",
            suggestion="List them with `wpfprobe ps`, then attach by pid.",
            detail={"processes": listed},
        )
    raise ProbeError(
        f"{len(found)} pythonnet apps have {what}: " + ", ".join(f"pid {r['pid']} ({r['name']})" for r in listed),
        code="APP_AMBIGUOUS",
        suggestion="Attach by pid.",
        detail={"processes": listed},
    )


def attach_running(
    *,
    name: str | None = None,
    title: str | None = None,
    allow: Tier = "read",
    app_name: str | None = None,
    timeout: float = ATTACH_TIMEOUT,
) -> Attached:
    """Attach to the one running app ``name`` or ``title`` names (a profile's ``attach``)."""
    return attach(find_pid(name=name, title=title), allow=allow, name=app_name, timeout=timeout)


def _names_of(row: ClrProcess) -> set[str]:
    names = {row.name.lower().removesuffix(".exe"), default_name(row).lower()}
    if row.exe:
        names.add(Path(row.exe.replace("\\", "/")).name.lower().removesuffix(".exe"))
    return names


# -- detach -------------------------------------------------------------------------------------


def detach(pid: int, *, timeout: float = DETACH_TIMEOUT) -> str:
    """Stop the probe ``wpfprobe attach`` started in ``pid``; returns its app id once the
    manifest is gone and the port closed. The app runs on as before."""
    from wpfprobe.mcp.client import owns_port  # noqa: PLC0415

    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        raise InvalidArgumentError(f"{pid!r} is not a process id.")
    manifest = probe_in(pid)
    if manifest is None:
        raise AppNotAvailableError(
            f"No probe is running in process {pid}.",
            suggestion="`wpfprobe ls` lists the probes; `wpfprobe ps` the apps you can attach to.",
            detail={"reason": "no-probe", "pid": pid},
        )
    if owns_port(manifest) is False:  # never send the token to a port the process does not own
        raise AppNotAvailableError(f"Process {pid} does not serve the url in its manifest.", detail={"pid": pid})
    base = manifest.url.rsplit("/mcp", 1)[0]
    request = urllib.request.Request(
        base + DETACH_PATH, data=b"", method="POST", headers={"Authorization": f"Bearer {manifest.token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=min(timeout, 10.0)):
            pass
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise InvalidArgumentError(
                f"The probe in process {pid} ({manifest.app_id}) was started by the app itself (wpfprobe.start "
                "or wpfprobe run), not by wpfprobe attach: detach only undoes an attach.",
                suggestion="Stop the app, or call stop() on its handle in the app.",
                detail={"reason": "not-attached", "pid": pid, "appId": manifest.app_id},
            ) from None
        raise ProbeError(f"The probe in process {pid} refused to detach (HTTP {exc.code}).", code="INTERNAL") from None
    except (urllib.error.URLError, OSError) as exc:
        raise AppNotAvailableError(f"The probe in process {pid} did not answer ({exc}).", detail={"pid": pid}) from None
    deadline = time.monotonic() + timeout
    path = _manifest_path(manifest)
    while time.monotonic() < deadline:
        if not path.exists() and owns_port(manifest) is not True:
            return manifest.app_id
        time.sleep(_POLL)
    raise ProbeError(
        f"The probe in process {pid} did not stop within {timeout:g} s.",
        code="OPERATION_TIMED_OUT",
        suggestion="Try wpfprobe detach again.",
        detail={"pid": pid, "appId": manifest.app_id},
    )


def _manifest_path(manifest: _manifest.Manifest) -> Path:
    return sessions_dir() / f"{manifest.app_id}.json"
