"""Exceptions escaping a WinForms app's event handlers, recorded for ``wpf_get_app_events``.

Two .NET events report them, and subscribing to them is not the same thing:

- ``AppDomain.UnhandledException``: an exception no code caught, on any thread.
  The process ends whatever its handlers do, so listening changes nothing: the
  probe always listens, and records the exception (to the events file too, so
  it outlives the process).
- ``Application.ThreadException``: an exception escaping a handler that the
  message loop ran (a click, a key, a paint). What happens depends on whether
  anyone listens: with no handler, .NET shows its ThreadExceptionDialog
  (Details, Continue, Quit) and Mono ends the message loop, so the app exits;
  with a handler, neither happens and the app goes on. Listening would change
  the app, so the probe listens only when it was started for testing
  (``ProbeSettings.test_hooks``, which the test kit's launcher turns on). It
  then records the exception and lets the app go on, as Continue does on .NET,
  so one run can find more than one bug. Without it, the failure still shows:
  the dialog is an error dialog the test kit sees open, and on Mono the app's
  exit (with the exception on its stderr) is a crash.

If the app has a ThreadException handler of its own, it still runs: handlers
add up. ``Application.ThreadException`` is per thread on .NET Framework, so
``install`` runs on the UI thread. The hooks are ``_hooks.SHARED``'s: the last
probe's stop takes them off (then, with no handler, the app's exceptions go
back to the dialog or Mono's exit).
"""

from __future__ import annotations

from typing import Any

from System.Threading import ThreadExceptionEventHandler

from wpfprobe.core import app_events
from wpfprobe_clr._app_events import describe, install_appdomain_hook, install_python_thread_hook
from wpfprobe_clr._hooks import SHARED
from wpfprobe_clr.net.lazy import clr_namespace

WF = clr_namespace("System.Windows.Forms")


def install(*, catch: bool) -> list[str]:
    """Hook the app's exception events (on the UI thread); returns the hooks now installed."""
    store = app_events.store()
    install_appdomain_hook()
    if catch and store.add_hook("thread-exception"):

        def on_thread_exception(sender: Any, args: Any) -> None:
            # Left on only if the probe's stop could not take it off: the app goes on as it did.
            try:
                kind, message, stack = describe(args.Exception)
                app_events.record_exception("thread-exception", kind, message, stack, handled=True)
            except Exception:  # noqa: BLE001, S110 - a failure to record must not become the app's exception
                pass

        handler = ThreadExceptionEventHandler(on_thread_exception)
        WF.Application.ThreadException += handler

        def unhook() -> None:
            WF.Application.ThreadException -= handler
            store.forget_hook("thread-exception")

        SHARED.added(unhook)
    install_python_thread_hook()
    return list(store.hooks)
