"""Real OS input for ``mode="os"``: mouse and keyboard events at true screen pixels.

Linux/X11 goes through ``xdotool`` (a subprocess per step, argument lists, no
shell); Windows through ``SendInput`` (ctypes, user32). Every function here is
called OFF the UI thread: the UI thread must be free to take the events, and
nothing here waits for the app to react (the caller polls for the effect).

The modules: ``common`` (availability, argument checks, the one lock),
``x11`` (xdotool, and the measurements on Mono under Xvfb that shaped it) and
``windows`` (SendInput). This module is the API the engine calls, as
``Connection.os_input``; it picks the back end per call.

Typed text never appears in an error message, a log or a command line (it is
passed to xdotool on stdin, where other users' ``ps`` cannot see it).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.protocol import KeyChord
from wpfprobe_clr._os_input.common import (
    Button,
    _check_chords,
    _check_click,
    _check_point,
    _check_text,
    _lock,
    _require,
    available,
)
from wpfprobe_clr._os_input.windows import _win, _win_click, _win_keys, windows_chord_events, windows_text_events
from wpfprobe_clr._os_input.x11 import (
    _run_x,
    _x_check_chords,
    _x_check_text,
    _x_click,
    x_focus_command,
    x_key_command,
    x_type_commands,
)

__all__ = ["Button", "available", "check_keys", "check_text", "click", "focus_window", "send_keys", "type_text"]


def click(x: int, y: int, *, button: Button = "left", count: int = 1) -> None:
    """Move the pointer to (x, y), physical screen pixels, and click ``count`` times.

    Returns once the events are sent; the app handles them on its UI thread
    afterwards, so poll for the effect.
    """
    x, y = _check_point(x, y)
    _check_click(button, count)
    kind = _require()
    with _lock:
        if kind == "windows":
            _win_click(x, y, button, count)
        else:
            _x_click(x, y, button, count)


def check_text(text: str) -> None:
    """Raise what ``type_text(text)`` would raise before sending anything (a bad
    character, one the X keyboard map lacks, no OS input here), so a caller can
    refuse before it clicks or clears the field."""
    _x_check_text(_check_text(text), _require())


def check_keys(chords: Sequence[KeyChord]) -> None:
    """Raise what ``send_keys(chords)`` would raise before sending anything."""
    _x_check_chords(_check_chords(chords), _require())


def type_text(text: str) -> None:
    """Type ``text`` into whatever has keyboard focus, as key presses; a newline is Return."""
    text = _check_text(text)
    kind = _require()
    _x_check_text(text, kind)
    if not text:
        return
    with _lock:
        if kind == "windows":
            _win_keys(windows_text_events(text))
        else:
            for command in x_type_commands(text):
                _run_x(command)


def send_keys(chords: Sequence[KeyChord]) -> None:
    """Press each chord in turn (modifiers held around the key) on whatever has keyboard focus."""
    checked = _check_chords(chords)
    kind = _require()
    _x_check_chords(checked, kind)
    if not checked:
        return
    with _lock:
        if kind == "windows":
            _win_keys([e for chord in checked for e in windows_chord_events(chord)])
        else:
            _run_x(x_key_command(checked))


def focus_window(handle: int) -> None:
    """Give a top-level window the OS keyboard focus (X: XSetInputFocus; Windows:
    SetForegroundWindow, which Windows may refuse when another app is in front).

    Needed on X11 without a window manager when keys must reach a window the
    pointer is not over; ``handle`` is the form's ``Handle`` (an X window id on Mono).
    """
    if isinstance(handle, bool) or not isinstance(handle, int) or handle <= 0:
        raise InvalidArgumentError("handle must be a positive window handle.", suggestion="Pass form.Handle.")
    kind = _require()
    with _lock:
        if kind == "windows":
            if not _win().dll.SetForegroundWindow(ctypes.c_void_p(handle)):
                raise ProbeError(
                    "Windows refused to bring the window to the foreground.",
                    code="INTERNAL",
                    suggestion='Click the window first (mode="os" click), or use mode="auto".',
                )
        else:
            _run_x(x_focus_command(handle))
