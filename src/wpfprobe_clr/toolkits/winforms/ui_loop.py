"""The app's UI thread as the probe reaches it: the app's forms, a control to post calls through, and the end of its loop.

WinForms has no dispatcher object: a call reaches the UI thread through a
control's BeginInvoke. The app's forms may close while the thread goes on, so
the probe makes a hidden control of its own on that thread, which lives as long
as the message loop. When the loop ends (Application.ThreadExit on that
thread), the probe is told, so calls waiting for it fail at once. The handler
is taken off when the probe stops (``_hooks``), or as the process exits
(``_exit``), before pythonnet shuts down: a Python handler must not run while
it does.

``wpfprobe.start()`` uses this module on the app's thread before it returns
(finding the form, and the hidden control when the caller is the UI thread),
so it imports a handful of types and none of the adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import clr
from System import Action, EventHandler, Object, Type
from System.Threading import Thread

from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe_clr import _exit
from wpfprobe_clr._hooks import Hooks
from wpfprobe_clr._ui_thread import UiThread
from wpfprobe_clr.net.lazy import clr_namespace, is_instance

WF = clr_namespace("System.Windows.Forms")

#: What pythonnet makes every Python-defined .NET type implement (``net.bridge`` has the same).
_DERIVED = Type.GetType("Python.Runtime.IPythonDerivedType, Python.Runtime", False)


def find_app(*, shown: bool = False) -> Any | None:
    """The app's main form, read from any thread (OpenForms is locked internally).

    ``shown``: only a visible form with its window handle, so that calls can be
    posted to its thread (a form without a handle has no message loop to post to).
    A form whose class is written in Python is read through ``net.derived`` (as a
    handle); only then is that module loaded.
    """
    forms = list(WF.Application.OpenForms)
    if any(_python_defined(f) for f in forms):
        from wpfprobe_clr.net.derived import members_of  # noqa: PLC0415

        forms = members_of(WF.Application.OpenForms)
    found = [f for f in forms if not f.IsDisposed and (not shown or (f.IsHandleCreated and f.Visible))]
    return found[0] if found else None


def _python_defined(value: Any) -> bool:
    if _DERIVED is None:
        return False
    try:
        net_type = clr.GetClrType(type(value))
    except Exception:  # noqa: BLE001 - not a pythonnet type
        return False
    return net_type is not None and bool(_DERIVED.IsAssignableFrom(net_type))


def ui_thread_marshal(app: Any) -> Marshal | None:
    """The hidden control, made now when the caller is the UI thread of ``app`` (a form or a
    control), else None: ``marshal_control`` makes it later, with a call posted to that thread.

    The caller is taken to be the UI thread also when no window handle exists yet (the app
    calls ``wpfprobe.start()`` before ``Application.Run``): with no handle there is no
    message loop to post to, and the thread that calls is the one that will run it.
    """
    if _python_defined(app):
        from wpfprobe_clr.net.derived import handle_of  # noqa: PLC0415 - only for a Python-defined form

        app = handle_of(app)
    elif not is_instance(app, WF.types.Control):
        return None
    return None if app.InvokeRequired else _create()


def _create() -> Marshal:
    control = WF.Control()
    control.CreateControl()
    _ = control.Handle  # an invisible control only gets a handle when asked
    return Marshal(control, Thread.CurrentThread)


class Marshal:
    def __init__(self, control: Any, thread: Any) -> None:
        self.control = control
        self.thread = thread


def marshal_control(form: Any, timeout: float, made: Marshal | None = None) -> Marshal:
    """A hidden control owned by the UI thread, used only to post calls to it.

    The app's own forms may close; this control lives as long as the thread's
    message loop. ``made`` is the one ``ui_thread_marshal`` made on the caller's
    thread (it was the UI thread); else it is made by a call posted through the
    app's form, which must have its window handle by then.
    """
    if made is not None:
        return made
    if not form.IsHandleCreated:
        raise AppNotAvailableError(
            "The form has no window handle, so no call can reach its UI thread.",
            suggestion="Start the probe on the UI thread (before Application.Run is fine), or once the form is shown.",
        )
    if not form.InvokeRequired:
        return _create()
    # Posting through the app's form once, with the same machinery as every later call.
    bootstrap = UiThread(
        post=lambda call: form.BeginInvoke(Action(call)),
        check_access=lambda: not form.InvokeRequired,
        default_timeout=timeout,
    )
    return bootstrap.run(_create)


def on_ui_exit(callback: Any, hooks: Hooks) -> None:
    """Call ``callback`` once when the calling (UI) thread's message loop ends, until ``hooks`` are
    taken off (the probe stopped).

    ``callback`` runs on the UI thread as its loop ends: it must return at once,
    and never start a thread or wait (see ``wpfprobe.mcp.ending``).
    """
    ui_thread = Thread.CurrentThread
    fired: list[bool] = []

    def on_thread_exit(sender: Any, args: Any) -> None:
        # ThreadExit is raised on every thread whose message loop ends: only ours counts.
        if fired or _exit.exiting or not hooks.live or not Object.ReferenceEquals(Thread.CurrentThread, ui_thread):
            return
        fired.append(True)
        callback()

    handler = EventHandler(on_thread_exit)
    WF.Application.ThreadExit += handler

    def unhook() -> None:
        WF.Application.ThreadExit -= handler

    # Also at exit, before pythonnet shuts down (its shutdown raises ThreadExit), if a stop has not.
    hooks.added(unhook, at_exit=True)


def request_close(hooks: Hooks, then: Callable[[], object] | None = None) -> None:
    """Ask the app to end, as a user closing its windows would (on the UI thread).

    Application.Exit raises each open form's FormClosing (CloseReason.ApplicationExitCall),
    so the app may save its work or refuse (then nothing closes), closes the forms and
    ends the message loops, so Application.Run returns into the app's own code. ``then``,
    a builtin, is called from .NET once this thread's loop has ended (``_after_loop``).
    """
    if then is not None:
        # Compiles an expression: imported only when an app is asked to end.
        from wpfprobe_clr.toolkits._after_loop import native_handler  # noqa: PLC0415

        handler = native_handler(then, only_on=Thread.CurrentThread)
        WF.Application.ThreadExit += handler

        def unhook() -> None:
            WF.Application.ThreadExit -= handler

        # The app may refuse to close: a stop after that must not leave ``then`` for a later end.
        hooks.added(unhook)
    modal = _modal_forms()
    if not modal:
        WF.Application.Exit()
        return
    _exit_after_modal_loops(hooks, modal)


#: How often, and how long at most, a close asked for while a modal dialog is open looks whether the
#: dialog's loop has ended (it ends right after the message that closed it; the bound is for a dialog
#: that refuses to close, or an app that opens one after another).
_MODAL_POLL_MS = 20
_MODAL_ROUNDS = 500


def _modal_forms() -> list[Any]:
    return [form for form in list(WF.Application.OpenForms) if form.Modal and not form.IsDisposed]


def _exit_after_modal_loops(hooks: Hooks, modal: list[Any]) -> None:
    """Close the open modal dialogs (each returns Cancel to the code that opened it), then call
    Application.Exit once their message loops have ended.

    Mono's Application.Exit, called inside a modal dialog's loop, closes every form and posts
    the quit message, which that inner loop takes for itself: the app's Application.Run then
    waits for good with no window left (and a second Exit from the outer loop does not end it
    either). A form stays ``Modal`` until its loop has returned, which is what the timer looks
    for; it ticks in whichever loop runs, so it never calls Exit from inside a dialog's loop.
    """
    closing = list(modal)
    for form in closing:
        form.Close()
    timer = WF.Timer()
    timer.Interval = _MODAL_POLL_MS
    rounds = [0]

    def done() -> None:
        if rounds[0] < 0:
            return
        rounds[0] = -1
        timer.Stop()
        timer.Tick -= handler
        timer.Dispose()

    def tick(sender: Any, args: Any) -> None:
        if rounds[0] < 0:
            return
        rounds[0] += 1
        if any(form.Modal and not form.IsDisposed for form in closing):
            if rounds[0] >= _MODAL_ROUNDS:  # a dialog refused to close: so does the app
                done()
            return
        more = _modal_forms()  # the app's code after a dialog may open another ("Save changes?")
        if more and rounds[0] < _MODAL_ROUNDS:
            closing[:] = more
            for form in more:
                form.Close()
            return
        done()
        if not more:
            WF.Application.Exit()

    handler = EventHandler(tick)
    timer.Tick += handler
    # A stop meanwhile takes the timer off with the probe's other handlers (it runs Python).
    hooks.added(done)
    timer.Start()
