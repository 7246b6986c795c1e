"""What every toolkit's walk in .NET shares: its parameters, its queue kept between slices, ids, and the packed output.

A walk (``toolkits/winforms/walker.py``, ``toolkits/wpf/_walker.py``) is one
delegate compiled from an expression (``net.expr``). The toolkit writes the
*record* of one element (what its tree node shows, and which of its children
to queue); the frame around it is the same for every toolkit:

- the parameters: the root (or a WeakReference to one of a Python-defined
  class), the node cap, the depth, the object table's .NET registry
  (``_objects.Registry``), the state kept between slices and the slice's
  deadline in Stopwatch ticks;
- the queue, breadth first: each entry an element, its parent's record
  index, its depth and what it stands for (``item_of``): -1 the element
  itself, an index of 0 or more an item of it that has no object of its own
  (a list box's value), -2 or less an item object of it kept in ``nodes`` (a
  tree node, a list view's row or column, at ``-2 - entry``); and, for an
  item object, which part of it (``item_index``): -1 the object itself, an
  index of 0 or more an item of that object with no object of its own (a
  list view row's cell, ``ItemRef(row, index)``); -1 for every other entry;
- the loop: records until the queue is done or the slice's time is up,
  reading the clock every 16 entries and always getting at least one on;
- the node id of an element, read from the registry or made there for an
  element met for the first time, with no call into Python;
- the packed output (``Pack``; the format is ``_walk_format``'s), the ids
  walked and the rich elements with their depths, for the engine to complete.

``advance`` is the Python side: it runs one slice and, once the walk is done,
hands the result to the ``Walked``.
"""

from __future__ import annotations

from typing import Any

from System import Action, Array, Boolean, Char, Int32, Int64, Object, String, Tuple, Void, WeakReference
from System import Exception as NetException
from System import Type as NetType
from System.Collections.Generic import Dictionary, List
from System.Diagnostics import Stopwatch
from System.Linq.Expressions import Expression
from System.Runtime.CompilerServices import ConditionalWeakTable
from System.Text import StringBuilder

from wpfprobe.core.protocol import ItemRef
from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.net.derived import from_net, to_net
from wpfprobe_clr.toolkits._walk_format import Walked

__all__ = ["Pack", "WalkFrame", "advance"]

_IdTable = ConditionalWeakTable[Object, String]
#: A rich item with no object of its own, handed back as its owner and index (``ItemRef`` in Python).
_ItemHandle = Tuple[Object, Int32]
_Refs = Dictionary[String, WeakReference]
_TypeIds = Dictionary[Object, Int32]
#: Records per piece of the packed form that Python parses in one call (``Walked.rows``).
CHUNK_RECORDS = 512


