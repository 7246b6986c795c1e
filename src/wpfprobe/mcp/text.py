"""Compact text renderings for agents: one line per node, few tokens.

A node line is ``id Type#name "text" states +N @locator``: the locator only
when it says more than ``Type#name`` and is short, ``+N`` when N children
were left out. JSON stays available in the structured content.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from wpfprobe.core.app_events import AppEvents
from wpfprobe.core.models import (
    ActionResult,
    ActionState,
    Ancestor,
    BehaviorList,
    BindingInfo,
    DiagnosticsPage,
    ElementInfo,
    Finding,
    FindResults,
    GeneratedLocator,
    Node,
    Page,
    Property,
    ResourceInfo,
    ResourcePage,
    SessionInfo,
    SetPropertyResult,
    Tree,
    TriggerList,
    WaitResult,
    Window,
)
from wpfprobe.engine.locators import format_ident

MAX_TEXT = 40
MAX_LOCATOR = 32
#: Children listed under one node in a text tree; the rest are one "+N more" line (a list of
#: thousands of items stays readable; the structured content still has every node returned).
MAX_CHILDREN_SHOWN = 25


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quoted(text: str, limit: int = MAX_TEXT) -> str:
    return json.dumps(_clip(text, limit), ensure_ascii=False)


def node_line(node: Node) -> str:
    return node_line_json(
        {
            "nodeId": node.node_id, "type": node.type, "name": node.name, "automationId": node.automation_id,
            "text": node.text, "accessKey": node.access_key, "visible": node.visible, "enabled": node.enabled,
            "focused": node.focused, "selected": node.selected, "checked": node.checked, "expanded": node.expanded,
            "childCount": node.child_count, "totalCount": node.total_count, "locator": node.locator,
            "properties": node.properties, "children": node.children,
            "error": None if node.error is None else {"type": node.error.type, "reads": node.error.reads},
        }
    )  # fmt: skip


def node_line_json(node: dict[str, Any]) -> str:
    """A node's line from its JSON (``Node.to_json_dict()``): what ``node_line`` shows of its model."""
    ident = node.get("name") or node.get("automationId")
    # format_ident quotes and escapes a name with spaces or line breaks, as locators do.
    head = f"{node['type']}#{format_ident(ident)}" if ident else node["type"]
    parts = [node["nodeId"], head]
    text = node.get("text")
    if text and text != ident:
        parts.append(_quoted(text))
    if node.get("accessKey"):
        parts.append(f"key={node['accessKey']}")
    if not node["visible"]:
        parts.append("hidden")
    if not node["enabled"]:
        parts.append("disabled")
    if node.get("focused"):
        parts.append("focused")
    if node.get("selected"):
        parts.append("selected")
    checked = node.get("checked")
    if checked is not None:
        parts.append("checked" if checked else "unchecked")
    expanded = node.get("expanded")
    if expanded is not None:
        parts.append("expanded" if expanded else "collapsed")
    child_count = node["childCount"]
    if child_count and not node.get("children"):
        parts.append(f"+{child_count}")
    total = node.get("totalCount")
    if total is not None and total > child_count:
        parts.append(f"of={total}")
    error = node.get("error")
    if error is not None:
        parts.append(f"!{error['type'].rsplit('.', 1)[-1]}({','.join(error.get('reads') or [])})")
    locator = node["locator"]
    if locator != head and len(locator) <= MAX_LOCATOR:
        parts.append("@" + locator)
    properties = node.get("properties")
    if properties:
        parts.append(" ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in properties.items()))
    return " ".join(parts)


def tree_text(tree: Tree) -> str:
    lines: list[str] = []

    def walk(node: Node, depth: int) -> None:
        lines.append(" " * depth + node_line(node))
        children = node.children or []
        for child in children[:MAX_CHILDREN_SHOWN]:
            walk(child, depth + 1)
        if len(children) > MAX_CHILDREN_SHOWN:
            lines.append(" " * (depth + 1) + f"+{len(children) - MAX_CHILDREN_SHOWN} more")

    walk(tree.root, 0)
    return "\n".join([*lines, _tree_footer(tree.returned_node_count, tree.tree_type, tree.truncated, tree.error_count)])


def tree_json_text(tree: dict[str, Any]) -> str:
    """``tree_text`` of a tree's JSON (``Engine.tree_json``): the MCP tool's text, made with no model."""
    lines: list[str] = []
    stack: list[tuple[dict[str, Any] | str, int]] = [(tree["root"], 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            lines.append(" " * depth + node)
            continue
        lines.append(" " * depth + node_line_json(node))
        children = node.get("children") or []
        if len(children) > MAX_CHILDREN_SHOWN:
            stack.append((f"+{len(children) - MAX_CHILDREN_SHOWN} more", depth + 1))
        stack.extend((child, depth + 1) for child in reversed(children[:MAX_CHILDREN_SHOWN]))
    footer = _tree_footer(tree["returnedNodeCount"], tree["treeType"], tree["truncated"], tree.get("errorCount"))
    return "\n".join([*lines, footer])


def _tree_footer(count: int, tree_type: str, truncated: bool, errors: int | None) -> str:
    footer = f"{count} nodes, {tree_type} tree"
    if truncated:
        footer += ", truncated at the node cap"
    if errors:
        footer += f", {errors} with read errors"
    return f"({footer})"


def json_bytes(data: dict[str, Any]) -> bytes:
    """The compact JSON of a tree's ``data`` (``Engine.tree_json``), as UTF-8.

    Encoding is one native call, during which the app's own Python handlers
    wait for the GIL: the standard library's takes 10-12 ms for 5,000 nodes,
    orjson's under 1 ms. orjson refuses a lone surrogate (half of a pair,
    which a .NET string may hold) and numbers beyond 64 bits; such a tree is
    encoded by the standard library, non-ASCII escaped, as JSON allows.
    """
    import orjson  # noqa: PLC0415 - only a tree's answer needs it

    try:
        return orjson.dumps(data)
    except orjson.JSONEncodeError:
        return json.dumps(data, separators=(",", ":")).encode("ascii")


def json_text(data: dict[str, Any]) -> str:
    """``json_bytes`` as text: what the tree tool sends as its text when asked for JSON."""
    return json_bytes(data).decode()


def nodes_text(nodes: Iterable[Node]) -> str:
    return "\n".join(node_line(n) for n in nodes)


def window_line(window: Window) -> str:
    line = node_line(window)
    if window.bounds is not None:
        b = window.bounds
        line += f" {b.x},{b.y} {b.width}x{b.height}"
    if window.active:
        line += " active"
    return line


def page_footer(page: Page[object]) -> str:
    shown = len(page.items)
    footer = f"({shown} of {page.total_count}"
    if page.next_cursor:
        footer += f"; more with cursor={page.next_cursor}"
    if page.stale:
        footer += "; the cursor had expired: this is a fresh first page"
    if page.error_count:
        footer += f"; {page.error_count} with read errors"
    return footer + ")"


def node_page_text(page: Page[Node]) -> str:
    return "\n".join([*(node_line(n) for n in page.items), page_footer(page)])  # type: ignore[arg-type]


def property_line(prop: Property) -> str:
    value = json.dumps(prop.value, ensure_ascii=False)
    line = f"{prop.name} = {value} ({prop.value_source}"
    if prop.is_data_bound:
        line += ", bound"
    if prop.is_read_only:
        line += ", read-only"
    line += ")"
    if prop.binding_error:
        line += f" binding error: {prop.binding_error}"
    if prop.error is not None:
        line += f" read error: {prop.error.type}: {prop.error.message}"
    return line


def property_page_text(page: Page[Property]) -> str:
    return "\n".join([*(property_line(p) for p in page.items), page_footer(page)])  # type: ignore[arg-type]


def ancestors_text(ancestors: list[Ancestor]) -> str:
    lines = []
    for a in ancestors:
        line = node_line(a)
        if a.data_context_type:
            line += f" dataContext={a.data_context_type}"
        lines.append(line)
    return "\n".join(lines) or "(no ancestors: this is a top-level window)"


def find_text(found: FindResults) -> str:
    lines = [f"{node_line(r.node)}  path={r.path}" for r in found.results]
    footer = f"({len(found.results)} found, {found.total_scanned} scanned"
    if found.error_count:
        footer += f", {found.error_count} with read errors"
    footer += ", more matches not shown: raise maxResults or narrow the query)" if found.truncated else ")"
    return "\n".join([*lines, footer])


def inspect_text(info: ElementInfo) -> str:
    n = info.node
    rows = [
        node_line(n),
        f"type: {n.type_name}",
        f"locator: {info.locator}",
        f"path: {info.path}",
        f"parent: {node_line(info.parent) if info.parent else '(none)'}",
        f"children: {n.child_count}",
        f"visible={str(n.visible).lower()} enabled={str(n.enabled).lower()} focused={str(n.focused).lower()}",
    ]
    if info.bounds is not None:
        b = info.bounds
        rows.append(f"bounds: {b.x},{b.y} {b.width}x{b.height} px")
    if info.data_context_type:
        rows.append(f"dataContextType: {info.data_context_type}")
    if info.binding_error_count:
        rows.append(f"binding errors: {info.binding_error_count}")
    return "\n".join(rows)


def session_text(info: SessionInfo) -> str:
    windows = ", ".join(w for d in info.dispatchers for w in d.windows)
    return "\n".join(
        [
            f"app {info.app_name} ({info.app_id}), pid {info.pid}, process {info.process_name}",
            f"{info.toolkit} on {info.runtime.description}; python {info.python_version}; "
            f"wpfprobe {info.wpfprobe_version}",
            f"tier {info.tier}; windows {windows or '(none)'}",
            f"capabilities: {', '.join(info.capabilities)}",
        ]
    )


def _state_value(state: ActionState, field: str) -> str:
    value = state.to_json_dict().get(field)
    if isinstance(value, str):
        return _quoted(value)
    return "null" if value is None else json.dumps(value)


def action_text(result: ActionResult) -> str:
    """``click saveButton (toolkit): statusLabel..."`` in a few lines: what changed, what opened."""
    lines = [f"{result.action} {node_line(result.node)} ({result.mode})"]
    if result.after is None:
        lines.append("the element is gone (its window closed)")
    elif result.changed:
        for field in result.changed:
            lines.append(f"  {field}: {_state_value(result.before, field)} -> {_state_value(result.after, field)}")
    else:
        lines.append("  no change to the element")
    for window in result.opened_windows:
        lines.append(f"opened {window_line(window)}")
    for window in result.closed_windows:
        lines.append(f"closed {window_line(window)}")
    if result.focused is not None:
        lines.append(f"focus {node_line(result.focused)}")
    if not result.completed:
        lines.append("the app is still handling it (a modal dialog is open): answer the dialog next")
    if result.app_error is not None:
        lines.append(f"app error {result.app_error.type}: {_clip(result.app_error.message, 200)}")
    if result.redo is not None:
        lines.append(f"redo {_clip(result.redo.step, 300)}")
    return "\n".join(lines)


def generated_locator_text(found: GeneratedLocator) -> str:
    """The chosen locator first, then each candidate with what it matched."""
    lines = [f"{found.locator} ({found.kind})", found.python]
    for c in found.alternatives:
        verdict = "unique" if c.unique else (f"{c.matches} matches" if c.matches else "does not find it")
        lines.append(f"  {c.kind}: {c.locator} -> {verdict}")
    return "\n".join(lines)


def wait_text(result: WaitResult) -> str:
    what = node_line(result.node) if result.node is not None else "(no element)"
    observed = json.dumps(result.observed, ensure_ascii=False)
    line = f"{result.condition} after {result.elapsed_ms} ms ({result.polls} polls): {what} observed={observed}"
    return line + (f"\nredo {_clip(result.redo.step, 300)}" if result.redo is not None else "")


def set_property_text(result: SetPropertyResult) -> str:
    before = json.dumps(result.previous_value, ensure_ascii=False)
    after = json.dumps(result.new_value, ensure_ascii=False)
    line = f"{result.property} ({result.type_name}): {before} -> {after} [{result.value_source}] on {node_line(result.node)}"
    return line + (f"\nredo {_clip(result.redo.step, 300)}" if result.redo is not None else "")


def _value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def binding_text(info: BindingInfo) -> str:
    """What a Snoop user reads first: the binding, its state, its source, then what went wrong."""
    if not info.is_bound:
        source = f" (its value comes from: {info.value_source})" if info.value_source else ""
        return f"{info.property_name} is not data-bound{source}; value = {_value(info.resolved_value)}"
    lines = [_binding_head(info)]
    source = info.source_kind or "?"
    if info.source_description:
        source += f" {info.source_description}"
    if info.source_type_name:
        source += f" [{info.source_type_name}]"
    lines.append(f"  source: {source}")
    if info.data_context_is_null is not None:
        context = "null" if info.data_context_is_null else (info.data_context_type or "?")
        lines.append(f"  dataContext: {context}")
    if info.has_current_item is not None:
        lines.append(f"  hasCurrentItem: {str(info.has_current_item).lower()}")
    if info.error:
        lines.append(f"  error: {info.error}")
    lines.append(f"  resolvedValue: {_value(info.resolved_value)}")
    for child in info.children:
        lines.append("  part: " + _binding_head(child))
    for err in info.recent_errors:
        times = f" x{err.count}" if err.count > 1 else ""
        lines.append(f"  recent {err.kind}{times}: {_clip(err.message, 300)}")
    return "\n".join(lines)


def _binding_head(info: BindingInfo) -> str:
    parts = [f"{info.property_name} <- {info.kind or 'Binding'}"]
    if info.path:
        parts.append(f"path={info.path}")
    for label, value in (
        ("mode", info.mode),
        ("update", info.update_trigger),
        ("controlUpdate", info.control_update_mode),
        ("converter", info.converter),
        ("format", info.string_format),
    ):
        if value:
            parts.append(f"{label}={value}")
    parts.append(f"status={info.status}")
    return " ".join(parts)


def resource_line(item: ResourceInfo) -> str:
    state = "effective" if item.effective else f"shadowed by {item.shadowed_by}"
    kind = item.value_type_name or "?"
    return f"{item.key} = {_value(item.value_summary)} ({kind}) from {item.origin}, {state}"


def resource_page_text(page: ResourcePage) -> str:
    if not page.supported:
        return f"not supported: {page.note}"
    if not page.items and not page.total_count:
        return "(no resources on the lookup path)"
    return "\n".join([*(resource_line(r) for r in page.items), page_footer(page)])  # type: ignore[arg-type]


def _active(value: bool | None) -> str:
    return "unknown" if value is None else ("ACTIVE" if value else "inactive")


def triggers_text(found: TriggerList) -> str:
    head = node_line(found.node)
    if not found.supported:
        return f"{head}\nnot supported: {found.note}"
    if not found.triggers:
        return f"{head}\n(no triggers from its style, template or its own Triggers)"
    lines = [head]
    for t in found.triggers:
        line = f"{t.type} [{t.source}: {t.origin}] {_active(t.is_active)}"
        if t.event:
            line += f" on {t.event}"
        lines.append(line)
        for c in t.conditions:
            what = c.property or c.binding or "?"
            if c.source_name:
                what = f"{c.source_name}.{what}"
            met = "?" if c.met is None else ("yes" if c.met else "no")
            cond = f"  when {what} == {_value(c.value)} (now {_value(c.current)}: {met})"
            if c.note:
                cond += f" {c.note}"
            lines.append(cond)
        for st in t.setters:
            target = f"{st.target_name}." if st.target_name else ""
            lines.append(f"  set {target}{st.property} = {_value(st.value)}")
        if t.actions:
            lines.append(f"  actions: {', '.join(t.actions)}")
    return "\n".join(lines)


def behaviors_text(found: BehaviorList) -> str:
    head = node_line(found.node)
    if not found.supported:
        return f"{head}\nnot supported: {found.note}"
    if not found.behaviors:
        note = f" ({found.note})" if found.note else ""
        return f"{head}\n(no attached behaviors){note}"
    lines = [head]
    for b in found.behaviors:
        props = " ".join(f"{k}={_value(v)}" for k, v in b.properties.items())
        lines.append(f"{b.kind} {b.type_name} ({b.assembly_name}) {props}".rstrip())
        if b.actions:
            lines.append(f"  actions: {', '.join(b.actions)}")
    return "\n".join(lines)


def finding_line(finding: Finding) -> str:
    """``warning clipped mp42 Button#clippedButton: message -> suggestion``."""
    return f"{finding.level} {finding.provider} {finding.node_id} {finding.locator}: {finding.message} -> {finding.suggestion}"


def diagnostics_text(page: DiagnosticsPage) -> str:
    lines = [finding_line(f) for f in page.items] or ["(no findings)"]
    lines.append(page_footer(page))  # type: ignore[arg-type]
    ran = ", ".join(page.providers_run) or "none"
    note = f"providers run: {ran}"
    if page.providers_not_applicable:
        note += f"; not applicable to this toolkit: {', '.join(page.providers_not_applicable)}"
    lines.append(f"({note})")
    return "\n".join(lines)


def app_events_text(found: AppEvents) -> str:
    """One line per event, then where to continue from."""
    lines = []
    for e in found.events:
        if e.kind == "exception":
            where = f" ({e.source})" if e.source else ""
            fatal = " terminating" if e.terminating else ""
            lines.append(f"#{e.seq} {e.time} exception{where}{fatal} {e.type}: {_clip(e.message or '', 200)}")
        else:
            window = e.window or {}
            title = _quoted(str(window.get("title") or ""))
            lines.append(f"#{e.seq} {e.time} {e.kind} {window.get('type') or 'window'} {title}")
    if not lines:
        lines.append("(no new events)")
    if found.dropped:
        lines.append(f"{found.dropped} older events were dropped (the store keeps the latest)")
    if not found.ui_responsive:
        lines.append("the UI thread did not answer: it may be hung")
    lines.append(f"nextSeq={found.next_seq} hooks={','.join(found.hooks) or 'none'}")
    return "\n".join(lines)
