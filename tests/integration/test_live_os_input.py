"""Real OS input (xdotool on X11, SendInput on Windows) against the live WinForms example.

The input is sent from this, the test thread; every read of a control happens
on the UI thread through ``running_app.invoke`` (the cross-thread check is on),
and the effect is polled for with a deadline, since the app handles the
events on its own time. Every state a test changes is put back: other tests
share the app.

Focus under Xvfb (no window manager), measured: X keyboard focus stays
PointerRoot, so keys go to the window under the pointer. Clicking the element
first (what mode="os" does) leaves the pointer over the form, so the keys
that follow reach it; ``form.Activate()`` does not help (Mono asks the absent
window manager); ``_os_input.focus_window(form.Handle)`` does. Mono's TextBox
supports Ctrl+A (select all).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.keys import parse_keys
from wpfprobe_clr import _os_input
from wpfprobe_clr._os_input import x11

WINDOWS = sys.platform == "win32"

pytestmark = pytest.mark.toolkit("winforms")


def test_os_input_is_available_here(display: str | None) -> None:
    # ./run installs xdotool: without it these tests must fail, not skip into green.
    assert _os_input.available() is None, _os_input.available()


DEADLINE = 5.0


def _xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, timeout=10, check=True, text=True).stdout


class Ui:
    """Reads and writes the example's controls on its UI thread."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.form = app.app

    def run(self, fn: Callable[[], Any]) -> Any:
        return self.app.invoke(fn)

    def control(self, name: str) -> Any:
        return self.form.Controls.Find(name, True)[0]  # call on the UI thread only

    def text(self, name: str) -> str:
        return str(self.run(lambda: str(self.control(name).Text)))

    def set_text(self, name: str, value: str) -> None:
        self.run(lambda: setattr(self.control(name), "Text", value))

    def centre(self, name: str) -> tuple[int, int]:
        def read() -> Any:
            c = self.control(name)
            r = c.Parent.RectangleToScreen(c.Bounds)
            return f"{r.X + r.Width // 2},{r.Y + r.Height // 2}"

        x, y = str(self.run(read)).split(",")
        return int(x), int(y)

    def focused(self) -> str | None:
        def read() -> Any:
            control = self.form.ActiveControl
            while control is not None and hasattr(control, "ActiveControl") and control.ActiveControl is not None:
                control = control.ActiveControl
            return None if control is None or not control.Focused else str(control.Name)

        value = self.run(read)
        return None if value is None else str(value)

    def holds(self, read: Callable[[], Any], want: Any, *, for_seconds: float, what: str) -> None:
        """``read()`` stays ``want`` for ``for_seconds``; fails at the first change."""
        until = time.monotonic() + for_seconds
        while time.monotonic() < until:
            seen = read()
            assert seen == want, f"{what}: became {seen!r}, expected it to stay {want!r}"
            time.sleep(0.05)

    def wait(self, read: Callable[[], Any], want: Any, *, what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        seen = read()
        while seen != want and time.monotonic() < deadline:
            time.sleep(0.05)
            seen = read()
        assert seen == want, f"{what}: still {seen!r} after {DEADLINE} s, expected {want!r}"

    def click(self, name: str, **kwargs: Any) -> None:
        x, y = self.centre(name)
        _os_input.click(x, y, **kwargs)

    def focus_name_box(self) -> None:
        self.click("nameBox")
        self.wait(self.focused, "nameBox", what="focus after clicking nameBox")


@pytest.fixture
def ui(running_app: Any) -> Iterator[Ui]:
    assert _os_input.available() is None, _os_input.available()
    u = Ui(running_app)
    saved = {name: u.text(name) for name in ("nameBox", "statusLabel")}
    focused = u.focused()
    yield u
    for name, value in saved.items():
        if u.text(name) != value:
            u.set_text(name, value)
    if focused is not None and u.focused() != focused:
        u.run(lambda: u.control(focused).Focus())
    # Leave the pointer where no control reacts to it.
    if not WINDOWS:
        subprocess.run(["xdotool", "mousemove", "1", "1"], timeout=10, check=False)


def test_click_on_save_runs_its_handler(ui: Ui) -> None:
    ui.set_text("statusLabel", "Ready")
    name = ui.text("nameBox")
    ui.click("saveButton")
    ui.wait(lambda: ui.text("statusLabel"), f"Saved {name}", what="statusLabel after clicking Save")


def test_click_twice_on_the_same_point_still_clicks(ui: Ui) -> None:
    # xdotool's mousemove --sync never returns when the pointer is already there.
    for _ in range(2):
        ui.set_text("statusLabel", "Ready")
        ui.click("saveButton")
        ui.wait(lambda: ui.text("statusLabel").startswith("Saved"), True, what="statusLabel after a click")


def test_buttons_and_double_click_reach_the_control(ui: Ui) -> None:
    seen: list[str] = []

    def on_mouse_down(sender: Any, args: Any) -> None:
        seen.append(f"{args.Button}:{args.Clicks}")

    label = "statusLabel"

    def attach() -> None:
        ui.control(label).MouseDown += on_mouse_down

    def detach() -> None:
        ui.control(label).MouseDown -= on_mouse_down

    ui.run(attach)
    try:
        ui.click(label, button="right")
        ui.wait(lambda: list(seen), ["Right:1"], what="right button")
        seen.clear()
        ui.click(label, button="middle")
        ui.wait(lambda: list(seen), ["Middle:1"], what="middle button")
        seen.clear()
        ui.click(label, count=2)
        ui.wait(lambda: list(seen), ["Left:1", "Left:2"], what="double click")
        seen.clear()
        # Two calls on one spot are two single clicks, never a double click: the
        # second waits out the double-click time (a double click on a Mono
        # TextBox selects a word and does not focus it).
        ui.click(label)
        ui.click(label)
        ui.wait(lambda: list(seen), ["Left:1", "Left:1"], what="two single clicks")
    finally:
        ui.run(detach)


def test_a_click_from_outside_the_window_keeps_the_focus_it_gives(ui: Ui) -> None:
    # Mono gives focus back to the last focused control when the pointer enters
    # its window; click() waits for that before pressing (x11.ENTER_SETTLE).
    def outside() -> Any:
        b = ui.form.Bounds
        return f"{b.Right + 40},{b.Bottom + 40}"

    for _ in range(3):
        ui.run(lambda: ui.control("passwordBox").Focus())
        ui.wait(ui.focused, "passwordBox", what="focus set on the UI thread")
        if WINDOWS:
            _os_input.click(*map(int, str(ui.run(outside)).split(",")))  # on the desktop
        else:
            _xdotool("mousemove", *str(ui.run(outside)).split(","))
        ui.click("nameBox")
        ui.wait(ui.focused, "nameBox", what="focus after clicking nameBox from outside the window")
        # Mono hands focus back about 0.1 s after the pointer enters; it must stay put past that.
        ui.holds(ui.focused, "nameBox", for_seconds=0.4, what="focus after the pointer entered the window")


def test_select_all_and_type_replaces_the_text(ui: Ui) -> None:
    ui.focus_name_box()
    _os_input.send_keys(parse_keys("Ctrl+A"))
    ui.wait(
        lambda: str(ui.run(lambda: f"{ui.control('nameBox').SelectionLength}")),
        str(len(ui.text("nameBox"))),
        what="selection after Ctrl+A",
    )
    _os_input.type_text("Grace")
    ui.wait(lambda: ui.text("nameBox"), "Grace", what="nameBox after typing")
    ui.wait(lambda: ui.text("greetingLabel"), "Hello, Grace", what="the data-bound greeting")
    ui.set_text("nameBox", "Ada")
    assert ui.text("greetingLabel") == "Hello, Ada"


def test_type_every_printable_ascii_character(ui: Ui) -> None:
    ui.focus_name_box()
    ui.set_text("nameBox", "")
    text = "".join(map(chr, range(0x20, 0x7F)))  # shifted and unshifted keys, quotes, backslash
    _os_input.type_text(text)
    ui.wait(lambda: ui.text("nameBox"), text, what="nameBox after typing ASCII")


def test_tab_moves_focus_and_shift_tab_brings_it_back(ui: Ui) -> None:
    ui.focus_name_box()
    _os_input.send_keys(parse_keys("Tab"))
    deadline = time.monotonic() + DEADLINE
    while ui.focused() == "nameBox" and time.monotonic() < deadline:
        time.sleep(0.05)
    moved_to = ui.focused()
    assert moved_to not in (None, "nameBox"), f"Tab left the focus on {moved_to!r}"
    _os_input.send_keys(parse_keys("Shift+Tab"))
    ui.wait(ui.focused, "nameBox", what="focus after Shift+Tab")


def test_backspace_and_arrow_keys_edit(ui: Ui) -> None:
    ui.focus_name_box()
    _os_input.send_keys(parse_keys("End Backspace Home Delete"))
    ui.wait(lambda: ui.text("nameBox"), "d", what="nameBox after End Backspace Home Delete")


@pytest.mark.skipif(WINDOWS, reason="X11 keyboard focus without a window manager")
def test_focus_window_sends_keys_to_a_window_away_from_the_pointer(ui: Ui) -> None:
    ui.focus_name_box()
    _xdotool("mousemove", "1200", "1000")  # off the form
    handle = int(str(ui.run(lambda: str(ui.form.Handle.ToInt64()))))
    root = int(_xdotool("search", "--maxdepth", "0", "--name", "").split()[0])
    _os_input.focus_window(handle)
    try:
        _os_input.send_keys(parse_keys("End"))
        _os_input.type_text("!")
        ui.wait(lambda: ui.text("nameBox"), "Ada!", what="nameBox after typing with the pointer elsewhere")
    finally:
        # X focus pinned to the main form would keep keys from any other top-level
        # window (a dialog) later tests click: focus on the root window makes keys
        # follow the pointer again, as before.
        _os_input.focus_window(root)
    ui.set_text("nameBox", "Ada")
    ui.focus_name_box()
    _os_input.send_keys(parse_keys("End"))
    _os_input.type_text("?")
    ui.wait(lambda: ui.text("nameBox"), "Ada?", what="typing at the pointer after X focus went back to the root")


@pytest.mark.skipif(WINDOWS, reason="the X keyboard map check is X11's")
def test_what_the_keyboard_map_lacks_is_refused_and_the_app_survives(ui: Ui) -> None:
    # Xvfb's default map has no F13 and no "é"; xdotool would rebind a keycode for
    # them, and Mono's WinForms crashes (SIGSEGV) or types "~" on such a key.
    keymap = x11._x_keymap(refresh=True)
    assert keymap is not None, "libX11 could not be read"
    ui.focus_name_box()
    if x11.x_keysym_value("F13") not in keymap:
        with pytest.raises(InvalidArgumentError, match="F13"):
            _os_input.send_keys(parse_keys("F13"))
    if x11.char_keysym("é") not in keymap:
        with pytest.raises(InvalidArgumentError) as info:
            _os_input.type_text("Adé")
        assert "Adé" not in str(info.value.to_dict())
    # Refused before anything was sent: the app answers, and its text is untouched.
    ui.click("saveButton")
    ui.wait(lambda: ui.text("statusLabel"), "Saved Ada", what="the app still answers")
    assert ui.text("nameBox") == "Ada"


def test_off_screen_point_is_refused(ui: Ui) -> None:
    with pytest.raises(InvalidArgumentError, match="outside"):
        _os_input.click(100_000, 10)
