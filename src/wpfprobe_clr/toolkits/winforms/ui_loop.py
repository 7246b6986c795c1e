"""The app's UI thread as the probe reaches it: a control to post calls through, and the end of its loop.

WinForms has no dispatcher object: a call reaches the UI thread through a
control's BeginInvoke. The app's forms may close while the thread goes on, so
the probe makes a hidden control of its own on that thread, which lives as long
as the message loop. When the loop ends (Application.ThreadExit on that
thread), the probe is told, so calls waiting for it fail at once.
"""

from __future__ import annotations

from typing import Any

from System import Action, Object
from System.Threading import Thread
from System.Windows.Forms import Application, Control

from wpfprobe_clr._ui_thread import UiThread


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
    """Call ``callback`` once when the calling (UI) thread's message loop ends."""
    ui_thread = Thread.CurrentThread
    fired: list[bool] = []

    def on_thread_exit(sender: Any, args: Any) -> None:
        # ThreadExit is raised on every thread whose message loop ends: only ours counts.
        if fired or not Object.ReferenceEquals(Thread.CurrentThread, ui_thread):
            return
        fired.append(True)
        callback()

    Application.ThreadExit += on_thread_exit
