"""The WinForms walk in .NET: a subtree's controls, their node ids and what a tree node shows, in one call.

Every pythonnet read costs microseconds, so a walk in Python cannot get under
the bare pythonnet walk (about 14 us a control here). This walk is one
delegate compiled from an expression (``net.expr``; no SDK, and the same on
Mono, the .NET Framework and CoreCLR): called once, it goes breadth first
through ``Controls`` from a root, to ``max_depth`` and at most ``cap``
controls, and reads per control what a tree node needs: its node id (from the
object table's .NET registry, ``_objects.Registry``, made there for a control
met for the first time), type, full type, Name, Text, whether the Text shows
an access key, Visible, Enabled, Focused, a check box's check, and how many
children it has. A list box's or combo box's items and a tree view's nodes
are walked as well, after its controls (``walk_items``: a record per item,
what ``items/lists.py`` and ``items/trees.py`` read), and so are a list view's
columns, rows and cells (``walk_views``, ``items/listview.py``'s reads; in
virtual mode the rows in view) and a grid's columns, rows in view and their
cells (``walk_grids``, ``items/grids.py``'s reads); a control that lists only
some of its children carries their total (``totalCount``). It packs it all
into one string, so a walk of thousands of controls and items crosses into
Python once, and decoding happens after the UI thread is let go (``decode``
needs nothing from it).

A control whose node needs more than that is marked *rich* and handed back
as well: the adapter's Python reads complete it (``Walk.incomplete``). Those
are what the Python path knows beyond ``Controls``: a tool strip (its
children are its items, not its controls), a tab page (its selection), a
form with an old-style menu, a control with a context menu, a password box (redaction is
the engine's to decide), and a control whose class is written in Python
(``net.derived``: the items code and the type's own members are read there).

- Redaction stays decided before any getter runs (invariant 4): the Text of
  a password box is never read here; the record says ``secret``.
- Every read is guarded: a getter that throws leaves its exception's full
  type name and message in that field, and the rest of the control is still
  read; a failed ``Controls`` read leaves the control without children, as
  on the Python path (per-element fault isolation).

The Python path (``tree.py`` through the engine) stays the oracle:
``tests/integration/test_walker_live.py`` compares the two snapshots, node
for node. The packed form is ``toolkits/_walk_format.py``'s.
"""

from __future__ import annotations

import logging
from typing import Any

from System import Array, Char, Int32, Object
from System import Exception as NetException
from System import Type as NetType
from System.Linq.Expressions import Expression

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits._walk_format import ReadError, Walked, WalkedControl, decode
from wpfprobe_clr.toolkits._walk_frame import WalkFrame, advance, any_of, memo_per_type
from wpfprobe_clr.toolkits.winforms import walk_items
from wpfprobe_clr.toolkits.winforms.properties import control_text_property
from wpfprobe_clr.toolkits.winforms.structure import TARGETS, WATCH_TABLE, hook_once
from wpfprobe_clr.toolkits.winforms.walk_grids import GridWalk
from wpfprobe_clr.toolkits.winforms.walk_views import ViewWalk

WF = clr_namespace("System.Windows.Forms")

__all__ = ["ReadError", "Walked", "WalkedControl", "decode", "prepare", "ready", "walking"]


_KEY = ("winforms.walker", 6)


def ready() -> bool:
    """Whether the walk is compiled (``prepare``); until it is, snapshots are read the engine's way."""
    return E.is_compiled(_KEY)


def prepare() -> None:
    """Compile the walk (100-700 ms, once per process), on any thread: it reads no live control.

    The probe compiles it on a thread of its own when it attaches (``wpfprobe_clr._compiling``
    says why, and when it is the UI thread's after all).
    """
    try:
        E.compiled(_KEY, _build)
    except Exception:  # a runtime that cannot build it: every snapshot is read the engine's way
        logging.getLogger("wpfprobe.clr").warning("the .NET walk could not be compiled", exc_info=True)


