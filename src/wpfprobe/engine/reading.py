"""One UI-thread hop's reads: node ids, an element's text and property rows, with redaction applied.

``Reader`` is the base of ``Hop`` (``hop.py``): each layer of the hop adds one
concern (reading here, locators in ``locating``, resolution in ``resolving``,
projection in ``hop``), and every method runs ON the UI thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from wpfprobe.core.errors import InvalidArgumentError, NodeNotFoundError, ProbeError
from wpfprobe.core.protocol import (
    Bounds,
    ElementState,
    Naming,
    ObjectTable,
    PlainValue,
    PropertyDescriptor,
    ToolkitAdapter,
    TreeType,
)
from wpfprobe.core.redaction import REDACTED, Redactor
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.matching import MISSING, STATE_ALIASES, Missing
from wpfprobe.engine.name_index import NameIndex


class HopHost(Protocol):
    """What a hop uses of its engine (``EngineBase`` is one; the hop never imports the engine)."""

    adapter: ToolkitAdapter
    objects: ObjectTable
    redactor: Redactor
    settings: ProbeSettings
    same: Callable[[Any, Any], bool]
    #: The app-wide index of names and automation ids, kept across hops (``name_index.py``).
    name_index: NameIndex | None


# Sources that mean "nobody set this": hidden unless include_defaults is asked for.
DEFAULT_SOURCES = frozenset({"default", "clr", "runtime", "redacted", "error"})


def is_interesting(row: dict[str, Any]) -> bool:
    if row.get("isLocallySet") or row.get("isDataBound") or row.get("isRedacted"):
        return True
    return row.get("valueSource") not in DEFAULT_SOURCES


#: An error message is cut here: enough to act on, never a page of stack.
MAX_ERROR_MESSAGE = 300
#: State assumed for an element whose state could not be read; its ``error`` says so.
UNKNOWN_STATE = ElementState(visible=True, enabled=True, focused=False)


def error_dict(faults: Sequence[tuple[str, str, str]]) -> dict[str, Any] | None:
    """A node's ``error`` from its failed reads (read, type, message): the first failure, and every read."""
    if not faults:
        return None
    reads = list(dict.fromkeys(read for read, _, _ in faults))
    return {"type": faults[0][1], "message": faults[0][2], "reads": reads}