class Pack:
    """Expressions that append fields of the packed form (``_walk_format``: JSON) to the walk's builder.

    A record is a JSON array: ``position`` opens it with the parent's index
    and the depth, every later field is written with its leading comma, and
    the frame closes it (with a null automation id for a toolkit that has
    none, then the record's ``WalkFrame.total``). A read that throws writes ``[type, message]`` as its
    field and adds the record's index to the walk's list of faulted records.
    """

    def __init__(self, sb: Any, *, faults: Any, index: Any, type_ids: Any, types: Any) -> None:
        self.sb = sb
        self._faults = faults
        self._index = index
        self._type_ids = type_ids
        self._types = types

    @staticmethod
    def append_to(builder: Any, value: Any) -> Any:
        return E.call(builder, E.method(StringBuilder, "Append", value.Type), value)

    def append(self, value: Any) -> Any:
        return self.append_to(self.sb, value)

    def text(self, s: str) -> Any:
        """``s`` as it is (JSON punctuation)."""
        return self.append(E.const(s, str))

    @staticmethod
    def void(*items: Any) -> Any:
        return E.typed_block(Void, *items)

    def null(self) -> Any:
        return self.text(",null")

    def false(self) -> Any:
        return self.text(",false")

    def true(self) -> Any:
        return self.text(",true")

    def zero(self) -> Any:
        return self.text(",0")

    def json_string_to(self, builder: Any, value: Any) -> Any:  # value: a String that is not null
        escape = E.compiled(_JSON_STRING_KEY, _build_json_string)
        return Expression.Invoke(E.const(escape, _JsonString), E._expressions([builder, E.convert(value, String)]))

    def string_value(self, value: Any) -> Any:  # value: a String that is not null
        return self.void(self.text(","), self.json_string_to(self.sb, value))

    def guarded(self, read: Any) -> Any:
        """``read``, or the type and message of what it threw as the field (and the record marked faulted)."""

        def on_error(ex: Any) -> Any:
            kind = E.prop(E.call(E.convert(ex, object), E.method(Object, "GetType")), "FullName")
            return self.void(
                self.text(",["),
                self.json_string_to(self.sb, Expression.Coalesce(kind, E.const("", str))),
                self.text(","),
                self.json_string_to(self.sb, Expression.Coalesce(E.prop(ex, "Message"), E.const("", str))),
                self.text("]"),
                self.append_to(self._faults, self._index),
                self.append_to(self._faults, E.const(",", str)),
            )

        return E.try_catch(read, NetException, "ex", on_error)

    def string_field(self, read: Any) -> Any:
        v = E.variable(String, "v")
        return self.guarded(
            E.block(
                [v],
                E.assign(v, read),
                Expression.IfThenElse(
                    Expression.ReferenceEqual(v, E.null(String)), self.void(self.null()), self.string_value(v)
                ),
            )
        )

    def flag(self, test: Any) -> Any:
        return Expression.IfThenElse(test, self.void(self.true()), self.void(self.false()))

    def bool_field(self, read: Any) -> Any:
        return self.guarded(self.void(self.flag(read)))

    def int_field(self, read: Any) -> Any:
        return self.void(self.text(","), self.append(read))

    def type_field(self, key: Any, name: Any, full_name: Any) -> Any:
        """The index of (``name``, ``full_name``) in the walk's type table, added there the first time ``key`` is met.

        ``key`` is an Object: the element's Type, or a constant string for a kind of item.
        Full type names were half of the packed form; a walk meets a few dozen types.
        """
        at = E.variable(int, "typeIndex")
        found = E.call(self._type_ids, E.typeof(_TypeIds).GetMethod("TryGetValue"), E.convert(key, object), at)
        add = self.void(
            E.assign(at, E.prop(self._type_ids, "Count")),
            E.call(self._type_ids, E.method(_TypeIds, "Add", Object, Int32), E.convert(key, object), at),
            self.append_to(self._types, E.const("[", str)),
            self.json_string_to(self._types, name),
            self.append_to(self._types, E.const(",", str)),
            self.json_string_to(self._types, full_name),
            self.append_to(self._types, E.const("],", str)),
        )
        return E.block([at], Expression.IfThen(Expression.Not(found), add), self.int_field(at))

    def role_field(self, names: tuple[str, str]) -> Any:
        """The type-table index of a kind of item with no type of its own (a list box's value, a cell)."""
        return self.type_field(E.const(names[1], object), E.const(names[0], str), E.const(names[1], str))


_JsonString = Action[StringBuilder, String]
_JSON_STRING_KEY = ("walk.json_string", 1)


