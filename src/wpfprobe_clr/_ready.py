"""Has the app shown its UI yet? Asked from a watcher thread by ``wpfprobe run``.

Never loads a CLR (the app chooses its runtime) and never posts to the UI
thread: it reads only what is safe to read from any thread.
"""

from __future__ import annotations

import sys
from typing import Any


def clr_loaded() -> bool:
    """True once the app has loaded a CLR through pythonnet (without loading one)."""
    pythonnet = sys.modules.get("pythonnet")
    return bool(getattr(pythonnet, "_LOADED", False)) and "clr" in sys.modules


def shown_app() -> Any | None:
    """The app object to probe once its UI is up, else None.

    WPF: ``Application.Current`` (readable from any thread). WinForms: the first
    open form that is visible and has its window handle, so that calls can be
    posted to its thread (a form without a handle has no message loop to post to).
    """
    if not clr_loaded():
        return None
    import System  # noqa: PLC0415 - the CLR is loaded: this only finds it

    loaded = {str(a.GetName().Name) for a in System.AppDomain.CurrentDomain.GetAssemblies()}
    if "PresentationFramework" in loaded:
        from .toolkits.wpf import find_app as find_wpf  # noqa: PLC0415

        app = find_wpf()
        if app is not None:
            return app
    if "System.Windows.Forms" in loaded:
        from System.Windows.Forms import Application  # noqa: PLC0415

        for form in list(Application.OpenForms):
            if not form.IsDisposed and form.IsHandleCreated and form.Visible:
                return form
    return None
