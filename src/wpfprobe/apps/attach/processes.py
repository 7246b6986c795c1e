"""This user's pythonnet apps, read from outside (``wpfprobe ps``): nothing is injected.

A process is a pythonnet app when it has mapped a Python runtime (``libpython3.X``,
``python3X.dll``, or an executable named ``python3.X``), a CLR (Mono's
``libmonosgen-2.0``, CoreCLR's ``libcoreclr``/``coreclr.dll``, the .NET Framework's
``clr.dll``) and pythonnet's ``Python.Runtime.dll``. On Linux the mapped files are
read from ``/proc/PID/maps``; elsewhere from psutil's memory maps. Reading them needs
the same permission as tracing the process (PTRACE_MODE_READ), so a process whose
maps cannot be read is reported as such, not as "not a pythonnet app".

Window titles are read from the window system: on X11 every viewable top-level
window (and those one level down, under a window manager's frames) is matched to
its process through the X-Resource extension, since Mono's WinForms windows carry
no ``_NET_WM_PID`` (python-xlib; without it, or without a display, titles are empty);
on Windows through ``EnumWindows``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import psutil

log = logging.getLogger("wpfprobe.attach")

Runtime = Literal["mono", "coreclr", "netfx", ""]

# Basenames (lower case) of the files each CLR maps; a prefix match, so versions may follow.
_RUNTIME_FILES: tuple[tuple[str, Runtime], ...] = (
    ("libmonosgen-2.0", "mono"),
    ("libmono-2.0", "mono"),
    ("mono-2.0-sgen.dll", "mono"),
    ("libcoreclr.", "coreclr"),
    ("coreclr.dll", "coreclr"),
    ("clr.dll", "netfx"),
)
_PYTHONNET_FILE = "python.runtime.dll"
_LIBPYTHON = re.compile(r"^libpython(\d+)\.(\d+)")
_PYTHON_DLL = re.compile(r"^python(\d)(\d+)\.dll$")
_PYTHON_EXE = re.compile(r"^python(\d+)\.(\d+)(\.exe)?$")


class MapsUnreadableError(PermissionError):
    """The process's mapped files cannot be read: tracing it is not permitted."""


@dataclass(frozen=True)
class ProcessFacts:
    """What can be read of one process from outside."""

    pid: int
    uid: int | None
    """The real uid (POSIX); None on Windows, where ``user`` says whose it is."""
    name: str
    exe: str
    cmdline: tuple[str, ...]
    start_time: float
    status: str
    python: str = ""
    """``3.11``; empty when the process has no Python runtime we recognise."""
    runtime: Runtime = ""
    pythonnet: bool = False
    maps_readable: bool = True
    user: str | None = None
    """The owner's name where the OS tells it (None: unreadable, e.g. another user's on Windows)."""

    @property
    def is_pythonnet_app(self) -> bool:
        return bool(self.python and self.runtime and self.pythonnet)

    @property
    def stopped(self) -> bool:
        return self.status in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)

    @property
    def python_tuple(self) -> tuple[int, int]:
        major, _, minor = self.python.partition(".")
        return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else (0, 0)


@dataclass(frozen=True)
class ClrProcess:
    """One row of ``wpfprobe ps``."""

    pid: int
    name: str
    cmdline: tuple[str, ...]
    exe: str
    python: str
    runtime: Runtime
    titles: tuple[str, ...] = ()
    app_id: str | None = None
    """The probe already inside (from its manifest), else None."""
    tier: str | None = None
    state: str = "running"
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "name": self.name,
            "cmdline": list(self.cmdline),
            "exe": self.exe,
            "python": self.python,
            "runtime": self.runtime,
            "windows": list(self.titles),
            "probe": self.app_id,
            "tier": self.tier,
            "state": self.state,
        }


def current_uid() -> int | None:
    getuid = getattr(os, "getuid", None)
    return int(getuid()) if getuid is not None else None