def _build_json_string() -> Any:
    """``Action<StringBuilder, string>``: the string as a JSON string (quotes, backslashes, control
    characters and surrogates escaped; a surrogate pair reads back as its one character in Python)."""
    sb = E.param(StringBuilder, "sb")
    s = E.param(String, "s")
    i = E.variable(int, "i")
    start = E.variable(int, "start")
    ch = E.variable(Char, "ch")
    n = E.variable(int, "n")

    def char(c: str) -> Any:
        return E.convert(E.const(ord(c), int), Char)

    def code(c: Any) -> Any:
        return E.convert(c, Int32)

    append_part = E.method(StringBuilder, "Append", String, Int32, Int32)
    append_str = E.method(StringBuilder, "Append", String)
    needs = Expression.OrElse(
        Expression.OrElse(Expression.Equal(ch, char('"')), Expression.Equal(ch, char("\\"))),
        Expression.OrElse(
            Expression.LessThan(code(ch), E.const(0x20, int)),
            Expression.AndAlso(
                Expression.GreaterThanOrEqual(code(ch), E.const(0xD800, int)),
                Expression.LessThanOrEqual(code(ch), E.const(0xDFFF, int)),
            ),
        ),
    )
    escape = E.block(
        [],
        E.call(sb, append_part, s, start, Expression.Subtract(i, start)),
        Expression.IfThenElse(
            Expression.Equal(ch, char('"')),
            E.call(sb, append_str, E.const('\\"', str)),
            Expression.IfThenElse(
                Expression.Equal(ch, char("\\")),
                E.call(sb, append_str, E.const("\\\\", str)),
                E.block(
                    [],
                    E.call(sb, append_str, E.const("\\u", str)),
                    E.call(sb, append_str, E.call(code(ch), E.method(Int32, "ToString", String), E.const("x4", str))),
                ),
            ),
        ),
        E.assign(start, Expression.Add(i, E.const(1, int))),
    )
    body = E.block(
        [i, start, ch, n],
        E.call(sb, E.method(StringBuilder, "Append", Char), char('"')),
        E.assign(n, E.prop(s, "Length")),
        E.assign(start, E.const(0, int)),
        E.for_range(
            i,
            n,
            E.block(
                [],
                E.assign(ch, E.call(s, E.method(String, "get_Chars", Int32), i)),
                Expression.IfThen(needs, escape),
            ),
        ),
        E.call(sb, append_part, s, start, Expression.Subtract(n, start)),
        E.call(sb, E.method(StringBuilder, "Append", Char), char('"')),
    )
    return E.compile_lambda(_JsonString, body, sb, s)


def any_of(tests: list[Any]) -> Any:
    found = tests[0]
    for test in tests[1:]:
        found = Expression.OrElse(found, test)
    return found


def memo_per_type(key: Any, build: Any, the_type: Any) -> Any:
    """``Func<Type, bool>`` compiled once (``E.compiled(key, build)``), its answer kept per type for the process."""
    answers = E.const(Dictionary[NetType, Boolean](), Dictionary[NetType, Boolean])
    ask = E.compiled(key, build)
    answer = E.variable(bool, "answer")
    known = E.call(answers, E.typeof(Dictionary[NetType, Boolean]).GetMethod("TryGetValue"), the_type, answer)
    return E.block(
        [answer],
        Expression.IfThen(
            Expression.Not(known),
            E.block(
                [],
                E.assign(answer, Expression.Invoke(E.const(ask, E.func(NetType, bool)), E._expressions([the_type]))),
                E.call(answers, E.method(Dictionary[NetType, Boolean], "set_Item", NetType, bool), the_type, answer),
            ),
        ),
        answer,
    )


