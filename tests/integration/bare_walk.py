"""A walk of a WinForms window with pythonnet alone, no wpfprobe code: what the differential tests compare the probe with.

It lists what the toolkit's own collections hold: a control's ``Controls``, a
form's old-style ``Menu``, a control's ``ContextMenuStrip`` and ``ContextMenu``,
a ``ToolStrip``'s ``Items`` and a drop-down item's ``DropDownItems``, an
old-style menu's ``MenuItems``. Items that are no UI objects of their own
(list entries, tree nodes, grid rows) are not in it: they are checked against
the controls that hold them. Call ``walk`` on the window's UI thread.
"""

from __future__ import annotations

from typing import Any

Walked = dict[str, Any]  # {"type": short type name, "name": Name or "", "children": [...]}


def _node(obj: Any, children: list[Walked]) -> Walked:
    return {"type": str(obj.GetType().Name), "name": str(getattr(obj, "Name", "") or ""), "children": children}


def walk(obj: Any) -> Walked:
    """``obj`` and everything below it, in the order of the collections that hold it."""
    from System.Windows.Forms import Control, Form, Menu, ToolStrip, ToolStripDropDownItem

    kids: list[Any] = []
    if isinstance(obj, ToolStrip):
        kids.extend(obj.Items)
    elif isinstance(obj, Control):
        if isinstance(obj, Form) and obj.Menu is not None:
            kids.append(obj.Menu)
        kids.extend(obj.Controls)
        for menu in (obj.ContextMenuStrip, obj.ContextMenu):
            if menu is not None:
                kids.append(menu)
    elif isinstance(obj, ToolStripDropDownItem):
        if obj.HasDropDownItems:  # reading DropDownItems of one without would make it a drop-down
            kids.extend(obj.DropDownItems)
    elif isinstance(obj, Menu):
        kids.extend(obj.MenuItems)
    return _node(obj, [walk(kid) for kid in kids])


def count(walked: Walked) -> int:
    return 1 + sum(count(kid) for kid in walked["children"])
