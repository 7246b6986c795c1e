"""Connecting an adapter to the app's WinForms UI thread.

connect makes the adapter and the UiThread it is called through, then, on the
UI thread, hooks the bindings already there and listens for the message loop's
end. It may run on any thread (``wpfprobe.start()`` runs it on one of its
own): what must be made on the UI thread itself, when the caller is that
thread, was made before (``ui_loop.ui_thread_marshal``). Finding the app's
form is ``ui_loop.find_app``.
"""

from __future__ import annotations

from typing import Any

from System import Action

from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe_clr._hooks import take_off_left
from wpfprobe_clr._ui_thread import UiThread
from wpfprobe_clr.net.derived import call, handle_of, is_a
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.adapter import WinFormsAdapter
from wpfprobe_clr.toolkits.winforms.ui_loop import Marshal, marshal_control

WF = clr_namespace("System.Windows.Forms")


def connect(
    app: Any, *, timeout: float, marshal: Marshal | None = None, first_wait: float | None = None
) -> tuple[WinFormsAdapter, UiThread]:
    """The adapter for ``app`` and a UiThread onto its thread; ``marshal``: the hidden control,
    if it was made on the UI thread already (``ui_loop.ui_thread_marshal``), else made there by a
    call that waits up to ``first_wait`` seconds (``timeout`` if None) for a busy UI thread."""
    app = handle_of(app)  # a form or control whose class is written in Python is held in .NET from here on
    form = call(app, "FindForm") if not is_a(app, WF.types.Form) and is_a(app, WF.types.Control) else app
    if form is None:
        raise AppNotAvailableError(
            "The control is not on a form yet.",
            suggestion="Attach to the Form, or attach once the control is placed on one.",
        )
    marshal = marshal_control(form, max(timeout, first_wait or 0.0), marshal)
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
    # First, what an earlier probe's stop left on (its UI thread was busy): one set of handlers.
    ui.post(take_off_left)
    # Errors are recorded from now on.
    ui.post(adapter.hook_bindings)
    # Once the loop ends, calls waiting for it fail at once instead of timing out.
    ui.post(lambda: adapter.on_ui_exit(ui.end))
    return adapter, ui