def walking(root: Any, registry: Any, *, max_depth: int, cap: int, watch: tuple[Any, ...] | None = None) -> Walked:
    """The walk of ``root``, not started: ``advance(seconds)`` on the UI thread until it says it is done.

    ``registry`` is the object table's (``_objects.Registry``): ids are read
    from it, and made in it for controls met for the first time. ``watch``
    (``StructureWatch.for_walk``: its table of hooked elements, its two
    counting handlers and its list of them): every control walked has its child events hooked as
    ``StructureWatch.watch`` hooks them, in .NET; ``Walk.watched`` says
    whether all were.
    """
    failed = Array[Int32]([0])
    extras: tuple[Any, ...] = ()
    if watch is not None:
        table, on_control, on_item, targets = watch
        extras = (table, on_control, on_item, failed, targets)

    def step(seconds: float | None, walk: Walked) -> bool:
        done = advance(E.compiled(_KEY, _build), WF.Control, root, registry, max_depth, cap, walk, seconds, extras)
        if done:
            walk.watched = int(failed[0]) == 0
        return done

    return Walked.start(step, control_text_property())


# -- the expression ---------------------------------------------------------------


def _has_property(owner: Any, name: str) -> bool:
    return E.typeof(owner).GetProperty(name) is not None


def _build_hides_text() -> Any:
    """``Func<Type, bool>``: whether the type's own Text hides Control.Text (``new string Text``).

    Python reads the most derived member (Mono's PropertyGridTextBox shows the
    grid's value through one); the walk reads Control.Text. A control whose
    type hides it is rich, so its text is read the Python way.
    """
    from System.Reflection import BindingFlags, MethodInfo, PropertyInfo  # noqa: PLC0415

    t = E.param(NetType, "type")
    cursor = E.variable(NetType, "cursor")
    found = E.variable(PropertyInfo, "found")
    getter = E.variable(MethodInfo, "getter")
    result = E.variable(bool, "result")
    control = E.const(E.typeof(WF.types.Control), NetType)
    flags = E.const(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly, BindingFlags)
    done = Expression.Label("done")
    get_property = E.method(NetType, "GetProperty", str, BindingFlags)
    body = E.block(
        [cursor, found, getter, result],
        E.assign(cursor, t),
        E.assign(result, E.const(False, bool)),
        Expression.Loop(
            Expression.IfThenElse(
                Expression.OrElse(
                    Expression.ReferenceEqual(cursor, E.null(NetType)), Expression.ReferenceEqual(cursor, control)
                ),
                Expression.Break(done),
                E.block(
                    [],
                    E.assign(found, E.call(cursor, get_property, E.const("Text", str), flags)),
                    Expression.IfThen(
                        Expression.ReferenceNotEqual(found, E.null(PropertyInfo)),
                        E.block(
                            [],
                            E.assign(getter, E.call(found, E.method(PropertyInfo, "GetGetMethod"))),
                            E.assign(
                                result,
                                Expression.OrElse(
                                    Expression.ReferenceEqual(getter, E.null(MethodInfo)),
                                    Expression.ReferenceNotEqual(
                                        E.prop(
                                            E.call(getter, E.method(MethodInfo, "GetBaseDefinition")), "DeclaringType"
                                        ),
                                        control,
                                    ),
                                ),
                            ),
                            Expression.Break(done),
                        ),
                    ),
                    E.assign(cursor, E.prop(cursor, "BaseType")),
                ),
            ),
            done,
        ),
        result,
    )
    return E.compile_lambda(E.func(NetType, bool), body, t)


def _watched(f: WalkFrame, c: Any) -> Any:
    """Hook ``c``'s child events once, as ``StructureWatch.watch`` does, when the walk watches (its slots
    hold the table of hooked elements, the two counting handlers, a flag set when a hook failed and the
    list of hooked elements, from which the probe's stop takes the handlers off again)."""
    table = f.toolkit_slot(0, WATCH_TABLE)
    on_control = f.toolkit_slot(1, WF.types.ControlEventHandler)
    on_item = f.toolkit_slot(2, WF.types.ToolStripItemEventHandler)
    failed = f.toolkit_slot(3, E.array_of(Int32))
    targets = f.toolkit_slot(4, TARGETS)
    return E.block(
        [],
        Expression.IfThen(
            Expression.ReferenceNotEqual(table, E.null(WATCH_TABLE)),
            E.try_catch(
                f.pack.void(hook_once(c, table, on_control, on_item, targets)),
                NetException,
                "ex",
                lambda _ex: f.pack.void(
                    E.assign(Expression.ArrayAccess(failed, E._expressions([E.const(0, int)])), E.const(1, int))
                ),
            ),
        ),
    )


