"""Exceptions escaping a WPF app's event handlers, recorded for ``wpf_get_app_events``.

- ``Dispatcher.UnhandledException``: an exception escaping a handler the UI
  thread's dispatcher ran. Listening alone changes nothing: unless a handler
  sets ``Handled``, WPF goes on to ``Application.DispatcherUnhandledException``
  and then ends the process. The probe always listens and records it; only
  when it was started for testing (``ProbeSettings.test_hooks``) does it set
  ``Handled``, so the app goes on and one run can find more than one bug. An
  app that handles the exception itself (in its Application's handler) sees
  it as before: ``Handled`` is only set when the probe was asked to.
- ``AppDomain.UnhandledException`` (``wpfprobe_clr._app_events``): an exception no code caught, on any
  thread; the process ends whatever its handlers do, so the probe always
  listens (and the record also goes to the events file, to outlive the process).

``install`` runs on the UI thread, with the adapter's dispatcher. The hooks
are ``_hooks.SHARED``'s: the last probe's stop takes them off.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core import app_events
from wpfprobe_clr._app_events import describe, install_appdomain_hook, install_python_thread_hook
from wpfprobe_clr._hooks import SHARED
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

if _WPF_LOAD_ERROR is None:
    from System.Windows.Threading import (
        Dispatcher,
        DispatcherUnhandledExceptionEventArgs,
        DispatcherUnhandledExceptionEventHandler,
    )


def install(dispatcher: Dispatcher, *, catch: bool) -> list[str]:
    """Hook the exception events of the app's UI thread; returns the hooks now installed."""
    store = app_events.store()
    install_appdomain_hook()
    if store.add_hook("dispatcher"):

        def on_dispatcher_exception(sender: Any, args: Any) -> None:
            if not isinstance(args, DispatcherUnhandledExceptionEventArgs):
                return
            if not SHARED.live:
                return  # the probe stopped, and could not take this handler off (``_hooks``)
            try:
                kind, message, stack = describe(args.Exception)
                app_events.record_exception("dispatcher", kind, message, stack, handled=catch or bool(args.Handled))
            except Exception:  # noqa: BLE001, S110 - a failure to record must not become the app's exception
                pass
            if catch:
                args.Handled = True

        handler = DispatcherUnhandledExceptionEventHandler(on_dispatcher_exception)
        dispatcher.UnhandledException += handler

        def unhook() -> None:
            dispatcher.UnhandledException -= handler
            store.forget_hook("dispatcher")

        SHARED.added(unhook)
    install_python_thread_hook()
    return list(store.hooks)
