"""The MCP tools as data: input model, output model, tier, and a handler that is
an engine call plus formatting. Nothing here knows MCP's wire types or a toolkit;
the server (and later the broker) turns these into tools.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from wpfprobe.core.app_events import AppEvents
from wpfprobe.core.convert import MAX_VALUE_LENGTH
from wpfprobe.core.defer import DEFER_BUILD
from wpfprobe.core.models import (
    ActionResult,
    Ancestor,
    BehaviorList,
    BindingInfo,
    DiagnosticsPage,
    ElementInfo,
    FindResults,
    GeneratedLocator,
    Node,
    Page,
    Property,
    PropertyCondition,
    ResourcePage,
    SessionInfo,
    SetPropertyResult,
    Tree,
    TriggerList,
    WaitResult,
    Window,
    _Dto,
)
from wpfprobe.engine.actions import MAX_TEXT_LENGTH, MAX_TIMEOUT_MS
from wpfprobe.engine.engine import Engine, Target, Tier
from wpfprobe.engine.locators import MAX_LOCATOR_LENGTH
from wpfprobe.engine.target import TIERS as TIERS
from wpfprobe.engine.target import check_tier as check_tier
from wpfprobe.mcp import text as _text

NodeIdArg = Annotated[
    str | None,
    Field(max_length=64, description="Opaque id of an element, from any earlier result (stable while it lives)."),
]
LocatorArg = Annotated[
    str | None,
    Field(
        max_length=MAX_LOCATOR_LENGTH,
        description='A locator such as Button#saveButton, text="Save", [IsEnabled=false], '
        "Form > Panel Button:nth(1), Form[0]/Panel[0]/Button[2] or menu:File/Save As; "
        'prefixed with logical: it searches the logical tree (items not drawn: logical:#tree > text="Carrot").',
    ),
]
TreeTypeArg = Annotated[Literal["visual", "logical"], Field(description="Visual (default) or logical tree.")]
CursorArg = Annotated[str | None, Field(max_length=512, description="nextCursor of the previous page.")]


class _Args(BaseModel):
    # Built when its tool is first called or listed (core/defer.py): most are never, at the read tier.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, defer_build=DEFER_BUILD)


class _TargetArgs(_Args):
    node_id: NodeIdArg = Field(default=None, alias="nodeId")
    locator: LocatorArg = None

    def target(self) -> Target:
        return Target(node_id=self.node_id, locators=(self.locator,) if self.locator is not None else ())

    def optional_target(self) -> Target | None:
        if self.node_id is None and self.locator is None:
            return None
        return self.target()


class NoArgs(_Args):
    pass


class WindowsArgs(_Args):
    include_hidden: bool = Field(default=False, alias="includeHidden", description="Also list hidden windows.")


class TreeArgs(_TargetArgs):
    max_depth: int = Field(default=3, ge=0, le=10, alias="maxDepth", description="Levels below the root.")
    tree_type: TreeTypeArg = Field(default="visual", alias="treeType")
    include_properties: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, max_length=10, alias="includeProperties", description="Up to 10 property names to add per node."
    )
    format: Literal["text", "json"] = Field(
        default="text", description="The text block: compact lines (text) or the JSON (json)."
    )


class ChildrenArgs(_Args):
    node_id: NodeIdArg = Field(default=None, alias="nodeId", description="Parent element; none: top-level windows.")
    tree_type: TreeTypeArg = Field(default="visual", alias="treeType")
    cursor: CursorArg = None
    take: int = Field(default=50, ge=1, le=200)


class AncestorsArgs(_TargetArgs):
    max_levels: int | None = Field(default=None, ge=1, le=1000, alias="maxLevels")


class FindArgs(_Args):
    root_node_id: NodeIdArg = Field(default=None, alias="rootNodeId", description="Search only this subtree.")
    locator: LocatorArg = None
    type_name: str | None = Field(default=None, max_length=500, alias="typeName")
    name: str | None = Field(default=None, max_length=500)
    automation_id: str | None = Field(default=None, max_length=500, alias="automationId")
    text: str | None = Field(default=None, max_length=500, description="Substring of the text, case-insensitive.")
    property_conditions: list[PropertyCondition] = Field(
        default_factory=list, max_length=20, alias="propertyConditions"
    )
    tree_type: TreeTypeArg = Field(default="visual", alias="treeType")
    max_results: int = Field(default=20, ge=1, le=100, alias="maxResults")


class PropertiesArgs(_TargetArgs):
    filter: str | None = Field(default=None, max_length=200, description="Substring of the property name.")
    category: str | None = Field(default=None, max_length=200)
    include_defaults: bool | None = Field(
        default=None,
        alias="includeDefaults",
        description="Also list properties at their default value. Default: only when filter names some.",
    )
    cursor: CursorArg = None
    take: int = Field(default=100, ge=1, le=200)


ModeArg = Annotated[
    Literal["auto", "os"],
    Field(
        description="auto: through the toolkit, as a user would (automation peers, PerformClick, typed "
        "characters); os: real OS mouse and keyboard events at the element's screen position."
    ),
]


class ClickArgs(_TargetArgs):
    mode: ModeArg = "auto"
    button: Literal["left", "right", "middle"] = "left"
    click_count: int = Field(default=1, ge=1, le=3, alias="clickCount")


class TypeTextArgs(_TargetArgs):
    text: str = Field(max_length=MAX_TEXT_LENGTH, description="Characters to type; \\n presses Enter.")
    replace: bool = Field(default=True, description="Replace the current text (true) or type after it.")
    mode: ModeArg = "auto"


class SendKeysArgs(_TargetArgs):
    keys: str = Field(
        min_length=1,
        max_length=1000,
        description='Chords separated by spaces: "Ctrl+S", "Enter", "Shift+Tab", "Tab Tab Enter". '
        "Without nodeId/locator they go to the focused element.",
    )
    mode: ModeArg = "auto"


class SelectArgs(_TargetArgs):
    item: str | None = Field(
        default=None,
        max_length=1000,
        description="The item's text (exact, then ignoring case); on a tree view, a path of texts such as "
        '"Vegetables/Carrot". Leave out item and index to select the target itself, an item.',
    )
    index: int | None = Field(default=None, ge=0, le=1_000_000)


class ToggleArgs(_TargetArgs):
    state: bool | None = Field(default=None, description="true checks, false unchecks; left out, it flips.")


class WaitForArgs(_TargetArgs):
    condition: Literal[
        "exists", "gone", "visible", "hidden", "enabled", "disabled", "propertyEquals", "textMatches"
    ] = "exists"
    property: str | None = Field(default=None, max_length=200, description="For propertyEquals.")
    value: str | None = Field(
        default=None, max_length=1000, description="propertyEquals: the value; textMatches: a regular expression."
    )
    timeout_ms: int = Field(default=5000, ge=0, le=MAX_TIMEOUT_MS, alias="timeoutMs")


class SetPropertyArgs(_TargetArgs):
    property_name: str = Field(min_length=1, max_length=200, alias="propertyName")
    value: str = Field(
        max_length=MAX_VALUE_LENGTH,
        description='The new value as text, InvariantCulture: "12", "true", "Red" or "#FF0000", "4,2,4,2", "Center".',
    )


class BindingInfoArgs(_TargetArgs):
    property_name: str = Field(
        min_length=1, max_length=200, alias="propertyName", description="The bound property, e.g. Text or Content."
    )


class ResourcesArgs(_TargetArgs):
    resource_key: str | None = Field(
        default=None,
        max_length=200,
        alias="resourceKey",
        description="Only this key (case-insensitive), to see where it is defined and which definition wins.",
    )
    cursor: CursorArg = None
    take: int = Field(default=50, ge=1, le=200)


class DiagnosticsArgs(_TargetArgs):
    node_id: NodeIdArg = Field(
        default=None, alias="nodeId", description="Check only this element's subtree; none: every window."
    )
    providers: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        default=None,
        min_length=1,
        max_length=20,
        description="Provider names to run (default all): binding-errors, null-datacontext, "
        "unresolved-dynamic-resource, non-virtualized-items, zero-size, clipped, text-truncated, "
        "overlapping-siblings, tab-order, unnamed-input.",
    )
    min_level: Literal["info", "warning", "error"] = Field(
        default="info", alias="minLevel", description="Leave out findings below this level."
    )
    cursor: CursorArg = None
    take: int = Field(default=50, ge=1, le=200)


class AppEventsArgs(_Args):
    since_seq: int = Field(
        default=0, ge=0, alias="sinceSeq", description="Only events after this one: nextSeq of the last answer."
    )


class WindowList(_Dto):
    windows: list[Window]


class AncestorList(_Dto):
    ancestors: list[Ancestor]


class ScreenshotInfo(_Dto):
    node_id: str
    width: int
    height: int
    mime_type: str = "image/png"


@dataclass(frozen=True, slots=True)
class ToolOutput:
    #: The output model, or its JSON already (``model_dump(mode="json", by_alias=True, exclude_none=True)``):
    #: a tree of thousands of nodes is sent as the engine made it, with no model built and dumped again.
    structured: BaseModel | dict[str, Any]
    text: str
    png: bytes | None = None
    #: The text is the JSON of ``structured`` (a tree asked for as JSON): it may be sent as both.
    text_is_json: bool = False

    def structured_json(self) -> dict[str, Any]:
        if isinstance(self.structured, dict):
            return self.structured
        return self.structured.model_dump(mode="json", by_alias=True, exclude_none=True)

    def png_base64(self) -> str | None:
        return base64.b64encode(self.png).decode("ascii") if self.png is not None else None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    tier: Tier
    title: str
    description: str
    args: type[_Args]
    output: type[BaseModel]
    run: Callable[[Engine, Any], ToolOutput]
    read_only: bool = True


def _session(engine: Engine, args: NoArgs, *, tier: Tier) -> ToolOutput:
    info = engine.session_info(tier=tier)
    return ToolOutput(info, _text.session_text(info))


def _windows(engine: Engine, args: WindowsArgs) -> ToolOutput:
    windows = engine.windows(include_hidden=args.include_hidden)
    text = "\n".join(_text.window_line(w) for w in windows) or "(no windows)"
    return ToolOutput(WindowList(windows=windows), text)


def _tree(engine: Engine, args: TreeArgs) -> ToolOutput:
    tree = engine.tree_json(
        args.optional_target(),
        max_depth=args.max_depth,
        tree_type=args.tree_type,
        include_properties=args.include_properties,
    )
    if args.format == "json":
        return ToolOutput(tree, _text.json_text(tree), text_is_json=True)
    return ToolOutput(tree, _text.tree_json_text(tree))


def _children(engine: Engine, args: ChildrenArgs) -> ToolOutput:
    page = engine.children(args.node_id, tree_type=args.tree_type, cursor=args.cursor, take=args.take)
    return ToolOutput(page, _text.node_page_text(page))


def _ancestors(engine: Engine, args: AncestorsArgs) -> ToolOutput:
    found = engine.ancestors(args.target(), max_levels=args.max_levels)
    return ToolOutput(AncestorList(ancestors=found), _text.ancestors_text(found))


def _find(engine: Engine, args: FindArgs) -> ToolOutput:
    found = engine.find(
        root=Target(node_id=args.root_node_id) if args.root_node_id is not None else None,
        locator=args.locator,
        type_name=args.type_name,
        name=args.name,
        automation_id=args.automation_id,
        text=args.text,
        property_conditions=args.property_conditions,
        tree_type=args.tree_type,
        max_results=args.max_results,
    )
    return ToolOutput(found, _text.find_text(found))


def _inspect(engine: Engine, args: _TargetArgs) -> ToolOutput:
    info = engine.inspect(args.target())
    return ToolOutput(info, _text.inspect_text(info))


def _generate_locator(engine: Engine, args: _TargetArgs) -> ToolOutput:
    found = engine.generate_locator(args.target())
    return ToolOutput(found, _text.generated_locator_text(found))


def _properties(engine: Engine, args: PropertiesArgs) -> ToolOutput:
    page = engine.properties(
        args.target(),
        filter=args.filter,
        category=args.category,
        include_defaults=args.include_defaults,
        cursor=args.cursor,
        take=args.take,
    )
    return ToolOutput(page, _text.property_page_text(page))


def _screenshot(engine: Engine, args: _TargetArgs) -> ToolOutput:
    shot = engine.screenshot(args.optional_target())
    info = ScreenshotInfo(node_id=shot.node_id, width=shot.width, height=shot.height)
    return ToolOutput(info, info.model_dump_json(by_alias=True), png=shot.png)


def _binding_info(engine: Engine, args: BindingInfoArgs) -> ToolOutput:
    info = engine.binding_info(args.target(), args.property_name)
    return ToolOutput(info, _text.binding_text(info))


def _resources(engine: Engine, args: ResourcesArgs) -> ToolOutput:
    page = engine.resources(args.optional_target(), resource_key=args.resource_key, cursor=args.cursor, take=args.take)
    return ToolOutput(page, _text.resource_page_text(page))


def _triggers(engine: Engine, args: _TargetArgs) -> ToolOutput:
    found = engine.triggers(args.target())
    return ToolOutput(found, _text.triggers_text(found))


def _behaviors(engine: Engine, args: _TargetArgs) -> ToolOutput:
    found = engine.behaviors(args.target())
    return ToolOutput(found, _text.behaviors_text(found))


def _diagnostics(engine: Engine, args: DiagnosticsArgs) -> ToolOutput:
    page = engine.diagnostics(
        args.optional_target(), providers=args.providers, min_level=args.min_level, cursor=args.cursor, take=args.take
    )
    return ToolOutput(page, _text.diagnostics_text(page))


def _app_events(engine: Engine, args: AppEventsArgs) -> ToolOutput:
    found = engine.app_events(args.since_seq)
    return ToolOutput(found, _text.app_events_text(found))


def _click(engine: Engine, args: ClickArgs) -> ToolOutput:
    result = engine.driver.click(args.target(), mode=args.mode, button=args.button, click_count=args.click_count)
    return ToolOutput(result, _text.action_text(result))


def _type_text(engine: Engine, args: TypeTextArgs) -> ToolOutput:
    result = engine.driver.type_text(args.target(), args.text, replace=args.replace, mode=args.mode)
    return ToolOutput(result, _text.action_text(result))


def _send_keys(engine: Engine, args: SendKeysArgs) -> ToolOutput:
    result = engine.driver.send_keys(args.optional_target(), args.keys, mode=args.mode)
    return ToolOutput(result, _text.action_text(result))


def _select(engine: Engine, args: SelectArgs) -> ToolOutput:
    result = engine.driver.select(args.target(), item=args.item, index=args.index)
    return ToolOutput(result, _text.action_text(result))


def _toggle(engine: Engine, args: ToggleArgs) -> ToolOutput:
    result = engine.driver.toggle(args.target(), state=args.state)
    return ToolOutput(result, _text.action_text(result))


def _focus(engine: Engine, args: _TargetArgs) -> ToolOutput:
    result = engine.driver.focus(args.target())
    return ToolOutput(result, _text.action_text(result))


def _wait_for(engine: Engine, args: WaitForArgs) -> ToolOutput:
    result = engine.driver.wait_for(
        args.target(), args.condition, property=args.property, value=args.value, timeout_ms=args.timeout_ms
    )
    return ToolOutput(result, _text.wait_text(result))


def _set_property(engine: Engine, args: SetPropertyArgs) -> ToolOutput:
    result = engine.driver.set_property(args.target(), args.property_name, args.value)
    return ToolOutput(result, _text.set_property_text(result))


_ACTION_NOTE = (
    " Returns what changed: the element's state before and after (text, checked, selection, enabled, "
    "focus), the windows that opened or closed, and where focus went; completed=false means the app "
    "opened a modal dialog and is waiting in it. redo: the scenario step and Python line that do it "
    "again, with the most stable locator that is unique now."
)


def interact_tools() -> list[ToolSpec]:
    """The interact tier: input and waits."""
    return [
        ToolSpec(
            "wpf_click", "interact", "Click",
            "Click an element like a user: a button, menu item (by locator, or by its path as "
            "menu:File/Save As), check box, list item, tree node, tab, grid cell or any control. Disabled, hidden, zero-size, covered or "
            "modal-blocked elements are refused with ELEMENT_NOT_INTERACTABLE and the reason." + _ACTION_NOTE,
            ClickArgs, ActionResult, _click, read_only=False,
        ),
        ToolSpec(
            "wpf_type_text", "interact", "Type text",
            "Focus a text box and type characters into it (the app's key and text handlers run), "
            "replacing its text unless replace=false. On a grid cell: edit it, type, and commit the row."
            + _ACTION_NOTE,
            TypeTextArgs, ActionResult, _type_text, read_only=False,
        ),
        ToolSpec(
            "wpf_send_keys", "interact", "Send keys",
            "Press keys and shortcuts (Ctrl+S, Enter, Tab, Escape, F5 and the like) on an element or on whatever has "
            "focus." + _ACTION_NOTE,
            SendKeysArgs, ActionResult, _send_keys, read_only=False,
        ),
        ToolSpec(
            "wpf_select", "interact", "Select item",
            "Select an item: on a list, combo box, list view or tab control, the item with that text or "
            "index; on a tree view, the node at a path of texts (item=\"Vegetables/Carrot\"); on an item "
            "itself (a list item, tree node, tab page, grid row or cell), with neither item nor index. An "
            "unknown item lists the available ones." + _ACTION_NOTE,
            SelectArgs, ActionResult, _select, read_only=False,
        ),
        ToolSpec(
            "wpf_toggle", "interact", "Toggle",
            "Check or uncheck a check box, radio button, checkable menu item or checked list item (state), or "
            "flip it. On a tree node: expand (state=true) or collapse it; in a tree with check boxes, check "
            "or uncheck it." + _ACTION_NOTE,
            ToggleArgs, ActionResult, _toggle, read_only=False,
        ),
        ToolSpec(
            "wpf_focus", "interact", "Focus",
            "Give an element keyboard focus." + _ACTION_NOTE,
            _TargetArgs, ActionResult, _focus, read_only=False,
        ),
        ToolSpec(
            "wpf_wait_for", "interact", "Wait for",
            "Wait until an element exists, is gone, visible, hidden, enabled, disabled, has a property "
            "value (propertyEquals) or text matching a regex (textMatches). The locator is re-resolved on "
            "every poll; the UI thread is free between polls. Returns the element; on timeout "
            "OPERATION_TIMED_OUT with the last observed value.",
            WaitForArgs, WaitResult, _wait_for,
        ),
    ]  # fmt: skip


def mutate_tools() -> list[ToolSpec]:
    """The mutate tier: setting properties."""
    return [
        ToolSpec(
            "wpf_set_property", "mutate", "Set property",
            "Set a property from text with a fixed converter table (InvariantCulture; string, bool, numbers, "
            "enums, Thickness/Padding, Color, GridLength, Size, Point, Rect, Visibility, font values); the "
            "app's own converters never run. Returns previousValue and newValue. Errors: PROPERTY_READ_ONLY, "
            "UNSUPPORTED_PROPERTY_TYPE, TYPE_CONVERSION_FAILED (with the expected format), PROPERTY_REDACTED.",
            SetPropertyArgs, SetPropertyResult, _set_property, read_only=False,
        ),
    ]  # fmt: skip


def read_tools(*, tier: Tier) -> list[ToolSpec]:
    """The read tier, in the order an agent would use them."""
    return [
        ToolSpec(
            "wpf_get_session_info", "read", "Session info",
            "Which app this is: name, id, pid, runtime (netfx/coreclr/mono), toolkit (wpf/winforms), "
            "python and wpfprobe versions, the tier (what tools are allowed), windows per UI thread, "
            "and capabilities. Call first.",
            NoArgs, SessionInfo, lambda e, a: _session(e, a, tier=tier),
        ),
        ToolSpec(
            "wpf_get_windows", "read", "Windows",
            "Top-level windows, main window first: nodeId, title, type, screen bounds, visible, active.",
            WindowsArgs, WindowList, _windows,
        ),
        ToolSpec(
            "wpf_get_visual_tree", "read", "Element tree",
            "The tree under an element (default: the main window), maxDepth levels deep (3, at most 10), "
            "visual or logical. One line per node: id Type#name \"text\" states +hiddenChildren @locator. "
            "At most 5000 nodes: `truncated` says the cap was hit, `childrenTruncated` marks cut nodes; "
            "page through a node's children with wpf_get_children.",
            TreeArgs, Tree, _tree,
        ),
        ToolSpec(
            "wpf_get_children", "read", "Children",
            "A page of an element's children (no nodeId: the top-level windows). The cursor keeps the "
            "list as it was on the first page; an expired cursor returns a fresh first page with stale=true.",
            ChildrenArgs, Page[Node], _children,
        ),
        ToolSpec(
            "wpf_get_ancestors", "read", "Ancestors",
            "The element's parents, nearest first, window last, each with its DataContext type.",
            AncestorsArgs, AncestorList, _ancestors,
        ),
        ToolSpec(
            "wpf_find_elements", "read", "Find elements",
            "Search the app (or rootNodeId's subtree) by locator, or by typeName, name, automationId, text "
            "(substring) and property conditions (Equals, Contains, Regex). Returns nodes with their paths.",
            FindArgs, FindResults, _find,
        ),
        ToolSpec(
            "wpf_inspect_element", "read", "Inspect element",
            "One element in detail: type, name, automationId, text, path, a locator that re-finds it, parent, "
            "child count, visible/enabled/focused, screen bounds in pixels, DataContext type, binding errors.",
            _TargetArgs, ElementInfo, _inspect,
        ),
        ToolSpec(
            "wpf_generate_locator", "read", "Generate locator",
            "The locator worth keeping in a test for an element: the most stable one that finds exactly it now "
            "(its name, its automation id, its text inside its nearest named container, its path only as a last "
            "resort), each checked here; with the Python line and every candidate considered (matches, unique).",
            _TargetArgs, GeneratedLocator, _generate_locator,
        ),
        ToolSpec(
            "wpf_get_properties", "read", "Properties",
            "A page of the element's properties sorted by name: value, where it comes from (local, binding, "
            "style, default and the like), data binding and binding errors, read-only. Defaults are left out unless "
            "includeDefaults; filter matches a substring of the name. Secrets show as [REDACTED].",
            PropertiesArgs, Page[Property], _properties,
        ),
        ToolSpec(
            "wpf_capture_screenshot", "read", "Screenshot",
            "A PNG of the element (default: the main window) as it is on screen, with its size.",
            _TargetArgs, ScreenshotInfo, _screenshot,
        ),
        ToolSpec(
            "wpf_get_binding_info", "read", "Binding info",
            "Why a property shows what it shows: the data binding behind it (path, mode, update trigger, "
            "converter, source: ElementName/RelativeSource/Source/DataContext or a WinForms DataSource), whether "
            "the DataContext is null or the WinForms source has no current item, the status (active, path-error, "
            "no-current-item and the like), the error, recent binding errors, the resolved value and the parts of a "
            "MultiBinding/PriorityBinding. A property that is not bound answers isBound=false with its valueSource.",
            BindingInfoArgs, BindingInfo, _binding_info,
        ),
        ToolSpec(
            "wpf_run_diagnostics", "read", "Run diagnostics",
            "Find what is wrong in the UI (or nodeId's subtree), most severe first: binding errors, bindings "
            "whose DataContext is null, unresolved DynamicResources, large lists without virtualization, "
            "zero-size or clipped elements, and on WinForms overlapping controls, tab order against reading "
            "order and inputs without an accessible name. Each finding: provider, level, message, nodeId, a "
            "locator that re-finds the element, path and a suggestion naming what to change. providersRun and "
            "providersNotApplicable say what was checked on this toolkit.",
            DiagnosticsArgs, DiagnosticsPage, _diagnostics,
        ),
        ToolSpec(
            "wpf_get_resources", "read", "Resources",
            "A page of the resource keys an element can see (no element: the Application's), closest first: its "
            "own Resources, its Style's and template's, its ancestors', the window's, the Application's and merged "
            "dictionaries. Each key has its value type, a short value summary, its origin, and effective=false when "
            "a closer definition shadows it (shadowedBy). resourceKey shows one key. WinForms has no resource "
            "dictionaries: supported=false and a note say so.",
            ResourcesArgs, ResourcePage, _resources,
        ),
        ToolSpec(
            "wpf_get_triggers", "read", "Triggers",
            "The element's triggers from its Style (and BasedOn chain), its ControlTemplate and its own Triggers: "
            "type (Trigger, DataTrigger, EventTrigger, MultiTrigger, MultiDataTrigger), source, isActive now "
            "(null when it cannot be evaluated), conditions with the live values they were compared with, and "
            "setters. WinForms has no triggers: supported=false and a note say so.",
            _TargetArgs, TriggerList, _triggers,
        ),
        ToolSpec(
            "wpf_get_behaviors", "read", "Behaviors",
            "Attached behaviors and interaction triggers (Microsoft.Xaml.Behaviors, System.Windows.Interactivity) "
            "on the element: type, assembly and properties. WinForms has none: supported=false and a note say so.",
            _TargetArgs, BehaviorList, _behaviors,
        ),
        ToolSpec(
            "wpf_get_app_events", "read", "App events",
            "What happened in the app since sinceSeq: exceptions that escaped its event handlers (type, message, "
            "stack, time, where caught: thread-exception, dispatcher, appdomain, action) and windows that opened "
            "or closed. Pass nextSeq back as sinceSeq to see only what is new. uiResponsive=false: the UI thread "
            "did not answer within 2 s (it may be hung).",
            AppEventsArgs, AppEvents, _app_events,
        ),
    ]  # fmt: skip


# Tools of the higher tiers, named so that a direct call from a lower tier can
# be refused with the right code rather than "unknown tool".
INTERACT_TOOLS = frozenset(spec.name for spec in interact_tools())
MUTATE_TOOLS = frozenset(spec.name for spec in mutate_tools())


def all_tools(*, tier: Tier) -> list[ToolSpec]:
    """Every tool the tier allows, read tools first."""
    specs = [*read_tools(tier=tier), *interact_tools(), *mutate_tools()]
    return [s for s in specs if tier_allows(tier, s.tier)]


def tier_allows(tier: Tier, needed: Tier) -> bool:
    return TIERS.index(tier) >= TIERS.index(needed)
