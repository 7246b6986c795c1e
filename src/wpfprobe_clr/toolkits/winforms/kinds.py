"""What kind of element an object is: the type tests the adapter decides by, in one place.

The other modules ask here instead of testing .NET types themselves: whether an
object is WinForms at all, a menu of the old kind (MainMenu/MenuItem, only on
some runtimes), a password box, and the per-type table that diagnostic_facts
reads. isinstance on a .NET type is slow, so that table is decided once per
Python type and kept by the adapter. A control of a class written in Python
(a ``DerivedHandle``) is tested by its .NET type, through ``is_a``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wpfprobe_clr.net.derived import DerivedHandle, is_a
from wpfprobe_clr.net.lazy import clr_namespace

WF = clr_namespace("System.Windows.Forms")


@dataclass(frozen=True, slots=True)
class Kind:
    control: bool
    container: bool  # its children are the app's controls
    scrollable: bool
    free_layout: bool
    input: bool
    names_itself: bool
    label: bool
    separator: bool
    items: str | None  # "virtual-mode" (ListView, DataGridView), "native" (ListBox, ComboBox) or None
    text: str | None  # how it shows its Text: "label", "button", "check" (with a glyph), "group" (a caption) or None


#: Containers whose children are the app's own controls (not a control's parts).
def _app_containers() -> tuple[Any, ...]:
    return (
        WF.types.Form,
        WF.types.Panel,
        WF.types.GroupBox,
        WF.types.TabControl,
        WF.types.SplitContainer,
        WF.types.UserControl,
    )


#: Controls a user types, picks or sets a value in: each needs a name a screen reader can say.
def _input_types() -> tuple[Any, ...]:
    return (
        WF.types.TextBoxBase,
        WF.types.ComboBox,
        WF.types.ListBox,
        WF.types.ListView,
        WF.types.TreeView,
        WF.types.UpDownBase,
        WF.types.TrackBar,
        WF.types.DateTimePicker,
        WF.types.CheckBox,
        WF.types.RadioButton,
    )


class KindTable:
    """Each Python type's Kind, decided the first time an element of that type is seen."""

    def __init__(self) -> None:
        self._kinds: dict[type, Kind] = {}

    def of(self, element: Any) -> Kind:
        """What diagnostic_facts tells apart, decided once per Python type (isinstance on a .NET type is slow)."""
        # A handle's type is its .NET type, whose facts its _TypeInfo keeps once.
        key: Any = element.info if type(element) is DerivedHandle else type(element)
        kind = self._kinds.get(key)
        if kind is None:
            container = is_a(element, _app_containers())
            if is_a(element, (WF.types.ListView, WF.types.DataGridView)):
                items = "virtual-mode"
            elif is_a(element, (WF.types.ListBox, WF.types.ComboBox)):
                items = "native"
            else:
                items = None
            if is_a(element, WF.types.Label):
                text = "label"
            elif is_a(element, (WF.types.CheckBox, WF.types.RadioButton)):
                text = "check"
            elif is_a(element, WF.types.ButtonBase):
                text = "button"
            elif is_a(element, WF.types.GroupBox):
                text = "group"
            else:
                text = None
            kind = Kind(
                control=is_a(element, WF.types.Control),
                container=container,
                scrollable=container and is_a(element, WF.types.ScrollableControl),
                free_layout=container
                and not is_a(element, (WF.types.FlowLayoutPanel, WF.types.TableLayoutPanel, WF.types.TabControl)),
                input=is_a(element, _input_types()),
                names_itself=is_a(element, (WF.types.CheckBox, WF.types.RadioButton)),
                label=is_a(element, WF.types.Label),
                separator=is_a(element, WF.types.ToolStripSeparator),
                items=items,
                text=text,
            )
            self._kinds[key] = kind
        return kind


def is_menu(element: Any) -> bool:
    """A menu of the old kind (MainMenu, MenuItem, ContextMenu), on the runtimes that still have them."""
    # MainMenu/MenuItem exist on .NET Framework and Mono, not on .NET Core 3.1+.
    menu = WF.types.optional("Menu")
    return menu is not None and is_a(element, menu)


def is_password_box(element: Any) -> bool:
    if is_a(element, (WF.types.TextBox, WF.types.MaskedTextBox)):
        return str(element.PasswordChar) not in ("", "\x00") or bool(element.UseSystemPasswordChar)
    return False


def is_winforms_object(obj: Any) -> bool:
    return _has_base(obj, ("System.Windows.Forms.Control", "System.Windows.Forms.ToolStripItem"))


def _has_base(obj: Any, names: tuple[str, ...]) -> bool:
    get_type = getattr(obj, "GetType", None)
    if get_type is None:
        return False
    t = get_type()
    while t is not None:
        if str(t.FullName) in names:
            return True
        t = t.BaseType
    return False
