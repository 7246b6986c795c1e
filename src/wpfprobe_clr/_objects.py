"""Stable node ids for live .NET objects, held weakly (invariant 7).

The registry lives in .NET (``Registry``), so that code running in .NET (the
WinForms walker) reads and makes ids without a call into Python per control:
a ConditionalWeakTable maps object -> id without keeping the object alive, a
``Dictionary<string, WeakReference>`` maps id -> object, and a one-element
``Int32[]`` is the counter both sides take the next id from. Only the UI
thread uses it.
An item with no object of its own (``ItemRef``) is its owner's id, a dot and
its index: it lives as long as its owner, and ``get`` rebuilds the ref.

A Python-defined control is a ``DerivedHandle`` (``net.derived``), a new
Python object each time it is read: its id is keyed by the .NET object it
holds (looked up in .NET, so the object is never converted into Python), and
``get`` gives back a handle to it (``derived.deref``: its object is never
converted into Python).
"""

from __future__ import annotations

import secrets
import weakref
from typing import Any

from wpfprobe.core.protocol import ItemRef

# Two of these letters and the digits after them cost the fewest tokens (measured with
# the cl100k and o200k encodings): pairs with j, k, q, u, v, x, y or z split oddly and
# can add a token to every node of a tree.
ID_PREFIX_LETTERS = "abcdefghilmnoprstw"


class Registry:
    """The .NET side of the table, as the walker is handed it."""

    def __init__(self, prefix: str) -> None:
        from System import Array, Int32, Object, String, WeakReference  # noqa: PLC0415
        from System.Collections.Generic import Dictionary  # noqa: PLC0415
        from System.Runtime.CompilerServices import ConditionalWeakTable  # noqa: PLC0415

        #: object -> id, weakly.
        self.ids = ConditionalWeakTable[Object, String]()
        #: id -> WeakReference to its object.
        self.refs = Dictionary[String, WeakReference]()
        #: counter[0] is the last number given out.
        self.counter = Array[Int32]([0])
        #: Every id is this prefix and a number.
        self.prefix = prefix

    def next_id(self) -> str:
        number = int(self.counter[0]) + 1
        self.counter[0] = number
        return f"{self.prefix}{number}"


#: ``id_for`` checks whether the registry wants pruning once per this many elements it is asked about.
_PRUNE_CHECK_EVERY = 256
_ID_KEY = ("objects.id_for", 1)


def id_delegate() -> Any:
    """``id_for``'s delegate, compiled the first time in a process: ``connect`` asks for it on the
    thread that attaches, so the compile is not the UI thread's."""
    from wpfprobe_clr.net.expr import compiled  # noqa: PLC0415

    return compiled(_ID_KEY, _build_id_for)


class ClrObjectTable:
    def __init__(self) -> None:
        from wpfprobe_clr.net.derived import DerivedHandle  # noqa: PLC0415

        self._handle_type = DerivedHandle
        # A per-process prefix, so an id from an earlier run almost never names a new element.
        self.registry = Registry("".join(secrets.choice(ID_PREFIX_LETTERS) for _ in range(2)))
        self._ids_by_object = self.registry.ids
        self._refs = self.registry.refs
        self._prune_at = 1024
        self._last_owner: tuple[weakref.ref[Any], str] | None = None
        self._id_of = id_delegate()
        self._until_prune_check = _PRUNE_CHECK_EVERY

    def id_for(self, element: Any) -> str:
        if isinstance(element, ItemRef):
            return f"{self._owner_id(element.owner)}.{element.index}"
        if type(element) is self._handle_type:
            return self._handle_id(element)
        # One .NET call, found or made (four pythonnet calls, one with an out parameter, cost
        # 100 us a new element and 5 ms the first time in a process, on the UI thread).
        self._until_prune_check -= 1
        if self._until_prune_check <= 0:
            self._until_prune_check = _PRUNE_CHECK_EVERY
            self.prune_if_due()
        registry = self.registry
        return str(self._id_of(element, self._ids_by_object, self._refs, registry.counter, registry.prefix))

    def _handle_id(self, handle: Any) -> str:
        from wpfprobe_clr.net import bridge  # noqa: PLC0415

        found = bridge.table_find(self._ids_by_object, handle.ref)
        if found is not None:
            return found
        node_id = self._new_id()
        bridge.table_add(self._ids_by_object, handle.ref, node_id)
        self._refs[node_id] = handle.ref
        return node_id

    def _new_id(self) -> str:
        self.prune_if_due()
        return self.registry.next_id()

    def prune_if_due(self) -> None:
        """Drop the entries of collected objects once the registry doubled since the last time."""
        if self._refs.Count >= self._prune_at:
            self._prune()

    def _owner_id(self, owner: Any) -> str:
        """The owner's id, remembered for the Python wrapper last asked about.

        The items of one list share their owner's wrapper, so a list of
        thousands looks its owner up once, not once per item. The wrapper is
        held weakly: the memo never keeps a control alive.
        """
        last = self._last_owner
        if last is not None and last[0]() is owner:
            return last[1]
        node_id = self.id_for(owner)
        try:
            self._last_owner = (weakref.ref(owner), node_id)
        except TypeError:  # an owner that cannot be referenced weakly is looked up each time
            self._last_owner = None
        return node_id

    def get(self, node_id: str) -> Any | None:
        owner_id, dot, index = node_id.rpartition(".")
        if dot:
            owner = self.get(owner_id) if index.isdigit() and len(index) <= 9 else None
            return ItemRef(owner, int(index)) if owner is not None else None
        found, ref = self._refs.TryGetValue(node_id)
        if not found:
            return None
        from wpfprobe_clr.net.derived import deref  # noqa: PLC0415

        # Through .NET: a Python-defined control comes back as a handle, never converted.
        target = deref(ref)
        if target is None:
            self._refs.Remove(node_id)
        return target

    def __len__(self) -> int:
        return int(self._refs.Count)

    def _prune(self) -> None:
        from wpfprobe_clr.net.expr import compiled  # noqa: PLC0415

        compiled(("objects.prune", 1), _build_prune)(self._refs)
        self._prune_at = max(1024, 2 * int(self._refs.Count))


