"""One UI-thread hop's reads: node ids, an element's text and property rows, with redaction applied.

``Reader`` is the base of ``Hop`` (``hop.py``): each layer of the hop adds one
concern (reading here, locators in ``locating``, resolution in ``resolving``,
projection in ``hop``), and every method runs ON the UI thread.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from wpfprobe.core.errors import InvalidArgumentError, NodeNotFoundError
from wpfprobe.core.protocol import ObjectTable, PlainValue, PropertyDescriptor, ToolkitAdapter
from wpfprobe.core.redaction import REDACTED, Redactor
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.matching import MISSING, STATE_ALIASES, Missing


class HopHost(Protocol):
    """What a hop uses of its engine (``EngineBase`` is one; the hop never imports the engine)."""

    adapter: ToolkitAdapter
    objects: ObjectTable
    redactor: Redactor
    settings: ProbeSettings
    same: Callable[[Any, Any], bool]
    #: The app-wide name census, kept for ``settings.census_ttl`` across hops: (when, counts).
    census_cache: tuple[float, Counter[tuple[str, str]]] | None


# Sources that mean "nobody set this": hidden unless include_defaults is asked for.
DEFAULT_SOURCES = frozenset({"default", "clr", "runtime", "redacted", "error"})


def is_interesting(row: dict[str, Any]) -> bool:
    if row.get("isLocallySet") or row.get("isDataBound") or row.get("isRedacted"):
        return True
    return row.get("valueSource") not in DEFAULT_SOURCES


class Reader:
    """What one UI-thread hop needs: the adapter, ids, and per-hop memos."""

    def __init__(self, engine: HopHost) -> None:
        self.engine = engine
        self.adapter = engine.adapter
        self.objects = engine.objects
        self.redactor = engine.redactor
        self.same = engine.same
        self.scanned = 0
        self._memo: dict[Any, Any] = {}

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
        prop = self.adapter.text_property(el)
        if prop is None:
            return None
        if self.redactor.is_redacted(prop):
            return REDACTED
        value = self.read_value(el, prop)
        if value is None or value == "":
            return None
        return value if isinstance(value, str) else str(value)

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
        reading = self.adapter.read_property(el, prop)
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
            n = self.adapter.naming(el)
            return {"name": n.name, "automationid": n.automation_id, "type": n.type_name}[key]
        prop = self.adapter.find_property(el, name)
        if prop is not None:
            if self.redactor.is_redacted(prop):
                return REDACTED
            return self.read_value(el, prop)
        alias = STATE_ALIASES.get(key)
        if alias is not None:
            return bool(getattr(self.adapter.state(el), alias))
        return MISSING
