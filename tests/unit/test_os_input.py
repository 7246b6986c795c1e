"""The OS input back end without an X server or Windows: command lines, key maps,
coordinate math, availability and error reporting, with subprocess and user32 faked."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.keys import KEY_NAMES, parse_keys
from wpfprobe.core.protocol import KeyChord
from wpfprobe_clr import _os_input as osi
from wpfprobe_clr._os_input import common, x11
from wpfprobe_clr._os_input import windows as win
from wpfprobe_clr._os_input.windows import VirtualScreen

SECRET = "s3cret-Passw0rd"

# -- the X11 command lines -----------------------------------------------------


def test_move_command_reports_the_window_then_nudges_then_syncs() -> None:
    assert x11.x_move_command(100, 200).argv == (
        "xdotool",
        "getmouselocation", "--shell",
        "mousemove", "99", "200",
        "mousemove", "--sync", "100", "200",
        "getmouselocation", "--shell",
    )  # fmt: skip


@pytest.mark.parametrize(("button", "number"), [("left", "1"), ("middle", "2"), ("right", "3")])
def test_buttons_command_and_repeat(button: Any, number: str) -> None:
    assert x11.x_buttons_command(button=button, count=2).argv == (
        "xdotool", "click", "--repeat", "2", "--delay", "80", number,
    )  # fmt: skip


def test_move_command_at_the_left_edge_nudges_right() -> None:
    argv = x11.x_move_command(0, 0).argv
    assert argv[3:6] == ("mousemove", "1", "0")
    assert argv[6:10] == ("mousemove", "--sync", "0", "0")


def test_pointer_windows_reads_before_and_after() -> None:
    out = "X=640\nY=512\nSCREEN=0\nWINDOW=1293\nX=11\nY=10\nSCREEN=0\nWINDOW=2097179\n"
    assert x11.pointer_windows(out) == ("1293", "2097179")
    assert x11.pointer_windows("") == (None, None)


def test_key_command_orders_modifiers_and_maps_meta_to_super() -> None:
    chords = [
        KeyChord(("shift", "ctrl"), "S"),
        KeyChord((), "Enter"),
        KeyChord(("meta",), "A"),
        KeyChord((), "PageDown"),
    ]
    assert x11.x_key_command(chords).argv == (
        "xdotool", "key", "--clearmodifiers", "ctrl+shift+s", "Return", "super+a", "Next",
    )  # fmt: skip
    assert x11.x_key_command(parse_keys("Alt+F4 Shift+Tab 7")).argv[3:] == ("alt+F4", "shift+Tab", "7")


def test_type_commands_keep_the_text_off_the_command_line() -> None:
    commands = x11.x_type_commands(SECRET)
    assert commands == [
        x11.XCommand(("xdotool", "type", "--delay", "12", "--file", "-"), SECRET.encode(), carries_text=True)
    ]
    assert all(SECRET not in arg for c in commands for arg in c.argv)


def test_type_commands_press_return_between_lines_for_every_newline_style() -> None:
    commands = x11.x_type_commands("one\r\ntwo\nthree\rfour\n")
    kinds = [(c.argv[1], c.stdin) for c in commands]
    assert kinds == [
        ("type", b"one"), ("key", None), ("type", b"two"), ("key", None),
        ("type", b"three"), ("key", None), ("type", b"four"), ("key", None),
    ]  # fmt: skip
    assert all(c.argv == ("xdotool", "key", "--clearmodifiers", "Return") for c in commands if c.argv[1] == "key")
    assert x11.x_type_commands("\n\n") == [x11.x_type_commands("\n")[0]] * 2


def test_type_commands_split_long_text_into_chunks() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(x11.TYPE_CHUNK * 2 + 7))
    commands = x11.x_type_commands(text)
    assert [len(c.stdin or b"") for c in commands] == [x11.TYPE_CHUNK, x11.TYPE_CHUNK, 7]
    assert b"".join(c.stdin or b"" for c in commands).decode() == text


def test_focus_command() -> None:
    assert x11.x_focus_command(2097180).argv == ("xdotool", "windowfocus", "--sync", "2097180")


# -- key maps cover every canonical name -----------------------------------------

_X_EXPECTED = {
    "Enter": "Return", "Tab": "Tab", "Escape": "Escape", "Backspace": "BackSpace", "Delete": "Delete",
    "Insert": "Insert", "Home": "Home", "End": "End", "PageUp": "Prior", "PageDown": "Next",
    "Left": "Left", "Right": "Right", "Up": "Up", "Down": "Down", "Space": "space",
}  # fmt: skip
_VK_EXPECTED = {
    "Enter": 0x0D, "Tab": 0x09, "Escape": 0x1B, "Backspace": 0x08, "Delete": 0x2E, "Insert": 0x2D,
    "Home": 0x24, "End": 0x23, "PageUp": 0x21, "PageDown": 0x22, "Left": 0x25, "Up": 0x26,
    "Right": 0x27, "Down": 0x28, "Space": 0x20,
}  # fmt: skip


@pytest.mark.parametrize("key", KEY_NAMES)
def test_every_key_name_has_a_keysym(key: str) -> None:
    name = x11.x_keysym_name(key)
    if key in _X_EXPECTED:
        assert name == _X_EXPECTED[key]
    elif len(key) == 1:
        assert name == key.lower()
        assert x11.x_keysym_value(name) == ord(key.lower())
    else:
        assert name == key and key.startswith("F")
        assert x11.x_keysym_value(name) == 0xFFBE + int(key[1:]) - 1
    assert 0 < x11.x_keysym_value(name) <= 0xFFFF


@pytest.mark.parametrize("key", KEY_NAMES)
def test_every_key_name_has_a_virtual_key(key: str) -> None:
    vk = win.vk_code(key)
    if key in _VK_EXPECTED:
        assert vk == _VK_EXPECTED[key]
    elif len(key) == 1:
        assert vk == ord(key)  # VK_A.. and VK_0..
    else:
        assert vk == 0x70 + int(key[1:]) - 1
    assert 0 < vk < 0xFF


def test_key_maps_are_one_to_one() -> None:
    assert len({win.vk_code(k) for k in KEY_NAMES}) == len(KEY_NAMES)
    assert len({x11.x_keysym_name(k) for k in KEY_NAMES}) == len(KEY_NAMES)
    assert win.vk_code("F1") == 0x70 and win.vk_code("F24") == 0x87
    assert x11.x_keysym_value("F24") == 0xFFD5


def test_unknown_key_names_are_refused() -> None:
    for bad in ("Ctrl", "a", "F25", "F0", "Return", ""):
        with pytest.raises(InvalidArgumentError):
            win.vk_code(bad)
        with pytest.raises(InvalidArgumentError):
            x11.x_keysym_name(bad)


def test_char_keysyms() -> None:
    assert x11.char_keysym("a") == 0x61 and x11.char_keysym("~") == 0x7E
    assert x11.char_keysym("\n") == 0xFF0D and x11.char_keysym("\t") == 0xFF09
    assert x11.char_keysym("é") == 0xE9
    assert x11.char_keysym("日") == 0x01000000 | 0x65E5


def test_missing_keysyms_uses_the_map_or_a_safe_default() -> None:
    f13 = x11.x_keysym_value("F13")
    assert x11.missing_keysyms([0x61, f13], frozenset({0x61})) == [f13]
    assert x11.missing_keysyms([0x61, f13], frozenset({0x61, f13})) == []
    # libX11 unavailable: printable ASCII and the usual keys pass, F13 and "é" do not
    assert x11.missing_keysyms([*range(0x20, 0x7F), x11.x_keysym_value("F12"), 0xFF55], None) == []
    assert x11.missing_keysyms([f13, 0xE9], None) == [0xE9, f13]


# -- Windows: the pure parts -----------------------------------------------------


def test_input_structures_match_the_windows_layout() -> None:
    wide = ctypes.sizeof(ctypes.c_void_p) == 8
    assert ctypes.sizeof(win.INPUT) == (40 if wide else 28)
    assert ctypes.sizeof(win.MOUSEINPUT) == (32 if wide else 24)
    assert ctypes.sizeof(win.KEYBDINPUT) == (24 if wide else 16)


SCREENS = [
    VirtualScreen(0, 0, 1920, 1080),
    VirtualScreen(0, 0, 3840, 2160),
    VirtualScreen(-1920, 0, 3840, 1080),  # a monitor left of the primary one
    VirtualScreen(-1280, -300, 4480, 1740),  # left and above
    VirtualScreen(-2561, -1441, 5123, 2883),  # odd sizes
    VirtualScreen(0, 0, 1, 1),
]


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s.x},{s.y},{s.width}x{s.height}")
def test_normalize_lands_on_the_same_pixel_both_ways_windows_maps_back(screen: VirtualScreen) -> None:
    for px in range(screen.x, screen.x + screen.width):
        nx, _ = win.normalize(px, screen.y, screen)
        assert 0 <= nx <= 65535
        assert screen.x + nx * screen.width // 65536 == px
        assert screen.x + nx * screen.width // 65535 == px
    for py in range(screen.y, screen.y + screen.height):
        _, ny = win.normalize(screen.x, py, screen)
        assert 0 <= ny <= 65535
        assert win.denormalize(0, ny, screen)[1] == py


def test_normalize_corners_and_origin() -> None:
    screen = VirtualScreen(-1920, 0, 3840, 1080)
    assert win.normalize(-1920, 0, screen) == (8, 30)  # the centre of the first pixel
    nx, ny = win.normalize(1919, 1079, screen)
    assert 65500 < nx <= 65535 and 65500 < ny <= 65535
    assert win.normalize(0, 540, screen)[0] == 32776  # x=0 is the middle of this desktop
    assert win.normalize(-5000, 5000, screen) == (0, 65535)  # clamped
    assert screen.contains(-1920, 0) and not screen.contains(1920, 0) and not screen.contains(0, -1)


def test_button_flags_follow_swapped_buttons() -> None:
    assert win.mouse_button_flags("left") == (win.MOUSEEVENTF_LEFTDOWN, win.MOUSEEVENTF_LEFTUP)
    assert win.mouse_button_flags("right") == (win.MOUSEEVENTF_RIGHTDOWN, win.MOUSEEVENTF_RIGHTUP)
    assert win.mouse_button_flags("middle") == (win.MOUSEEVENTF_MIDDLEDOWN, win.MOUSEEVENTF_MIDDLEUP)
    assert win.mouse_button_flags("left", swapped=True) == win.mouse_button_flags("right")
    assert win.mouse_button_flags("right", swapped=True) == win.mouse_button_flags("left")
    assert win.mouse_button_flags("middle", swapped=True) == win.mouse_button_flags("middle")


def test_chord_events_hold_modifiers_around_the_key() -> None:
    up, ext = win.KEYEVENTF_KEYUP, win.KEYEVENTF_EXTENDEDKEY
    events = win.windows_chord_events(KeyChord(("ctrl", "shift"), "Left"))
    assert [(e.vk, e.flags) for e in events] == [
        (0x11, 0), (0x10, 0), (0x25, ext), (0x25, ext | up), (0x10, up), (0x11, up),
    ]  # fmt: skip
    meta = win.windows_chord_events(KeyChord(("meta",), "S"))
    assert [(e.vk, e.flags) for e in meta] == [(0x5B, ext), (0x53, 0), (0x53, up), (0x5B, ext | up)]
    assert [(e.vk, e.flags) for e in win.windows_chord_events(KeyChord((), "Enter"))] == [(0x0D, 0), (0x0D, up)]


def test_text_events_are_unicode_units_with_return_and_tab_keys() -> None:
    uni, up = win.KEYEVENTF_UNICODE, win.KEYEVENTF_KEYUP
    events = win.windows_text_events("aé\r\n\t😀")
    assert events == [
        win.KeyEvent(0, 0x61, uni), win.KeyEvent(0, 0x61, uni | up),
        win.KeyEvent(0, 0xE9, uni), win.KeyEvent(0, 0xE9, uni | up),
        win.KeyEvent(0x0D, 0, 0), win.KeyEvent(0x0D, 0, up),
        win.KeyEvent(0x09, 0, 0), win.KeyEvent(0x09, 0, up),
        win.KeyEvent(0, 0xD83D, uni), win.KeyEvent(0, 0xD83D, uni | up),  # a surrogate pair
        win.KeyEvent(0, 0xDE00, uni), win.KeyEvent(0, 0xDE00, uni | up),
    ]  # fmt: skip


# -- availability ---------------------------------------------------------------


@pytest.fixture
def linux(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    return monkeypatch


def test_available_on_x11_with_xdotool(linux: pytest.MonkeyPatch) -> None:
    assert osi.available() is None


def test_available_without_display(linux: pytest.MonkeyPatch) -> None:
    linux.delenv("DISPLAY")
    assert osi.available() == "no X11 display (DISPLAY is not set)"
    linux.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert "Wayland" in (osi.available() or "")


def test_available_without_xdotool(linux: pytest.MonkeyPatch) -> None:
    linux.setattr(shutil, "which", lambda name: None)
    assert osi.available() == "xdotool is not installed"


def test_available_on_other_platforms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert "Windows or an X11 display" in (osi.available() or "")
    monkeypatch.setattr(sys, "platform", "win32")
    assert osi.available() is None


def test_unavailable_input_is_an_invalid_argument_with_a_suggestion(
    linux: pytest.MonkeyPatch, subprocess_calls: list[Any]
) -> None:
    linux.setattr(shutil, "which", lambda name: None)
    calls: list[Callable[[], None]] = [
        lambda: osi.click(1, 2),
        lambda: osi.type_text(SECRET),
        lambda: osi.send_keys(parse_keys("Tab")),
    ]
    for call in calls:
        with pytest.raises(InvalidArgumentError) as info:
            call()
        assert "xdotool is not installed" in info.value.message
        assert "apt-get install xdotool" in info.value.suggestion and 'mode="auto"' in info.value.suggestion
        assert SECRET not in str(info.value.to_dict())
    linux.delenv("DISPLAY")
    with pytest.raises(InvalidArgumentError) as info:
        osi.click(1, 2)
    assert "DISPLAY" in info.value.suggestion
    assert subprocess_calls == []


def test_the_module_does_not_touch_windll_off_windows() -> None:
    assert win._user32 is None
    assert not hasattr(ctypes, "windll") or sys.platform == "win32"


# -- running xdotool (subprocess faked) --------------------------------------------


@dataclass
class FakeRun:
    calls: list[dict[str, Any]] = field(default_factory=list)
    returncode: int = 0
    stderr: bytes = b""
    timeout: bool = False
    geometry: bytes = b"1280 1024\n"
    windows: tuple[str, str] = ("100", "100")

    def __call__(self, argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        assert isinstance(argv, list) and "shell" not in kwargs
        assert kwargs.get("timeout") == x11.COMMAND_TIMEOUT
        self.calls.append({"argv": argv, **kwargs})
        if argv[1] == "getdisplaygeometry":
            return subprocess.CompletedProcess(argv, 0, self.geometry, b"")
        if self.timeout:
            raise subprocess.TimeoutExpired(argv, kwargs["timeout"])
        out = b""
        if argv[1] == "getmouselocation":
            before, after = self.windows
            out = f"X=1\nY=1\nSCREEN=0\nWINDOW={before}\nX=2\nY=2\nSCREEN=0\nWINDOW={after}\n".encode()
        return subprocess.CompletedProcess(argv, self.returncode, out, self.stderr)

    @property
    def input_calls(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["argv"][1] != "getdisplaygeometry"]


@pytest.fixture
def fake_run(linux: pytest.MonkeyPatch) -> FakeRun:
    run = FakeRun()
    linux.setattr(subprocess, "run", run)
    # Xvfb's default map: ASCII and the usual keys, no F13-F24, no accented letters.
    linux.setattr(x11, "_load_x_keymap", lambda display: x11._SAFE_KEYSYMS)
    linux.setattr(x11, "_keymaps", {})
    linux.setattr(common, "_last_click", None)
    return run


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    return slept


@pytest.fixture
def subprocess_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a))
    return calls


def test_click_moves_then_clicks_with_the_display_of_now(
    fake_run: FakeRun, linux: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    linux.setenv("DISPLAY", ":42")
    osi.click(300, 400, button="right", count=2)
    move, press = fake_run.input_calls
    assert move["argv"] == ["/usr/bin/xdotool", *x11.x_move_command(300, 400).argv[1:]]
    assert press["argv"] == ["/usr/bin/xdotool", *x11.x_buttons_command(button="right", count=2).argv[1:]]
    assert move["env"]["DISPLAY"] == ":42" and press["env"]["DISPLAY"] == ":42"
    assert sleeps == []  # the pointer stayed in the same window: no wait


def test_click_that_enters_a_window_waits_before_pressing(fake_run: FakeRun, sleeps: list[float]) -> None:
    fake_run.windows = ("1293", "2097179")
    osi.click(300, 400)
    assert sleeps == [x11.ENTER_SETTLE]
    assert [c["argv"][1] for c in fake_run.input_calls] == ["getmouselocation", "click"]


def test_double_click_wait() -> None:
    last = (10.0, 100, 200, "left")
    assert common.double_click_wait(None, 10.1, 100, 200, "left", 0.5) == 0.0
    assert common.double_click_wait(last, 10.1, 100, 200, "left", 0.5) == pytest.approx(0.4)
    assert common.double_click_wait(last, 10.1, 108, 192, "left", 0.5) == pytest.approx(0.4)  # within the slop
    assert common.double_click_wait(last, 10.1, 109, 200, "left", 0.5) == 0.0  # elsewhere
    assert common.double_click_wait(last, 10.1, 100, 200, "right", 0.5) == 0.0  # another button
    assert common.double_click_wait(last, 10.6, 100, 200, "left", 0.5) == 0.0  # long enough ago


def test_two_clicks_on_one_spot_stay_two_single_clicks(fake_run: FakeRun, sleeps: list[float]) -> None:
    osi.click(300, 400)
    osi.click(300, 400)
    assert len(sleeps) == 1 and 0.4 < sleeps[0] <= x11.X_DOUBLE_CLICK_TIME
    osi.click(300, 400, button="right")  # another button cannot make a double click
    assert len(sleeps) == 1


@pytest.mark.parametrize(("x", "y"), [(-1, 5), (5, -1), (1280, 5), (5, 1024)])
def test_click_off_the_screen_is_refused(fake_run: FakeRun, x: int, y: int) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        osi.click(x, y)
    assert "outside the screen" in info.value.message
    assert fake_run.input_calls == []


@pytest.mark.parametrize(
    ("kwargs", "what"),
    [
        ({"x": 1.5, "y": 2}, "integers"),
        ({"x": True, "y": 2}, "integers"),
        ({"x": "1", "y": 2}, "integers"),
        ({"x": 1, "y": 2, "button": "back"}, "button"),
        ({"x": 1, "y": 2, "count": 0}, "count"),
        ({"x": 1, "y": 2, "count": 4}, "count"),
        ({"x": 1, "y": 2, "count": True}, "count"),
    ],
)
def test_click_arguments_are_checked(fake_run: FakeRun, kwargs: dict[str, Any], what: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        osi.click(**kwargs)
    assert what in info.value.message
    assert fake_run.calls == []


def test_type_text_sends_the_text_on_stdin_only(fake_run: FakeRun) -> None:
    osi.type_text(SECRET + "\nnext line")
    argvs = [c["argv"] for c in fake_run.calls]
    assert [a[1] for a in argvs] == ["type", "key", "type"]
    assert all(SECRET not in " ".join(a) for a in argvs)
    assert fake_run.calls[0]["input"] == SECRET.encode()
    assert fake_run.calls[1]["input"] == b""  # stdin closed: xdotool never waits on it


def test_type_text_empty_sends_nothing(fake_run: FakeRun) -> None:
    osi.type_text("")
    assert fake_run.calls == []


@pytest.mark.parametrize("text", [SECRET + "\x1b", SECRET + "\x00", SECRET + "\x7f", SECRET + "\x85"])
def test_type_text_refuses_control_characters_without_echoing_the_text(fake_run: FakeRun, text: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        osi.type_text(text)
    assert SECRET not in str(info.value.to_dict())
    assert info.value.detail == {"position": len(SECRET)}
    assert fake_run.calls == []


def test_type_text_refuses_characters_the_keyboard_map_lacks(fake_run: FakeRun) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        osi.type_text(SECRET + "é")
    assert SECRET not in str(info.value.to_dict()) and "é" not in str(info.value.to_dict())
    assert 'mode="auto"' in info.value.suggestion
    assert fake_run.calls == []


def test_type_text_accepts_characters_the_keyboard_map_has(fake_run: FakeRun, linux: pytest.MonkeyPatch) -> None:
    linux.setattr(x11, "_load_x_keymap", lambda display: x11._SAFE_KEYSYMS | {0xE9})
    osi.type_text("café")
    assert fake_run.calls[0]["input"] == "café".encode()


def test_the_keyboard_map_is_read_again_before_refusing(fake_run: FakeRun, linux: pytest.MonkeyPatch) -> None:
    loads: list[str] = []

    def load(display: str) -> frozenset[int]:
        loads.append(display)
        return x11._SAFE_KEYSYMS | ({0xE9} if len(loads) > 1 else set())

    linux.setattr(x11, "_load_x_keymap", load)
    osi.type_text("é")  # missing from the cached map, present after the reload
    osi.type_text("é")  # cached now
    assert loads == [":99", ":99"]


def test_send_keys_one_xdotool_for_all_chords(fake_run: FakeRun) -> None:
    osi.send_keys(parse_keys("Ctrl+A Delete Shift+Tab"))
    (call,) = fake_run.calls
    assert call["argv"][1:] == ["key", "--clearmodifiers", "ctrl+a", "Delete", "shift+Tab"]


def test_send_keys_refuses_keys_the_keyboard_map_lacks(fake_run: FakeRun) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        osi.send_keys(parse_keys("Tab F13"))
    assert "F13" in info.value.message and "keyboard map" in info.value.message
    assert fake_run.calls == []


def test_send_keys_checks_its_chords(fake_run: FakeRun) -> None:
    with pytest.raises(InvalidArgumentError):
        osi.send_keys("Ctrl+S")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        osi.send_keys([KeyChord((), "Return")])
    with pytest.raises(InvalidArgumentError):
        osi.send_keys([KeyChord(("hyper",), "A")])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        osi.send_keys([("ctrl", "S")])  # type: ignore[list-item]
    osi.send_keys([])
    assert fake_run.calls == []


def test_a_failing_xdotool_is_internal_with_its_stderr(fake_run: FakeRun) -> None:
    fake_run.returncode = 1
    fake_run.stderr = b"Error: Can't open display: :99\nFailed creating new xdo instance\n"
    with pytest.raises(ProbeError) as info:
        osi.send_keys(parse_keys("Tab"))
    assert info.value.code == "INTERNAL"
    assert "xdotool key failed (exit 1)" in info.value.message
    assert "Can't open display: :99 | Failed creating new xdo instance" in info.value.message
    assert info.value.detail == {"step": "key", "exitCode": 1}


def test_stderr_of_a_typing_xdotool_never_echoes_the_text(fake_run: FakeRun) -> None:
    fake_run.returncode = 1
    fake_run.stderr = f"(symbol) No such key name '{SECRET}'\nInvalid multi-byte sequence encountered\n".encode()
    with pytest.raises(ProbeError) as info:
        osi.type_text(SECRET)
    assert info.value.code == "INTERNAL"
    assert SECRET not in str(info.value.to_dict())
    assert "Invalid multi-byte sequence encountered" in info.value.message


def test_long_stderr_is_cut() -> None:
    summary = x11._stderr_summary(b"x" * 1000, carries_text=False)
    assert len(summary) == 300 and summary.endswith("…")


def test_a_hanging_xdotool_is_stopped(fake_run: FakeRun) -> None:
    fake_run.timeout = True
    with pytest.raises(ProbeError) as info:
        osi.click(10, 10)
    assert info.value.code == "OPERATION_TIMED_OUT"
    assert "10 s" in info.value.message


def test_an_xdotool_that_cannot_start_is_internal(linux: pytest.MonkeyPatch) -> None:
    def run(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    linux.setattr(subprocess, "run", run)
    with pytest.raises(ProbeError) as info:
        x11._run_x(x11.x_key_command(parse_keys("Tab")))
    assert info.value.code == "INTERNAL" and "Permission denied" in info.value.message


def test_focus_window(fake_run: FakeRun) -> None:
    osi.focus_window(2097180)
    assert fake_run.calls[0]["argv"][1:] == ["windowfocus", "--sync", "2097180"]
    for bad in (0, -1, True, "12"):
        with pytest.raises(InvalidArgumentError):
            osi.focus_window(bad)  # type: ignore[arg-type]


# -- the Windows flow, with user32 faked ---------------------------------------------


class FakeUser32:
    """Stands in for ctypes' user32: records SendInput batches and DPI context changes."""

    def __init__(self, screen: VirtualScreen, *, swapped: bool = False, accept: int | None = None) -> None:
        self.metrics = {
            win.SM_XVIRTUALSCREEN: screen.x, win.SM_YVIRTUALSCREEN: screen.y,
            win.SM_CXVIRTUALSCREEN: screen.width, win.SM_CYVIRTUALSCREEN: screen.height,
            win.SM_SWAPBUTTON: int(swapped),
        }  # fmt: skip
        self.batches: list[list[tuple[Any, ...]]] = []
        self.contexts: list[int | None] = []
        self.accept = accept
        self.aware = False

    def GetSystemMetrics(self, index: int) -> int:
        assert self.aware, "metrics must be read in physical pixels (per-monitor aware)"
        return self.metrics[index]

    def SetThreadDpiAwarenessContext(self, context: ctypes.c_void_p) -> int:
        self.contexts.append(context.value)
        self.aware = len(self.contexts) % 2 == 1
        return 0x12 if self.aware else 0x22  # the previous context

    def GetDoubleClickTime(self) -> int:
        return 500

    def MapVirtualKeyW(self, vk: int, kind: int) -> int:
        assert kind == 0
        return vk + 0x100

    def SendInput(self, count: int, array: Any, size: int) -> int:
        assert size == ctypes.sizeof(win.INPUT) and count == len(array)
        batch = []
        for inp in array:
            if inp.type == win.INPUT_MOUSE:
                batch.append(("mouse", inp.u.mi.dx, inp.u.mi.dy, inp.u.mi.dwFlags))
            else:
                batch.append(("key", inp.u.ki.wVk, inp.u.ki.wScan, inp.u.ki.dwFlags))
        self.batches.append(batch)
        return count if self.accept is None else self.accept


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(time, "sleep", lambda s: None)

    monkeypatch.setattr(common, "_last_click", None)

    def install(dll: FakeUser32) -> FakeUser32:
        monkeypatch.setattr(win, "_user32", win._User32(dll))
        return dll

    return install