class WalkFrame:
    """The parameters, variables and loop of a walk of elements of ``element_type``; see the module's docstring."""

    def __init__(self, element_type: Any, *, automation_ids: bool = False) -> None:
        self.element_type = element_type
        #: Whether records end with an automation id of their own (WPF); else the frame writes null.
        self.automation_ids = automation_ids
        self.elements = List[element_type]
        self.given = E.param(object, "root")
        self.cap = E.param(int, "cap")
        self.max_depth = E.param(int, "maxDepth")
        self.ids = E.param(_IdTable, "ids")
        self.refs = E.param(_Refs, "refs")
        self.counter = E.param(E.array_of(Int32), "counter")
        self.prefix = E.param(str, "prefix")
        self.state = E.param(E.array_of(Object), "state")
        self.deadline = E.param(Int64, "deadline")  # Stopwatch ticks: the slice ends at the first check after it

        self.root = E.variable(element_type, "rootElement")
        self.order = E.variable(self.elements, "order")
        self.parents = E.variable(List[Int32], "parents")
        self.depths = E.variable(List[Int32], "depths")
        self.item_of = E.variable(List[Int32], "itemOf")  # per entry: what it stands for (the module's docstring)
        self.nodes = E.variable(List[Object], "nodes")  # item objects queued (entries -2 and less)
        self.item_index = E.variable(List[Int32], "itemIndex")  # per entry: -1, or an item of its item object
        self.record_ids = E.variable(List[String], "recordIds")  # each record's node id, by record index
        self.kids = E.variable(self.elements, "kids")
        self.rich = E.variable(List[Object], "rich")
        self.sb = E.variable(StringBuilder, "sb")
        self.id_list = E.variable(StringBuilder, "idList")
        self.rich_depths = E.variable(StringBuilder, "richDepths")
        #: The element of the record being written (an item's owner, for an item).
        self.c = E.variable(element_type, "c")
        self.index = E.variable(int, "index")
        self.depth = E.variable(int, "depth")
        self.node_id = E.variable(String, "nodeId")
        self.listed = E.variable(bool, "listed")
        self.is_rich = E.variable(bool, "isRich")
        self.k = E.variable(int, "k")
        self.first = E.const(0, int)
        #: The record's total count of children (``-1``: none, written null): set by a record that lists only some.
        self.total = E.variable(int, "total")
        self.faults = E.variable(StringBuilder, "faults")  # indexes of the records with a failed read
        self.type_ids = E.variable(_TypeIds, "typeIds")  # per walk: a type (or item kind) -> its index
        self.types = E.variable(StringBuilder, "types")  # the type table: [name, full name] per index
        self.chunks = E.variable(StringBuilder, "chunks")  # where every CHUNK_RECORDS-th record ends
        self.pack = Pack(self.sb, faults=self.faults, index=self.index, type_ids=self.type_ids, types=self.types)

    @staticmethod
    def new_state(element_type: Any) -> Any:
        """The state a walk keeps between slices, in the slots ``compile`` reads (and ``advance`` finishes from)."""
        return Array[Object]([
            List[element_type](), List[Int32](), List[Int32](), List[Object](), StringBuilder(), StringBuilder(),
            StringBuilder(), Array[Int32]([0]), List[String](), List[Int32](), List[Object](), List[Int32](),
            StringBuilder(), _TypeIds(), StringBuilder(), StringBuilder(), *([None] * TOOLKIT_SLOTS),
        ])  # fmt: skip

    def toolkit_slot(self, k: int, kind: Any) -> Any:
        """Slot ``k`` of the state's slots for the toolkit (``advance``'s ``extras``; null unless given), as ``kind``."""
        at = E._expressions([E.const(_FIRST_TOOLKIT_SLOT + k, int)])
        return E.convert(Expression.ArrayAccess(self.state, at), kind)

    # -- pieces of a record ----------------------------------------------------

    def parent_index(self) -> Any:
        return E.call(self.parents, E.method(List[Int32], "get_Item", int), self.index)

    def position(self) -> Any:
        """The record's opening and first two fields: its parent's record index and its depth."""
        pack = self.pack
        return pack.void(pack.text("["), pack.append(self.parent_index()), pack.text(","), pack.append(self.depth))

    def id_field(self, of: Any = None) -> Any:
        """The node id of ``of`` (default: the element), as the registry has it or made there, written and kept."""
        counted_id = Expression.ArrayAccess(self.counter, E.const(0, int))
        element = E.convert(self.c if of is None else of, object)
        found = E.call(self.ids, E.typeof(_IdTable).GetMethod("TryGetValue"), element, self.node_id)
        make = self.pack.void(
            E.assign(counted_id, Expression.Add(counted_id, E.const(1, int))),
            E.assign(
                self.node_id,
                E.static_call(
                    String,
                    E.method(String, "Concat", String, String),
                    self.prefix,
                    E.call(counted_id, E.method(Int32, "ToString")),
                ),
            ),
            E.call(self.ids, E.method(_IdTable, "Add", Object, String), element, self.node_id),
            E.call(
                self.refs,
                E.method(_Refs, "set_Item", String, WeakReference),
                self.node_id,
                E.new(WeakReference, element),
            ),
        )
        return self.pack.void(Expression.IfThen(Expression.Not(found), make), self.written_id())

    def item_id_field(self, item: Any) -> Any:
        """An item's node id: its owner's, a dot and its index (``_objects``' ``ItemRef`` ids), written and kept."""
        owner_id = E.call(self.record_ids, E.method(List[String], "get_Item", int), self.parent_index())
        return self.pack.void(
            E.assign(
                self.node_id,
                E.static_call(
                    String,
                    E.method(String, "Concat", String, String, String),
                    owner_id,
                    E.const(".", str),
                    E.call(item, E.method(Int32, "ToString")),
                ),
            ),
            self.written_id(),
        )

    def written_id(self) -> Any:
        pack = self.pack
        return pack.void(
            pack.string_value(self.node_id),
            pack.append_to(self.id_list, self.node_id),
            pack.append_to(self.id_list, E.const(",", str)),
            E.call(self.record_ids, E.method(List[String], "Add", String), self.node_id),
        )

    def rich_field(self, of: Any = None, *, item: Any = None) -> Any:
        """Whether ``of`` (default: the element) is rich, as a field; a rich one is handed back with its depth.

        ``item``: the record is item ``item`` of the element, which has no object of its own: it is handed
        back as (element, index), an ``ItemRef`` to the engine (``advance``).
        """
        pack = self.pack
        element = E.convert(self.c if of is None else of, object)
        handed = bridge.wrapped(element)
        if item is not None:
            handed = E.convert(E.new(_ItemHandle, E.convert(self.c, object), item), object)
        return pack.void(
            pack.flag(self.is_rich),
            Expression.IfThen(
                self.is_rich,
                pack.void(
                    E.call(self.rich, E.method(List[Object], "Add", Object), handed),
                    pack.append_to(self.rich_depths, self.depth),
                    pack.append_to(self.rich_depths, E.const(",", str)),
                ),
            ),
        )

    def enqueue(self, element: Any, item: Any, part: Any = None) -> Any:
        """Queue ``element`` (or item ``item`` of it, -1 for the element itself) one level below the record's.

        ``part``: which part of an item object (``item_index``; default -1, the object itself).
        """
        return self.pack.void(
            E.call(self.order, E.method(self.elements, "Add", self.element_type), element),
            E.call(self.parents, E.method(List[Int32], "Add", int), self.index),
            E.call(self.depths, E.method(List[Int32], "Add", int), Expression.Add(self.depth, E.const(1, int))),
            E.call(self.item_of, E.method(List[Int32], "Add", int), item),
            E.call(self.item_index, E.method(List[Int32], "Add", int), E.const(-1, int) if part is None else part),
        )

    def enqueue_node(self, node: Any) -> Any:
        """Queue the item object ``node`` of the element (kept in ``nodes``) one level below the record's."""
        return self.pack.void(
            E.call(self.nodes, E.method(List[Object], "Add", Object), E.convert(node, object)),
            self.enqueue(self.c, Expression.Subtract(E.const(-1, int), E.prop(self.nodes, "Count"))),
        )

    def enqueue_parts(self, node: Any, count: Any) -> Any:
        """Queue ``count`` items of ``node`` (kept in ``nodes``), which the record at hand read for an item with
        no object of its own (a virtual list's row: its cells), one level below the record's, up to the cap."""
        stands_for = Expression.Subtract(E.const(-1, int), E.prop(self.nodes, "Count"))
        return self.pack.void(
            E.call(self.nodes, E.method(List[Object], "Add", Object), E.convert(node, object)),
            E.for_range(self.k, count, self.below_cap(self.enqueue(self.c, stands_for, self.k))),
        )

    def enqueue_node_item(self, item: Any) -> Any:
        """Queue item ``item`` of the item object the entry at hand stands for (a row's cell) one level below it."""
        stands_for = E.call(self.item_of, E.method(List[Int32], "get_Item", int), self.index)
        return self.enqueue(self.c, stands_for, item)

    def queued_item(self) -> Any:
        """Which item of its item object the entry at hand stands for (an Int32; -1: the object itself)."""
        return E.call(self.item_index, E.method(List[Int32], "get_Item", int), self.index)

    def queued_node(self) -> Any:
        """The item object the entry at hand stands for (an Object)."""
        at = Expression.Subtract(
            E.const(-2, int), E.call(self.item_of, E.method(List[Int32], "get_Item", int), self.index)
        )
        return E.call(self.nodes, E.method(List[Object], "get_Item", int), at)

    def below_cap(self, body: Any) -> Any:
        return Expression.IfThen(Expression.LessThan(E.prop(self.order, "Count"), self.cap), body)

    def enqueue_kids(self, also: Any | None = None) -> Any:
        """Queue the listed ``kids`` (when listed, above the depth cut, and ``also``), up to the node cap."""
        test = Expression.AndAlso(self.listed, Expression.LessThan(self.depth, self.max_depth))
        if also is not None:
            test = Expression.AndAlso(test, also)
        kid = E.call(self.kids, E.method(self.elements, "get_Item", int), self.k)
        return Expression.IfThen(
            test,
            E.for_range(self.k, E.prop(self.kids, "Count"), self.below_cap(self.enqueue(kid, E.const(-1, int)))),
        )

    # -- the whole ----------------------------------------------------------------

    def compile(
        self, variables: list[Any], record: Any, item_record: Any | None = None, node_record: Any | None = None,
        node_item_record: Any | None = None,
    ) -> Any:  # fmt: skip
        """The walk's delegate: ``record`` for each element, ``item_record``, ``node_record`` and
        ``node_item_record`` (an item of an item object) for items."""
        done = Expression.Label("done")
        index_box = E.variable(E.array_of(Int32), "indexBox")
        started = E.variable(int, "started")
        first, void = self.first, self.pack.void
        index = self.index

        def slot(i: int, kind: Any) -> Any:
            return E.convert(Expression.ArrayAccess(self.state, E._expressions([E.const(i, int)])), kind)

        entry = record
        stands_for = E.call(self.item_of, E.method(List[Int32], "get_Item", int), index)
        if node_record is not None:
            of_node = node_record
            if node_item_record is not None:
                of_node = Expression.IfThenElse(
                    Expression.LessThan(self.queued_item(), first), node_record, node_item_record
                )
            entry = Expression.IfThenElse(Expression.Equal(stands_for, E.const(-1, int)), record, of_node)
        if item_record is not None:
            entry = Expression.IfThenElse(Expression.LessThan(stands_for, first), entry, item_record)
        own = [
            self.root, self.order, self.parents, self.depths, self.item_of, self.record_ids, self.kids, self.rich,
            self.nodes, self.item_index, self.sb, self.id_list, self.rich_depths, self.c, index, self.depth,
            self.node_id, self.listed, self.is_rich, self.k, index_box, started, self.faults, self.type_ids,
            self.types, self.chunks, self.total,
        ]  # fmt: skip
        body = E.block(
            own + variables,
            # The walk so far, kept between slices in ``state`` (``new_state``).
            E.assign(self.order, slot(0, self.elements)),
            E.assign(self.parents, slot(1, List[Int32])),
            E.assign(self.depths, slot(2, List[Int32])),
            E.assign(self.rich, slot(3, List[Object])),
            E.assign(self.sb, slot(4, StringBuilder)),
            E.assign(self.id_list, slot(5, StringBuilder)),
            E.assign(self.rich_depths, slot(6, StringBuilder)),
            E.assign(index_box, slot(7, E.array_of(Int32))),
            E.assign(self.record_ids, slot(8, List[String])),
            E.assign(self.item_of, slot(9, List[Int32])),
            E.assign(self.nodes, slot(10, List[Object])),
            E.assign(self.item_index, slot(11, List[Int32])),
            E.assign(self.faults, slot(12, StringBuilder)),
            E.assign(self.type_ids, slot(13, _TypeIds)),
            E.assign(self.types, slot(14, StringBuilder)),
            E.assign(self.chunks, slot(15, StringBuilder)),
            E.assign(index, Expression.ArrayAccess(index_box, E._expressions([first]))),
            E.assign(started, index),
            E.assign(self.kids, E.new(self.elements)),
            Expression.IfThen(
                Expression.Equal(E.prop(self.order, "Count"), first),
                void(
                    E.assign(self.root, E.convert(bridge.unwrapped(self.given), self.element_type)),
                    E.call(self.order, E.method(self.elements, "Add", self.element_type), self.root),
                    E.call(self.parents, E.method(List[Int32], "Add", int), E.const(-1, int)),
                    E.call(self.depths, E.method(List[Int32], "Add", int), first),
                    E.call(self.item_of, E.method(List[Int32], "Add", int), E.const(-1, int)),
                    E.call(self.item_index, E.method(List[Int32], "Add", int), E.const(-1, int)),
                ),
            ),
            Expression.Loop(
                Expression.IfThenElse(
                    Expression.AndAlso(
                        Expression.LessThan(index, E.prop(self.order, "Count")),
                        # The clock is read every 16 entries: a slice ends within a few microseconds of its time.
                        # At least one entry per slice, however short: a walk always gets on.
                        Expression.OrElse(
                            Expression.OrElse(
                                Expression.NotEqual(Expression.And(index, E.const(15, int)), first),
                                Expression.Equal(index, started),
                            ),
                            Expression.LessThan(
                                E.static_call(Stopwatch, E.method(Stopwatch, "GetTimestamp")), self.deadline
                            ),
                        ),
                    ),
                    void(
                        E.assign(self.c, E.call(self.order, E.method(self.elements, "get_Item", int), index)),
                        E.assign(self.depth, E.call(self.depths, E.method(List[Int32], "get_Item", int), index)),
                        E.assign(self.total, E.const(-1, int)),
                        entry,
                        self.pack.text("" if self.automation_ids else ",null"),
                        Expression.IfThenElse(
                            Expression.LessThan(self.total, first),
                            void(self.pack.null()),
                            self.pack.int_field(self.total),
                        ),
                        self.pack.text("],"),
                        Expression.IfThen(
                            Expression.Equal(
                                Expression.And(index, E.const(CHUNK_RECORDS - 1, int)), E.const(CHUNK_RECORDS - 1, int)
                            ),
                            void(
                                self.pack.append_to(self.chunks, E.prop(self.sb, "Length")),
                                self.pack.append_to(self.chunks, E.const(",", str)),
                            ),
                        ),
                        Expression.PreIncrementAssign(index),
                    ),
                    Expression.Break(done),
                ),
                done,
            ),
            E.assign(Expression.ArrayAccess(index_box, E._expressions([first])), index),
            Expression.GreaterThanOrEqual(index, E.prop(self.order, "Count")),
        )
        return E.compile_lambda(
            E.func(object, int, int, _IdTable, _Refs, E.array_of(Int32), str, E.array_of(Object), Int64, bool),
            body, self.given, self.cap, self.max_depth, self.ids, self.refs, self.counter, self.prefix, self.state,
            self.deadline,
        )  # fmt: skip


