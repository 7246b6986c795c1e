"""Counting changes of the WinForms tree's structure, for the engine's name index.

A Control tells of a child added or removed (``ControlAdded``,
``ControlRemoved``) and a ToolStrip or a drop-down of an item added or
removed (``ItemAdded``, ``ItemRemoved``). Each is hooked, once per element,
as the engine's index walk meets it, with a handler compiled from an
expression (``net.expr``): it adds one to a counter in .NET, so a change in
the app never calls into Python and an idle probe costs the UI thread
nothing. The engine compares the counter before trusting its index.

A control whose class is written in Python is met as a ``DerivedHandle``:
it is hooked and remembered through .NET-side code (``net.derived.invoke``,
``net.bridge.table_*``), so the object never crosses into Python.

Not counted, and so left to the engine's validation of every hit (see
``wpfprobe/engine/name_index.py``): a Name set at run time, and items added
to a list, grid, tree view or old-style menu (their collections have no event).
"""

from __future__ import annotations

from typing import Any

import clr
from System import Array, Int32, Object, String
from System.Reflection import EventInfo
from System.Runtime.CompilerServices import ConditionalWeakTable
from System.Windows.Forms import (
    Control,
    ControlEventArgs,
    ControlEventHandler,
    ToolStrip,
    ToolStripDropDownItem,
    ToolStripItemEventArgs,
    ToolStripItemEventHandler,
)

from wpfprobe_clr.net import bridge, derived, expr
from wpfprobe_clr.net.derived import DerivedHandle

_CONTROL_EVENTS = (clr.GetClrType(Control).GetEvent("ControlAdded"), clr.GetClrType(Control).GetEvent("ControlRemoved"))
_ITEM_EVENTS = (clr.GetClrType(ToolStrip).GetEvent("ItemAdded"), clr.GetClrType(ToolStrip).GetEvent("ItemRemoved"))
_ADD_HANDLER = clr.GetClrType(EventInfo).GetMethod("AddEventHandler")


#: The hooked elements: one table for all, also for Python-defined controls (keyed in .NET by the
#: object their handle holds) and for the ones the .NET walk hooks itself (``walker``).
WATCH_TABLE = ConditionalWeakTable[Object, String]


class StructureWatch:
    """One counter per adapter, and the elements whose children it counts."""

    def __init__(self) -> None:
        self._counter = Array.CreateInstance(Int32, 1)
        self._watched = WATCH_TABLE()
        self._on_control = self._counting(ControlEventHandler, ControlEventArgs)
        self._on_item = self._counting(ToolStripItemEventHandler, ToolStripItemEventArgs)

    def for_walk(self) -> tuple[Any, Any, Any]:
        """What the .NET walk hooks controls with, as ``watch`` does (``walker.walking``'s ``watch``)."""
        return self._watched, self._on_control, self._on_item

    def _counting(self, delegate_type: Any, args_type: Any) -> Any:
        from System.Linq.Expressions import Expression  # noqa: PLC0415

        sender, args = expr.param(object, "sender"), expr.param(args_type, "e")
        slot = Expression.ArrayAccess(
            expr.const(self._counter, expr.array_of(int)), Array[Expression]([expr.const(0, int)])
        )
        return expr.compile_lambda(delegate_type, Expression.PreIncrementAssign(slot), sender, args)

    def version(self) -> int:
        return int(self._counter[0])

    def watch(self, element: Any) -> bool:
        """Hook ``element``'s child events once; False if its children can change without one."""
        if type(element) is DerivedHandle:
            return self._watch_derived(element)
        if not isinstance(element, (Control, ToolStripDropDownItem)):
            return True  # an item (ItemRef) or a menu: validated on use, see the module doc
        found, _ = self._watched.TryGetValue(element)
        if found:
            return True
        if isinstance(element, ToolStrip):
            self._hook(element, _ITEM_EVENTS, self._on_item)
        if isinstance(element, Control):
            self._hook(element, _CONTROL_EVENTS, self._on_control)
        elif element.HasDropDownItems:  # reading DropDown makes one: only where there are items
            self._hook(element.DropDown, _ITEM_EVENTS, self._on_item)
        self._watched.Add(element, "")
        return True

    def _watch_derived(self, element: DerivedHandle) -> bool:
        if not element.is_a(Control):
            return True  # a Python-defined component that is no control holds no children we walk
        if bridge.table_find(self._watched, element.ref) is not None:
            return True
        hooks = [(event, self._on_control) for event in _CONTROL_EVENTS]
        if element.is_a(ToolStrip):
            hooks += [(event, self._on_item) for event in _ITEM_EVENTS]
        for event, handler in hooks:
            derived.invoke(_ADD_HANDLER, event, element, handler)
        bridge.table_add(self._watched, element.ref, "")
        return True

    @staticmethod
    def _hook(target: Any, events: tuple[Any, ...], handler: Any) -> None:
        # Through EventInfo, not ``target.Event += handler``: pythonnet keeps every handler
        # added with += in a table keyed by its target (to support -=), which kept closed
        # forms alive (invariant 7; test_closed_window_gives_node_not_found_and_is_collectable).
        for event in events:
            event.AddEventHandler(target, handler)