def _build() -> Any:
    f = WalkFrame(WF.Control)
    c, pack = f.c, f.pack
    void, guarded, string_field, flag, bool_field = (
        pack.void, pack.guarded, pack.string_field, pack.flag, pack.bool_field
    )  # fmt: skip
    kid = E.variable(object, "kid")
    item_count = E.variable(int, "itemCount")
    node_count = E.variable(int, "nodeCount")
    net_type = E.variable(NetType, "t")
    set_rich = E.assign(f.is_rich, E.const(True, bool))
    views = ViewWalk(f)
    grids = GridWalk(f)

    def as_(kind: Any) -> Any:
        return E.convert(c, kind)

    def password(kind: Any) -> Any:
        no_char = E.convert(E.const(0, int), Char)
        return Expression.AndAlso(
            E.is_type(c, kind),
            Expression.OrElse(
                Expression.NotEqual(E.prop(as_(kind), "PasswordChar"), no_char),
                E.prop(as_(kind), "UseSystemPasswordChar"),
            ),
        )

    def not_null(value: Any) -> Any:
        return Expression.NotEqual(value, E.null(value.Type))

    # What makes a control rich (the module's docstring): read guarded, as a getter may throw. A ToolStrip
    # and a TabPage need the Python path's reads beyond Controls; a ListView (``walk_views``) and a
    # DataGridView (``walk_grids``) are walked, with their items.
    the_type = E.call(E.convert(c, object), E.method(Object, "GetType"))
    text_hidden = memo_per_type(("winforms.hides_text", 1), _build_hides_text, the_type)
    rich_tests = [
        E.is_type(c, bridge.DERIVED_INTERFACE),
        *(E.is_type(c, t) for t in (WF.types.ToolStrip, WF.types.TabPage)),
        text_hidden,
    ]
    rich_tests.append(not_null(E.prop(c, "ContextMenuStrip")))
    if _has_property(WF.types.Control, "ContextMenu"):  # the old kind: .NET Framework and Mono only
        rich_tests.append(not_null(E.prop(c, "ContextMenu")))
    if _has_property(WF.types.Form, "Menu"):
        rich_tests.append(Expression.AndAlso(E.is_type(c, WF.types.Form), not_null(E.prop(as_(WF.types.Form), "Menu"))))

    mnemonic = E.condition(
        E.is_type(c, WF.types.ButtonBase),
        E.prop(as_(WF.types.ButtonBase), "UseMnemonic"),
        E.condition(
            E.is_type(c, WF.types.Label),
            E.prop(as_(WF.types.Label), "UseMnemonic"),
            E.is_type(c, WF.types.GroupBox),
            bool,
        ),
        bool,
    )
    check = E.prop(as_(WF.types.CheckBox), "CheckState")
    checked = Expression.IfThenElse(
        E.is_type(c, WF.types.CheckBox),
        Expression.IfThenElse(
            Expression.Equal(check, E.enum_member(WF.types.CheckState, "Indeterminate")),
            void(pack.null()),
            void(flag(Expression.Equal(check, E.enum_member(WF.types.CheckState, "Checked")))),
        ),
        Expression.IfThenElse(
            E.is_type(c, WF.types.RadioButton),
            void(flag(E.prop(as_(WF.types.RadioButton), "Checked"))),
            void(pack.null()),
        ),
    )
    record = E.block(
        [net_type],
        f.position(),
        _watched(f, c),
        f.id_field(),
        E.assign(net_type, the_type),
        pack.type_field(
            net_type, E.prop(net_type, "Name"), Expression.Coalesce(E.prop(net_type, "FullName"), E.const("", str))
        ),
        string_field(E.prop(c, "Name")),
        # Redaction before any getter runs: a password box's Text is never read.
        E.assign(f.is_rich, E.const(False, bool)),
        guarded(
            void(
                Expression.IfThenElse(
                    Expression.OrElse(password(WF.types.TextBox), password(WF.types.MaskedTextBox)),
                    void(pack.null(), set_rich),
                    string_field(E.prop(c, "Text")),
                )
            )
        ),
        bool_field(mnemonic),
        bool_field(E.prop(c, "Visible")),
        bool_field(E.prop(c, "Enabled")),
        bool_field(E.prop(c, "Focused")),
        guarded(void(checked)),
        # Rich: read guarded too; a control that cannot say is left to the Python path. Before the
        # children: a list's items are among its children, walked here unless the list is rich.
        E.assign(item_count, f.first),
        E.assign(node_count, f.first),
        views.reset(),
        grids.reset(),
        E.try_catch(
            void(
                Expression.IfThen(any_of(rich_tests), set_rich),
                Expression.IfThen(
                    Expression.AndAlso(Expression.Not(f.is_rich), walk_items.is_value_owner(c)),
                    E.assign(item_count, walk_items.value_count(c)),
                ),
                Expression.IfThen(
                    Expression.AndAlso(Expression.Not(f.is_rich), E.is_type(c, WF.types.TreeView)),
                    E.assign(node_count, walk_items.tree_node_count(c)),
                ),
                Expression.IfThen(Expression.Not(f.is_rich), views.read(c)),
                Expression.IfThen(Expression.Not(f.is_rich), grids.read(c)),
            ),
            NetException,
            "ex",
            lambda _ex: void(
                set_rich, E.assign(item_count, f.first), E.assign(node_count, f.first), views.reset(), grids.reset()
            ),
        ),
        # Children: listed whole or not at all (a Controls that throws half way lists none).
        E.assign(f.listed, E.const(False, bool)),
        E.call(f.kids, E.method(f.elements, "Clear")),
        guarded(
            void(
                E.for_each(
                    E.prop(c, "Controls"),
                    kid,
                    E.call(f.kids, E.method(f.elements, "Add", WF.types.Control), E.convert(kid, WF.types.Control)),
                ),
                E.assign(f.listed, E.const(True, bool)),
                pack.int_field(
                    Expression.Add(
                        Expression.Add(Expression.Add(E.prop(f.kids, "Count"), item_count), node_count),
                        Expression.Add(views.count, grids.count),
                    )
                ),
            )
        ),
        # A control that lists only some of its children (a grid's rows in view, a virtual list's): their total
        # counts its Controls too, so one whose Controls could not be listed is left to the engine.
        *(
            Expression.IfThen(
                Expression.GreaterThanOrEqual(part.total, f.first),
                Expression.IfThenElse(
                    f.listed, E.assign(f.total, Expression.Add(E.prop(f.kids, "Count"), part.total)), set_rich
                ),
            )
            for part in (views, grids)
        ),
        f.rich_field(),
        pack.null(),
        pack.null(),  # selected, expanded: an item's, not a control's
        # A tool strip's children are its items (the Python path's), not its controls.
        f.enqueue_kids(also=Expression.Not(E.is_type(c, WF.types.ToolStrip))),
        # Then its items (the Python path lists them after its controls), the owner standing for each.
        Expression.IfThen(
            Expression.AndAlso(f.listed, Expression.LessThan(f.depth, f.max_depth)),
            void(
                E.for_range(f.k, item_count, f.below_cap(f.enqueue(c, f.k))),
                walk_items.enqueue_tree_nodes(f, node_count),
                views.enqueue(),
                grids.enqueue(),
            ),
        ),
    )
    return f.compile(
        [item_count, node_count, *views.variables, *grids.variables],
        record,
        Expression.IfThenElse(E.is_type(c, WF.types.ListView), views.virtual_record(), walk_items.value_item_record(f)),
        views.node_record(grids.node_record(walk_items.tree_node_record(f))),
        views.cell_record(),
    )
