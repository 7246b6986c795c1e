"""A toolkit walk for the fake toolkit (``FakeAdapter.walk`` when ``walks`` is on): the engine's side of
``engine/walked.py`` tested without a runtime.

It reads each element through the fake adapter's own methods, in the order the
engine's own path does, and records a failed read the way a walk in .NET does
(the read's name, the error's type and message). An element whose node needs
more than the walk reads (a selector's items, a password box) is left
incomplete, as the WinForms walk leaves its rich controls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wpfprobe.core.protocol import ElementState, Naming, PropertyDescriptor, WalkedNode

UNKNOWN_STATE = ElementState(visible=True, enabled=True, focused=False)


class FakeWalk:
    text_property = PropertyDescriptor("Text", "System.String", None, False)

    def __init__(
        self,
        adapter: Any,
        root: Any,
        objects: Any,
        *,
        max_depth: int,
        cap: int,
        per_slice: int,
        watch: bool = False,
        leaves: tuple[str, ...] = (),
    ) -> None:
        self._adapter, self._objects = adapter, objects
        self._max_depth, self._cap, self._per_slice = max_depth, cap, per_slice
        self._order: list[tuple[Any, int, int]] = [(root, -1, 0)]
        self._at = 0
        self._nodes: list[WalkedNode] = []
        self._rows: list[list[Any]] = []
        self.ids: frozenset[str] = frozenset()
        self.incomplete: list[tuple[Any, int]] = []
        self.types: list[tuple[str, str]] = []
        self.faulted: frozenset[int] = frozenset()
        # Texts come shown already (the fake adapter's display_text): never clipped or stripped again.
        self.max_text = 10**9
        self.marker = "&"
        self.slices = 0
        self._watch = watch
        self._leaves = leaves
        #: Whether every element read was watched (a walk asked to watch).
        self.watched = True
        # Each node's text as read, and what it shows: (raw, marked) -> (shown, key), for ``shown_text``.
        self._raw: dict[str, tuple[str | None, bool]] = {}
        self._last_raw = ""
        self._shown: dict[tuple[str, bool], tuple[str | None, str | None]] = {}

    def advance(self, seconds: float | None) -> bool:
        self.slices += 1
        budget = len(self._order) if seconds is None else self._per_slice
        while self._at < len(self._order) and budget > 0:
            el, parent, depth = self._order[self._at]
            self._nodes.append(self._read(el, parent, depth))
            self._at += 1
            budget -= 1
        done = self._at >= len(self._order)
        if done:
            self.ids = frozenset(n.node_id for n in self._nodes)
            self.faulted = frozenset(i for i, n in enumerate(self._nodes) if n.faults)
            type_index: dict[tuple[str, str], int] = {}
            for n in self._nodes:
                names = (n.naming.type_name, n.naming.full_type_name)
                at = type_index.setdefault(names, len(type_index))
                s = n.state
                self._rows.append([
                    n.parent, n.depth, n.node_id, at, n.naming.name, *self._raw.get(n.node_id, (None, False)),
                    s.visible, s.enabled, s.focused,
                    s.checked, n.child_count, not n.complete, s.selected, s.expanded, n.naming.automation_id,
                    n.total_count,
                ])  # fmt: skip
            self.types = list(type_index)
        return done

    def rows(self) -> Iterator[list[list[Any]]]:
        # In pieces of three, as the .NET walk hands over pieces of its records.
        for start in range(0, len(self._rows), 3):
            yield self._rows[start : start + 3]

    def node(self, row: list[Any]) -> WalkedNode:
        return next(n for n in self._nodes if n.node_id == row[2])

    def shown_text(self, raw: str, marked: bool) -> tuple[str | None, str | None]:
        return self._shown[(raw, marked)]

    def nodes(self) -> list[WalkedNode]:
        return self._nodes

    def _read(self, el: Any, parent: int, depth: int) -> WalkedNode:
        a = self._adapter
        if self._watch and not a.watch_structure(el):
            self.watched = False
        faults: list[tuple[str, str, str]] = []

        def guarded(read: str, fn: Any, default: Any) -> Any:
            try:
                return fn()
            except Exception as exc:
                faults.append((read, *a.error_identity(exc)))
                return default

        naming = guarded("naming", lambda: a.naming(el), None)
        if naming is None:
            naming = Naming(type(el).__name__, f"{type(el).__module__}.{type(el).__name__}", None, None)
        kids = guarded("children", lambda: a.children(el, "visual"), [])
        state = guarded("state", lambda: a.state(el), UNKNOWN_STATE)
        text, key = guarded("text", lambda: self._text(el), (None, None))
        index = len(self._nodes)
        node_id = self._objects.id_for(el)
        raw = self._last_raw if text is not None else None
        marked = bool(el.mnemonic)
        self._raw[node_id] = (raw, marked)
        if raw is not None:
            self._shown[(raw, marked)] = (text, key)
        leaves = el.type_name in self._leaves  # its children are the engine's to read (it is incomplete)
        if depth < self._max_depth and not leaves:
            for kid in kids:
                if len(self._order) < self._cap:
                    self._order.append((kid, index, depth + 1))
        rich = el.items is not None or el.type_name in ("ListBox", "ComboBox", "TabControl", "ListView")
        rich = rich or el.password_char or leaves
        # A partial child list is walked, with its total (as WinForms' walk does a grid's rows in view).
        total = guarded("childTotal", lambda: a.child_total(el), None)
        if rich:
            self.incomplete.append((el, depth))
        return WalkedNode(
            node_id=node_id, parent=parent, depth=depth, naming=naming, text=text,
            access_key=key, state=state, child_count=len(kids), faults=tuple(faults), complete=not rich,
            total_count=total,
        )  # fmt: skip

    def _text(self, el: Any) -> tuple[str | None, str | None]:
        a = self._adapter
        prop = a.text_property(el)
        if prop is None:
            return None, None
        value = a.read_property(el, prop).value
        if value is None or value == "":
            return None, None
        self._last_raw = value if isinstance(value, str) else str(value)
        shown, key = a.display_text(el, self._last_raw)
        return shown or None, key
