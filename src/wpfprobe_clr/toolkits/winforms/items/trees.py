"""TreeView nodes: every node is in the tree, expanded or not, and a tree is selected by path.

A node's children are its Nodes whether it is expanded or not (``expanded``
says which), so a locator finds ``TreeNode[text="Carrot"]`` under a collapsed
``Vegetables``; ``visible`` and bounds say whether the user can see it now.

Toggling a node: in a tree without check boxes it expands or collapses the
node (a leaf has nothing to toggle); in a tree with check boxes it checks or
unchecks the node, as the Toggle pattern of UI Automation does, and a double
click expands or collapses it there, as it does for a user. Selecting a node
expands its parents, as WinForms does.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.protocol import ActionKind, ElementState
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.items.base import Item, call_protected

WF = clr_namespace("System.Windows.Forms")


class TreeNodeItem(Item):
    kind_label = "tree node"

    def owner(self, el: Any) -> Any:
        return el.TreeView

    def parent(self, el: Any) -> Any:
        return el.Parent if el.Parent is not None else el.TreeView

    def children(self, el: Any) -> list[Any]:
        return list(el.Nodes)

    def is_alive(self, el: Any) -> bool:
        tree = el.TreeView
        return tree is not None and not tree.IsDisposed

    def client_rect(self, el: Any) -> Any | None:
        tree = el.TreeView
        if not tree.Visible or not tree.IsHandleCreated or not el.IsVisible:
            return None
        return el.Bounds

    def state(self, el: Any) -> ElementState:
        tree = el.TreeView
        selected = bool(el.IsSelected)
        return ElementState(
            visible=bool(tree.Visible) and bool(el.IsVisible),
            enabled=bool(tree.Enabled),
            focused=selected and bool(tree.Focused),
            selected=selected,
            checked=bool(el.Checked) if tree.CheckBoxes else None,
            expanded=bool(el.IsExpanded) if el.Nodes.Count else None,
        )

    def text(self, el: Any) -> str | None:
        return str(el.Text)

    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        if action == "toggle":
            if el.TreeView.CheckBoxes or el.Nodes.Count:
                return None
            return "It is a leaf node in a tree without check boxes: there is nothing to expand or check."
        return super().unsupported(el, action)

    def select(self, el: Any) -> None:
        el.TreeView.SelectedNode = el  # BeforeSelect/AfterSelect; its parents expand
        el.EnsureVisible()

    def toggle(self, el: Any, state: bool | None) -> None:
        if el.TreeView.CheckBoxes:
            wanted = (not el.Checked) if state is None else state
            if bool(el.Checked) != wanted:
                el.Checked = wanted  # BeforeCheck/AfterCheck
            return
        self.expand(el, state)

    def expand(self, el: Any, state: bool | None) -> None:
        wanted = (not el.IsExpanded) if state is None else state
        if wanted and not el.IsExpanded:
            el.Expand()  # BeforeExpand/AfterExpand
        elif not wanted and el.IsExpanded:
            el.Collapse()

    def mouse(self, el: Any, button: str, count: int) -> None:
        tree = el.TreeView
        rect = self.client_rect(el)
        x, y = (rect.X + rect.Width // 2, rect.Y + rect.Height // 2) if rect is not None else (0, 0)
        which = {"left": WF.MouseButtons.Left, "right": WF.MouseButtons.Right, "middle": WF.MouseButtons.Middle}[button]
        super().mouse(el, button, count)
        for n in range(1, count + 1):
            args = WF.TreeNodeMouseClickEventArgs(el, which, n, x, y)
            call_protected(tree, WF.TreeView, "OnNodeMouseClick", args)
            if n == 2:
                call_protected(tree, WF.TreeView, "OnNodeMouseDoubleClick", args)
                if button == "left" and el.Nodes.Count:
                    self.expand(el, None)  # a double click opens or closes a node

    def action_state(self, el: Any) -> dict[str, Any]:
        st = self.state(el)
        out: dict[str, Any] = {"selected": st.selected}
        if st.checked is not None:
            out["checked"] = st.checked
        if st.expanded is not None:
            out["expanded"] = st.expanded
        return out


def select_path(tree: Any, item: str | None, index: int | None) -> None:
    """``wpf_select`` on a TreeView: ``item`` is a path of node texts ("Vegetables/Carrot"), index a root."""
    if index is not None:
        roots = list(tree.Nodes)
        if index >= len(roots):
            raise InvalidArgumentError(
                f"index {index} is out of range: the tree has {len(roots)} root nodes.",
                suggestion='Pass a root index, or a path of node texts such as "Vegetables/Carrot".',
                detail={"count": len(roots), "items": [str(n.Text) for n in roots][:50]},
            )
        TreeNodeItem().select(roots[index])
        return
    assert item is not None
    TreeNodeItem().select(find_path(tree, item))


def find_path(tree: Any, path: str) -> Any:
    """The node a path of texts names, each segment an exact text (else the only case-insensitive match)."""
    segments = [s for s in path.split("/") if s]
    level = list(tree.Nodes)
    node = None
    for depth, segment in enumerate(segments):
        node = _pick(level, segment)
        if node is None:
            if depth == 0 and len(segments) == 1:
                return _anywhere(tree, segment)
            shown = "/".join(segments[:depth]) or "the tree's roots"
            raise InvalidArgumentError(
                f"No node under {shown} has the text {segment!r}.",
                suggestion='Give the path from a root node, each text separated by "/": see detail.items.',
                detail={"path": path, "items": [str(n.Text) for n in level][:50]},
            )
        level = list(node.Nodes)
    if node is None:
        raise InvalidArgumentError("The path names no node.", suggestion='Pass a path such as "Vegetables/Carrot".')
    return node


def _pick(nodes: list[Any], text: str) -> Any | None:
    for exact in (True, False):
        for node in nodes:
            shown = str(node.Text)
            if shown == text if exact else shown.lower() == text.lower():
                return node
    return None


def _anywhere(tree: Any, text: str) -> Any:
    """A single segment that is no root's text: the one node anywhere with that text."""
    found: list[Any] = []
    stack = list(reversed(list(tree.Nodes)))
    while stack:
        node = stack.pop()
        if str(node.Text).lower() == text.lower():
            found.append(node)
        stack.extend(reversed(list(node.Nodes)))
    if len(found) == 1:
        return found[0]
    sep = str(tree.PathSeparator)
    paths = [str(n.FullPath).replace(sep, "/") for n in found]
    raise InvalidArgumentError(
        f"{len(found)} nodes have the text {text!r}." if found else f"No node has the text {text!r}.",
        suggestion='Give the path from a root node, e.g. "Vegetables/Carrot".',
        detail={"path": text, "candidates": paths[:50], "items": [str(n.Text) for n in tree.Nodes][:50]},
    )
