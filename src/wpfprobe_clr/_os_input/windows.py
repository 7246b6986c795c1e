"""OS input on Windows through ``SendInput`` (ctypes, user32), in physical pixels.

The pure parts first (virtual-key codes, the 0..65535 coordinate mapping,
the key events of a chord or a text, the INPUT structures with explicit
widths), which run and are tested on any platform; then the calls into
user32, only ever reached on Windows.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.protocol import KeyChord
from wpfprobe_clr._os_input.common import (
    _MODIFIER_ORDER,
    CLICK_DELAY_MS,
    Button,
    _clicked,
    _double_click_wait_now,
    _text_segments,
)

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
        wait = _double_click_wait_now(x, y, button, user32.double_click_time() + 0.05)
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