def read_facts(pid: int) -> ProcessFacts:
    """Facts of ``pid``; raises psutil.NoSuchProcess when it is gone."""
    proc = psutil.Process(pid)
    with proc.oneshot():
        uid = _uid(proc)
        name = _safe(proc.name, "")
        exe = _safe(proc.exe, "")
        cmdline = tuple(_safe(proc.cmdline, []))
        start = float(proc.create_time())
        status = str(_safe(proc.status, "unknown"))
        user = _safe(proc.username, None)
    facts = ProcessFacts(
        pid=pid, uid=uid, name=name, exe=exe, cmdline=cmdline, start_time=start, status=status, user=user
    )
    try:
        files = mapped_files(pid)
    except (MapsUnreadableError, psutil.AccessDenied):
        return _replace(facts, maps_readable=False, python=_python_of_exe(exe))
    except (psutil.NoSuchProcess, ProcessLookupError, FileNotFoundError):
        raise psutil.NoSuchProcess(pid) from None
    except OSError:
        return _replace(facts, maps_readable=False, python=_python_of_exe(exe))
    return _classify(facts, files)


def _replace(facts: ProcessFacts, **changes: Any) -> ProcessFacts:
    import dataclasses  # noqa: PLC0415

    return dataclasses.replace(facts, **changes)


def _safe(getter: Any, default: Any) -> Any:
    try:
        return getter()
    except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
        return default


def _uid(proc: psutil.Process) -> int | None:
    uids = getattr(proc, "uids", None)
    if uids is None:  # Windows: the owner is a user name, compared by the caller
        return None
    try:
        return int(uids().real)
    except (psutil.AccessDenied, psutil.ZombieProcess):
        return None


def mapped_files(pid: int) -> list[str]:
    """Paths of the files ``pid`` has mapped (shared libraries, assemblies)."""
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except PermissionError:
            raise MapsUnreadableError(pid) from None
        paths = {line.split(None, 5)[5] for line in text.splitlines() if line.count(" ") >= 5 and "/" in line}
        return sorted(p.strip() for p in paths)
    try:
        return sorted({m.path for m in psutil.Process(pid).memory_maps(grouped=True)})
    except psutil.AccessDenied:
        raise MapsUnreadableError(pid) from None


def _classify(facts: ProcessFacts, files: Iterable[str]) -> ProcessFacts:
    python = ""
    runtime: Runtime = ""
    pythonnet = False
    for path in files:
        base = os.path.basename(path.replace("\\", "/")).lower()
        if base.endswith(" (deleted)"):
            base = base[: -len(" (deleted)")]
        if base == _PYTHONNET_FILE:
            pythonnet = True
            continue
        if not runtime:
            for prefix, kind in _RUNTIME_FILES:
                if base.startswith(prefix):
                    runtime = kind
                    break
        if not python:
            found = _LIBPYTHON.match(base) or _PYTHON_DLL.match(base)
            if found:
                python = f"{found.group(1)}.{found.group(2)}"
    return _replace(facts, python=python or _python_of_exe(facts.exe), runtime=runtime, pythonnet=pythonnet)


def _python_of_exe(exe: str) -> str:
    """A statically linked Python (no libpython) is known by its executable's name."""
    found = _PYTHON_EXE.match(os.path.basename(exe.replace("\\", "/")).lower())
    return f"{found.group(1)}.{found.group(2)}" if found else ""


def list_processes(*, titles: bool = True) -> list[ClrProcess]:
    """This user's pythonnet apps, oldest first; with the probe already inside each, if any."""
    from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

    me = os.getpid()
    uid = current_uid()
    user = _current_user()
    probes = {m.pid: m for m in _manifest.read_all()}
    found: list[ProcessFacts] = []
    for proc in psutil.process_iter(["pid", "uids", "username", "name"]):
        try:
            if proc.pid == me or not _same_user(proc, uid, user) or not _may_be_python(proc):
                continue
            facts = read_facts(proc.pid)
        except (psutil.Error, OSError):
            continue
        if facts.is_pythonnet_app:
            found.append(facts)
    found.sort(key=lambda f: (f.start_time, f.pid))
    by_pid = window_titles({f.pid for f in found}) if titles and found else {}
    rows = []
    for f in found:
        probe = probes.get(f.pid)
        rows.append(
            ClrProcess(
                pid=f.pid, name=f.name, cmdline=f.cmdline, exe=f.exe, python=f.python, runtime=f.runtime,
                titles=tuple(by_pid.get(f.pid, ())), app_id=probe.app_id if probe else None,
                tier=probe.tier if probe else None, state="stopped" if f.stopped else "running",
            )
        )  # fmt: skip
    return rows