def advance(
    delegate: Any, element_type: Any, root: Any, registry: Any, max_depth: int, cap: int, walk: Walked,
    seconds: float | None, extras: tuple[Any, ...] = (),
) -> bool:  # fmt: skip
    """One slice of ``walk`` (``seconds`` long; None: to the end) with the compiled ``delegate``; True once done.

    ``extras``: what the toolkit's record reads from its slots (``WalkFrame.toolkit_slot``), for this walk.
    """
    if walk.state is None:
        walk.state = _taken(element_type)
        for k, value in enumerate(extras):
            walk.state[_FIRST_TOOLKIT_SLOT + k] = value
    state = walk.state
    if seconds is None:
        deadline = Int64.MaxValue
    else:
        deadline = Int64(int(Stopwatch.GetTimestamp()) + int(max(seconds, 0.0) * int(Stopwatch.Frequency)))
    position = int(state[_POSITION][0])
    done = bool(
        delegate(
            to_net(root), cap, max_depth, registry.ids, registry.refs, registry.counter, registry.prefix, state,
            deadline,
        )
    )  # fmt: skip
    if done and int(state[_POSITION][0]) != position and seconds is not None:
        # Handing the result to Python (a string of ~80 characters a node, the ids, the rich elements)
        # took 2-11 ms for 5,000 nodes: in a slice of its own, not at the end of one already used up.
        return False
    if done:
        # A rich element of a Python-defined class comes out as a WeakReference: a handle, never converted.
        rich = [_handed(x) for x in state[3].ToArray()]
        depths = [int(d) for d in str(state[6].ToString()).split(",") if d]
        walk.finish(
            packed=str(state[4].ToString()),
            id_list=str(state[5].ToString()),
            incomplete=list(zip(rich, depths, strict=True)),
            faulted=str(state[12].ToString()),
            types=str(state[14].ToString()),
            chunks=str(state[15].ToString()),
        )
        _given_back(element_type, state)
    return done