def test_windows_click_moves_then_clicks_in_normalized_physical_pixels(windows: Any) -> None:
    screen = VirtualScreen(-1920, 0, 3840, 1080)
    dll = windows(FakeUser32(screen))
    osi.click(-1000, 500, count=2)
    nx, ny = win.normalize(-1000, 500, screen)
    absolute = win.MOUSEEVENTF_ABSOLUTE | win.MOUSEEVENTF_VIRTUALDESK
    assert dll.batches == [
        [("mouse", nx, ny, absolute | win.MOUSEEVENTF_MOVE)],
        [("mouse", nx, ny, absolute | win.MOUSEEVENTF_LEFTDOWN), ("mouse", nx, ny, absolute | win.MOUSEEVENTF_LEFTUP)],
        [("mouse", nx, ny, absolute | win.MOUSEEVENTF_LEFTDOWN), ("mouse", nx, ny, absolute | win.MOUSEEVENTF_LEFTUP)],
    ]
    # per-monitor aware (-4) for the duration, then the previous context again
    assert dll.contexts == [ctypes.c_void_p(-4).value, 0x12] and not dll.aware


def test_windows_second_click_on_one_spot_waits_out_the_double_click_time(
    windows: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []
    windows(FakeUser32(VirtualScreen(0, 0, 800, 600)))
    osi.click(10, 10)
    monkeypatch.setattr(time, "sleep", slept.append)
    osi.click(10, 10)
    assert len(slept) == 1 and 0.5 < slept[0] <= 0.55


def test_windows_click_with_swapped_buttons_sends_the_physical_button(windows: Any) -> None:
    dll = windows(FakeUser32(VirtualScreen(0, 0, 800, 600), swapped=True))
    osi.click(10, 10)
    assert dll.batches[1][0][3] & win.MOUSEEVENTF_RIGHTDOWN


def test_windows_click_off_the_virtual_screen_is_refused(windows: Any) -> None:
    dll = windows(FakeUser32(VirtualScreen(-1920, 0, 3840, 1080)))
    with pytest.raises(InvalidArgumentError):
        osi.click(1920, 10)
    assert dll.batches == [] and not dll.aware


def test_windows_keys_carry_scan_codes(windows: Any) -> None:
    dll = windows(FakeUser32(VirtualScreen(0, 0, 800, 600)))
    osi.send_keys(parse_keys("Ctrl+S"))
    assert dll.batches == [
        [("key", 0x11, 0x111, 0), ("key", 0x53, 0x153, 0), ("key", 0x53, 0x153, 2), ("key", 0x11, 0x111, 2)]
    ]


def test_windows_text_is_unicode_in_batches(windows: Any) -> None:
    dll = windows(FakeUser32(VirtualScreen(0, 0, 800, 600)))
    osi.type_text("é" * 150)  # 300 events: two SendInput batches
    assert [len(b) for b in dll.batches] == [200, 100]
    assert dll.batches[0][0] == ("key", 0, 0xE9, win.KEYEVENTF_UNICODE)


def test_windows_blocked_input_is_internal(windows: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    windows(FakeUser32(VirtualScreen(0, 0, 800, 600), accept=0))
    monkeypatch.setattr(ctypes, "get_last_error", lambda: 5, raising=False)
    with pytest.raises(ProbeError) as info:
        osi.type_text(SECRET)
    assert info.value.code == "INTERNAL" and "UIPI" in info.value.suggestion
    assert SECRET not in str(info.value.to_dict())


def test_dpi_scope_without_the_api_is_a_no_op() -> None:
    class Old:
        pass

    with win._DpiScope(Old()):
        pass


def test_checks_refuse_before_anything_is_sent(fake_run: FakeRun) -> None:
    osi.check_text("Grace\nHopper")
    osi.check_keys(parse_keys("Ctrl+A Delete"))
    with pytest.raises(InvalidArgumentError) as info:
        osi.check_text(SECRET + "é")
    assert SECRET not in str(info.value.to_dict())
    with pytest.raises(InvalidArgumentError):
        osi.check_text("\x1b")
    with pytest.raises(InvalidArgumentError, match="F24"):
        osi.check_keys(parse_keys("F24"))
    assert fake_run.calls == []


def test_checks_report_unavailable_input(linux: pytest.MonkeyPatch) -> None:
    linux.setattr(shutil, "which", lambda name: None)
    checks: list[Callable[[], None]] = [lambda: osi.check_text("a"), lambda: osi.check_keys(parse_keys("Tab"))]
    for check in checks:
        with pytest.raises(InvalidArgumentError, match="xdotool is not installed"):
            check()


def test_checks_on_windows_need_no_keyboard_map(windows: Any) -> None:
    dll = windows(FakeUser32(VirtualScreen(0, 0, 800, 600)))
    osi.check_text("é日😀")
    osi.check_keys(parse_keys("F24"))
    assert dll.batches == []
