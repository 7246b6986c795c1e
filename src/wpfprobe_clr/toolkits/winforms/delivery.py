"""How the probe's input reaches a control: its protected members and its own WndProc.

The probe presses no real keys and moves no real mouse (that is OS input, done
elsewhere). It calls what the framework itself would call: the protected
OnClick/OnMouseDown members, found by reflection, and window messages handed to
the control's WndProc. A key chord goes the way the message loop sends it:
command keys (menu shortcuts), dialog keys (Tab, AcceptButton), then the
control's own key down, character and key up.
"""

from __future__ import annotations

from typing import Any

import clr
from System import Array, IntPtr, Object
from System.Reflection import BindingFlags

from wpfprobe.core.protocol import KeyChord
from wpfprobe_clr.net.derived import DerivedHandle, invoke
from wpfprobe_clr.net.lazy import clr_namespace

WF = clr_namespace("System.Windows.Forms")

_WM_KEYDOWN = 0x0100
_WM_KEYUP = 0x0101
WM_CHAR = 0x0102
_INSTANCE = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public
_KEY_NAMES = {
    "Enter": "Return", "Escape": "Escape", "Backspace": "Back", "PageUp": "PageUp", "PageDown": "PageDown",
    "Tab": "Tab", "Delete": "Delete", "Insert": "Insert", "Home": "Home", "End": "End", "Left": "Left",
    "Right": "Right", "Up": "Up", "Down": "Down", "Space": "Space",
}  # fmt: skip
_CHARS = {"Enter": "\r", "Tab": "\t", "Space": " ", "Backspace": "\b", "Escape": "\x1b"}


def press(control: Any, chord: KeyChord) -> None:
    """One key press as the message loop delivers it: command keys, dialog keys, then the control."""
    code = _key_code(chord.key)
    modifiers = _modifier_keys(chord.modifiers)
    data = WF.Keys(int(code) | int(modifiers))
    message = WF.Message.Create(control.Handle, _WM_KEYDOWN, IntPtr(int(code)), IntPtr.Zero)
    # ProcessCmdKey and ProcessDialogKey take the modifiers as data: the
    # message loop would read them from the real keyboard, which the probe
    # does not press. Menu shortcuts, Tab, Enter (AcceptButton) live here.
    handled = bool(protected(control, "ProcessCmdKey", message, data))
    if not handled and not protected(control, "IsInputKey", data):
        handled = bool(protected(control, "ProcessDialogKey", data))
    if handled:
        return
    deliver(control, _WM_KEYDOWN, int(code))
    char = _char_of(chord)
    if char is not None:
        deliver(control, WM_CHAR, ord(char))
    deliver(control, _WM_KEYUP, int(code))


def _key_code(name: str) -> Any:
    if len(name) == 1 and name.isdigit():
        return getattr(WF.Keys, f"D{name}")
    return getattr(WF.Keys, _KEY_NAMES.get(name, name))


def _modifier_keys(modifiers: tuple[str, ...]) -> Any:
    value = 0
    for m in modifiers:
        value |= int({"ctrl": WF.Keys.Control, "shift": WF.Keys.Shift, "alt": WF.Keys.Alt, "meta": WF.Keys.LWin}[m])
    return WF.Keys(value)


def _char_of(chord: KeyChord) -> str | None:
    """The character a chord types (WM_CHAR), or None: Ctrl and Alt chords type nothing."""
    if "ctrl" in chord.modifiers or "alt" in chord.modifiers or "meta" in chord.modifiers:
        return None
    if len(chord.key) == 1:
        return chord.key if "shift" in chord.modifiers or chord.key.isdigit() else chord.key.lower()
    return _CHARS.get(chord.key)


#: Control's protected methods, found once per process by name and arity.
_methods: dict[str, Any] = {}


def protected(control: Any, name: str, *args: Any) -> Any:
    """Call a protected Control member (OnClick, ProcessCmdKey...) the way the framework itself does."""
    arity = len(args)
    key = f"{name}/{arity}"
    method = _methods.get(key)
    if method is None:
        candidates = [
            m
            for m in clr.GetClrType(WF.Control).GetMethods(_INSTANCE)
            if m.Name == name and len(m.GetParameters()) == arity
        ]
        if not candidates:
            raise AttributeError(f"Control has no method {name} taking {arity} arguments")
        method = _methods[key] = candidates[0]
    if type(control) is DerivedHandle:
        # A control of a class written in Python: invoked in .NET, never converted.
        return invoke(method, control, *args)
    return method.Invoke(control, Array[Object](list(args)))


def deliver(control: Any, msg: int, wparam: int) -> None:
    """Hand one window message to the control's own WndProc, as dispatching it would."""
    protected(control, "WndProc", WF.Message.Create(control.Handle, msg, IntPtr(wparam), IntPtr.Zero))
