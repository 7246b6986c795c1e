"""The app's UI thread as the probe reaches it: a control to post calls through, and the end of its loop.

WinForms has no dispatcher object: a call reaches the UI thread through a
control's BeginInvoke. The app's forms may close while the thread goes on, so
the probe makes a hidden control of its own on that thread, which lives as long
as the message loop. When the loop ends (Application.ThreadExit on that
thread), the probe is told, so calls waiting for it fail at once. The handler
is taken off again as the process exits (``_exit``), before pythonnet shuts
down: a Python handler must not run while it does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from System import Action, Object
from System.Threading import Thread
from System.Windows.Forms import Application, Control

from wpfprobe_clr import _exit
from wpfprobe_clr._ui_thread import UiThread
from wpfprobe_clr.toolkits._after_loop import native_handler


class Marshal:
    def __init__(self, control: Any, thread: Any) -> None:
        self.control = control
        self.thread = thread


def marshal_control(form: Any, timeout: float) -> Marshal:
    """A hidden control owned by the UI thread, used only to post calls to it.

    The app's own forms may close; this control lives as long as the thread's
    message loop. If the form has no handle yet (attached before
    Application.Run), the caller is taken to be the UI thread itself.
    """

    def create() -> Marshal:
        control = Control()
        control.CreateControl()
        _ = control.Handle  # an invisible control only gets a handle when asked
        return Marshal(control, Thread.CurrentThread)

    if not form.IsHandleCreated:
        return create()
    if not form.InvokeRequired:
        return create()
    # Posting through the app's form once, with the same machinery as every later call.
    bootstrap = UiThread(
        post=lambda call: form.BeginInvoke(Action(call)),
        check_access=lambda: not form.InvokeRequired,
        default_timeout=timeout,
    )
    return bootstrap.run(create)


def on_ui_exit(callback: Any) -> None:
    """Call ``callback`` once when the calling (UI) thread's message loop ends.

    ``callback`` runs on the UI thread as its loop ends: it must return at once,
    and never start a thread or wait (see ``wpfprobe.mcp.ending``).
    """
    ui_thread = Thread.CurrentThread
    fired: list[bool] = []

    def on_thread_exit(sender: Any, args: Any) -> None:
        # ThreadExit is raised on every thread whose message loop ends: only ours counts.
        if fired or _exit.exiting or not Object.ReferenceEquals(Thread.CurrentThread, ui_thread):
            return
        fired.append(True)
        callback()

    Application.ThreadExit += on_thread_exit

    def unhook() -> None:
        Application.ThreadExit -= on_thread_exit

    _exit.on_exit(unhook)


def request_close(then: Callable[[], object] | None = None) -> None:
    """Ask the app to end, as a user closing its windows would (on the UI thread).

    Application.Exit raises each open form's FormClosing (CloseReason.ApplicationExitCall),
    so the app may save its work or refuse (then nothing closes), closes the forms and
    ends the message loops, so Application.Run returns into the app's own code. ``then``,
    a builtin, is called from .NET once this thread's loop has ended (``_after_loop``).
    """
    if then is not None:
        Application.ThreadExit += native_handler(then, only_on=Thread.CurrentThread)
    Application.Exit()
