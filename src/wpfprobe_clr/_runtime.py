"""Find the CLR the app already runs, or load one through pythonnet/clr-loader.

Most apps load the CLR themselves (``pythonnet.load(...)``, or a bare
``import clr``) and build their UI before they import wpfprobe: then the
runtime is only described, never loaded again.

Mono reads its thread-suspend mode once, when it starts. The probe sets the
safe one (preemptive) only when it is the one starting Mono; when the app
started it, the environment the app ran with is what Mono read, so the probe
warns if that mode can deadlock (it cannot change it any more).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Literal, NamedTuple

from wpfprobe.core.errors import ClrUnavailableError

if TYPE_CHECKING:
    from wpfprobe.core.models import RuntimeDescription

RuntimeKind = Literal["netfx", "coreclr", "mono"]

_INSTALL_HINTS: dict[str, str] = {
    "mono": "install Mono with its Facades (Debian/Ubuntu: apt-get install mono-complete)",
    "coreclr": "install a .NET runtime (https://dotnet.microsoft.com) and make `dotnet` findable (DOTNET_ROOT or PATH)",
    "netfx": "install the .NET Framework 4.7.2 or later (Windows only)",
}


def default_order() -> tuple[RuntimeKind, ...]:
    if sys.platform == "win32":
        return ("netfx", "coreclr")
    return ("mono", "coreclr")


def clr_is_loaded() -> bool:
    """Whether a CLR runs in this process (``pythonnet.load`` puts ``clr`` in sys.modules too)."""
    return "clr" in sys.modules


# Mono's cooperative and hybrid thread-suspend modes deadlock with pythonnet: a
# thread waiting for the GIL never reaches a GC safepoint while the GIL holder
# waits for the collection to finish. Signals (preemptive) suspend both.
MONO_SUSPEND_VARIABLE = "MONO_THREADS_SUSPEND"
MONO_SAFE_SUSPEND = "preemptive"
# Set by ``collected_warnings``: this thread's runtime warnings go here, not to the app's stderr.
_COLLECTED: ContextVar[list[str] | None] = ContextVar("wpfprobe_runtime_warnings", default=None)


@contextmanager
def collected_warnings() -> Iterator[list[str]]:
    """Within, on this thread only, the runtime's warnings are collected instead of shown: a
    probe attached from outside (``wpfprobe attach``) reports them to whoever attached, and
    the app itself prints nothing."""
    found: list[str] = []
    token = _COLLECTED.set(found)
    try:
        yield found
    finally:
        _COLLECTED.reset(token)


class RuntimeFacts(NamedTuple):
    """What ``RuntimeDescription`` says, read without the DTOs (``wpfprobe.start`` reads it before
    it returns, and the models are not imported by then)."""

    kind: RuntimeKind
    version: str
    description: str

    def model(self) -> RuntimeDescription:
        from wpfprobe.core.models import RuntimeDescription  # noqa: PLC0415

        return RuntimeDescription(kind=self.kind, version=self.version, description=self.description)


def ensure_clr(kind: RuntimeKind | None = None) -> RuntimeDescription:
    """The running CLR, loading one if none is loaded yet.

    With no ``kind``, ``PYTHONNET_RUNTIME`` decides, then the platform's
    order (netfx then coreclr on Windows, mono then coreclr elsewhere).
    Raises ClrUnavailableError naming every runtime tried and what to install.
    """
    return ensure_runtime(kind).model()


def ensure_runtime(kind: RuntimeKind | None = None) -> RuntimeFacts:
    """``ensure_clr`` without the DTO: the facts, and the same warning where the app called."""
    if not clr_is_loaded():
        _load(kind)
    description = runtime_facts()
    if description.kind == "mono":
        spawn_without_vfork()
    mode = os.environ.get(MONO_SUSPEND_VARIABLE)
    if description.kind == "mono" and mode != MONO_SAFE_SUSPEND:
        _warn(
            f"Mono was started with {MONO_SUSPEND_VARIABLE}={mode or '(unset: its default)'}; in that mode, "
            "pythonnet calls from two threads (the app's UI thread and the probe's, or any two of the app's) "
            f"can deadlock the process during a garbage collection. Start the app with "
            f"{MONO_SUSPEND_VARIABLE}={MONO_SAFE_SUSPEND} in its environment (or set it in os.environ before "
            "pythonnet loads Mono), or run it under `wpfprobe run`, which does."
        )
    return description


def _warn(text: str) -> None:
    collected = _COLLECTED.get()
    if collected is not None:
        collected.append(text)
    else:
        warnings.warn(text, RuntimeWarning, stacklevel=_caller_stacklevel())


def spawn_without_vfork() -> None:
    """Make ``subprocess`` fork rather than vfork in this process (Mono only, Linux only).

    With vfork, CPython blocks every signal in the spawning thread and then,
    since 3.11.5 / 3.12 (gh-104372), waits for the GIL with them still blocked.
    Mono stops the world for a collection by signalling every thread attached
    to it, and waits until each one answers. So when the GIL's holder is in a
    .NET call that collects (any pythonnet call may allocate), while another
    thread of the app spawns a process, each waits for the other: the app
    hangs for good. The probe's threads call .NET while the app runs, so an app
    that spawned processes hung at every start of the probe here (4 in 4, a
    Mono WinForms app spawning in a loop; the test is in test_spawning.py).
    With fork, the spawning thread keeps the GIL and its signals, and the cost
    is copying the page tables of the process (a few ms for hundreds of MiB).
    ``subprocess._USE_VFORK`` is the switch CPython documents for this. It
    stays off after the probe stops: the app's own threads that call .NET can
    meet the same hang.
    """
    if not sys.platform.startswith("linux"):
        return
    import subprocess  # noqa: PLC0415

    if getattr(subprocess, "_USE_VFORK", False):
        subprocess._USE_VFORK = False  # type: ignore[attr-defined]


def _load(kind: RuntimeKind | None) -> None:
    import pythonnet  # noqa: PLC0415 - only when a CLR must be loaded

    env = os.environ.get("PYTHONNET_RUNTIME")
    order: tuple[str, ...] = (kind,) if kind else ((env,) if env else default_order())
    failures: list[str] = []
    for candidate in order:
        if candidate == "mono":
            os.environ.setdefault(MONO_SUSPEND_VARIABLE, MONO_SAFE_SUSPEND)
        try:
            if getattr(pythonnet, "_RUNTIME", None) is None:
                pythonnet.set_runtime(pythonnet._create_runtime_from_spec(candidate))
            pythonnet.load()
            import clr  # noqa: F401, PLC0415 - finishes the load

            return
        except Exception as exc:  # noqa: BLE001 - every failure is reported below
            pythonnet._RUNTIME = None
            cause = exc.__cause__ or exc
            hint = _INSTALL_HINTS.get(candidate, "check the runtime name (netfx, coreclr or mono)")
            failures.append(f"{candidate}: {' '.join(str(cause).split())} -> {hint}")
    raise ClrUnavailableError(
        "No .NET runtime could be loaded. Tried " + "; ".join(failures),
        suggestion="Install one of the runtimes named above, or set PYTHONNET_RUNTIME to one that is installed.",
        detail={"tried": list(order)},
    )


def _caller_stacklevel() -> int:
    """The stacklevel that points a warning at the first frame outside wpfprobe (the app's call)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../src, holding both packages
    ours = (os.path.join(here, "wpfprobe") + os.sep, os.path.join(here, "wpfprobe_clr") + os.sep)
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(ours):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def describe_clr() -> RuntimeDescription:
    return runtime_facts().model()


_facts: list[RuntimeFacts] = []


def runtime_facts() -> RuntimeFacts:
    """The loaded runtime's kind and version (read once: a process has one runtime)."""
    if _facts:
        return _facts[0]
    from System import Environment, Type  # noqa: PLC0415
    from System.Runtime.InteropServices import RuntimeInformation  # noqa: PLC0415

    description = str(RuntimeInformation.FrameworkDescription)
    mono = Type.GetType("Mono.Runtime")
    facts: RuntimeFacts
    if mono is not None:
        display = mono.GetMethod("GetDisplayName", _static_nonpublic())
        version = str(display.Invoke(None, None)) if display is not None else str(Environment.Version)
        facts = RuntimeFacts("mono", version.split()[0], f"Mono {version}")
    elif description.startswith(".NET Framework"):
        facts = RuntimeFacts("netfx", str(Environment.Version), description)
    else:
        facts = RuntimeFacts("coreclr", str(Environment.Version), description)
    _facts.append(facts)
    return facts


def suspend_mode_is_safe() -> bool:
    """Whether threads of the probe may call into the runtime while the UI thread runs Python:
    not on Mono started in a cooperative or hybrid suspend mode (see MONO_SUSPEND_VARIABLE)."""
    return runtime_facts().kind != "mono" or os.environ.get(MONO_SUSPEND_VARIABLE) == MONO_SAFE_SUSPEND


def _static_nonpublic() -> object:
    from System.Reflection import BindingFlags  # noqa: PLC0415

    return BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.Static
