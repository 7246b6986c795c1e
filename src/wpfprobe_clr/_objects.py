"""Stable node ids for live .NET objects, held weakly (invariant 7).

A ConditionalWeakTable maps object -> id without keeping the object alive;
a dict of System.WeakReference maps id -> object. Only the UI thread uses it.
An item with no object of its own (``ItemRef``) is its owner's id, a dot and
its index: it lives as long as its owner, and ``get`` rebuilds the ref.

A Python-defined control is a ``DerivedHandle`` (``net.derived``), a new
Python object each time it is read: its id is keyed by the .NET object it
holds (looked up in .NET, so the object is never converted into Python), and
``get`` gives back the handle itself, which holds its object weakly too.
"""

from __future__ import annotations

import itertools
import secrets
import weakref
from typing import Any

from wpfprobe.core.protocol import ItemRef

# Two of these letters and the digits after them cost the fewest tokens (measured with
# the cl100k and o200k encodings): pairs with j, k, q, u, v, x, y or z split oddly and
# can add a token to every node of a tree.
ID_PREFIX_LETTERS = "abcdefghilmnoprstw"


class ClrObjectTable:
    def __init__(self) -> None:
        from System import Object, String  # noqa: PLC0415
        from System.Runtime.CompilerServices import ConditionalWeakTable  # noqa: PLC0415

        from wpfprobe_clr.net.derived import DerivedHandle  # noqa: PLC0415

        self._handle_type = DerivedHandle
        self._ids_by_object = ConditionalWeakTable[Object, String]()
        self._objects_by_id: dict[str, Any] = {}
        # A per-process prefix, so an id from an earlier run almost never names a new element.
        self._prefix = "".join(secrets.choice(ID_PREFIX_LETTERS) for _ in range(2))
        self._counter = itertools.count(1)
        self._prune_at = 1024
        self._last_owner: tuple[weakref.ref[Any], str] | None = None

    def id_for(self, element: Any) -> str:
        if isinstance(element, ItemRef):
            return f"{self._owner_id(element.owner)}.{element.index}"
        if type(element) is self._handle_type:
            return self._handle_id(element)
        found, node_id = self._ids_by_object.TryGetValue(element)
        if found:
            return str(node_id)
        from System import WeakReference  # noqa: PLC0415

        node_id = self._new_id()
        self._ids_by_object.Add(element, node_id)
        self._objects_by_id[node_id] = WeakReference(element)
        return node_id

    def _handle_id(self, handle: Any) -> str:
        from wpfprobe_clr.net import bridge  # noqa: PLC0415

        found = bridge.table_find(self._ids_by_object, handle.ref)
        if found is not None:
            return found
        node_id = self._new_id()
        bridge.table_add(self._ids_by_object, handle.ref, node_id)
        self._objects_by_id[node_id] = handle
        return node_id

    def _new_id(self) -> str:
        if len(self._objects_by_id) >= self._prune_at:
            self._prune()
        return f"{self._prefix}{next(self._counter)}"

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
        ref = self._objects_by_id.get(node_id)
        if ref is None:
            return None
        if type(ref) is self._handle_type:
            target = ref if ref.alive else None
        else:
            target = ref.Target
        if target is None:
            self._objects_by_id.pop(node_id, None)
        return target

    def __len__(self) -> int:
        return len(self._objects_by_id)

    def _prune(self) -> None:
        dead = [
            k
            for k, ref in self._objects_by_id.items()
            if not (ref.alive if type(ref) is self._handle_type else ref.IsAlive)
        ]
        for key in dead:
            del self._objects_by_id[key]
        self._prune_at = max(1024, 2 * len(self._objects_by_id))


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
