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
children it has. A list box's or combo box's items are walked as well,
after its controls (``walk_items``: a record per item, what ``items/lists.py``
reads). It packs it all into one string, so a walk of thousands of controls
and items crosses into Python once, and decoding happens after the UI thread
is let go (``decode`` needs nothing from it).

A control whose node needs more than that is marked *rich* and handed back
as well: the adapter's Python reads complete it (``Walk.incomplete``). Those
are what the Python path knows beyond ``Controls``: a tool strip (its
children are its items, not its controls), a list view, tree view or grid
(items of their own kinds), a tab page (its selection), a form with an
old-style menu, a control with a context menu, a password box (redaction is
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

from System import Array, Boolean, Char, Int32, Int64, Object, String, WeakReference
from System import Exception as NetException
from System import Type as NetType
from System.Collections.Generic import Dictionary, List
from System.Diagnostics import Stopwatch
from System.Linq.Expressions import Expression
from System.Runtime.CompilerServices import ConditionalWeakTable
from System.Text import StringBuilder
from System.Windows.Forms import (
    ButtonBase,
    CheckBox,
    CheckState,
    Control,
    DataGridView,
    Form,
    GroupBox,
    Label,
    ListView,
    MaskedTextBox,
    RadioButton,
    TabPage,
    TextBox,
    ToolStrip,
    TreeView,
)

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.net.derived import from_net, to_net
from wpfprobe_clr.toolkits._walk_format import SECRET, ReadError, Walked, WalkedControl, decode
from wpfprobe_clr.toolkits.winforms import walk_items
from wpfprobe_clr.toolkits.winforms.properties import control_text_property
from wpfprobe_clr.toolkits.winforms.walk_items import Pack

__all__ = ["SECRET", "ReadError", "Walked", "WalkedControl", "decode", "prepare", "ready", "walking"]

#: Controls whose node needs the Python path's reads beyond Controls (see the module's docstring).
RICH_TYPES: tuple[Any, ...] = (ToolStrip, ListView, TreeView, DataGridView, TabPage)

_KEY = ("winforms.walker", 5)


def ready() -> bool:
    """Whether the walk is compiled (``prepare``); until it is, snapshots are read the engine's way."""
    return E.is_compiled(_KEY)


def prepare() -> None:
    """Compile the walk (100-200 ms, once per process); posted to the UI thread when the probe attaches.

    Not on a thread of its own: a second thread doing .NET work deadlocks
    with Mono's garbage collector in the cooperative suspend modes an app may
    have started Mono in, and one still compiling when a short script ends
    crashed in pythonnet's shutdown. At attach time, ahead of every request
    (the UI thread runs posts in order), it costs the app one pause at start.
    """
    try:
        E.compiled(_KEY, _build)
    except Exception:  # a runtime that cannot build it: every snapshot is read the engine's way
        logging.getLogger("wpfprobe.clr").warning("the .NET walk could not be compiled", exc_info=True)


def walking(root: Any, registry: Any, *, max_depth: int, cap: int) -> Walked:
    """The walk of ``root``, not started: ``advance(seconds)`` on the UI thread until it says it is done.

    ``registry`` is the object table's (``_objects.Registry``): ids are read
    from it, and made in it for controls met for the first time.
    """
    return Walked.start(
        lambda seconds, walk: _advance(root, registry, max_depth, cap, walk, seconds), control_text_property()
    )


def _advance(root: Any, registry: Any, max_depth: int, cap: int, walk: Walked, seconds: float | None) -> bool:
    if walk.state is None:
        walk.state = Array[Object]([
            List[Control](), List[Int32](), List[Int32](), List[Object](), StringBuilder(), StringBuilder(),
            StringBuilder(), Array[Int32]([0]), List[String](), List[Int32](),
        ])  # fmt: skip
    state = walk.state
    if seconds is None:
        deadline = Int64.MaxValue
    else:
        deadline = Int64(int(Stopwatch.GetTimestamp()) + int(max(seconds, 0.0) * int(Stopwatch.Frequency)))
    done = bool(
        E.compiled(_KEY, _build)(
            to_net(root), cap, max_depth, registry.ids, registry.refs, registry.counter, registry.prefix, state,
            deadline,
        )
    )  # fmt: skip
    if done:
        # A rich control of a Python-defined class comes out as a WeakReference: a handle, never converted.
        rich = [from_net(x) for x in state[3].ToArray()]
        depths = [int(d) for d in str(state[6].ToString()).split(",") if d]
        walk.finish(
            packed=str(state[4].ToString()),
            ids=frozenset(i for i in str(state[5].ToString()).split(",") if i),
            incomplete=list(zip(rich, depths, strict=True)),
        )
    return done


# -- the expression ---------------------------------------------------------------

_IdTable = ConditionalWeakTable[Object, String]
_Refs = Dictionary[String, WeakReference]


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
    control = E.const(E.typeof(Control), NetType)
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


def _build() -> Any:
    given = E.param(object, "root")  # a control, or a WeakReference to one of a Python-defined class
    root = E.variable(Control, "rootControl")
    cap = E.param(int, "cap")
    max_depth = E.param(int, "maxDepth")
    ids = E.param(_IdTable, "ids")
    refs = E.param(_Refs, "refs")
    counter = E.param(E.array_of(Int32), "counter")
    prefix = E.param(str, "prefix")
    state = E.param(E.array_of(Object), "state")
    deadline = E.param(Int64, "deadline")  # Stopwatch ticks: the slice ends at the first check after it

    order = E.variable(List[Control], "order")
    parents = E.variable(List[Int32], "parents")
    depths = E.variable(List[Int32], "depths")
    kids = E.variable(List[Control], "kids")
    rich = E.variable(List[Object], "rich")
    sb = E.variable(StringBuilder, "sb")
    id_list = E.variable(StringBuilder, "idList")
    rich_depths = E.variable(StringBuilder, "richDepths")
    c = E.variable(Control, "c")
    index = E.variable(int, "index")
    depth = E.variable(int, "depth")
    node_id = E.variable(String, "nodeId")
    listed = E.variable(bool, "listed")
    is_rich = E.variable(bool, "isRich")
    kid = E.variable(object, "kid")
    k = E.variable(int, "k")

    first = E.const(0, int)
    record_ids = E.variable(List[String], "recordIds")  # each record's node id, by record index
    item_of = E.variable(List[Int32], "itemOf")  # per queued entry: -1 for a control, else its owner's item index
    item_count = E.variable(int, "itemCount")

    pack = Pack(sb)
    append_to, text, void, counted = pack.append_to, pack.text, pack.void, pack.counted
    guarded, string_field, flag, bool_field, int_field = (
        pack.guarded, pack.string_field, pack.flag, pack.bool_field, pack.int_field
    )  # fmt: skip

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

    def any_of(tests: list[Any]) -> Any:
        found = tests[0]
        for test in tests[1:]:
            found = Expression.OrElse(found, test)
        return found

    def not_null(value: Any) -> Any:
        return Expression.NotEqual(value, E.null(value.Type))

    # What makes a control rich (the module's docstring): read guarded, as a getter may throw.
    hides = Dictionary[NetType, Boolean]()  # per type, for the life of the process
    hides_text = E.compiled(("winforms.hides_text", 1), _build_hides_text)
    the_type = E.call(E.convert(c, object), E.method(Object, "GetType"))
    hidden = E.variable(bool, "hidden")
    known = E.call(
        E.const(hides, Dictionary[NetType, Boolean]),
        E.typeof(Dictionary[NetType, Boolean]).GetMethod("TryGetValue"),
        the_type,
        hidden,
    )
    text_hidden = E.block(
        [hidden],
        Expression.IfThen(
            Expression.Not(known),
            E.block(
                [],
                E.assign(
                    hidden, Expression.Invoke(E.const(hides_text, E.func(NetType, bool)), E._expressions([the_type]))
                ),
                E.call(
                    E.const(hides, Dictionary[NetType, Boolean]),
                    E.method(Dictionary[NetType, Boolean], "set_Item", NetType, bool),
                    the_type,
                    hidden,
                ),
            ),
        ),
        hidden,
    )
    rich_tests = [E.is_type(c, bridge.DERIVED_INTERFACE), *(E.is_type(c, t) for t in RICH_TYPES), text_hidden]
    rich_tests.append(not_null(E.prop(c, "ContextMenuStrip")))
    if _has_property(Control, "ContextMenu"):  # the old kind: .NET Framework and Mono only
        rich_tests.append(not_null(E.prop(c, "ContextMenu")))
    if _has_property(Form, "Menu"):
        rich_tests.append(Expression.AndAlso(E.is_type(c, Form), not_null(E.prop(as_(Form), "Menu"))))

    # The node id: the registry's, or a new one made and registered here.
    counted_id = Expression.ArrayAccess(counter, E.const(0, int))
    found_id = E.call(ids, E.typeof(_IdTable).GetMethod("TryGetValue"), E.convert(c, object), node_id)
    make_id = void(
        E.assign(counted_id, Expression.Add(counted_id, E.const(1, int))),
        E.assign(
            node_id,
            E.static_call(
                String,
                E.method(String, "Concat", String, String),
                prefix,
                E.call(counted_id, E.method(Int32, "ToString")),
            ),
        ),
        E.call(ids, E.method(_IdTable, "Add", Object, String), E.convert(c, object), node_id),
        E.call(
            refs,
            E.method(_Refs, "set_Item", String, WeakReference),
            node_id,
            E.new(WeakReference, E.convert(c, object)),
        ),
    )

    mnemonic = E.condition(
        E.is_type(c, ButtonBase),
        E.prop(as_(ButtonBase), "UseMnemonic"),
        E.condition(E.is_type(c, Label), E.prop(as_(Label), "UseMnemonic"), E.is_type(c, GroupBox), bool),
        bool,
    )
    check = E.prop(as_(CheckBox), "CheckState")
    checked = Expression.IfThenElse(
        E.is_type(c, CheckBox),
        Expression.IfThenElse(
            Expression.Equal(check, E.convert(E.const(int(CheckState.Indeterminate), int), CheckState)),
            void(text("n")),
            void(flag(Expression.Equal(check, E.convert(E.const(int(CheckState.Checked), int), CheckState)))),
        ),
        Expression.IfThenElse(
            E.is_type(c, RadioButton), void(flag(E.prop(as_(RadioButton), "Checked"))), void(text("n"))
        ),
    )
    controls = E.prop(c, "Controls")
    value_owner = walk_items.is_value_owner(c)
    items_count = walk_items.value_count(c)

    def enqueue(control: Any, item: Any) -> Any:
        return void(
            E.call(order, E.method(List[Control], "Add", Control), control),
            E.call(parents, E.method(List[Int32], "Add", int), index),
            E.call(depths, E.method(List[Int32], "Add", int), Expression.Add(depth, E.const(1, int))),
            E.call(item_of, E.method(List[Int32], "Add", int), item),
        )

    net_type = E.variable(NetType, "t")
    record = E.block(
        [net_type],
        int_field(E.call(parents, E.method(List[Int32], "get_Item", int), index)),
        int_field(depth),
        Expression.IfThen(Expression.Not(found_id), make_id),
        text("s"),
        counted(node_id),
        append_to(id_list, node_id),
        append_to(id_list, E.const(",", str)),
        E.call(record_ids, E.method(List[String], "Add", String), node_id),
        E.assign(net_type, E.call(E.convert(c, object), E.method(Object, "GetType"))),
        text("s"),
        counted(E.prop(net_type, "Name")),
        text("s"),
        counted(Expression.Coalesce(E.prop(net_type, "FullName"), E.const("", str))),
        string_field(E.prop(c, "Name")),
        # Redaction before any getter runs: a password box's Text is never read.
        E.assign(is_rich, E.const(False, bool)),
        guarded(
            void(
                Expression.IfThenElse(
                    Expression.OrElse(password(TextBox), password(MaskedTextBox)),
                    void(text("*"), E.assign(is_rich, E.const(True, bool))),
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
        E.assign(item_count, first),
        E.try_catch(
            void(
                Expression.IfThen(any_of(rich_tests), E.assign(is_rich, E.const(True, bool))),
                Expression.IfThen(
                    Expression.AndAlso(Expression.Not(is_rich), value_owner), E.assign(item_count, items_count)
                ),
            ),
            NetException,
            "ex",
            lambda _ex: void(E.assign(is_rich, E.const(True, bool)), E.assign(item_count, first)),
        ),
        # Children: listed whole or not at all (a Controls that throws half way lists none).
        E.assign(listed, E.const(False, bool)),
        E.call(kids, E.method(List[Control], "Clear")),
        guarded(
            void(
                E.for_each(
                    controls, kid, E.call(kids, E.method(List[Control], "Add", Control), E.convert(kid, Control))
                ),
                E.assign(listed, E.const(True, bool)),
                int_field(Expression.Add(E.prop(kids, "Count"), item_count)),
            )
        ),
        bool_field(is_rich),
        Expression.IfThen(
            is_rich,
            void(
                E.call(rich, E.method(List[Object], "Add", Object), bridge.wrapped(E.convert(c, object))),
                append_to(rich_depths, depth),
                append_to(rich_depths, E.const(",", str)),
            ),
        ),
        # A tool strip's children are its items (the Python path's), not its controls.
        Expression.IfThen(
            Expression.AndAlso(
                Expression.AndAlso(listed, Expression.LessThan(depth, max_depth)),
                Expression.Not(E.is_type(c, ToolStrip)),
            ),
            E.for_range(
                k,
                E.prop(kids, "Count"),
                Expression.IfThen(
                    Expression.LessThan(E.prop(order, "Count"), cap),
                    enqueue(E.call(kids, E.method(List[Control], "get_Item", int), k), E.const(-1, int)),
                ),
            ),
        ),
        # Then its items (the Python path lists them after its controls), the owner standing for each.
        Expression.IfThen(
            Expression.AndAlso(listed, Expression.LessThan(depth, max_depth)),
            E.for_range(
                k, item_count, Expression.IfThen(Expression.LessThan(E.prop(order, "Count"), cap), enqueue(c, k))
            ),
        ),
        text("n"),  # selected: an item's, not a control's
    )
    parent_index = E.call(parents, E.method(List[Int32], "get_Item", int), index)
    item_record = walk_items.value_item_record(
        pack,
        owner=c,
        item=E.call(item_of, E.method(List[Int32], "get_Item", int), index),
        parent_id=E.call(record_ids, E.method(List[String], "get_Item", int), parent_index),
        parent_index=parent_index,
        depth=depth,
        node_id=node_id,
        id_list=id_list,
        record_ids=record_ids,
    )
    done = Expression.Label("done")
    index_box = E.variable(E.array_of(Int32), "indexBox")
    started = E.variable(int, "started")

    def slot(i: int, kind: Any) -> Any:
        return E.convert(Expression.ArrayAccess(state, E._expressions([E.const(i, int)])), kind)

    body = E.block(
        [root, order, parents, depths, kids, rich, sb, id_list, rich_depths, c, index, depth, node_id, listed,
         is_rich, k, index_box, started, record_ids, item_of, item_count],
        # The walk so far, kept between slices in ``state`` (``new_state``).
        E.assign(order, slot(0, List[Control])),
        E.assign(parents, slot(1, List[Int32])),
        E.assign(depths, slot(2, List[Int32])),
        E.assign(rich, slot(3, List[Object])),
        E.assign(sb, slot(4, StringBuilder)),
        E.assign(id_list, slot(5, StringBuilder)),
        E.assign(rich_depths, slot(6, StringBuilder)),
        E.assign(index_box, slot(7, E.array_of(Int32))),
        E.assign(record_ids, slot(8, List[String])),
        E.assign(item_of, slot(9, List[Int32])),
        E.assign(index, Expression.ArrayAccess(index_box, E._expressions([first]))),
        E.assign(started, index),
        E.assign(kids, E.new(List[Control])),
        Expression.IfThen(
            Expression.Equal(E.prop(order, "Count"), first),
            void(
                E.assign(root, E.convert(bridge.unwrapped(given), Control)),
                E.call(order, E.method(List[Control], "Add", Control), root),
                E.call(parents, E.method(List[Int32], "Add", int), E.const(-1, int)),
                E.call(depths, E.method(List[Int32], "Add", int), first),
                E.call(item_of, E.method(List[Int32], "Add", int), E.const(-1, int)),
            ),
        ),
        Expression.Loop(
            Expression.IfThenElse(
                Expression.AndAlso(
                    Expression.LessThan(index, E.prop(order, "Count")),
                    # The clock is read every 16 controls: a slice ends within a few microseconds of its time.
                    # At least one control per slice, however short: a walk always gets on.
                    Expression.OrElse(
                        Expression.OrElse(
                            Expression.NotEqual(Expression.And(index, E.const(15, int)), first),
                            Expression.Equal(index, started),
                        ),
                        Expression.LessThan(E.static_call(Stopwatch, E.method(Stopwatch, "GetTimestamp")), deadline),
                    ),
                ),
                void(
                    E.assign(c, E.call(order, E.method(List[Control], "get_Item", int), index)),
                    E.assign(depth, E.call(depths, E.method(List[Int32], "get_Item", int), index)),
                    Expression.IfThenElse(
                        Expression.LessThan(E.call(item_of, E.method(List[Int32], "get_Item", int), index), first),
                        record,
                        item_record,
                    ),
                    Expression.PreIncrementAssign(index),
                ),
                Expression.Break(done),
            ),
            done,
        ),
        E.assign(Expression.ArrayAccess(index_box, E._expressions([first])), index),
        Expression.GreaterThanOrEqual(index, E.prop(order, "Count")),
    )  # fmt: skip
    return E.compile_lambda(
        E.func(object, int, int, _IdTable, _Refs, E.array_of(Int32), str, E.array_of(Object), Int64, bool),
        body, given, cap, max_depth, ids, refs, counter, prefix, state, deadline,
    )  # fmt: skip
