"""Pydantic DTOs shared by every face (Python API, MCP tools, CLI).

Python attributes are snake_case; JSON (``model_dump(by_alias=True)``) is
camelCase as the MCP tools speak it.
"""

from __future__ import annotations

import html
import io
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

from wpfprobe.core.defer import DEFER_BUILD
from wpfprobe.core.protocol import PlainValue

T = TypeVar("T")


class _Dto(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        ser_json_bytes="base64",
        # Built on first use (core/defer.py): a probe uses a few of these before its first answer.
        defer_build=DEFER_BUILD,
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The camelCase JSON shape, without fields that are None."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class Rect(_Dto):
    x: int
    y: int
    width: int
    height: int


class ElementError(_Dto):
    """A read that failed for one element or one property; the rest of the answer stands.

    ``reads`` names what could not be read for an element (``naming``, ``state``,
    ``text``, ``children``, ``bounds``...): those fields hold defaults. ``type``
    and ``message`` are the first failure's (a .NET exception's full type name,
    or a Python exception's).
    """

    type: str
    message: str
    reads: list[str] | None = None


class Node(_Dto):
    """One element as plain data. ``locator`` re-finds it later.

    ``text`` is what the user reads (access-key markers removed, ``access_key``
    the key); ``selected``, ``checked`` and ``expanded`` are there where they
    apply; ``total_count`` is the number of children in all when only some are
    listed (a grid's rows in view); ``error`` says which reads failed.
    """

    node_id: str
    type: str
    type_name: str
    name: str | None = None
    automation_id: str | None = None
    text: str | None = None
    access_key: str | None = None
    visible: bool
    enabled: bool
    focused: bool = False
    selected: bool | None = None
    checked: bool | None = None
    expanded: bool | None = None
    child_count: int
    total_count: int | None = None
    locator: str
    properties: dict[str, PlainValue] | None = None
    error: ElementError | None = None
    children: list[Node] | None = None
    children_truncated: bool | None = None

    def label(self) -> str:
        ident = f"#{self.name or self.automation_id}" if (self.name or self.automation_id) else ""
        text = f' "{self.text}"' if self.text else ""
        states = "" if self.visible else " hidden"
        states += "" if self.enabled else " disabled"
        states += " focused" if self.focused else ""
        return f"{self.type}{ident}{text}{states} [{self.node_id}]"

    def _repr_html_(self) -> str:
        return _tree_html(self)

    def __str__(self) -> str:
        return "\n".join(_tree_lines(self, ""))


class Window(Node):
    title: str | None = None
    bounds: Rect | None = None
    active: bool = False


class Tree(_Dto):
    root: Node
    tree_type: Literal["visual", "logical"]
    truncated: bool
    returned_node_count: int
    #: Nodes with an ``error`` (a read that failed for them alone); absent when none.
    error_count: int | None = None

    def _repr_html_(self) -> str:
        note = " (truncated at the node cap)" if self.truncated else ""
        return f"<div><b>{self.returned_node_count} nodes</b>, {self.tree_type} tree{note}{_tree_html(self.root)}</div>"

    def __str__(self) -> str:
        return "\n".join(_tree_lines(self.root, ""))

    def walk(self) -> list[Node]:
        """Every node of the snapshot, depth first."""
        out: list[Node] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children or []))
        return out


class Page(_Dto, Generic[T]):
    items: list[T]
    next_cursor: str | None = None
    total_count: int
    has_more: bool
    stale: bool = False
    #: Items of this page with an ``error`` (a node or property that could not be read in full);
    #: absent when none, so a healthy page has the shape SPEC 3 gives.
    error_count: int | None = None

    def _repr_html_(self) -> str:
        rows = "".join(f"<li>{html.escape(_short(i))}</li>" for i in self.items)
        more = f"<p>{self.total_count - len(self.items)} more (next cursor)</p>" if self.has_more else ""
        return f"<div><b>{len(self.items)} of {self.total_count}</b><ul>{rows}</ul>{more}</div>"


class Property(_Dto):
    name: str
    type_name: str
    value: PlainValue = None
    value_source: str
    category: str | None = None
    is_locally_set: bool
    is_data_bound: bool
    has_binding_error: bool
    binding_error: str | None = None
    is_read_only: bool
    is_redacted: bool
    #: The getter threw: ``value`` is None and ``value_source`` "error".
    error: ElementError | None = None


class Ancestor(Node):
    data_context_type: str | None = None