def _handed(x: Any) -> Any:
    """A rich element as the engine reads it: an item with no object of its own as its ``ItemRef``."""
    if isinstance(x, _ItemHandle):
        return ItemRef(from_net(x.Item1), int(x.Item2))
    return from_net(x)


#: States of finished walks, cleared, by element type: their lists and builders keep their capacity, so
#: the next walk allocates almost nothing in .NET. A snapshot's lists and texts are large objects to
#: Mono's collector; a new set per walk brought on a major collection every six snapshots of the widget
#: zoo, each one a 10 ms pause of every thread. On the UI thread only; a walk that never finishes
#: (dropped after a change) keeps its state, and the pool makes another.
_free: dict[str, list[Any]] = {}
#: The slot of the state that holds the walk's position (an Int32[1]; every other slot before the
#: toolkit's has a Clear()).
_POSITION = 7
#: Slots at the end of the state for the toolkit's own use (``WalkFrame.toolkit_slot``), null when given back.
TOOLKIT_SLOTS = 5
_FIRST_TOOLKIT_SLOT = 16


def _taken(element_type: Any) -> Any:
    pool = _free.get(str(element_type))
    return pool.pop() if pool else WalkFrame.new_state(element_type)


def _given_back(element_type: Any, state: Any) -> None:
    for i in range(len(state)):
        if i >= _FIRST_TOOLKIT_SLOT:
            state[i] = None
        elif i != _POSITION:
            state[i].Clear()  # lists drop their references (a closed window stays collectable); builders keep room
    state[_POSITION][0] = 0
    pool = _free.setdefault(str(element_type), [])
    if len(pool) < 2:  # two snapshots at once are the most a few sessions make
        pool.append(state)