def _may_be_python(proc: psutil.Process) -> bool:
    """On Windows, reading a process's memory maps walks its whole address space: only
    processes named like a Python interpreter are read (an app embedding Python in a host
    of another name is attached to by pid). Elsewhere /proc is cheap: every process is read."""
    if not sys.platform.startswith("win"):
        return True
    name = str((getattr(proc, "info", {}) or {}).get("name") or "").lower()
    return name.startswith(("python", "pythonw", "py.exe"))


def _current_user() -> str | None:
    with contextlib.suppress(psutil.Error, OSError, KeyError):
        return str(psutil.Process(os.getpid()).username())
    return None


def _same_user(proc: psutil.Process, uid: int | None, user: str | None) -> bool:
    info = getattr(proc, "info", {}) or {}
    uids = info.get("uids")
    if uid is not None and uids is not None:
        return int(uids.real) == uid
    return user is not None and info.get("username") == user


# -- window titles ----------------------------------------------------------------------------


def window_titles(pids: set[int]) -> dict[int, list[str]]:
    """Titles of the viewable top-level windows of each of ``pids`` (empty where unreadable)."""
    try:
        if sys.platform.startswith("win"):
            return _windows_titles(pids)
        if os.environ.get("DISPLAY"):
            return _x11_titles(pids)
    except Exception:  # titles are a courtesy: a listing never fails for them
        log.debug("window titles unreadable", exc_info=True)
    return {}


def _x11_titles(pids: set[int]) -> dict[int, list[str]]:
    try:
        from Xlib import X, display  # noqa: PLC0415
        from Xlib.ext import res  # noqa: PLC0415
    except ImportError:
        return {}
    out: dict[int, list[str]] = {}
    conn = display.Display()
    try:
        if not conn.has_extension("X-Resource"):
            return {}
        net_name, utf8 = conn.intern_atom("_NET_WM_NAME"), conn.intern_atom("UTF8_STRING")
        root = conn.screen().root
        candidates = []
        for top in root.query_tree().children:
            candidates.append(top)
            # A window manager reparents each top-level window into a frame of its own.
            with contextlib.suppress(Exception):
                candidates.extend(top.query_tree().children)
        for window in candidates:
            try:
                if window.get_attributes().map_state != X.IsViewable:
                    continue
                title = window.get_full_text_property(net_name, utf8) or window.get_wm_name()
                if not title:
                    continue
                ids = conn.res_query_client_ids([{"client": window.id, "mask": res.LocalClientPIDMask}])
            except Exception:  # noqa: BLE001 - a window that went away meanwhile
                continue
            for entry in ids.ids:
                if entry.spec.mask & res.LocalClientPIDMask and entry.value and int(entry.value[0]) in pids:
                    out.setdefault(int(entry.value[0]), []).append(str(title))
    finally:
        conn.close()
    return out


def _windows_titles(pids: set[int]) -> dict[int, list[str]]:  # pragma: no cover - Windows only
    import ctypes  # noqa: PLC0415
    from ctypes import wintypes  # noqa: PLC0415

    user32 = ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined]
    out: dict[int, list[str]] = {}
    enum_proc = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.HWND, wintypes.LPARAM)  # type: ignore[attr-defined]

    def visit(hwnd: Any, _param: Any) -> bool:
        if not user32.IsWindowVisible(hwnd):
            return True
        owner = wintypes.DWORD()
        user32.GetWindowThreadProcessId(hwnd, ctypes.byref(owner))
        if owner.value not in pids:
            return True
        length = user32.GetWindowTextLengthW(hwnd)
        if length <= 0:
            return True
        buffer = ctypes.create_unicode_buffer(length + 1)
        user32.GetWindowTextW(hwnd, buffer, length + 1)
        if buffer.value:
            out.setdefault(int(owner.value), []).append(buffer.value)
        return True

    user32.EnumWindows(enum_proc(visit), 0)
    return out