class Reader:
    """What one UI-thread hop needs: the adapter, ids, and per-hop memos.

    Reads that can fail for one element alone (its naming, state, text,
    children, parent, bounds) go through the ``*_of`` methods: a failure is
    recorded against that element (``faults``) and a default stands in, so one
    broken control never fails the whole answer (per-element fault isolation).
    A ProbeError is the probe's own verdict and still propagates.
    """

    def __init__(self, engine: HopHost) -> None:
        self.engine = engine
        self.adapter = engine.adapter
        self.objects = engine.objects
        self.redactor = engine.redactor
        self.same = engine.same
        self.scanned = 0
        self._memo: dict[Any, Any] = {}
        #: node id -> failed reads of that element: [(read, type, message)], in order.
        self.faults: dict[str, list[tuple[str, str, str]]] = {}
        #: perf_counter() time at which sliced work should yield the UI thread; None: never.
        self.slice_deadline: float | None = None

    def slice_due(self) -> bool:
        """Whether sliced work has had its share of the UI thread for now."""
        return self.slice_deadline is not None and time.perf_counter() >= self.slice_deadline

    def slice_left(self) -> float | None:
        """Seconds left of this slice (None: the work is not sliced), for work that keeps its own time."""
        return None if self.slice_deadline is None else self.slice_deadline - time.perf_counter()

    # -- fault isolation ---------------------------------------------------
    def fault(self, el: Any, read: str, error: Exception) -> None:
        """Record that ``read`` failed for ``el``; its projection will carry the error."""
        if isinstance(error, ProbeError):
            raise error
        try:
            kind, message = self.adapter.error_identity(error)
        except Exception:  # noqa: BLE001 - naming the error must not become one
            kind, message = type(error).__name__, str(error)
        message = " ".join(str(message).split())[:MAX_ERROR_MESSAGE]
        try:
            key = self.id(el)
        except Exception:  # noqa: BLE001 - an element without an id still counts, under its Python identity
            key = f"?{id(el)}"
        self.faults.setdefault(key, []).append((read, str(kind), message))

    def error_of(self, node_id: str) -> dict[str, Any] | None:
        """The ``error`` of a projected node: the first failure, and every read that failed."""
        return error_dict(self.faults.get(node_id) or ())

    def naming_of(self, el: Any) -> Naming:
        try:
            return self.adapter.naming(el)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "naming", exc)
            name = type(el).__name__
            return Naming(name, f"{type(el).__module__}.{name}", None, None)

    def state_of(self, el: Any) -> ElementState:
        try:
            return self.adapter.state(el)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "state", exc)
            return UNKNOWN_STATE

    def children_of(self, el: Any, tree_type: TreeType) -> list[Any]:
        try:
            return self.adapter.children(el, tree_type)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "children", exc)
            return []

    def parent_of(self, el: Any, tree_type: TreeType) -> Any | None:
        try:
            return self.adapter.parent(el, tree_type)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "parent", exc)
            return None

    def bounds_of(self, el: Any) -> Bounds | None:
        try:
            return self.adapter.bounds(el)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "bounds", exc)
            return None

    def child_total_of(self, el: Any) -> int | None:
        try:
            return self.adapter.child_total(el)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "childTotal", exc)
            return None

    def id(self, el: Any) -> str:
        return self.objects.id_for(el)

    def get(self, node_id: str) -> Any:
        return self.node(node_id)

    def node(self, node_id: str) -> Any:
        if not isinstance(node_id, str) or not node_id or len(node_id) > 64:
            raise InvalidArgumentError(
                f"{node_id!r} is not a node id.",
                suggestion="Pass a nodeId exactly as an earlier result gave it.",
            )
        el = self.objects.get(node_id)
        if el is None or not self.adapter.is_alive(el):
            raise NodeNotFoundError(
                f"No live element has node id {node_id!r}; it was closed, removed or never existed.",
                suggestion="Get fresh ids with wpf_get_windows or wpf_find_elements, or use a locator.",
                detail={"nodeId": node_id},
            )
        return el

    def main_window(self) -> Any:
        roots = self.adapter.roots()
        if not roots:
            raise NodeNotFoundError(
                "The app has no open window.",
                suggestion="Wait for the app to show a window, then call wpf_get_windows.",
            )
        return roots[0]

    def read_value(self, el: Any, prop: PropertyDescriptor) -> PlainValue:
        reading = self.adapter.read_property(el, prop)
        if self.redactor.enabled and self.redactor.type_is_secret(reading.value_type_name):
            return REDACTED
        return reading.value

    def text(self, el: Any) -> str | None:
        """What the user reads on the element (access-key markers removed)."""
        return self.text_and_key(el)[0]

    def text_and_key(self, el: Any) -> tuple[str | None, str | None]:
        """The element's text as the user reads it, and its access key; None where it has none."""
        found: tuple[str | None, str | None]
        try:
            prop = self.adapter.text_property(el)
            if prop is None:
                found = (None, None)
            elif self.redactor.is_redacted(prop):
                found = (REDACTED, None)
            else:
                value = self.read_value(el, prop)
                if value == REDACTED:
                    found = (REDACTED, None)
                elif value is None or value == "":
                    found = (None, None)
                else:
                    shown, access_key = self.adapter.display_text(el, value if isinstance(value, str) else str(value))
                    found = (shown or None, access_key)
        except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
            self.fault(el, "text", exc)
            found = (None, None)
        return found

    def read_property_row(self, el: Any, prop: PropertyDescriptor) -> dict[str, Any]:
        row: dict[str, Any] = {
            "name": prop.name,
            "typeName": prop.type_name,
            "category": prop.category,
            "isReadOnly": prop.read_only,
        }
        if self.redactor.is_redacted(prop):
            # The getter never runs: nothing about the value is known.
            row.update(
                value=REDACTED, valueSource="redacted", isLocallySet=False, isDataBound=False,
                hasBindingError=False, isRedacted=True,
            )  # fmt: skip
            return row
        try:
            reading = self.adapter.read_property(el, prop)
        except Exception as exc:  # one property's getter failing costs one row
            if isinstance(exc, ProbeError):
                raise
            kind, message = self.adapter.error_identity(exc)
            row.update(
                value=None,
                valueSource="error",
                isLocallySet=False,
                isDataBound=False,
                hasBindingError=False,
                isRedacted=False,
                error={"type": kind, "message": " ".join(message.split())[:MAX_ERROR_MESSAGE]},
            )
            return row
        redacted = self.redactor.enabled and self.redactor.type_is_secret(reading.value_type_name)
        row.update(
            value=REDACTED if redacted else reading.value,
            valueSource=reading.value_source,
            isLocallySet=reading.is_locally_set,
            isDataBound=reading.is_data_bound,
            hasBindingError=reading.binding_error is not None,
            bindingError=reading.binding_error,
            isRedacted=redacted,
        )
        return row

    def attr_value(self, el: Any, name: str) -> PlainValue | Missing:
        key = name.lower()
        if key == "text":
            return self.text(el)
        if key in ("name", "automationid", "type"):
            n = self.naming_of(el)
            return {"name": n.name, "automationid": n.automation_id, "type": n.type_name}[key]
        prop = self.adapter.find_property(el, name)
        if prop is not None:
            if self.redactor.is_redacted(prop):
                return REDACTED
            try:
                return self.read_value(el, prop)
            except Exception as exc:  # noqa: BLE001 - a getter that throws matches nothing
                self.fault(el, f"property {prop.name}", exc)
                return MISSING
        alias = STATE_ALIASES.get(key)
        if alias is not None:
            return bool(getattr(self.state_of(el), alias))
        return MISSING
