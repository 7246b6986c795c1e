"""Real OS input for ``mode="os"``: mouse and keyboard events at true screen pixels.

Linux/X11 goes through ``xdotool`` (a subprocess per step, argument lists, no
shell); Windows through ``SendInput`` (ctypes, user32). Every function here is
called OFF the UI thread: the UI thread must be free to take the events, and
nothing here waits for the app to react (the caller polls for the effect).

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

Typed text never appears in an error message, a log or a command line (it is
passed to xdotool on stdin, where other users' ``ps`` cannot see it).
"""

from __future__ import annotations

import ctypes
import operator
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

from wpfprobe.core.protocol import KeyChord
from wpfprobe.core.errors import InvalidArgumentError, OperationTimedOutError, ProbeError
from wpfprobe.core.keys import KEY_NAMES

__all__ = ["Button", "available", "check_keys", "check_text", "click", "focus_window", "send_keys", "type_text"]

Button = Literal["left", "right", "middle"]

BUTTONS: Final[tuple[Button, ...]] = ("left", "right", "middle")
MAX_CLICK_COUNT: Final = 3
#: Seconds each xdotool process may take before it is killed.
COMMAND_TIMEOUT: Final = 10.0
#: Milliseconds between the clicks of a double or triple click (under the
#: double-click time of every desktop, above what apps debounce).
CLICK_DELAY_MS: Final = 80
#: Milliseconds between typed characters (xdotool's own default).
TYPE_DELAY_MS: Final = 12
#: Seconds between the pointer entering another window and the click (see _x_click).
ENTER_SETTLE: Final = 0.3
#: Seconds within which a second press of the same button at (nearly) the same
#: point makes a double click on X11: Mono's X11 driver measured 0.36-0.4 s, GTK
#: and Qt default to 0.4 s. Windows asks GetDoubleClickTime.
X_DOUBLE_CLICK_TIME: Final = 0.5
#: Pixels within which two presses count as "the same point" for that guard.
DOUBLE_CLICK_SLOP: Final = 8
#: Characters per xdotool ``type`` process: about 1.5 s each, far inside the timeout.
TYPE_CHUNK: Final = 100

_MODIFIER_ORDER: Final = ("ctrl", "shift", "alt", "meta")
_UNAVAILABLE_HINT: Final = 'Use mode="auto" (input through the toolkit).'
_lock = threading.Lock()  # OS input is global: one sequence at a time, never interleaved
#: When, where and with which button the last click sent from here ended (under _lock).
_last_click: tuple[float, int, int, str] | None = None


# =============================================================================
# Availability
# =============================================================================


def _platform() -> Literal["windows", "x11", "other"]:
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "other"
    return "x11"


def available() -> str | None:
    """None if OS input can be sent from this process, else a one-line reason why not."""
    kind = _platform()
    if kind == "windows":
        return None
    if kind == "other":
        return f"OS input needs Windows or an X11 display; this is {sys.platform}"
    if not os.environ.get("DISPLAY"):
        if os.environ.get("WAYLAND_DISPLAY"):
            return "no X11 display (DISPLAY is not set; Wayland is not supported)"
        return "no X11 display (DISPLAY is not set)"
    if shutil.which("xdotool") is None:
        return "xdotool is not installed"
    return None


def _require() -> Literal["windows", "x11"]:
    reason = available()
    if reason is not None:
        if "xdotool" in reason:
            suggestion = 'Install xdotool (apt-get install xdotool) or use mode="auto".'
        elif "DISPLAY" in reason:
            suggestion = 'Run the app on an X11 display (e.g. Xvfb) with DISPLAY set, or use mode="auto".'
        else:
            suggestion = _UNAVAILABLE_HINT
        raise InvalidArgumentError(f"OS input is not available: {reason}.", suggestion=suggestion)
    kind = _platform()
    assert kind != "other"
    return kind


# =============================================================================
# Argument checks (shared by both back ends)
# =============================================================================


def _check_point(x: object, y: object) -> tuple[int, int]:
    try:
        if isinstance(x, bool) or isinstance(y, bool):
            raise TypeError
        return operator.index(x), operator.index(y)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidArgumentError(
            "x and y must be integers (physical screen pixels).", suggestion="Pass whole pixel coordinates."
        ) from None