def _build_id_for() -> Any:
    """``Func<object, ids, refs, int[], string, string>``: the element's id as the registry has it,
    or the next number made its id there (as the .NET walk does, ``WalkFrame.id_field``)."""
    from System import Array, Int32, Object, String, WeakReference  # noqa: PLC0415
    from System.Collections.Generic import Dictionary  # noqa: PLC0415
    from System.Linq.Expressions import Expression  # noqa: PLC0415
    from System.Runtime.CompilerServices import ConditionalWeakTable  # noqa: PLC0415

    from wpfprobe_clr.net import expr as E  # noqa: PLC0415

    ids_type = ConditionalWeakTable[Object, String]
    refs_type = Dictionary[String, WeakReference]
    element, ids, refs = E.param(object, "element"), E.param(ids_type, "ids"), E.param(refs_type, "refs")
    counter, prefix = E.param(E.array_of(int), "counter"), E.param(str, "prefix")
    node_id = E.variable(String, "nodeId")
    number = Expression.ArrayAccess(counter, Array[Expression]([E.const(0, int)]))
    found = E.call(ids, E.typeof(ids_type).GetMethod("TryGetValue"), element, node_id)
    make = E.block(
        [],
        E.assign(number, Expression.Add(number, E.const(1, int))),
        E.assign(
            node_id,
            E.static_call(
                String, E.method(String, "Concat", String, String), prefix, E.call(number, E.method(Int32, "ToString"))
            ),
        ),
        E.call(ids, E.method(ids_type, "Add", Object, String), element, node_id),
        E.call(refs, E.method(refs_type, "set_Item", String, WeakReference), node_id, E.new(WeakReference, element)),
    )
    body = E.block([node_id], Expression.IfThen(Expression.Not(found), make), node_id)
    delegate_type = E.func(Object, ids_type, refs_type, E.array_of(int), String, String)
    return E.compile_lambda(delegate_type, body, element, ids, refs, counter, prefix)


def _build_prune() -> Any:
    """``refs`` without the entries whose object is gone, removed in .NET (one call, however many)."""
    from System import String, WeakReference  # noqa: PLC0415
    from System.Collections.Generic import Dictionary, List  # noqa: PLC0415
    from System.Linq.Expressions import Expression  # noqa: PLC0415

    from wpfprobe_clr.net import expr as E  # noqa: PLC0415

    table = Dictionary[String, WeakReference]
    refs = E.param(table, "refs")
    dead = E.variable(List[String], "dead")
    key = E.variable(object, "key")
    name = E.variable(String, "name")
    body = E.block(
        [dead, name],
        E.assign(dead, E.new(List[String])),
        E.for_each(
            E.prop(refs, "Keys"),
            key,
            E.block(
                [],
                E.assign(name, E.convert(key, String)),
                Expression.IfThen(
                    Expression.Not(E.prop(E.call(refs, E.method(table, "get_Item", String), name), "IsAlive")),
                    E.call(dead, E.method(List[String], "Add", String), name),
                ),
            ),
        ),
        E.for_each(dead, key, E.call(refs, E.method(table, "Remove", String), E.convert(key, String))),
        E.prop(dead, "Count"),
    )
    return E.compile_lambda(E.func(table, int), body, refs)


def same_object(a: Any, b: Any) -> bool:
    """Whether two elements are the same: the same .NET object (a handle by the object it holds),
    or items at the same index of the same owner."""
    from wpfprobe_clr.net.derived import same  # noqa: PLC0415

    if isinstance(a, ItemRef) or isinstance(b, ItemRef):
        # An item's owner may itself be an item (a node under a tree node that has no container).
        return (
            isinstance(a, ItemRef) and isinstance(b, ItemRef) and a.index == b.index and same_object(a.owner, b.owner)
        )
    return same(a, b)