class ElementInfo(_Dto):
    node: Node
    path: str
    locator: str
    parent: Node | None = None
    bounds: Rect | None = None
    data_context_type: str | None = None
    binding_error_count: int = 0

    def _repr_html_(self) -> str:
        n = self.node
        rows = [
            ("type", n.type_name),
            ("name", n.name),
            ("automationId", n.automation_id),
            ("text", n.text),
            ("locator", self.locator),
            ("path", self.path),
            ("visible / enabled / focused", f"{n.visible} / {n.enabled} / {n.focused}"),
            ("bounds", self.bounds and f"{self.bounds.x},{self.bounds.y} {self.bounds.width}x{self.bounds.height}"),
            ("children", n.child_count),
            ("dataContextType", self.data_context_type),
            ("binding errors", self.binding_error_count),
        ]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
            for k, v in rows
            if v is not None
        )
        return f"<table>{body}</table>"


class FindResult(_Dto):
    node: Node
    path: str


class FindResults(_Dto):
    results: list[FindResult]
    total_scanned: int
    truncated: bool
    #: Elements the search met whose reads failed (each is skipped or returned with its ``error``);
    #: absent when none.
    error_count: int | None = None


class PropertyCondition(_Dto):
    property: str
    operator: Literal["Equals", "Contains", "Regex"] = "Equals"
    value: str


class Dispatcher(_Dto):
    thread_id: int | None = None
    windows: list[str]


class RuntimeDescription(_Dto):
    kind: Literal["netfx", "coreclr", "mono"]
    version: str
    description: str


class SessionInfo(_Dto):
    app_name: str
    app_id: str
    pid: int
    process_name: str
    runtime: RuntimeDescription
    toolkit: Literal["wpf", "winforms"]
    python_version: str
    wpfprobe_version: str
    tier: Literal["read", "interact", "mutate"]
    dispatchers: list[Dispatcher]
    capabilities: list[str]


class Screenshot(_Dto):
    """A PNG of an element; renders as the image in Jupyter."""

    node_id: str
    width: int
    height: int
    png: bytes = Field(repr=False)

    def image(self) -> Any:
        from PIL import Image  # noqa: PLC0415 - Pillow is only needed when asked for

        img = Image.open(io.BytesIO(self.png))
        img.load()
        return img

    def _repr_png_(self) -> bytes:
        return self.png


#: The actions an ``ActionResult`` reports (``set_property`` has its own result).
ActionName = Literal["click", "type", "keys", "select", "toggle", "focus"]


class ActionState(_Dto):
    """What an action may change on its target; a field is None where it does not apply."""

    text: str | None = None
    visible: bool
    enabled: bool
    focused: bool
    selected: bool | None = None
    checked: bool | None = None
    selected_index: int | None = None
    selected_item: str | None = None
    expanded: bool | None = None
    value: float | None = None


class Redo(_Dto):
    """How to do an action again later: the locator worth keeping, as a scenario step and a Python line.

    ``locator`` is the most stable locator that found exactly this element
    when the action ran: its name, its automation id, its text inside its
    nearest named container, its path only as a last resort (docs/testing.md).
    A secret typed or set shows as ``[REDACTED]``.
    """

    locator: str | None = None
    """None for keys sent to whatever had focus."""
    step: str
    """The scenario step, one line of YAML: ``{action: click, locator: "Button#saveButton"}``."""
    python: str
    """The Python API line: ``probe.locator("Button#saveButton").click()``."""


class LocatorCandidate(_Dto):
    """A locator ``wpf_generate_locator`` considered, with how many elements it found."""

    locator: str
    kind: Literal["name", "automationId", "text", "path"]
    matches: int
    """Elements it found now; 0 also when it did not find this one (or its container was too big to search)."""
    unique: bool


class GeneratedLocator(_Dto):
    """The most stable locator that finds exactly this element now, and what else was considered, best first."""

    node_id: str
    locator: str
    kind: Literal["name", "automationId", "text", "path"]
    python: str
    """``probe.locator("...")``."""
    alternatives: list[LocatorCandidate]


class AppError(_Dto):
    """An exception the app's own handler raised while handling the input."""

    type: str
    message: str


class ActionResult(_Dto):
    """What an input action did: the target before and after, and the windows it opened or closed."""

    action: ActionName
    mode: Literal["toolkit", "os"]
    node: Node
    """The target as it was just before the action."""
    before: ActionState
    after: ActionState | None = None
    """None when the target is gone (its dialog closed)."""
    changed: list[str]
    """Names of the ``before``/``after`` fields that differ (``gone`` if the target went away)."""
    opened_windows: list[Window]
    closed_windows: list[Window]
    """As they were before the action."""
    focused: Node | None = None
    """The element with keyboard focus afterwards."""
    completed: bool
    """False while the app's handler is still running: it opened a modal dialog (see opened_windows)."""
    app_error: AppError | None = None
    redo: Redo | None = None
    """The scenario step and the Python line that do this again, with the locator worth keeping."""


