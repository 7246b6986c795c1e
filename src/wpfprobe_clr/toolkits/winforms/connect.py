"""Finding the app's WinForms UI and connecting an adapter to its UI thread.

find_app may run on any thread (OpenForms is locked internally). connect makes
the adapter and the UiThread it is called through, then, on the UI thread,
hooks the bindings already there and listens for the message loop's end.
"""

from __future__ import annotations

from typing import Any

from System import Action
from System.Windows.Forms import Application, Control, Form

from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe_clr._ui_thread import UiThread
from wpfprobe_clr.net.derived import call, handle_of, is_a, members_of
from wpfprobe_clr.toolkits.winforms import walker
from wpfprobe_clr.toolkits.winforms.adapter import WinFormsAdapter
from wpfprobe_clr.toolkits.winforms.ui_loop import marshal_control


def find_app(*, shown: bool = False) -> Any | None:
    """The app's main form, read from any thread (OpenForms is locked internally).

    ``shown``: only a visible form with its window handle, so that calls can be
    posted to its thread (a form without a handle has no message loop to post to).
    """
    forms = [
        f
        for f in members_of(Application.OpenForms)
        if not f.IsDisposed and (not shown or (f.IsHandleCreated and f.Visible))
    ]
    return forms[0] if forms else None


def connect(app: Any, *, timeout: float) -> tuple[WinFormsAdapter, UiThread]:
    app = handle_of(app)  # a form or control whose class is written in Python is held in .NET from here on
    form = call(app, "FindForm") if not is_a(app, Form) and is_a(app, Control) else app
    if form is None:
        raise AppNotAvailableError(
            "The control is not on a form yet.",
            suggestion="Attach to the Form, or attach once the control is placed on one.",
        )
    marshal = marshal_control(form, timeout)
    ui_thread = marshal.thread

    def post(call: Any) -> None:
        if marshal.control.IsDisposed or not ui_thread.IsAlive:
            raise AppNotAvailableError(
                "The app's UI thread has ended.",
                suggestion="The app has closed; start it again and reattach.",
            )
        marshal.control.BeginInvoke(Action(call))

    def check_access() -> bool:
        return not marshal.control.InvokeRequired

    adapter = WinFormsAdapter(form)
    ui = UiThread(post=post, check_access=check_access, default_timeout=timeout)
    # Errors are recorded from now on; the walk runs on the UI thread, not here.
    ui.post(adapter.hook_bindings)
    ui.post(walker.prepare)  # the .NET walk, compiled before any request reaches the UI thread
    # Once the loop ends, calls waiting for it fail at once instead of timing out.
    ui.post(lambda: adapter.on_ui_exit(ui.end))
    return adapter, ui