def _check_click(button: object, count: object) -> None:
    if button not in BUTTONS:
        raise InvalidArgumentError(
            "button must be left, right or middle.", suggestion='Use button="left".', detail={"button": str(button)}
        )
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_CLICK_COUNT:
        raise InvalidArgumentError(
            f"count must be an integer from 1 to {MAX_CLICK_COUNT}.",
            suggestion="Use count=1 for a click, 2 for a double click.",
        )


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidArgumentError("text must be a string.", suggestion="Pass the text to type as a string.")
    for index, ch in enumerate(text):
        if (ord(ch) < 0x20 and ch not in "\t\n\r") or 0x7F <= ord(ch) < 0xA0 or 0xD800 <= ord(ch) < 0xE000:
            # Position only: the text itself never goes into an error.
            raise InvalidArgumentError(
                f"text has a control character at position {index}; OS typing sends only printable "
                "characters, tabs and newlines.",
                suggestion='Send keys such as Backspace or Escape with send_keys, or use mode="auto".',
                detail={"position": index},
            )
    return text


def _check_chords(chords: object) -> tuple[KeyChord, ...]:
    if isinstance(chords, (str, bytes)) or not isinstance(chords, Iterable):
        raise InvalidArgumentError(
            "chords must be a sequence of KeyChord.",
            suggestion='Parse key text with wpfprobe.core.keys.parse_keys("Ctrl+S").',
        )
    out = tuple(chords)
    for chord in out:
        if not isinstance(chord, KeyChord):
            raise InvalidArgumentError("chords must be KeyChord values.", suggestion="Use parse_keys to build them.")
        if chord.key not in KEY_NAMES:
            raise InvalidArgumentError(
                f"{chord.key!r} is not a canonical key name.",
                suggestion="Use parse_keys to build chords.",
                detail={"key": chord.key},
            )
        bad = [m for m in chord.modifiers if m not in _MODIFIER_ORDER]
        if bad:
            raise InvalidArgumentError(
                f"{bad[0]!r} is not a modifier; use ctrl, shift, alt or meta.",
                suggestion="Use parse_keys to build chords.",
                detail={"modifier": bad[0]},
            )
    return out


