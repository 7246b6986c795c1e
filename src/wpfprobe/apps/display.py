"""A display for an app wpfprobe starts itself: ``wpfprobe run``, and so ``launch`` and ``wpf_launch_app``.

The test kit's commands and the pytest plugin start a private Xvfb when there
is no display; ``wpfprobe run`` does the same, so every command behaves alike
(an app run without a display failed with a Mono stack trace whose hint never
named DISPLAY). On Linux: DISPLAY unset means a private Xvfb that lives exactly
as long as this process; DISPLAY set but not answering, or no Xvfb to start,
is refused before the app runs, saying what to do. Elsewhere there is nothing
to do.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys

from wpfprobe.testing import _start_xvfb, _stop

log = logging.getLogger("wpfprobe.run")


class NoDisplayError(Exception):
    """There is no display the app could open, and none can be made: the message says what to do."""


def ensure_display() -> str | None:
    """Make sure the app this process is about to run can open a display; the private one's name, if started."""
    if not sys.platform.startswith("linux"):
        return None
    current = os.environ.get("DISPLAY")
    if current:
        problem = unreachable(current)
        if problem is not None:
            raise NoDisplayError(
                f"DISPLAY={current} cannot be opened ({problem}). Start that X server, or unset DISPLAY and "
                "wpfprobe runs the app on a private virtual display (Xvfb)."
            )
        return None
    try:
        proc, name = _start_xvfb(tied=True)
    except (RuntimeError, OSError) as exc:
        raise NoDisplayError(
            "DISPLAY is not set, and there is no Xvfb to start a private display"
            + (f" ({exc})" if not isinstance(exc, RuntimeError) else "")
            + ". Install it (Debian/Ubuntu: apt-get install xvfb), or set DISPLAY to your X server."
        ) from None
    os.environ["DISPLAY"] = name
    # Registered before the app loads pythonnet, so it runs after pythonnet's own exit handler: the display
    # goes only once the app's UI is gone.
    atexit.register(_stop, proc)
    log.info("no DISPLAY: the app runs on a private virtual display (Xvfb)", extra={"outcome": name})
    return name


def unreachable(name: str) -> str | None:
    """Why the X display ``name`` cannot be opened, or None when it can."""
    try:
        from Xlib import display as _xdisplay  # noqa: PLC0415 - python-xlib, a dependency on Linux
        from Xlib import error as _xerror  # noqa: PLC0415
    except ImportError:
        return None  # nothing to check with: the app will say
    try:
        connection = _xdisplay.Display(name)
    except (_xerror.DisplayError, _xerror.ConnectionClosedError, OSError) as exc:
        return " ".join(str(exc).split()) or type(exc).__name__
    connection.close()
    return None