class WaitResult(_Dto):
    condition: str
    node: Node | None = None
    """The matched element (None for ``gone``)."""
    observed: PlainValue = None
    """The value the condition was decided on (text, property value, count...)."""
    elapsed_ms: int
    polls: int
    redo: Redo | None = None


class SetPropertyResult(_Dto):
    node: Node
    property: str
    type_name: str
    previous_value: PlainValue = None
    new_value: PlainValue = None
    value_source: str
    redo: Redo | None = None


FindingLevel = Literal["info", "warning", "error"]


class Finding(_Dto):
    """One problem wpf_run_diagnostics found on one element.

    ``locator`` re-finds the element; ``detail`` holds the numbers and names
    behind the message (never a property's value).
    """

    provider: str
    level: FindingLevel
    message: str
    node_id: str
    locator: str
    path: str
    suggestion: str
    detail: dict[str, PlainValue] = Field(default_factory=dict)

    def line(self) -> str:
        return f"{self.level} {self.provider} {self.locator}: {self.message}"


class DiagnosticsPage(Page[Finding]):
    """A page of findings, most severe first, then in tree order.

    ``providers_run`` ran on this app's toolkit; ``providers_not_applicable``
    were asked for (or are part of "all") but have no meaning on it.
    """

    providers_run: list[str]
    providers_not_applicable: list[str] = Field(default_factory=list)


# -- why is my UI wrong: bindings, resources, triggers, behaviors ---------------------


class BindingErrorInfo(_Dto):
    """A binding error the toolkit reported (or a binding is in now), for one property.

    ``kind``: trace (WPF's binding trace), complete (WinForms BindingComplete
    with an error state), format / parse (a WinForms Format or Parse that
    failed), status (the binding's live state). ``count`` says how often the
    same message repeated.
    """

    property_name: str | None = None
    message: str
    count: int = 1
    kind: str
    path: str | None = None
    first_seen: datetime | None = None
    last_seen: datetime | None = None


class BindingInfo(_Dto):
    """The data binding behind one property, as Snoop shows it; fields that do not apply are None.

    ``is_bound`` False means the property is not data-bound (``status``
    "not-bound"; ``value_source`` says where its value comes from instead).
    ``resolved_value`` is the value the property holds now (what the binding
    delivered, or its fallback); ``[REDACTED]`` when the property, its type or
    a name on the binding path is secret. WPF fills ``mode``, ``converter``,
    ``data_context_*``; WinForms fills ``update_trigger`` (DataSourceUpdateMode),
    ``control_update_mode``, ``formatting_enabled`` and ``has_current_item``
    (False: the source list is empty or has no current row, so the property
    shows nothing: the WinForms analogue of a null DataContext).
    """

    node_id: str | None = None
    property_name: str
    property_type_name: str
    is_bound: bool
    kind: str | None = None
    path: str | None = None
    mode: str | None = None
    update_trigger: str | None = None
    control_update_mode: str | None = None
    converter: str | None = None
    converter_parameter: str | None = None
    string_format: str | None = None
    formatting_enabled: bool | None = None
    fallback_value: str | None = None
    target_null_value: str | None = None
    source_kind: str | None = None
    source_description: str | None = None
    source_type_name: str | None = None
    data_context_is_null: bool | None = None
    data_context_type: str | None = None
    has_current_item: bool | None = None
    status: str
    error: str | None = None
    resolved_value: PlainValue = None
    resolved_value_type_name: str | None = None
    value_source: str | None = None
    is_redacted: bool = False
    recent_errors: list[BindingErrorInfo] = Field(default_factory=list)
    children: list[BindingInfo] = Field(default_factory=list)


class ResourceInfo(_Dto):
    """One resource key on the lookup path of an element, closest dictionary first.

    ``effective`` is True for the definition a lookup of ``key`` from the
    element finds; a farther one with the same key is shadowed, and
    ``shadowed_by`` names the origin that wins. ``value_summary`` is a short
    rendering, ``[REDACTED]`` when the key names a secret or the value's type
    is secret (then the value was never read).
    """

    key: str
    value_type_name: str | None = None
    value_summary: PlainValue = None
    origin: str
    origin_kind: str
    origin_node_id: str | None = None
    effective: bool
    shadowed_by: str | None = None
    is_redacted: bool = False


class ResourcePage(Page[ResourceInfo]):
    """A page of resources. ``supported`` False: the toolkit has no resource dictionaries (``note`` says so)."""

    supported: bool = True
    note: str | None = None


class TriggerConditionInfo(_Dto):
    """``property`` (Trigger) or ``binding`` (DataTrigger) must equal ``value``; ``met`` None: unknown (see ``note``)."""

    property: str | None = None
    binding: str | None = None
    value: PlainValue = None
    current: PlainValue = None
    met: bool | None = None
    source_name: str | None = None
    is_redacted: bool = False
    note: str | None = None


