"""TabControl pages as items: a page is selected by its tab, which is where a user clicks.

A TabPage is a control (its content), already in the tree under its
TabControl. As an item it adds what the tab shows: ``selected``, and the tab
header as the click point; clicking or selecting it makes it the selected tab
(the app's Selecting, Selected and SelectedIndexChanged handlers run). A page
that is not selected is hidden as a control, but its tab is not: what blocks
it is what blocks its TabControl.
"""

from __future__ import annotations

from typing import Any

from System import Object

from wpfprobe.core.protocol import ActionKind, Bounds, ElementState
from wpfprobe_clr.net.lazy import clr_namespace, is_instance
from wpfprobe_clr.toolkits.winforms.items.base import Item

WF = clr_namespace("System.Windows.Forms")


class TabItem(Item):
    kind_label = "tab page"

    def owner(self, el: Any) -> Any:
        return el.Parent

    def is_alive(self, el: Any) -> bool:
        return not el.IsDisposed

    def index(self, el: Any) -> int:
        return int(self.owner(el).TabPages.IndexOf(el))

    def is_selected(self, el: Any) -> bool:
        selected = self.owner(el).SelectedTab
        return selected is not None and bool(Object.ReferenceEquals(selected, el))

    def state(self, el: Any) -> ElementState:
        return ElementState(bool(el.Visible), bool(el.Enabled), bool(el.Focused), selected=self.is_selected(el))

    def client_rect(self, el: Any) -> Any | None:
        owner = self.owner(el)
        index = self.index(el)
        if index < 0 or not owner.Visible or not owner.IsHandleCreated:
            return None
        return owner.GetTabRect(index)

    def header_bounds(self, el: Any) -> Bounds | None:
        return Item.bounds(self, el)

    def click_point(self, el: Any) -> tuple[int, int] | None:
        box = self.header_bounds(el)
        if box is None or box.width <= 0 or box.height <= 0:
            return None
        return box.x + box.width // 2, box.y + box.height // 2

    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        if action in ("click", "select", "focus", "keys"):
            return None
        if action == "toggle":
            return "It is a tab page: select it with wpf_select or wpf_click."
        return "It is a tab page: type into a control on it."

    def pointer_free(self, el: Any) -> bool:
        return False  # a tab header is always drawn while its TabControl is: aim at it

    def select(self, el: Any) -> None:
        self.owner(el).SelectedTab = el

    def action_state(self, el: Any) -> dict[str, Any]:
        return {"selected": self.is_selected(el)}

    def mouse(self, el: Any, button: str, count: int) -> None:
        pass  # the tab control raises no click of its own for a tab; the selection events are what apps hear


def is_tab_page(element: Any) -> bool:
    return is_instance(element, WF.types.TabPage) and is_instance(element.Parent, WF.types.TabControl)