def _text_segments(text: str) -> list[str]:
    """Split text into lines ("\\r\\n", "\\r" and "\\n" each end one); a Return goes between them."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def double_click_wait(
    last: tuple[float, int, int, str] | None, now: float, x: int, y: int, button: str, interval: float
) -> float:
    """Seconds to wait so that a click does not join the previous one into a double
    click: two separate ``click`` calls on one element are two single clicks."""
    if last is None:
        return 0.0
    when, lx, ly, lbutton = last
    if lbutton != button or abs(x - lx) > DOUBLE_CLICK_SLOP or abs(y - ly) > DOUBLE_CLICK_SLOP:
        return 0.0
    return max(0.0, when + interval - now)


def _clicked(x: int, y: int, button: str) -> None:
    global _last_click
    _last_click = (time.monotonic(), x, y, button)


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
    wait = max(settle, double_click_wait(_last_click, time.monotonic(), x, y, button, X_DOUBLE_CLICK_TIME))
    if wait > 0:
        time.sleep(wait)
    _run_x(x_buttons_command(button=button, count=count))
    _clicked(x, y, button)


# =============================================================================
# Windows (SendInput): pure parts
# =============================================================================

INPUT_MOUSE: Final = 0
INPUT_KEYBOARD: Final = 1
MOUSEEVENTF_MOVE: Final = 0x0001
MOUSEEVENTF_LEFTDOWN: Final = 0x0002
MOUSEEVENTF_LEFTUP: Final = 0x0004
MOUSEEVENTF_RIGHTDOWN: Final = 0x0008
MOUSEEVENTF_RIGHTUP: Final = 0x0010
MOUSEEVENTF_MIDDLEDOWN: Final = 0x0020
MOUSEEVENTF_MIDDLEUP: Final = 0x0040
MOUSEEVENTF_VIRTUALDESK: Final = 0x4000
MOUSEEVENTF_ABSOLUTE: Final = 0x8000
KEYEVENTF_EXTENDEDKEY: Final = 0x0001
KEYEVENTF_KEYUP: Final = 0x0002
KEYEVENTF_UNICODE: Final = 0x0004
SM_SWAPBUTTON: Final = 23
SM_XVIRTUALSCREEN: Final = 76
SM_YVIRTUALSCREEN: Final = 77
SM_CXVIRTUALSCREEN: Final = 78
SM_CYVIRTUALSCREEN: Final = 79
DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2: Final = -4
VK_RETURN: Final = 0x0D
VK_TAB: Final = 0x09

_VK_NAMED: Final[dict[str, int]] = {
    "Enter": 0x0D, "Tab": 0x09, "Escape": 0x1B, "Backspace": 0x08, "Delete": 0x2E, "Insert": 0x2D,
    "Home": 0x24, "End": 0x23, "PageUp": 0x21, "PageDown": 0x22, "Left": 0x25, "Up": 0x26,
    "Right": 0x27, "Down": 0x28, "Space": 0x20,
}  # fmt: skip
VK_MODIFIERS: Final[dict[str, int]] = {"ctrl": 0x11, "shift": 0x10, "alt": 0x12, "meta": 0x5B}  # LWIN
#: Keys that sit on the extended (E0) half of the keyboard: without the flag the
#: navigation keys arrive as their numeric-keypad twins.
_VK_EXTENDED: Final = frozenset({0x2D, 0x2E, 0x24, 0x23, 0x21, 0x22, 0x25, 0x26, 0x27, 0x28, 0x5B})


def vk_code(key: str) -> int:
    """The Windows virtual-key code of a canonical key name from KEY_NAMES."""
    if key in _VK_NAMED:
        return _VK_NAMED[key]
    if len(key) == 1 and key.isascii() and (key.isupper() or key.isdigit()):
        return ord(key)  # VK_A..VK_Z = 'A'..'Z', VK_0..VK_9 = '0'..'9'
    if key.startswith("F") and key[1:].isdigit() and 1 <= int(key[1:]) <= 24:
        return 0x70 + int(key[1:]) - 1  # VK_F1 = 0x70 .. VK_F24 = 0x87
    raise InvalidArgumentError(f"{key!r} is not a canonical key name.", suggestion="Use parse_keys to build chords.")


class VirtualScreen(NamedTuple):
    """The bounding box of all monitors in physical pixels; x, y may be negative."""

    x: int
    y: int
    width: int
    height: int

    def contains(self, px: int, py: int) -> bool:
        return self.x <= px < self.x + self.width and self.y <= py < self.y + self.height


def normalize(px: int, py: int, screen: VirtualScreen) -> tuple[int, int]:
    """Map a physical pixel to SendInput's 0..65535 absolute coordinates over the virtual desktop.

    It aims at the pixel's centre, so that Windows' mapping back (floor of
    n * size / 65536, or / 65535) lands on the same pixel on every screen size.
    """

    def axis(p: int, origin: int, size: int) -> int:
        n = ((p - origin) * 2 + 1) * 65536 // (2 * size)
        return max(0, min(65535, n))

    return axis(px, screen.x, screen.width), axis(py, screen.y, screen.height)


def denormalize(nx: int, ny: int, screen: VirtualScreen) -> tuple[int, int]:
    """What Windows does with normalized coordinates (for the tests)."""
    return screen.x + nx * screen.width // 65536, screen.y + ny * screen.height // 65536


def mouse_button_flags(button: Button, *, swapped: bool = False) -> tuple[int, int]:
    """(down, up) flags. SendInput's LEFT means the physical left button, so with swapped
    buttons (left-handed setting) the logical left click is sent as RIGHT."""
    if swapped and button != "middle":
        button = "right" if button == "left" else "left"
    return {
        "left": (MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP),
        "right": (MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP),
        "middle": (MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP),
    }[button]


class KeyEvent(NamedTuple):
    """One KEYBDINPUT: virtual key (0 with KEYEVENTF_UNICODE), scan code or UTF-16 unit, flags."""

    vk: int
    scan: int
    flags: int


def _press(vk: int) -> list[KeyEvent]:
    ext = KEYEVENTF_EXTENDEDKEY if vk in _VK_EXTENDED else 0
    return [KeyEvent(vk, 0, ext), KeyEvent(vk, 0, ext | KEYEVENTF_KEYUP)]


def windows_chord_events(chord: KeyChord) -> list[KeyEvent]:
    """Modifiers down in order, the key down and up, modifiers up in reverse order."""
    mods = [VK_MODIFIERS[m] for m in _MODIFIER_ORDER if m in chord.modifiers]
    down = [KeyEvent(vk, 0, KEYEVENTF_EXTENDEDKEY if vk in _VK_EXTENDED else 0) for vk in mods]
    up = [KeyEvent(e.vk, 0, e.flags | KEYEVENTF_KEYUP) for e in reversed(down)]
    return [*down, *_press(vk_code(chord.key)), *up]


def windows_text_events(text: str) -> list[KeyEvent]:
    """Each UTF-16 unit as a KEYEVENTF_UNICODE press; newlines as Return, tabs as Tab
    (the keys a user presses, as xdotool does on X11)."""
    events: list[KeyEvent] = []
    for i, line in enumerate(_text_segments(text)):
        if i:
            events += _press(VK_RETURN)
        for ch in line:
            if ch == "\t":
                events += _press(VK_TAB)
                continue
            data = ch.encode("utf-16-le")
            for k in range(0, len(data), 2):
                unit = int.from_bytes(data[k : k + 2], "little")
                events += [
                    KeyEvent(0, unit, KEYEVENTF_UNICODE),
                    KeyEvent(0, unit, KEYEVENTF_UNICODE | KEYEVENTF_KEYUP),
                ]
    return events


# ctypes layouts with explicit widths (LONG/DWORD are 32-bit on Windows, where
# c_long is too; on 64-bit Linux c_long is 64-bit), so the sizes can be checked here.
class MOUSEINPUT(ctypes.Structure):
    _fields_ = [
        ("dx", ctypes.c_int32),
        ("dy", ctypes.c_int32),
        ("mouseData", ctypes.c_uint32),
        ("dwFlags", ctypes.c_uint32),
        ("time", ctypes.c_uint32),
        ("dwExtraInfo", ctypes.c_size_t),
    ]


class KEYBDINPUT(ctypes.Structure):
    _fields_ = [
        ("wVk", ctypes.c_uint16),
        ("wScan", ctypes.c_uint16),
        ("dwFlags", ctypes.c_uint32),
        ("time", ctypes.c_uint32),
        ("dwExtraInfo", ctypes.c_size_t),
    ]


class HARDWAREINPUT(ctypes.Structure):
    _fields_ = [("uMsg", ctypes.c_uint32), ("wParamL", ctypes.c_uint16), ("wParamH", ctypes.c_uint16)]


class _INPUTUNION(ctypes.Union):
    _fields_ = [("mi", MOUSEINPUT), ("ki", KEYBDINPUT), ("hi", HARDWAREINPUT)]


class INPUT(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("u", _INPUTUNION)]


def mouse_input(nx: int, ny: int, flags: int) -> INPUT:
    inp = INPUT(type=INPUT_MOUSE)
    inp.u.mi = MOUSEINPUT(nx, ny, 0, flags | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK, 0, 0)
    return inp


def key_input(event: KeyEvent) -> INPUT:
    inp = INPUT(type=INPUT_KEYBOARD)
    inp.u.ki = KEYBDINPUT(event.vk, event.scan, event.flags, 0, 0)
    return inp


# =============================================================================
# Windows: calling user32 (only ever reached on Windows)
# =============================================================================


@dataclass
class _User32:
    dll: Any

    @classmethod
    def load(cls) -> _User32:
        dll = ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
        dll.SendInput.argtypes = [ctypes.c_uint, ctypes.POINTER(INPUT), ctypes.c_int]
        dll.SendInput.restype = ctypes.c_uint
        dll.GetSystemMetrics.argtypes = [ctypes.c_int]
        dll.GetSystemMetrics.restype = ctypes.c_int
        dll.GetDoubleClickTime.argtypes = []
        dll.GetDoubleClickTime.restype = ctypes.c_uint
        dll.MapVirtualKeyW.argtypes = [ctypes.c_uint, ctypes.c_uint]
        dll.MapVirtualKeyW.restype = ctypes.c_uint
        dll.SetForegroundWindow.argtypes = [ctypes.c_void_p]
        dll.SetForegroundWindow.restype = ctypes.c_int
        if hasattr(dll, "SetThreadDpiAwarenessContext"):  # Windows 10 1607 and later
            dll.SetThreadDpiAwarenessContext.argtypes = [ctypes.c_void_p]
            dll.SetThreadDpiAwarenessContext.restype = ctypes.c_void_p
        return cls(dll)

    def send(self, inputs: Sequence[INPUT]) -> None:
        if not inputs:
            return
        array = (INPUT * len(inputs))(*inputs)
        sent = self.dll.SendInput(len(inputs), array, ctypes.sizeof(INPUT))
        if sent != len(inputs):
            error = ctypes.get_last_error()  # type: ignore[attr-defined,unused-ignore]
            raise ProbeError(
                f"SendInput delivered {sent} of {len(inputs)} input events (error {error}).",
                code="INTERNAL",
                suggestion="Input is blocked when the target runs elevated (UIPI) or the desktop is locked; "
                'use mode="auto".',
                detail={"sent": sent, "expected": len(inputs), "winError": error},
            )

    def physical_pixels(self) -> _DpiScope:
        return _DpiScope(self.dll)

    def virtual_screen(self) -> VirtualScreen:
        m = self.dll.GetSystemMetrics
        return VirtualScreen(m(SM_XVIRTUALSCREEN), m(SM_YVIRTUALSCREEN), m(SM_CXVIRTUALSCREEN), m(SM_CYVIRTUALSCREEN))

    def double_click_time(self) -> float:
        return float(self.dll.GetDoubleClickTime()) / 1000

    def buttons_swapped(self) -> bool:
        return bool(self.dll.GetSystemMetrics(SM_SWAPBUTTON))

    def with_scan(self, event: KeyEvent) -> KeyEvent:
        if event.flags & KEYEVENTF_UNICODE or event.vk == 0:
            return event
        return event._replace(scan=self.dll.MapVirtualKeyW(event.vk, 0) & 0xFFFF)  # MAPVK_VK_TO_VSC


class _DpiScope:
    """Per-monitor DPI awareness for the calling thread while in the block, so
    GetSystemMetrics and SendInput speak physical pixels; the old context after."""

    def __init__(self, dll: Any) -> None:
        self._dll = dll
        self._previous: int | None = None

    def __enter__(self) -> None:
        setter = getattr(self._dll, "SetThreadDpiAwarenessContext", None)
        if setter is not None:
            self._previous = setter(ctypes.c_void_p(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2)) or None

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            self._dll.SetThreadDpiAwarenessContext(ctypes.c_void_p(self._previous))


_user32: _User32 | None = None


def _win() -> _User32:
    global _user32
    if _user32 is None:
        _user32 = _User32.load()
    return _user32


def _win_click(x: int, y: int, button: Button, count: int) -> None:
    user32 = _win()
    with user32.physical_pixels():
        screen = user32.virtual_screen()
        if not screen.contains(x, y):
            raise InvalidArgumentError(
                f"({x}, {y}) is outside the virtual screen {tuple(screen)}.",
                suggestion='Scroll the element into view, or click it with mode="auto".',
                detail={"x": x, "y": y, "screen": list(screen)},
            )
        nx, ny = normalize(x, y, screen)
        down, up = mouse_button_flags(button, swapped=user32.buttons_swapped())
        user32.send([mouse_input(nx, ny, MOUSEEVENTF_MOVE)])
        wait = double_click_wait(_last_click, time.monotonic(), x, y, button, user32.double_click_time() + 0.05)
        if wait > 0:
            time.sleep(wait)
        for i in range(count):
            if i:
                time.sleep(CLICK_DELAY_MS / 1000)
            user32.send([mouse_input(nx, ny, down), mouse_input(nx, ny, up)])
        _clicked(x, y, button)


def _win_keys(events: Sequence[KeyEvent]) -> None:
    user32 = _win()
    inputs = [key_input(user32.with_scan(e)) for e in events]
    for start in range(0, len(inputs), 200):  # one SendInput per batch: not interleaved with the user's keys
        user32.send(inputs[start : start + 200])


# =============================================================================
# The API
# =============================================================================


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


def _x_check_text(text: str, kind: str) -> None:
    if kind == "x11" and text:
        with _lock:  # the keyboard-map cache
            _x_check_keysyms({char_keysym(ch) for ch in text.replace("\r", "\n")}, "text", text=True)


def _x_check_chords(chords: tuple[KeyChord, ...], kind: str) -> None:
    if kind == "x11":
        with _lock:
            for chord in chords:
                _x_check_keysyms(set(x_chord_keysyms(chord)), x_chord(chord), text=False)


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
