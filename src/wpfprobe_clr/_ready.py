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
    open form that is visible and has its window handle.
    """
    if not clr_loaded():
        return None
    from wpfprobe.core.errors import AppNotAvailableError  # noqa: PLC0415
    from wpfprobe_clr.toolkits import find_app  # noqa: PLC0415 - the CLR is loaded: this only finds it

    try:
        return find_app(shown=True)
    except AppNotAvailableError:
        return None
