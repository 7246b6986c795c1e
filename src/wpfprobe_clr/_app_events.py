"""What both toolkits' exception hooks share: naming an exception, and the AppDomain-wide hook.

``AppDomain.UnhandledException`` reports an exception no code caught, on any
thread. The process ends whatever its handlers do, so listening changes
nothing: it is always hooked (once per process, until the last probe stops:
``_hooks.SHARED``), and the event goes to the events file too, so that it
outlives the process.
"""

from __future__ import annotations

from typing import Any

from System import AppDomain, UnhandledExceptionEventHandler

from wpfprobe.core import app_events
from wpfprobe_clr._hooks import SHARED

_WRAPPERS = frozenset({"System.Reflection.TargetInvocationException", "System.AggregateException"})


def describe(ex: Any) -> tuple[str, str, str]:
    """(type, message, stack) of a .NET exception; a Python exception pythonnet carried
    across .NET (``PythonException``) is named by its Python type, with its Python traceback."""
    python_type = getattr(ex, "Type", None)
    if isinstance(python_type, type):
        formatted = ""
        try:
            formatted = str(ex.Format())
        except Exception:  # noqa: BLE001 - the .NET stack below still says where it happened
            formatted = ""
        return python_type.__name__, str(ex.Message), formatted + _net_stack(ex)
    inner = ex
    while inner.InnerException is not None and str(inner.GetType().FullName) in _WRAPPERS:
        inner = inner.InnerException
    return str(inner.GetType().FullName), str(inner.Message), _net_stack(inner)


def _net_stack(ex: Any) -> str:
    try:
        return str(ex.StackTrace or "")
    except Exception:  # noqa: BLE001 - a stack that cannot be read is left out
        return ""


def install_appdomain_hook() -> None:
    """Record every unhandled exception of the process (observation only), once."""
    if not app_events.store().add_hook("appdomain"):
        return

    def on_unhandled(sender: Any, args: Any) -> None:
        if not SHARED.live:
            return
        try:
            kind, message, stack = describe(args.ExceptionObject)
            app_events.record_exception(
                "appdomain", kind, message, stack, terminating=bool(args.IsTerminating), handled=False
            )
        except Exception:  # noqa: BLE001, S110 - nothing may be thrown back into a dying runtime
            pass

    domain, handler = AppDomain.CurrentDomain, UnhandledExceptionEventHandler(on_unhandled)
    domain.UnhandledException += handler

    def unhook() -> None:
        domain.UnhandledException -= handler
        app_events.store().forget_hook("appdomain")

    SHARED.added(unhook)


def install_python_thread_hook() -> None:
    """Python threads' uncaught exceptions too (``wpfprobe.core.app_events``), once."""
    if app_events.install_python_thread_hook():
        SHARED.added(app_events.remove_python_thread_hook)
