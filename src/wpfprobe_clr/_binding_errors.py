"""Recent binding errors per element: bounded, and holding no UI object alive.

Toolkits report binding errors as they happen (WPF's binding trace, WinForms'
BindingComplete), long before anyone asks. They are kept here under a string
key per element: a WinForms control gets one through a ConditionalWeakTable
(the control stays collectable; its slot ages out), a WPF trace message names
its element by type and name or hash code, which is the key. Least recently
touched elements are dropped first, and each element keeps a few distinct
messages with a repeat count, so a binding that fails in a loop costs one slot.

Only plain Python data lives here. It is written from whichever thread the
toolkit reports on and read on the UI thread; each operation is a few dict
steps under the GIL, so it takes no lock (the UI thread must never wait on one).
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from wpfprobe.core.protocol import BindingErrorRecord

MAX_ELEMENTS = 256
MAX_PER_ELEMENT = 16
MAX_MESSAGE = 500


@dataclass(slots=True)
class _Entry:
    property_name: str | None
    message: str
    kind: str
    path: str | None
    count: int
    first_seen: float
    last_seen: float


class BindingErrorStore:
    def __init__(self, *, max_elements: int = MAX_ELEMENTS, max_per_element: int = MAX_PER_ELEMENT) -> None:
        self.max_elements = max_elements
        self.max_per_element = max_per_element
        self._slots: OrderedDict[str, OrderedDict[tuple[str, str, str], _Entry]] = OrderedDict()

    def add(self, key: str, property_name: str | None, message: str, *, kind: str, path: str | None = None) -> None:
        message = _clip(" ".join(str(message).split()))
        now = time.time()
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = OrderedDict()
            while len(self._slots) > self.max_elements:
                self._slots.popitem(last=False)
        else:
            self._slots.move_to_end(key)
        ident = ((property_name or "").lower(), kind, message)
        entry = slot.get(ident)
        if entry is None:
            slot[ident] = _Entry(property_name, message, kind, path, 1, now, now)
            while len(slot) > self.max_per_element:
                slot.popitem(last=False)
        else:
            entry.count += 1
            entry.last_seen = now
            slot.move_to_end(ident)

    def discard(self, key: str, property_name: str | None, kinds: tuple[str, ...]) -> None:
        """Forget ``kinds`` of errors on a property: the same step has since succeeded."""
        slot = self._slots.get(key)
        if not slot:
            return
        wanted = (property_name or "").lower()
        for ident in [i for i in slot if i[0] == wanted and i[1] in kinds]:
            slot.pop(ident, None)
        if not slot:
            self._slots.pop(key, None)

    def get(self, key: str) -> list[BindingErrorRecord]:
        slot = self._slots.get(key)
        if not slot:
            return []
        return [
            BindingErrorRecord(e.property_name, e.message, e.count, e.kind, e.path, e.first_seen, e.last_seen)
            for e in list(slot.values())
        ]

    def __len__(self) -> int:
        return len(self._slots)


class WeakKeys:
    """A stable string key per live .NET object, without keeping it alive.

    A Python-defined control (a ``DerivedHandle``) is keyed by the object it
    holds, looked up in .NET. Create and use it on the UI thread.
    """

    def __init__(self) -> None:
        from System import Object, String  # noqa: PLC0415
        from System.Runtime.CompilerServices import ConditionalWeakTable  # noqa: PLC0415

        from wpfprobe_clr.net.derived import DerivedHandle  # noqa: PLC0415

        self._handle_type = DerivedHandle
        self._table = ConditionalWeakTable[Object, String]()
        self._counter = itertools.count(1)

    def key(self, obj: Any) -> str:
        found = self.known(obj)
        if found is not None:
            return found
        key = f"w{next(self._counter)}"
        if type(obj) is self._handle_type:
            from wpfprobe_clr.net import bridge  # noqa: PLC0415

            bridge.table_add(self._table, obj.ref, key)
        else:
            self._table.Add(obj, key)
        return key

    def known(self, obj: Any) -> str | None:
        if type(obj) is self._handle_type:
            from wpfprobe_clr.net import bridge  # noqa: PLC0415

            return bridge.table_find(self._table, obj.ref)
        found, key = self._table.TryGetValue(obj)
        return str(key) if found else None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"
