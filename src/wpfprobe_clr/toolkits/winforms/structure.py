"""Counting changes of the WinForms tree's structure, for the engine's name index.

A Control tells of a child added or removed (``ControlAdded``,
``ControlRemoved``) and a ToolStrip or a drop-down of an item added or
removed (``ItemAdded``, ``ItemRemoved``). Each is hooked, once per element,
as the engine's index walk meets it, with a handler compiled from an
expression (``net.expr``): it adds one to a counter in .NET, so a change in
the app never calls into Python and an idle probe costs the UI thread
nothing. The engine compares the counter before trusting its index.

Every element hooked is also listed (a .NET ``WeakReference``: the list keeps
no control alive), so that the probe's stop takes each handler off again
(``unwatch_all``, registered with the adapter's ``_hooks``): a later attach
hooks the same controls with a new counter, and one left on would count on.

A control whose class is written in Python is met as a ``DerivedHandle``:
it is hooked and remembered through .NET-side code (``net.derived.invoke``,
``net.bridge.table_*``), so the object never crosses into Python.

Not counted, and so left to the engine's validation of every hit (see
``wpfprobe/engine/name_index.py``): a Name set at run time, and items added
to a list, grid, tree view or old-style menu (their collections have no event).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import clr
from System import Array, Int32, Object, String, Void, WeakReference
from System.Collections.Generic import List
from System.Reflection import EventInfo
from System.Runtime.CompilerServices import ConditionalWeakTable

from wpfprobe_clr._hooks import Hooks
from wpfprobe_clr.net import bridge, derived, expr
from wpfprobe_clr.net.derived import DerivedHandle
from wpfprobe_clr.net.lazy import clr_namespace, is_instance

WF = clr_namespace("System.Windows.Forms")


@cache
def _events(owner: str, added: str, removed: str) -> tuple[Any, Any]:
    net_type = getattr(WF.types, owner)
    return net_type.GetEvent(added), net_type.GetEvent(removed)


def _control_events() -> tuple[Any, Any]:
    return _events("Control", "ControlAdded", "ControlRemoved")


def _item_events() -> tuple[Any, Any]:
    return _events("ToolStrip", "ItemAdded", "ItemRemoved")


_ADD_HANDLER = clr.GetClrType(EventInfo).GetMethod("AddEventHandler")
#: The hooked elements, listed weakly to take the handlers off again (``StructureWatch.unwatch_all``).
TARGETS = List[WeakReference]


#: The hooked elements: one table for all, also for Python-defined controls (keyed in .NET by the
#: object their handle holds) and for the ones the .NET walk hooks itself (``walker``).
WATCH_TABLE = ConditionalWeakTable[Object, String]


class StructureWatch:
    """One counter per adapter, and the elements whose children it counts."""

    def __init__(self, hooks: Hooks) -> None:
        self._counter = Array.CreateInstance(Int32, 1)
        self._watched = WATCH_TABLE()
        self._targets = TARGETS()
        self._pruned_at = 0
        self._on_control = self._counting(WF.ControlEventHandler, WF.ControlEventArgs)
        self._on_item = self._counting(WF.ToolStripItemEventHandler, WF.ToolStripItemEventArgs)
        # Here, on the thread that attaches, not in the first index walk on the UI thread: Mono's
        # first GetEvent on Control reflects all of its events (15 ms, the longest single step of
        # the first answer's hold at start, docs/benchmarks-mcp.md). Cached for the process.
        _control_events()
        _item_events()
        # Likewise the delegate that hooks a control in one .NET call (seven pythonnet calls,
        # 150-300 us a control, each one's first use in a process on the UI thread).
        self._hook_control = expr.compiled(("winforms-structure", "watch"), _build_watch)
        self._hook_item = expr.compiled(("winforms-structure", "watch-item"), _build_watch_item)
        hooks.added(self.unwatch_all)

    def for_walk(self) -> tuple[Any, Any, Any, Any]:
        """What the .NET walk hooks controls with, as ``watch`` does (``walker.walking``'s ``watch``):
        the table of hooked elements, the two handlers, and the list of hooked elements."""
        self._prune()
        return self._watched, self._on_control, self._on_item, self._targets

    def _prune(self) -> None:
        # Controls made and dropped over the probe's life leave dead entries: dropped whenever
        # the list has doubled since, so it stays within twice the live controls hooked.
        if self._targets.Count >= max(1024, 2 * self._pruned_at):
            _prune_dead(self._targets)
            self._pruned_at = self._targets.Count

    def unwatch_all(self) -> None:
        """Take the counting handlers off every element still alive (on the UI thread)."""
        _unhook_all(self._targets, self._on_control, self._on_item)
        self._targets.Clear()
        self._watched = WATCH_TABLE()

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
        if is_instance(element, WF.types.Control):
            return bool(self._hook_control(element, self._watched, self._on_control, self._on_item, self._targets))
        if is_instance(element, WF.types.ToolStripDropDownItem):
            # Its drop-down never crosses into Python (pythonnet would make its class, 20 ms once).
            return bool(self._hook_item(element, self._watched, self._on_item, self._targets))
        return True  # an item (ItemRef) or a menu: validated on use, see the module doc

    def _watch_derived(self, element: DerivedHandle) -> bool:
        if not element.is_a(WF.types.Control):
            return True  # a Python-defined component that is no control holds no children we walk
        if bridge.table_find(self._watched, element.ref) is not None:
            return True
        hooks = [(event, self._on_control) for event in _control_events()]
        if element.is_a(WF.types.ToolStrip):
            hooks += [(event, self._on_item) for event in _item_events()]
        for event, handler in hooks:
            derived.invoke(_ADD_HANDLER, event, element, handler)
        # Its handle's own WeakReference: unwatch_all reads its target in .NET only.
        self._targets.Add(element.ref)
        bridge.table_add(self._watched, element.ref, "")
        return True


def hook_once(control: Any, table: Any, on_control: Any, on_item: Any, targets: Any) -> Any:
    """The statement that hooks ``control``'s child events (a ToolStrip's item events too) with the
    counting handlers, lists it weakly in ``targets`` and marks it in ``table``, unless ``table``
    has it: ``StructureWatch.watch``'s and the .NET walk's (``walker``), alike. In .NET, never
    ``control.Event += handler`` from Python: pythonnet keeps every handler added so in a table
    keyed by its target (to support -=), which kept closed forms alive (invariant 7;
    test_closed_window_gives_node_not_found_and_is_collectable)."""
    from System.Linq.Expressions import Expression  # noqa: PLC0415

    seen = expr.variable(String, "seen")
    strip = expr.convert(control, WF.types.ToolStrip)
    hook = expr.block(
        [],
        Expression.IfThen(
            expr.is_type(control, WF.types.ToolStrip),
            expr.typed_block(
                Void,
                expr.call(
                    strip, expr.method(WF.types.ToolStrip, "add_ItemAdded", WF.types.ToolStripItemEventHandler), on_item
                ),
                expr.call(
                    strip,
                    expr.method(WF.types.ToolStrip, "add_ItemRemoved", WF.types.ToolStripItemEventHandler),
                    on_item,
                ),
            ),
        ),
        expr.call(control, expr.method(WF.types.Control, "add_ControlAdded", WF.types.ControlEventHandler), on_control),
        expr.call(
            control, expr.method(WF.types.Control, "add_ControlRemoved", WF.types.ControlEventHandler), on_control
        ),
        expr.call(
            targets, expr.method(TARGETS, "Add", WeakReference), expr.new(WeakReference, expr.convert(control, Object))
        ),
        expr.call(
            table, expr.method(WATCH_TABLE, "Add", Object, String), expr.convert(control, Object), expr.const("", str)
        ),
    )
    found = expr.call(table, expr.typeof(WATCH_TABLE).GetMethod("TryGetValue"), expr.convert(control, Object), seen)
    return expr.block([seen], Expression.IfThen(Expression.Not(found), hook))


def _build_watch() -> Any:
    """``Func<Control, table, ControlEventHandler, ToolStripItemEventHandler, targets, bool>``: ``hook_once``, then true."""
    control = expr.param(WF.types.Control, "control")
    table = expr.param(WATCH_TABLE, "table")
    on_control = expr.param(WF.types.ControlEventHandler, "onControl")
    on_item = expr.param(WF.types.ToolStripItemEventHandler, "onItem")
    targets = expr.param(TARGETS, "targets")
    body = expr.block([], hook_once(control, table, on_control, on_item, targets), expr.const(True, bool))
    delegate_type = expr.func(
        WF.types.Control, WATCH_TABLE, WF.types.ControlEventHandler, WF.types.ToolStripItemEventHandler, TARGETS, bool
    )
    return expr.compile_lambda(delegate_type, body, control, table, on_control, on_item, targets)


def _build_watch_item() -> Any:
    """``Func<ToolStripDropDownItem, table, ToolStripItemEventHandler, targets, bool>``: unless ``table``
    has the item, hook its drop-down's item events (only where it has items: reading DropDown makes
    one), list that drop-down weakly in ``targets`` and mark the item in ``table``; then true."""
    from System.Linq.Expressions import Expression  # noqa: PLC0415

    item_type = WF.types.ToolStripDropDownItem
    item = expr.param(item_type, "item")
    table = expr.param(WATCH_TABLE, "table")
    on_item = expr.param(WF.types.ToolStripItemEventHandler, "onItem")
    targets = expr.param(TARGETS, "targets")
    seen = expr.variable(String, "seen")
    drop_down = expr.variable(WF.types.ToolStripDropDown, "dropDown")
    handler_type = WF.types.ToolStripItemEventHandler
    hook = expr.block(
        [drop_down],
        Expression.IfThen(
            expr.prop(item, "HasDropDownItems"),
            expr.typed_block(
                Void,
                expr.assign(drop_down, expr.prop(item, "DropDown")),
                expr.call(drop_down, expr.method(WF.types.ToolStrip, "add_ItemAdded", handler_type), on_item),
                expr.call(drop_down, expr.method(WF.types.ToolStrip, "add_ItemRemoved", handler_type), on_item),
                expr.call(
                    targets,
                    expr.method(TARGETS, "Add", WeakReference),
                    expr.new(WeakReference, expr.convert(drop_down, Object)),
                ),
            ),
        ),
        expr.call(
            table, expr.method(WATCH_TABLE, "Add", Object, String), expr.convert(item, Object), expr.const("", str)
        ),
    )
    found = expr.call(table, expr.typeof(WATCH_TABLE).GetMethod("TryGetValue"), expr.convert(item, Object), seen)
    body = expr.block([seen], Expression.IfThen(Expression.Not(found), hook), expr.const(True, bool))
    delegate_type = expr.func(item_type, WATCH_TABLE, handler_type, TARGETS, bool)
    return expr.compile_lambda(delegate_type, body, item, table, on_item, targets)


def _prune_dead(targets: Any) -> None:
    expr.compiled(("winforms-structure", "prune"), _build_prune)(targets)


def _unhook_all(targets: Any, on_control: Any, on_item: Any) -> None:
    expr.compiled(("winforms-structure", "unhook"), _build_unhook)(targets, on_control, on_item)


def _build_prune() -> Any:
    """``Action<List<WeakReference>>``: drop the entries whose element is gone."""
    from System import Action, Predicate  # noqa: PLC0415
    from System.Linq.Expressions import Expression  # noqa: PLC0415

    ref = expr.param(WeakReference, "ref")
    dead = expr.compile_lambda(Predicate[WeakReference], Expression.Not(expr.prop(ref, "IsAlive")), ref)
    targets = expr.param(TARGETS, "targets")
    remove_all = expr.call(
        targets, expr.method(TARGETS, "RemoveAll", Predicate[WeakReference]), expr.const(dead, Predicate[WeakReference])
    )
    return expr.compile_lambda(Action[TARGETS], remove_all, targets)


def _build_unhook() -> Any:
    """``Action<List<WeakReference>, ControlEventHandler, ToolStripItemEventHandler>``: take both
    handlers off every element still alive, all in .NET (a Python-defined control never crosses)."""
    from System import Action  # noqa: PLC0415
    from System.Linq.Expressions import Expression  # noqa: PLC0415

    targets = expr.param(TARGETS, "targets")
    on_control = expr.param(WF.ControlEventHandler, "onControl")
    on_item = expr.param(WF.ToolStripItemEventHandler, "onItem")
    item = expr.variable(Object, "item")
    target = expr.variable(Object, "target")
    control = expr.convert(target, WF.types.Control)
    strip = expr.convert(target, WF.types.ToolStrip)
    body = expr.block(
        [target],
        expr.assign(target, expr.prop(expr.convert(item, WeakReference), "Target")),
        Expression.IfThen(
            expr.is_type(target, WF.types.ToolStrip),
            expr.block(
                [],
                expr.call(
                    strip, expr.method(WF.types.ToolStrip, "remove_ItemAdded", WF.ToolStripItemEventHandler), on_item
                ),
                expr.call(
                    strip, expr.method(WF.types.ToolStrip, "remove_ItemRemoved", WF.ToolStripItemEventHandler), on_item
                ),
            ),
        ),
        Expression.IfThen(
            expr.is_type(target, WF.types.Control),
            expr.block(
                [],
                expr.call(
                    control, expr.method(WF.types.Control, "remove_ControlAdded", WF.ControlEventHandler), on_control
                ),
                expr.call(
                    control, expr.method(WF.types.Control, "remove_ControlRemoved", WF.ControlEventHandler), on_control
                ),
            ),
        ),
    )
    action = Action[TARGETS, WF.ControlEventHandler, WF.ToolStripItemEventHandler]
    return expr.compile_lambda(action, expr.for_each(targets, item, body), targets, on_control, on_item)
