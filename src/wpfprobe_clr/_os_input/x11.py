"""OS input on Linux/X11 through ``xdotool``: a subprocess per step, argument lists, no shell.

What was measured on Mono WinForms under Xvfb (no window manager):

- ``mousemove --sync X Y`` never returns when the pointer already is at X, Y
  (xdotool 3.20160805 waits for a move that does not come), so the pointer is
  first moved to a neighbouring pixel without --sync, in the same invocation.
- When the pointer enters a window from outside, Mono answers the FocusIn
  (X focus follows the pointer with no window manager) by giving focus back to
  the control that last had it, about 0.1 s later; a click sent at once loses
  the focus it gave. So a click that enters another window waits ENTER_SETTLE
  between the move and the press.
- Two presses of one button on the same spot within about 0.4 s are a double
  click to Mono (and within the double-click time to Windows); a double click
  on a TextBox selects a word and does not focus it. Two ``click`` calls are
  two single clicks: the second waits out the double-click time if needed.
- With no window manager, X keyboard focus is PointerRoot: keys go to the
  window under the pointer. Clicking the element first (what the engine does
  for mode="os") puts the pointer over it, so typing reaches it. ``Activate()``
  on the UI thread does not move X focus there (Mono asks the absent window
  manager); ``focus_window(form.Handle)`` (XSetInputFocus) does.
- A key whose keysym is not in the X keyboard map makes xdotool rebind a spare
  keycode for a moment, and Mono's WinForms then types "~" or crashes the
  whole process (SIGSEGV in X11Keyboard/Xutf8LookupString; seen with "é",
  "日" and F13). So characters and keys the keyboard map lacks are refused
  with INVALID_ARGUMENT before anything is sent (Xvfb's default map has
  printable ASCII, but not F13-F24 or accented letters); mode="auto" sets text
  without keyboard events.

Typed text is passed to xdotool on stdin, where other users' ``ps`` cannot
see it, and xdotool's stderr is repeated in an error only as its own fixed
messages when the step carried text.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import time
from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

from wpfprobe.core.errors import InvalidArgumentError, OperationTimedOutError, ProbeError
from wpfprobe.core.protocol import KeyChord
from wpfprobe_clr._os_input.common import (
    _MODIFIER_ORDER,
    CLICK_DELAY_MS,
    Button,
    _clicked,
    _double_click_wait_now,
    _lock,
    _text_segments,
)

#: Seconds each xdotool process may take before it is killed.
COMMAND_TIMEOUT: Final = 10.0
#: Milliseconds between typed characters (xdotool's own default).
TYPE_DELAY_MS: Final = 12
#: Seconds between the pointer entering another window and the click (see _x_click).
ENTER_SETTLE: Final = 0.3
#: Seconds within which a second press of the same button at (nearly) the same
#: point makes a double click on X11: Mono's X11 driver measured 0.36-0.4 s, GTK
#: and Qt default to 0.4 s. Windows asks GetDoubleClickTime.
X_DOUBLE_CLICK_TIME: Final = 0.5
#: Characters per xdotool ``type`` process: about 1.5 s each, far inside the timeout.
TYPE_CHUNK: Final = 100


# =============================================================================
# X11 (xdotool): pure command building
# =============================================================================

_X_NAMED: Final[dict[str, str]] = {
    "Enter": "Return",
    "Tab": "Tab",
    "Escape": "Escape",
    "Backspace": "BackSpace",
    "Delete": "Delete",
    "Insert": "Insert",
    "Home": "Home",
    "End": "End",
    "PageUp": "Prior",
    "PageDown": "Next",
    "Left": "Left",
    "Right": "Right",
    "Up": "Up",
    "Down": "Down",
    "Space": "space",
}
#: xdotool's own modifier names (it maps them to Control_L, Shift_L, Alt_L, Super_L).
X_MODIFIERS: Final[dict[str, str]] = {"ctrl": "ctrl", "shift": "shift", "alt": "alt", "meta": "super"}
#: Keysym values of those names, for the keyboard-map check.
_X_MODIFIER_KEYSYMS: Final[dict[str, int]] = {"ctrl": 0xFFE3, "shift": 0xFFE1, "alt": 0xFFE9, "meta": 0xFFEB}
_X_NAMED_KEYSYMS: Final[dict[str, int]] = {
    "Return": 0xFF0D, "Tab": 0xFF09, "Escape": 0xFF1B, "BackSpace": 0xFF08, "Delete": 0xFFFF,
    "Insert": 0xFF63, "Home": 0xFF50, "End": 0xFF57, "Prior": 0xFF55, "Next": 0xFF56,
    "Left": 0xFF51, "Right": 0xFF53, "Up": 0xFF52, "Down": 0xFF54, "space": 0x20,
}  # fmt: skip


class XCommand(NamedTuple):
    """One xdotool run: its arguments (``argv[0]`` is "xdotool"), what goes to its stdin,
    and whether that is typed text (then xdotool's stderr is not repeated in errors)."""

    argv: tuple[str, ...]
    stdin: bytes | None = None
    carries_text: bool = False


def x_keysym_name(key: str) -> str:
    """The X keysym name xdotool understands for a canonical key name from KEY_NAMES."""
    if key in _X_NAMED:
        return _X_NAMED[key]
    if len(key) == 1 and key.isascii() and (key.isupper() or key.isdigit()):
        return key.lower()  # "a": the unshifted keysym; Shift is its own modifier
    if key.startswith("F") and key[1:].isdigit() and 1 <= int(key[1:]) <= 24:
        return key
    raise InvalidArgumentError(f"{key!r} is not a canonical key name.", suggestion="Use parse_keys to build chords.")


def x_keysym_value(name: str) -> int:
    """The numeric keysym of a name ``x_keysym_name`` returns (X11 keysymdef.h)."""
    if name in _X_NAMED_KEYSYMS:
        return _X_NAMED_KEYSYMS[name]
    if len(name) == 1:
        return ord(name)  # Latin-1 keysyms equal their code points
    if name.startswith("F") and name[1:].isdigit():
        return 0xFFBE + int(name[1:]) - 1  # XK_F1 .. XK_F35 are consecutive
    raise ValueError(name)


def char_keysym(ch: str) -> int:
    """The keysym xdotool types a character with (newline and tab are Return and Tab)."""
    if ch == "\n":
        return 0xFF0D
    if ch == "\t":
        return 0xFF09
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 | cp  # the Unicode keysym range


def x_chord(chord: KeyChord) -> str:
    """``ctrl+shift+s``: xdotool's key-sequence form of a chord."""
    mods = [X_MODIFIERS[m] for m in _MODIFIER_ORDER if m in chord.modifiers]
    return "+".join([*mods, x_keysym_name(chord.key)])


def x_chord_keysyms(chord: KeyChord) -> list[int]:
    return [
        *(_X_MODIFIER_KEYSYMS[m] for m in chord.modifiers if m in _X_MODIFIER_KEYSYMS),
        x_keysym_value(x_keysym_name(chord.key)),
    ]


def x_move_command(x: int, y: int) -> XCommand:
    """Move the pointer to (x, y) and wait until it is there, reporting the window
    under the pointer before and after (``getmouselocation --shell``: X=, Y=, WINDOW=).

    ``--sync`` hangs when the pointer is already at the target, so it first goes
    to the pixel beside it (without --sync): then there is always a move to wait for.
    """
    nudge_x = x - 1 if x > 0 else x + 1
    return XCommand(
        (
            "xdotool",
            "getmouselocation", "--shell",
            "mousemove", str(nudge_x), str(y),
            "mousemove", "--sync", str(x), str(y),
            "getmouselocation", "--shell",
        )
    )  # fmt: skip


def x_buttons_command(*, button: Button = "left", count: int = 1) -> XCommand:
    """Click ``count`` times where the pointer is."""
    number = {"left": "1", "middle": "2", "right": "3"}[button]
    return XCommand(("xdotool", "click", "--repeat", str(count), "--delay", str(CLICK_DELAY_MS), number))


def pointer_windows(shell_output: str) -> tuple[str | None, str | None]:
    """The WINDOW= values of ``x_move_command``'s output: under the pointer before and after."""
    windows = [line.split("=", 1)[1].strip() for line in shell_output.splitlines() if line.startswith("WINDOW=")]
    return (windows[0], windows[-1]) if len(windows) >= 2 else (None, None)


def x_key_command(chords: Sequence[KeyChord]) -> XCommand:
    """``xdotool key --clearmodifiers ctrl+s Tab``: modifiers held down by a user are
    released for the sequence and pressed again after it."""
    return XCommand(("xdotool", "key", "--clearmodifiers", *(x_chord(c) for c in chords)))


def x_type_commands(text: str) -> list[XCommand]:
    """Type ``text``: each line in chunks of TYPE_CHUNK characters read from stdin
    (``type --file -``: the text is never on a command line), a Return between lines."""
    commands: list[XCommand] = []
    for i, line in enumerate(_text_segments(text)):
        if i:
            commands.append(XCommand(("xdotool", "key", "--clearmodifiers", "Return")))
        for start in range(0, len(line), TYPE_CHUNK):
            chunk = line[start : start + TYPE_CHUNK]
            commands.append(
                XCommand(
                    ("xdotool", "type", "--delay", str(TYPE_DELAY_MS), "--file", "-"),
                    stdin=chunk.encode("utf-8"),
                    carries_text=True,
                )
            )
    return commands


def x_focus_command(window: int) -> XCommand:
    return XCommand(("xdotool", "windowfocus", "--sync", str(window)))


# =============================================================================
# X11: the keyboard map (which keysyms exist without rebinding a keycode)
# =============================================================================

_keymaps: dict[str, frozenset[int]] = {}


def _load_x_keymap(display: str) -> frozenset[int] | None:
    """Every keysym of the display's core keyboard map, or None if libX11 cannot tell."""
    try:
        x11: Any = ctypes.CDLL("libX11.so.6")
    except OSError:
        return None
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    x11.XDisplayKeycodes.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
    x11.XGetKeyboardMapping.restype = ctypes.POINTER(ctypes.c_ulong)
    x11.XGetKeyboardMapping.argtypes = [ctypes.c_void_p, ctypes.c_ubyte, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    x11.XFree.argtypes = [ctypes.c_void_p]
    dpy = x11.XOpenDisplay(display.encode())
    if not dpy:
        return None
    try:
        low, high, per = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        x11.XDisplayKeycodes(dpy, ctypes.byref(low), ctypes.byref(high))
        count = high.value - low.value + 1
        syms = x11.XGetKeyboardMapping(dpy, low.value, count, ctypes.byref(per))
        if not syms:
            return None
        try:
            return frozenset(s for s in syms[: count * per.value] if s)
        finally:
            x11.XFree(syms)
    finally:
        x11.XCloseDisplay(dpy)


def _x_keymap(*, refresh: bool = False) -> frozenset[int] | None:
    display = os.environ.get("DISPLAY", "")
    if refresh or display not in _keymaps:
        keymap = _load_x_keymap(display)
        if keymap is None:
            return None
        _keymaps[display] = keymap
    return _keymaps[display]


#: Used when libX11 cannot be asked: what every X keyboard map has.
_SAFE_KEYSYMS: Final = frozenset(
    [*range(0x20, 0x7F), 0xFF0D, 0xFF09, *_X_NAMED_KEYSYMS.values(), *_X_MODIFIER_KEYSYMS.values()]
    + [0xFFBE + n for n in range(12)]  # F1-F12
)


def missing_keysyms(wanted: Iterable[int], keymap: frozenset[int] | None) -> list[int]:
    """The keysyms of ``wanted`` not in ``keymap`` (the safe set when the map is unknown)."""
    have = _SAFE_KEYSYMS if keymap is None else keymap
    return sorted({k for k in wanted if k not in have})


def _x_check_keysyms(wanted: set[int], what: str, *, text: bool) -> None:
    missing = missing_keysyms(wanted, _x_keymap())
    if missing:
        missing = missing_keysyms(missing, _x_keymap(refresh=True))  # the map may have changed
    if not missing:
        return
    if text:
        message = (
            f"text has {len(missing)} character(s) the X keyboard map cannot type; xdotool would rebind a "
            "key for them, which Mono's WinForms misreads or crashes on."
        )
        detail: dict[str, Any] = {"missingCount": len(missing)}
    else:
        message = (
            f"{what} is not on the X keyboard map; xdotool would rebind a key for it, "
            "which Mono's WinForms misreads or crashes on."
        )
        detail = {"keys": what}
    raise InvalidArgumentError(message, suggestion='Use mode="auto", or a key that the keyboard has.', detail=detail)


# =============================================================================
# X11: running xdotool
# =============================================================================

_SAFE_STDERR_PREFIXES: Final = (
    "Error: Can't open display",
    "Failed creating new xdo instance",
    "X Error of failed request",
    "Invalid multi-byte sequence",
    "xdo_enter_text_window reported an error",
)


def _stderr_summary(stderr: bytes, *, carries_text: bool, limit: int = 300) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if carries_text:  # only xdotool's own fixed messages: never anything that could echo the text
        lines = [line for line in lines if line.startswith(_SAFE_STDERR_PREFIXES)]
    summary = " | ".join(lines)
    return summary if len(summary) <= limit else summary[: limit - 1] + "…"


def _run_x(command: XCommand) -> str:
    exe = shutil.which("xdotool")
    if exe is None:
        raise InvalidArgumentError(
            "OS input is not available: xdotool is not installed.",
            suggestion='Install xdotool (apt-get install xdotool) or use mode="auto".',
        )
    step = command.argv[1]
    try:
        done = subprocess.run(
            [exe, *command.argv[1:]],
            input=command.stdin if command.stdin is not None else b"",
            capture_output=True,
            timeout=COMMAND_TIMEOUT,
            env=dict(os.environ),  # the DISPLAY this process has now
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise OperationTimedOutError(
            f"xdotool {step} did not finish within {COMMAND_TIMEOUT:g} s and was stopped.",
            suggestion="Check that the X server answers (xdotool getmouselocation), then retry.",
            detail={"step": step},
        ) from None
    except OSError as exc:
        raise ProbeError(
            f"xdotool {step} could not be started: {exc.strerror or type(exc).__name__}.",
            code="INTERNAL",
            suggestion='Check the xdotool installation, or use mode="auto".',
            detail={"step": step},
        ) from None
    if done.returncode != 0:
        summary = _stderr_summary(done.stderr, carries_text=command.carries_text)
        raise ProbeError(
            f"xdotool {step} failed (exit {done.returncode})" + (f": {summary}" if summary else "."),
            code="INTERNAL",
            suggestion='Check DISPLAY and the X server, or use mode="auto".',
            detail={"step": step, "exitCode": done.returncode},
        )
    return done.stdout.decode("utf-8", "replace") if isinstance(done.stdout, bytes) else ""


def _x_screen_size() -> tuple[int, int] | None:
    exe = shutil.which("xdotool")
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "getdisplaygeometry"], capture_output=True, timeout=COMMAND_TIMEOUT, env=dict(os.environ), check=False
        )
        width, height = done.stdout.split()[:2]
        return int(width), int(height)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        return None


def _x_click(x: int, y: int, button: Button, count: int) -> None:
    size = _x_screen_size()
    # X has no negative coordinates; xdotool would clamp a point off the screen to its
    # edge and click something else there.
    if x < 0 or y < 0 or (size is not None and (x >= size[0] or y >= size[1])):
        raise InvalidArgumentError(
            f"({x}, {y}) is outside the screen" + (f" ({size[0]}x{size[1]})." if size else "."),
            suggestion='Scroll the element into view, or click it with mode="auto".',
            detail={"x": x, "y": y},
        )
    before, after = pointer_windows(_run_x(x_move_command(x, y)))
    # The pointer came into a window from outside: with no window manager X focus
    # follows the pointer, and Mono answers the FocusIn by giving focus back to
    # the control that last had it, about 0.1 s later, so a click sent at once
    # loses the focus it gave to what it clicked. Measured: 0.1 s too short,
    # 0.12 s enough; ENTER_SETTLE leaves a margin for a loaded machine.
    settle = ENTER_SETTLE if before != after else 0.0
    wait = max(settle, _double_click_wait_now(x, y, button, X_DOUBLE_CLICK_TIME))
    if wait > 0:
        time.sleep(wait)
    _run_x(x_buttons_command(button=button, count=count))
    _clicked(x, y, button)


# =============================================================================
# X11: refusing what the keyboard map lacks, before anything is sent
# =============================================================================


def _x_check_text(text: str, kind: str) -> None:
    if kind == "x11" and text:
        with _lock:  # the keyboard-map cache
            _x_check_keysyms({char_keysym(ch) for ch in text.replace("\r", "\n")}, "text", text=True)


def _x_check_chords(chords: tuple[KeyChord, ...], kind: str) -> None:
    if kind == "x11":
        with _lock:
            for chord in chords:
                _x_check_keysyms(set(x_chord_keysyms(chord)), x_chord(chord), text=False)
