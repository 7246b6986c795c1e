"""What else a step changed (the element trees of the windows before and after it, compared), and what it saw.

An action's own result says how its target changed. What a person checks in
a test is often somewhere else: the status bar that says "Saved", a label
that follows a text box, a window that opened. Both looks are lists of
window trees as ``wpf_get_visual_tree`` answers them (JSON, one per visible
window); nodes are matched by node id, which is stable while the app runs.

Plain data only: the recorder (MCP server, broker) and the test kit's runner
both call it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.trace import StepEffect

#: The fields compared, in the order a person cares about them.
FIELDS = ("text", "checked", "selected", "expanded", "enabled", "visible")
#: States a parent hands down: its children change with it, and are not told apart.
_INHERITED = frozenset({"visible", "enabled"})
#: Effects kept per step at most (a list that refilled itself would otherwise make hundreds).
MAX_EFFECTS = 20
MAX_VALUE = 300
#: App events kept per step, and how much of a stack.
MAX_EVENTS = 20
MAX_STACK = 4000


def _walk(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        kids = current.get("children")
        if isinstance(kids, list):
            stack.extend(reversed([k for k in kids if isinstance(k, dict)]))


def _roots(trees: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [t["root"] for t in trees if isinstance(t.get("root"), dict)]


def _value(value: Any) -> Any:
    return value[:MAX_VALUE] if isinstance(value, str) else value


def effects(
    before: Sequence[Mapping[str, Any]],
    after: Sequence[Mapping[str, Any]],
    *,
    target: str | None = None,
    limit: int = MAX_EFFECTS,
) -> list[StepEffect]:
    """The windows that opened or closed, then the elements whose state changed, in tree order.

    ``target`` (a node id) is left out: the action's own result covers it. A
    secret's text (``[REDACTED]`` in both looks) never differs, so it never shows.
    """
    out: list[StepEffect] = []
    before_roots = {str(r.get("nodeId")): r for r in _roots(before)}
    after_roots = {str(r.get("nodeId")): r for r in _roots(after)}
    for node_id, root in after_roots.items():
        if node_id not in before_roots:
            out.append(_effect(root, "window-opened", None, root.get("text")))
    for node_id, root in before_roots.items():
        if node_id not in after_roots:
            out.append(_effect(root, "window-closed", root.get("text"), None))
    old: dict[str, Mapping[str, Any]] = {}
    for root in before_roots.values():
        for node in _walk(root):
            old[str(node.get("nodeId"))] = node
    for root in after_roots.values():
        # (node, the visible/enabled changes of its ancestors): a panel shown shows its children too,
        # so only the topmost element of such a change is one.
        stack: list[tuple[Mapping[str, Any], frozenset[tuple[str, Any]]]] = [(root, frozenset())]
        while stack:
            node, inherited = stack.pop()
            node_id = str(node.get("nodeId"))
            was = old.get(node_id)
            here = set(inherited)
            compared = FIELDS if was is not None and node_id != target else ()
            for field in compared:
                then, now = (was or {}).get(field), node.get(field)
                if then == now or REDACTED in (then, now):
                    continue
                if field in _INHERITED:
                    if (field, now) in inherited:
                        continue
                    here.add((field, now))
                out.append(_effect(node, field, then, now))
            kids = node.get("children")
            if isinstance(kids, list):
                stack.extend((k, frozenset(here)) for k in reversed(kids) if isinstance(k, dict))
    return out[:limit]


def _effect(node: Mapping[str, Any], field: str, before: Any, after: Any) -> StepEffect:
    return StepEffect(
        field=field,
        locator=str(node["locator"]) if node.get("locator") else None,
        type=str(node["type"]) if node.get("type") else None,
        name=str(node["name"]) if node.get("name") else None,
        before=_value(before),
        after=_value(after),
    )


def compact_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """An app event as a step keeps it: its kind, source, type and message, the window, a stack cut short."""
    keep = {k: event[k] for k in ("seq", "kind", "time", "source", "type", "message", "handled") if k in event}
    stack = event.get("stack")
    if isinstance(stack, str) and stack:
        keep["stack"] = stack[:MAX_STACK]
    window = event.get("window")
    if isinstance(window, Mapping):
        keep["window"] = {k: window[k] for k in ("nodeId", "title", "text", "type", "name", "locator") if k in window}
    return keep


__all__ = ["FIELDS", "MAX_EFFECTS", "MAX_EVENTS", "compact_event", "effects"]