class TriggerSetterInfo(_Dto):
    property: str
    value: PlainValue = None
    target_name: str | None = None
    is_redacted: bool = False


class TriggerInfo(_Dto):
    """One trigger: Trigger, DataTrigger, EventTrigger, MultiTrigger or MultiDataTrigger.

    ``source`` is style, template or element; ``is_active`` None means it
    could not be evaluated (an EventTrigger has no state; a DataTrigger's
    binding may use a converter).
    """

    type: str
    source: str
    origin: str
    is_active: bool | None = None
    conditions: list[TriggerConditionInfo] = Field(default_factory=list)
    setters: list[TriggerSetterInfo] = Field(default_factory=list)
    event: str | None = None
    actions: list[str] = Field(default_factory=list)


class TriggerList(_Dto):
    """The element's triggers; ``supported`` False: the toolkit has none (``note`` says so)."""

    node: Node
    supported: bool = True
    note: str | None = None
    triggers: list[TriggerInfo] = Field(default_factory=list)


class BehaviorInfo(_Dto):
    """An attached behavior (``kind`` behavior) or interaction trigger (``kind`` trigger)."""

    kind: str
    type_name: str
    assembly_name: str
    properties: dict[str, PlainValue] = Field(default_factory=dict)
    actions: list[str] = Field(default_factory=list)


class BehaviorList(_Dto):
    """The element's attached behaviors; ``supported`` False: the toolkit has none (``note`` says so)."""

    node: Node
    supported: bool = True
    note: str | None = None
    behaviors: list[BehaviorInfo] = Field(default_factory=list)


#: Nodes validated in one call when a tree's models are made (``tree_from_json``): about a millisecond.
_NODES_PER_CALL = 256
_node_list: TypeAdapter[list[Node]] | None = None


def tree_from_json(data: dict[str, Any]) -> Tree:
    """A ``Tree`` from its JSON form (``Tree.to_json_dict()``), made in pieces; ``data``'s nodes are used up.

    ``Tree.model_validate`` of 5,000 nodes is one native call of tens of
    milliseconds that holds the GIL throughout, so none of the app's own
    Python can run meanwhile. Here the nodes are validated a level at a time,
    deepest first, ``_NODES_PER_CALL`` per call: a node's children are models
    already when it is validated (pydantic keeps a model instance as it is),
    and between calls the interpreter may switch to another thread.
    """
    global _node_list
    if _node_list is None:
        _node_list = TypeAdapter(list[Node])
    adapter = _node_list
    # Breadth first: each level's nodes after the one above, a node's children after it.
    order: list[dict[str, Any]] = [data["root"]]
    depth = [0]
    kids: list[range | None] = []
    i = 0
    while i < len(order):
        children = order[i].get("children")
        if children:
            kids.append(range(len(order), len(order) + len(children)))
            order.extend(children)
            depth.extend([depth[i] + 1] * len(children))
        else:
            kids.append(None)
        i += 1
    models: list[Node | None] = [None] * len(order)
    end = len(order)
    while end > 0:
        level = depth[end - 1]
        start = end
        while start > 0 and depth[start - 1] == level:
            start -= 1
        for lo in range(start, end, _NODES_PER_CALL):
            hi = min(lo + _NODES_PER_CALL, end)
            batch = order[lo:hi]
            for k, node in enumerate(batch, lo):
                span = kids[k]
                if span is not None:
                    node["children"] = [models[j] for j in span]
            for k, model in enumerate(adapter.validate_python(batch), lo):
                models[k] = model
        end = start
    root = models[0]
    assert root is not None
    fields = {k: v for k, v in data.items() if k != "root"}
    return Tree.model_validate({**fields, "root": root})


def _short(item: Any) -> str:
    if isinstance(item, Finding):
        return item.line()
    if isinstance(item, Node):
        return item.label()
    if isinstance(item, Property):
        return f"{item.name} = {item.value!r} ({item.value_source})"
    return repr(item)


def _tree_lines(node: Node, indent: str) -> list[str]:
    lines = [indent + node.label()]
    for child in node.children or []:
        lines.extend(_tree_lines(child, indent + "  "))
    if node.child_count and not node.children:
        lines.append(indent + f"  … {node.child_count} children")
    return lines


def _tree_html(node: Node) -> str:
    label = html.escape(node.label())
    kids = node.children or []
    if not kids:
        more = f" <i>({node.child_count} children)</i>" if node.child_count else ""
        return f"<ul><li><code>{label}</code>{more}</li></ul>"
    inner = "".join(_tree_html(k) for k in kids)
    return f"<ul><li><details open><summary><code>{label}</code></summary>{inner}</details></li></ul>"
