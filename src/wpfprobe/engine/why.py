"""Why is my UI wrong: bindings, binding errors, resources, triggers and behaviors, redacted.

The row builders run ON the UI thread inside a hop; ``WhyQueries`` holds the
engine's public queries over them. Redaction is decided from names and declared
types before any value is read (invariant 4).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from wpfprobe.core.errors import PropertyNotFoundError
from wpfprobe.core.models import BehaviorList, BindingErrorInfo, BindingInfo, ResourceInfo, ResourcePage, TriggerList
from wpfprobe.core.protocol import (
    BindingDescription,
    BindingErrorRecord,
    PropertyDescriptor,
    ResourceEntry,
    TriggerDescription,
    Unsupported,
)
from wpfprobe.core.redaction import REDACTED
from wpfprobe.engine.base import EngineBase
from wpfprobe.engine.checks import check_name
from wpfprobe.engine.cursors import check_take
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.target import Target


def require_property(h: Hop, el: Any, name: str) -> PropertyDescriptor:
    prop = h.adapter.find_property(el, name)
    if prop is None:
        raise PropertyNotFoundError(
            f"{h.naming_of(el).type_name} has no property {name!r}.",
            suggestion="List the element's properties with wpf_get_properties (includeDefaults=true).",
            detail={"property": name},
        )
    return prop


def may_read(h: Hop, prop: PropertyDescriptor) -> bool:
    """What an adapter asks before reading a value it came across (redaction stays here)."""
    return not h.redactor.is_redacted(prop)


def name_secret(h: Hop, name: str | None) -> bool:
    return bool(name) and h.redactor.enabled and h.redactor.name_is_secret(name or "")


def binding_secret(h: Hop, desc: BindingDescription) -> bool:
    # A binding to User.Password shows the password whatever the target
    # property is called: every name on the path counts.
    return name_secret(h, desc.path) or any(binding_secret(h, c) for c in desc.children)


def errors_of(h: Hop, el: Any) -> list[BindingErrorRecord]:
    key = ("binding_errors", h.id(el))
    if key not in h._memo:
        h._memo[key] = list(h.adapter.binding_errors(el))
    found: list[BindingErrorRecord] = h._memo[key]
    return found


def error_row(h: Hop, el: Any, rec: BindingErrorRecord, *, secret: bool | None = None) -> dict[str, Any]:
    if secret is None:
        prop = h.adapter.find_property(el, rec.property_name) if rec.property_name else None
        secret = (prop is not None and h.redactor.is_redacted(prop)) or name_secret(h, rec.path)
    return {
        "propertyName": rec.property_name,
        # A toolkit's message may quote the value that failed (WPF: Value='...').
        "message": redacted_message() if secret else rec.message,
        "count": rec.count,
        "kind": rec.kind,
        "path": rec.path,
        "firstSeen": when(rec.first_seen),
        "lastSeen": when(rec.last_seen),
    }


def binding_row(
    h: Hop, el: Any, prop: PropertyDescriptor, desc: BindingDescription | None, *, with_value: bool
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "nodeId": h.id(el),
        "propertyName": prop.name,
        "propertyTypeName": prop.type_name,
        "isBound": desc is not None,
    }
    secret = h.redactor.is_redacted(prop) or (desc is not None and binding_secret(h, desc))
    row["isRedacted"] = secret
    errors = [
        error_row(h, el, rec, secret=secret)
        for rec in errors_of(h, el)
        if rec.property_name is not None and rec.property_name.lower() == prop.name.lower()
    ]
    row["recentErrors"] = errors
    if desc is None:
        row["status"] = "not-bound"
    else:
        row.update(description_row(h, desc, secret=secret))
    if with_value:
        if secret:
            row.update(resolvedValue=REDACTED, valueSource="redacted")
        else:
            reading = h.adapter.read_property(el, prop)
            hidden = h.redactor.enabled and h.redactor.type_is_secret(reading.value_type_name)
            row.update(
                resolvedValue=REDACTED if hidden else reading.value,
                resolvedValueTypeName=reading.value_type_name,
                valueSource=reading.value_source,
                isRedacted=hidden,
            )
    return row


def description_row(h: Hop, desc: BindingDescription, *, secret: bool) -> dict[str, Any]:
    error = desc.error
    if error is not None and secret:
        error = redacted_message()
    return {
        "kind": desc.kind,
        "path": desc.path,
        "mode": desc.mode,
        "updateTrigger": desc.update_trigger,
        "controlUpdateMode": desc.control_update_mode,
        "converter": desc.converter_type,
        "converterParameter": REDACTED if secret and desc.converter_parameter is not None else desc.converter_parameter,
        "stringFormat": desc.string_format,
        "formattingEnabled": desc.formatting_enabled,
        "fallbackValue": REDACTED if secret and desc.fallback_value is not None else desc.fallback_value,
        "targetNullValue": REDACTED if secret and desc.target_null_value is not None else desc.target_null_value,
        "sourceKind": desc.source_kind,
        "sourceDescription": desc.source_description,
        "sourceTypeName": desc.source_type_name,
        "dataContextIsNull": desc.data_context_is_null,
        "dataContextType": desc.data_context_type,
        "hasCurrentItem": desc.has_current_item,
        "status": desc.status,
        "error": error,
        "propertyName": desc.property_name,
        "propertyTypeName": desc.property_type_name,
        "isBound": True,
        "children": [description_row(h, c, secret=secret) for c in desc.children],
    }


def resource_rows(h: Hop, found: list[ResourceEntry], wanted: str | None) -> dict[str, dict[str, Any]]:
    """Rows keyed for paging, in lookup order, with effective/shadowed decided over all keys."""
    winners: dict[str, ResourceEntry] = {}
    rows: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(found):
        winner = winners.setdefault(entry.key_id, entry)
        if wanted is not None and entry.key.lower() != wanted.lower():
            continue
        rows[f"{index}:{entry.key_id}"] = {
            "entry": entry,
            "effective": winner is entry,
            "shadowedBy": None if winner is entry else winner.origin,
        }
    return rows


def resource_item(h: Hop, row: dict[str, Any]) -> dict[str, Any]:
    entry: ResourceEntry = row["entry"]
    # The key is judged before the value is even loaded, the value's type before it is rendered.
    secret = h.redactor.enabled and h.redactor.name_is_secret(entry.key)
    type_name = entry.value_type_name
    if not secret and type_name is None:
        type_name = h.adapter.resource_value_type(entry)
    secret = secret or (h.redactor.enabled and h.redactor.type_is_secret(type_name))
    return {
        "key": entry.key,
        "valueTypeName": type_name,
        # The summary reads the value: only once the key and type say it may be shown.
        "valueSummary": REDACTED if secret else h.adapter.resource_summary(entry),
        "origin": entry.origin,
        "originKind": entry.origin_kind,
        "originNodeId": h.id(entry.owner) if entry.owner is not None else None,
        "effective": row["effective"],
        "shadowedBy": row["shadowedBy"],
        "isRedacted": secret,
    }


def trigger_row(h: Hop, trigger: TriggerDescription) -> dict[str, Any]:
    conditions = []
    for c in trigger.conditions:
        secret = c.redacted or name_secret(h, c.property) or name_secret(h, c.binding)
        conditions.append(
            {
                "property": c.property,
                "binding": c.binding,
                "value": REDACTED if secret else c.value,
                "current": REDACTED if secret else c.current,
                "met": c.met,
                "sourceName": c.source_name,
                "isRedacted": secret,
                "note": c.note,
            }
        )
    setters = []
    for s in trigger.setters:
        secret = s.redacted or name_secret(h, s.property)
        setters.append(
            {
                "property": s.property,
                "value": REDACTED if secret else s.value,
                "targetName": s.target_name,
                "isRedacted": secret,
            }
        )
    return {
        "type": trigger.kind,
        "source": trigger.source,
        "origin": trigger.origin,
        "isActive": trigger.is_active,
        "conditions": conditions,
        "setters": setters,
        "event": trigger.event,
        "actions": list(trigger.actions),
    }


def redacted_message() -> str:
    return f"{REDACTED} (the property or a name on its binding path is secret, so the message is hidden)"


def when(stamp: float | None) -> datetime | None:
    return datetime.fromtimestamp(stamp, tz=timezone.utc) if stamp is not None else None


class WhyQueries(EngineBase):
    """The engine's why-queries (``Engine`` inherits them)."""

    def binding_info(self, target: Target, property_name: str) -> BindingInfo:
        """The binding behind ``property_name``, with the value it resolved to (redaction applied).

        A property that is not data-bound answers ``is_bound=False`` (status
        "not-bound") rather than failing: that is itself the answer to "why".
        """
        check_name("propertyName", property_name)

        def read(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            prop = require_property(h, el, property_name)
            return binding_row(h, el, prop, h.adapter.binding(el, prop), with_value=True)

        return BindingInfo.model_validate(self.indexed_hop(read))

    def bindings(self, target: Target) -> list[BindingInfo]:
        """Every data-bound property of the element, each as ``binding_info`` gives it."""

        def read(h: Hop) -> list[dict[str, Any]]:
            el = h.resolve(target)
            rows = []
            for desc in h.adapter.bindings(el):
                found = h.adapter.find_property(el, desc.property_name)
                # An attached or hidden property may have no descriptor: describe it, read nothing.
                prop = found or PropertyDescriptor(desc.property_name, desc.property_type_name, None, True)
                rows.append(binding_row(h, el, prop, desc, with_value=found is not None))
            return rows

        return [BindingInfo.model_validate(r) for r in self.indexed_hop(read)]

    def binding_errors(self, target: Target) -> list[BindingErrorInfo]:
        """Binding errors recorded for the element (and those its bindings are in now)."""

        def read(h: Hop) -> list[dict[str, Any]]:
            el = h.resolve(target)
            return [error_row(h, el, rec) for rec in errors_of(h, el)]

        return [BindingErrorInfo.model_validate(r) for r in self.indexed_hop(read)]

    def resources(
        self,
        target: Target | None = None,
        *,
        resource_key: str | None = None,
        cursor: str | None = None,
        take: int = 50,
    ) -> ResourcePage:
        """Resource keys visible from the element (none: the application's), closest first.

        Each key says where it was found and whether it is the effective one
        or shadowed by a closer definition. A toolkit without resource
        dictionaries answers ``supported=False`` with a note, not an empty page.
        """
        check_take(take)
        if resource_key is not None:
            check_name("resourceKey", resource_key)
        scope = f"resources:{target.describe() if target is not None else ''}:{resource_key or ''}"
        unsupported: list[str] = []

        def all_rows(h: Hop) -> dict[str, dict[str, Any]]:
            key = ("resources", target)
            if key not in h._memo:
                found = h.adapter.resources(h.resolve(target) if target is not None else None)
                if isinstance(found, Unsupported):
                    unsupported.append(found.reason)
                    h._memo[key] = {}
                else:
                    h._memo[key] = resource_rows(h, found, resource_key)
            rows: dict[str, dict[str, Any]] = h._memo[key]
            return rows

        def list_all(h: Hop) -> list[tuple[str, Any]]:
            return list(all_rows(h).items())

        def project(h: Hop, key_or_row: Any) -> dict[str, Any]:
            row = key_or_row if isinstance(key_or_row, dict) else all_rows(h).get(key_or_row)
            return resource_item(h, row) if row is not None else {}

        page = self.paged(
            kind="resources", scope=scope, cursor=cursor, take=take,
            list_all=list_all, project=project, model=ResourceInfo, key_is_value=False,
        )  # fmt: skip
        if unsupported:
            return ResourcePage(items=[], total_count=0, has_more=False, supported=False, note=unsupported[0])
        return ResourcePage(
            items=page.items, next_cursor=page.next_cursor, total_count=page.total_count,
            has_more=page.has_more, stale=page.stale,
        )  # fmt: skip

    def triggers(self, target: Target) -> TriggerList:
        """Triggers from the element's style (and BasedOn chain), template and own Triggers, evaluated now."""

        def read(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            found = h.adapter.triggers(el, lambda p: may_read(h, p))
            node = h.project(el)
            if isinstance(found, Unsupported):
                return {"node": node, "supported": False, "note": found.reason}
            return {"node": node, "triggers": [trigger_row(h, t) for t in found]}

        return TriggerList.model_validate(self.indexed_hop(read))

    def behaviors(self, target: Target) -> BehaviorList:
        """Attached behaviors and interaction triggers of the element."""

        def read(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            found = h.adapter.behaviors(el, lambda p: may_read(h, p))
            node = h.project(el)
            if isinstance(found, Unsupported):
                return {"node": node, "supported": False, "note": found.reason}
            rows = [
                {
                    "kind": b.kind,
                    "typeName": b.type_name,
                    "assemblyName": b.assembly_name,
                    "properties": {name: REDACTED if name_secret(h, name) else value for name, value in b.properties},
                    "actions": list(b.actions),
                }
                for b in found
            ]
            return {"node": node, "behaviors": rows}

        return BehaviorList.model_validate(self.indexed_hop(read))
