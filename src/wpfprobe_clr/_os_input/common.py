"""What both OS input back ends share: availability, argument checks, one lock, the last click.

The checks run before anything is sent, on every platform, so a bad argument
is INVALID_ARGUMENT the same way on X11 and Windows. OS input is global to the
desktop: ``_lock`` keeps one sequence at a time, and ``_last_click`` (read and
written under it) keeps two separate clicks from becoming a double click.
"""

from __future__ import annotations

import operator
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterable
from typing import Final, Literal

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.keys import KEY_NAMES
from wpfprobe.core.protocol import KeyChord

Button = Literal["left", "right", "middle"]

BUTTONS: Final[tuple[Button, ...]] = ("left", "right", "middle")
MAX_CLICK_COUNT: Final = 3
#: Milliseconds between the clicks of a double or triple click (under the
#: double-click time of every desktop, above what apps debounce).
CLICK_DELAY_MS: Final = 80
#: Pixels within which two presses count as "the same point" for double_click_wait.
DOUBLE_CLICK_SLOP: Final = 8

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


def _double_click_wait_now(x: int, y: int, button: str, interval: float) -> float:
    """``double_click_wait`` against the last click sent from here, as of now (call under _lock)."""
    return double_click_wait(_last_click, time.monotonic(), x, y, button, interval)
