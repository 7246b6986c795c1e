"""The items of a ListBox, CheckedListBox and ComboBox: plain values, named by owner and index.

Their items are whatever objects the app added (strings, numbers, data rows),
so each one is an ``ItemRef(owner, index)`` and reads what the owner shows:
its text is the owner's ``GetItemText`` (DisplayMember and formatting
applied), its state the owner's selection (and check marks). ``visible`` says
whether the user can see the item now: a list box's item scrolled out of
view, or any item of a closed combo box, is not visible and has no bounds,
but the toolkit still selects it (it scrolls or needs no drop-down).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from wpfprobe.core.protocol import ActionKind, ElementState, ItemRef
from wpfprobe_clr._values import to_plain, type_full_name
from wpfprobe_clr.net.lazy import clr_namespace, is_instance
from wpfprobe_clr.toolkits.winforms.items.base import Fact, Item, checked_of, visible_in

WF = clr_namespace("System.Windows.Forms")


@cache
def _mode(enum: str, name: str) -> Any:
    """An enum member, looked up once: a lookup per comparison costs as much as the read it compares.
    (``getattr``: ``None`` is a Python keyword as an attribute name.)"""
    return getattr(getattr(WF, enum), name)


class ValueItem(Item):
    """An item of a ListBox or ComboBox (see the subclasses for check boxes and drop-downs)."""

    role = ("ListBoxItem", "System.Windows.Forms.ListBoxItem")
    kind_label = "list item"
    checkable = False

    def owner(self, el: ItemRef) -> Any:
        return el.owner

    def is_alive(self, el: ItemRef) -> bool:
        owner = el.owner
        return not owner.IsDisposed and 0 <= el.index < int(owner.Items.Count)

    def value(self, el: ItemRef) -> Any:
        return el.owner.Items[el.index]

    def text(self, el: ItemRef) -> str | None:
        owner = el.owner
        value = self.value(el)
        if isinstance(value, str) and not owner.FormattingEnabled and not owner.DisplayMember:
            return value  # what GetItemText would answer, without a method call per item (a list may hold thousands)
        return str(owner.GetItemText(value))

    def is_selected(self, el: ItemRef) -> bool:
        owner = el.owner
        if owner.SelectionMode == _mode("SelectionMode", "One"):
            return int(owner.SelectedIndex) == el.index  # a property read, not a method call per item
        return bool(owner.GetSelected(el.index))

    def in_view(self, el: ItemRef) -> bool:
        owner = el.owner
        if not owner.IsHandleCreated:
            return False
        if owner.MultiColumn or owner.DrawMode == _mode("DrawMode", "OwnerDrawVariable"):
            return visible_in(owner, owner.GetItemRectangle(el.index))
        # Rows of one height from TopIndex down: a few property reads instead of three method calls.
        row = el.index - int(owner.TopIndex)
        return row >= 0 and row * int(owner.ItemHeight) < int(owner.ClientSize.Height)

    def client_rect(self, el: ItemRef) -> Any | None:
        owner = el.owner
        if not owner.Visible or not self.in_view(el):
            return None
        return owner.GetItemRectangle(el.index)

    def state(self, el: ItemRef) -> ElementState:
        owner = el.owner
        visible = bool(owner.Visible) and self.in_view(el)
        selected = self.is_selected(el)
        # The focus rectangle is on the current item, which WinForms names through SelectedIndex.
        focused = selected and bool(owner.Focused) and int(owner.SelectedIndex) == el.index
        return ElementState(visible, bool(owner.Enabled), focused, selected=selected, checked=self.checked(el))

    def checked(self, el: ItemRef) -> bool | None:
        return None

    def facts(self, el: ItemRef) -> list[Fact]:
        found = [
            Fact("Text", "System.String", self.text),
            Fact("Index", "System.Int32", lambda e: e.index),
            Fact("IsSelected", "System.Boolean", self.is_selected),
            Fact("Value", "System.Object", lambda e: self.value(e)),
            Fact("ValueType", "System.String", lambda e: type_full_name(self.value(e))),
        ]
        return found

    def data_type(self, el: ItemRef) -> str | None:
        return type_full_name(self.value(el))

    def unsupported(self, el: ItemRef, action: ActionKind) -> str | None:
        if action == "select" and el.owner.SelectionMode == _mode("SelectionMode", "None"):
            return "Its list allows no selection (SelectionMode None)."
        return super().unsupported(el, action)

    def select(self, el: ItemRef) -> None:
        owner = el.owner
        self.scroll_to(el)
        if owner.SelectionMode == _mode("SelectionMode", "None"):
            return  # a click on such a list selects nothing; its click events still come
        if int(owner.SelectionMode) in (int(WF.SelectionMode.MultiSimple), int(WF.SelectionMode.MultiExtended)):
            # Picking one item of a multi-selection list makes it the selection, as a plain click does.
            owner.ClearSelected()
            owner.SetSelected(el.index, True)
        else:
            owner.SelectedIndex = el.index

    def pick(self, el: ItemRef) -> None:
        owner = el.owner
        if int(owner.SelectionMode) == int(WF.SelectionMode.MultiSimple):
            self.scroll_to(el)
            owner.SetSelected(el.index, not owner.GetSelected(el.index))  # a click flips one item there
            return
        self.select(el)

    def scroll_to(self, el: ItemRef) -> None:
        """Scroll the item into view, as the keyboard or a scroll bar would before the user picks it."""
        owner = el.owner
        if owner.IsHandleCreated and not self.in_view(el):
            owner.TopIndex = el.index

    def action_state(self, el: ItemRef) -> dict[str, Any]:
        out: dict[str, Any] = {"selected": self.is_selected(el)}
        checked = self.checked(el)
        if checked is not None or self.checkable:
            out["checked"] = checked
        return out


class CheckedListItem(ValueItem):
    """A CheckedListBox item: a list item with a check box (indeterminate reads as checked None)."""

    role = ("CheckedListBoxItem", "System.Windows.Forms.CheckedListBoxItem")
    kind_label = "checked list item"
    checkable = True

    def checked(self, el: ItemRef) -> bool | None:
        return checked_of(el.owner.GetItemCheckState(el.index))

    def facts(self, el: ItemRef) -> list[Fact]:
        return [
            *super().facts(el),
            Fact(
                "CheckState", "System.Windows.Forms.CheckState", lambda e: to_plain(e.owner.GetItemCheckState(e.index))
            ),
        ]

    def unsupported(self, el: ItemRef, action: ActionKind) -> str | None:
        return None if action == "toggle" else super().unsupported(el, action)

    def toggle(self, el: ItemRef, state: bool | None) -> None:
        owner = el.owner
        current = self.checked(el)
        wanted = (not current) if state is None else state
        if current is not wanted:
            owner.SetItemChecked(el.index, wanted)  # raises ItemCheck, as the user's click does

    def pick(self, el: ItemRef) -> None:
        # A click selects the item; it flips the check too when CheckOnClick is set or it was selected already.
        owner = el.owner
        was_selected = self.is_selected(el)
        super().pick(el)
        if bool(owner.CheckOnClick) or was_selected:
            self.toggle(el, None)


class ComboItem(ValueItem):
    """A ComboBox item: its only bounds would be in the open drop-down, which WinForms does not expose."""

    role = ("ComboBoxItem", "System.Windows.Forms.ComboBoxItem")
    kind_label = "combo box item"

    def is_selected(self, el: ItemRef) -> bool:
        return int(el.owner.SelectedIndex) == el.index

    def in_view(self, el: ItemRef) -> bool:
        return bool(el.owner.DroppedDown)

    def unsupported(self, el: ItemRef, action: ActionKind) -> str | None:
        return Item.unsupported(self, el, action)  # a combo box always allows a choice

    def client_rect(self, el: ItemRef) -> Any | None:
        return None

    def select(self, el: ItemRef) -> None:
        el.owner.SelectedIndex = el.index

    def pick(self, el: ItemRef) -> None:
        owner = el.owner
        owner.SelectedIndex = el.index
        if owner.DroppedDown:
            owner.DroppedDown = False  # picking from the drop-down closes it

    def mouse(self, el: ItemRef, button: str, count: int) -> None:
        pass  # the click lands in the drop-down, not on the combo box: it raises no events of the owner


def item_kind_for(owner: Any) -> Item | None:
    """The value-item kind of an owner control's type, or None if it has no value items."""
    if is_instance(owner, WF.types.CheckedListBox):
        return CheckedListItem()
    if is_instance(owner, WF.types.ListBox):
        return ValueItem()
    if is_instance(owner, WF.types.ComboBox):
        return ComboItem()
    return None


def value_items(owner: Any) -> list[ItemRef]:
    return [ItemRef(owner, i) for i in range(int(owner.Items.Count))]
