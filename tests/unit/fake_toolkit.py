"""A pure-Python toolkit for the engine's unit tests (no CLR).

Elements are plain Python objects forming a tree; ``FakeAdapter`` implements
every method of ``wpfprobe.core.protocol.ToolkitAdapter`` over them. The "UI
thread" is a real ``threading.Thread`` draining a queue (``UiWorker``), so
thread affinity is real: ``FakeUiThread.is_ui_thread`` compares thread idents.
``FakeObjectTable`` hands out ids while holding elements only weakly.

Every property has a counting getter (``FakeProp.calls``), so tests can prove
that a secret's getter never ran.

The input half is programmable per element: ``on_click`` (run by ``click`` on
the UI thread), ``on_action`` (run after every action with its kind),
``checked``/``checkable`` for toggles, ``items``/``selected`` for selectors,
``covered_by`` and ``read_only`` for blockers. ``UiWorker.pump_until`` runs a
nested message loop from inside a handler (a modal dialog), and ``FakeOsInput``
records OS-mode input. Tests that act must keep the audit log out of the real
home: pass ``ProbeSettings(audit_log=tmp_path / ..., audit_key_file=tmp_path / ...)``
or ``audit=False`` (the default here).
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from wpfprobe.api.probe import Probe
from wpfprobe.core.convert import Converted, EnumSpec
from wpfprobe.core.errors import DispatcherBusyError, ElementNotRenderableError, InvalidArgumentError
from wpfprobe.core.protocol import (
    ActionKind,
    BehaviorDescription,
    BindingDescription,
    BindingErrorRecord,
    Blocker,
    Bounds,
    Capture,
    DiagnosticFacts,
    ElementState,
    InputMode,
    ItemRef,
    KeyChord,
    MayRead,
    MouseButton,
    Naming,
    PlainValue,
    PropertyDescriptor,
    PropertyReading,
    ResourceEntry,
    TreeType,
    TriggerCondition,
    TriggerDescription,
    TriggerSetter,
    Unsupported,
)
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Engine

# -- elements ------------------------------------------------------------------

_RUNTIME_TYPES: dict[type, str] = {
    str: "System.String",
    bool: "System.Boolean",
    int: "System.Int32",
    float: "System.Double",
}

#: The property holding each element type's visible text (WPF-like names).
TEXT_PROPERTIES: dict[str, tuple[str, str]] = {
    "Window": ("Title", "System.String"),
    "Button": ("Content", "System.Object"),
    "CheckBox": ("Content", "System.Object"),
    "Label": ("Content", "System.Object"),
    "ListBoxItem": ("Content", "System.Object"),
    "TextBox": ("Text", "System.String"),
    "TextBlock": ("Text", "System.String"),
    "PasswordBox": ("Password", "System.String"),
    "MenuItem": ("Header", "System.Object"),
    "RadioButton": ("Content", "System.Object"),
    "ComboBoxItem": ("Content", "System.Object"),
    "TabItem": ("Header", "System.Object"),
    "TreeViewItem": ("Header", "System.Object"),
}


class FakeProp:
    """One property of one element. ``calls`` counts how often its getter ran."""

    def __init__(
        self,
        name: str,
        type_name: str = "System.String",
        value: Any = None,
        *,
        getter: Callable[[FakeElement], Any] | None = None,
        category: str | None = "Common",
        read_only: bool = False,
        source: str = "local",
        data_bound: bool = False,
        binding_error: str | None = None,
        runtime_type: str | None = None,
        secret: bool = False,
        setter: Callable[[FakeElement, Any], None] | None = None,
        enum_members: dict[str, int] | None = None,
        flags: bool = False,
    ) -> None:
        self.name = name
        self.type_name = type_name
        self.value = value
        self.getter = getter
        self.category = category
        self.read_only = read_only
        self.source = source
        self.data_bound = data_bound
        self.binding_error = binding_error
        self.runtime_type = runtime_type
        self.secret = secret
        self.setter = setter
        self.enum_members = enum_members
        self.flags = flags
        self.calls = 0
        #: Every Converted that set_value stored here, in order.
        self.sets: list[Converted] = []

    def read(self, element: FakeElement) -> Any:
        self.calls += 1
        if isinstance(self.value, Exception):
            raise self.value  # a getter that throws
        return self.getter(element) if self.getter is not None else self.value

    def write(self, element: FakeElement, value: Any) -> None:
        """Store a plain value (through ``setter`` when the value lives on the element)."""
        if self.setter is not None:
            self.setter(element, value)
        else:
            self.value = value
        self.source = "local"

    def descriptor(self, element: FakeElement) -> PropertyDescriptor:
        return PropertyDescriptor(
            name=self.name,
            type_name=self.type_name,
            category=self.category,
            read_only=self.read_only,
            secret=self.secret or (element.password_char and self.name in ("Text", "SelectedText")),
            handle=self,
        )


#: Children added or removed anywhere, as a toolkit's child-added/removed events would count them.
STRUCTURE_CHANGES = [0]


class FakeElement:
    """A UI element. ``visual_only`` elements (template chrome) are skipped by the logical tree;
    ``logical_only`` ones (a closed submenu's items, a collapsed node's children) are not in the
    visual tree: their parent does not list them there and they have no visual parent."""

    def __init__(
        self,
        type_name: str,
        name: str | None = None,
        *,
        automation_id: str | None = None,
        text: str | None = None,
        visible: bool = True,
        enabled: bool = True,
        focused: bool = False,
        namespace: str = "Fake.Controls",
        password_char: bool = False,
        visual_only: bool = False,
        logical_only: bool = False,
        data_context: str | None = None,
        binding_errors: int = 0,
        bounds: Bounds | None = None,
        props: tuple[FakeProp, ...] | list[FakeProp] = (),
        children: tuple[FakeElement, ...] | list[FakeElement] = (),
        common_props: bool = True,
        on_click: Callable[[FakeElement], Any] | None = None,
        on_action: Callable[[FakeElement, str], Any] | None = None,
        checkable: bool | None = None,
        checked: bool | None = False,
        items: list[str] | None = None,
        selected: int = -1,
        covered_by: FakeElement | None = None,
        read_only: bool = False,
    ) -> None:
        self.type_name = type_name
        self.full_type_name = f"{namespace}.{type_name}"
        self.name = name
        self.automation_id = automation_id
        self.text = text
        self.visible = visible
        self.enabled = enabled
        self.focused = focused
        self.password_char = password_char
        self.visual_only = visual_only
        self.logical_only = logical_only
        self.data_context = data_context
        self.binding_errors = binding_errors
        self.bounds: Bounds | None = bounds if bounds is not None else Bounds(10, 20, 100, 30)
        # -- input (all test-programmable; see FakeAdapter's input half) --
        #: Run by FakeAdapter.click on the UI thread, with this element.
        self.on_click = on_click
        #: Run after every action on this element with its kind ("click", "type", ...).
        self.on_action = on_action
        self.checkable = checkable if checkable is not None else type_name in CHECKABLE_TYPES
        self.checked = checked
        #: Item texts of a selector; None: the texts of its children for SELECTOR_TYPES, else not a selector.
        self.items = items
        self.selected = selected
        #: An element on top of this one's click point (blocker "covered").
        self.covered_by = covered_by
        self.read_only = read_only
        #: Chords FakeAdapter.send_keys pressed on this element.
        self.keys: list[KeyChord] = []
        # -- why is my UI wrong (set by tests) --
        #: Data bindings by property name (lower case), as FakeAdapter.binding describes them.
        self.bindings: dict[str, BindingDescription] = {}
        #: Recorded binding errors (FakeAdapter.binding_errors).
        self.error_records: list[BindingErrorRecord] = []
        #: This element's resource dictionary: (key, value) in definition order.
        self.resources: list[tuple[str, Any]] = []
        #: Triggers: FakeTrigger specs evaluated against this element's properties.
        self.triggers: list[FakeTrigger] = []
        #: Attached behaviors: (type name, assembly name, properties).
        self.behaviors: list[tuple[str, str, list[FakeProp]]] = []
        #: DiagnosticFacts fields beyond ``bounds`` (FakeAdapter.diagnostic_facts), set by tests.
        self.facts: dict[str, Any] = {}
        #: Reads that raise for this element: adapter method name -> exception (fault isolation tests).
        self.broken: dict[str, Exception] = {}
        #: Text with "&" access-key markers, as WinForms captions have them.
        self.mnemonic = False
        #: ElementState.selected/expanded of an item; child_total of a virtual list.
        self.item_selected: bool | None = None
        self.expanded: bool | None = None
        self.total_children: int | None = None
        self.disposed = False
        self.parent: FakeElement | None = None
        self.children: list[FakeElement] = []
        self.props: dict[str, FakeProp] = {}
        self.text_prop: FakeProp | None = None
        if type_name in TEXT_PROPERTIES:
            tname, ttype = TEXT_PROPERTIES[type_name]
            self.text_prop = FakeProp(
                tname, ttype, getter=lambda el: el.text, source="local" if text else "default",
                setter=lambda el, v: setattr(el, "text", v),
            )  # fmt: skip
            self.props[tname.lower()] = self.text_prop
        if common_props:
            for prop in (
                FakeProp("Width", "System.Double", 100.0, category="Layout", source="default"),
                FakeProp("Height", "System.Double", 30.0, category="Layout", source="default"),
                FakeProp("ActualWidth", "System.Double", 100.0, category="Layout", read_only=True, source="default"),
                FakeProp(
                    "IsEnabled", "System.Boolean", getter=lambda el: el.enabled,
                    source="default" if enabled else "local", setter=lambda el, v: setattr(el, "enabled", bool(v)),
                ),
                FakeProp(
                    "Visibility", "System.Windows.Visibility",
                    getter=lambda el: "Visible" if el.visible else "Collapsed",
                    category="Appearance", source="default" if visible else "local",
                    setter=lambda el, v: setattr(el, "visible", v in ("Visible", 0)),
                ),
                FakeProp("Name", "System.String", getter=lambda el: el.name or "", source="local" if name else "default"),
                FakeProp("Tag", "System.Object", None, source="default"),
            ):  # fmt: skip
                self.props[prop.name.lower()] = prop
        for prop in props:
            self.props[prop.name.lower()] = prop
        for child in children:
            self.add(child)

    # -- tree editing (done from the test thread while the UI thread is idle) --
    def add(self, child: FakeElement) -> FakeElement:
        child.parent = self
        self.children.append(child)
        STRUCTURE_CHANGES[0] += 1
        return child

    def remove(self, child: FakeElement, *, dispose: bool = False) -> None:
        self.children.remove(child)
        STRUCTURE_CHANGES[0] += 1
        child.parent = None
        if dispose:
            child.dispose()

    def dispose(self) -> None:
        self.disposed = True

    def prop(self, name: str) -> FakeProp:
        return self.props[name.lower()]

    def item_texts(self) -> list[str] | None:
        """The items ``select`` chooses from, or None if this is not a selector."""
        if self.items is not None:
            return self.items
        if self.type_name in SELECTOR_TYPES:
            return [str(kid.text) for kid in self.children]
        return None

    def __repr__(self) -> str:
        ident = f"#{self.name}" if self.name else ""
        return f"<{self.type_name}{ident} {self.text!r}>"


#: Element types that toggle unless told otherwise (``checkable=``).
CHECKABLE_TYPES = frozenset({"CheckBox", "RadioButton", "ToggleButton"})
#: Element types whose children's texts are their items unless ``items=`` is given.
SELECTOR_TYPES = frozenset({"ListBox", "ComboBox", "TabControl", "ListView"})


class FakeTrigger:
    """A trigger whose conditions are (property name, expected value) on the element it applies to."""

    def __init__(
        self,
        kind: str = "Trigger",
        source: str = "style",
        conditions: list[tuple[str, Any]] | None = None,
        setters: list[tuple[str, Any]] | None = None,
    ) -> None:
        self.kind = kind
        self.source = source
        self.conditions = conditions or []
        self.setters = setters or []


class FakeApp:
    def __init__(self, *windows: FakeElement) -> None:
        self.windows: list[FakeElement] = list(windows)
        self.active: FakeElement | None = windows[0] if windows else None
        #: Application resources, then merged dictionaries (each a list of (key, value)), last merged wins.
        self.resources: list[tuple[str, Any]] = []
        self.merged: list[list[tuple[str, Any]]] = []

    def close(self, window: FakeElement) -> None:
        self.windows.remove(window)
        window.dispose()
        if self.active is window:
            self.active = None

    def open(self, window: FakeElement, *, activate: bool = True) -> FakeElement:
        """Show a new top-level window (a dialog), made active unless told otherwise."""
        self.windows.append(window)
        if activate:
            self.active = window
        return window


# -- the adapter ---------------------------------------------------------------


class FakeAdapter:
    """Implements every method of ToolkitAdapter over FakeElements."""

    toolkit = "wpf"
    capabilities = ("tree", "properties", "screenshot")

    def __init__(self, app: FakeApp) -> None:
        self.app = app
        self.calls: dict[str, int] = {}
        #: Every input action performed: (kind, element, arguments, thread ident).
        self.actions: list[tuple[str, Any, dict[str, Any], int]] = []
        #: Every set_value: (element, property name, Converted).
        self.set_values: list[tuple[Any, str, Converted]] = []
        #: Keys whose values resource_summary rendered, and whose values resource_value_type loaded.
        self.summarised: list[str] = []
        self.loaded: list[str] = []
        #: Whether structure_version tells of changes (as WinForms does); off, the engine falls back to census_ttl.
        self.versioned = False
        #: Whether ``walk`` walks (fake_walk.FakeWalk, three elements a slice), as the WinForms adapter does.
        self.walks = False
        self.last_walk: Any = None
        self.last_index_walk: Any = None
        #: Types whose children the fake walk leaves to the engine (as WinForms' walk leaves a tool strip's items).
        self.walk_leaves: tuple[str, ...] = ()

    def _count(self, name: str, element: Any = None) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1
        broken = getattr(element, "broken", None)
        if broken and name in broken:
            raise broken[name]

    def roots(self) -> list[Any]:
        self._count("roots")
        return [w for w in self.app.windows if not w.disposed]

    def children(self, element: Any, tree_type: TreeType) -> list[Any]:
        self._count("children", element)
        if tree_type == "logical":
            out: list[FakeElement] = []
            for kid in element.children:
                out.extend(self.children(kid, "logical") if kid.visual_only else [kid])
            return out
        return [kid for kid in element.children if not kid.logical_only]

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        self._count("parent", element)
        parent = element.parent
        if tree_type == "visual" and element.logical_only:
            return None
        if tree_type == "logical":
            while parent is not None and parent.visual_only:
                parent = parent.parent
        return parent

    def is_alive(self, element: Any) -> bool:
        self._count("is_alive")
        el = element
        while el is not None:
            if el.disposed:
                return False
            el = el.parent
        return True

    def naming(self, element: Any) -> Naming:
        self._count("naming", element)
        return Naming(element.type_name, element.full_type_name, element.name, element.automation_id)

    def state(self, element: Any) -> ElementState:
        self._count("state", element)
        visible, el = True, element
        while el is not None:  # like WPF IsVisible: hidden if any ancestor is hidden
            visible = visible and el.visible
            el = el.parent
        checked = element.checked if element.checkable else None
        return ElementState(visible, element.enabled, element.focused, element.item_selected, checked, element.expanded)

    def bounds(self, element: Any) -> Bounds | None:
        self._count("bounds", element)
        return element.bounds

    def is_active_window(self, element: Any) -> bool:
        self._count("is_active_window")
        return self.app.active is element

    def display_text(self, element: Any, raw: str) -> tuple[str, str | None]:
        self._count("display_text", element)
        if not element.mnemonic:
            return raw, None
        out, key, i = [], None, 0
        while i < len(raw):
            if raw[i] == "&" and i + 1 < len(raw):
                if raw[i + 1] != "&" and key is None:
                    key = raw[i + 1].upper()
                out.append(raw[i + 1])
                i += 2
                continue
            out.append(raw[i])
            i += 1
        return "".join(out), key

    def child_total(self, element: Any) -> int | None:
        self._count("child_total", element)
        return element.total_children

    def walk(self, root: Any, *, objects: Any, max_depth: int, cap: int, watch: bool = False) -> Any:
        # The name index's walk (watch) is counted apart from a snapshot's.
        self._count("index_walk" if watch else "walk")
        if not self.walks:
            return None  # the engine's own reads: the fake toolkit is their test bed
        from fake_walk import FakeWalk

        made = FakeWalk(
            self, root, objects, max_depth=max_depth, cap=cap, per_slice=3, watch=watch, leaves=self.walk_leaves
        )
        if watch:
            self.last_index_walk = made
        else:
            self.last_walk = made
        return made

    def structure_version(self) -> int | None:
        self._count("structure_version")
        return STRUCTURE_CHANGES[0] if self.versioned else None

    def watch_structure(self, element: Any) -> bool:
        self._count("watch_structure", element)
        return self.versioned

    def error_identity(self, error: BaseException) -> tuple[str, str]:
        return type(error).__name__, str(error)

    def is_template_part(self, element: Any) -> bool:
        self._count("is_template_part")
        return bool(element.visual_only)

    def text_property(self, element: Any) -> PropertyDescriptor | None:
        self._count("text_property", element)
        return element.text_prop.descriptor(element) if element.text_prop is not None else None

    def properties(self, element: Any) -> list[PropertyDescriptor]:
        self._count("properties", element)
        return [p.descriptor(element) for p in element.props.values()]

    def find_property(self, element: Any, name: str) -> PropertyDescriptor | None:
        self._count("find_property")
        prop = element.props.get(name.lower())
        return prop.descriptor(element) if prop is not None else None

    def read_property(self, element: Any, prop: PropertyDescriptor) -> PropertyReading:
        self._count("read_property", element)
        fake: FakeProp = prop.handle
        value = fake.read(element)
        runtime = fake.runtime_type or (_RUNTIME_TYPES.get(type(value)) if value is not None else None)
        return PropertyReading(
            value=value,
            value_type_name=runtime,
            value_source=fake.source,
            is_locally_set=fake.source == "local",
            is_data_bound=fake.data_bound,
            binding_error=fake.binding_error,
        )

    def data_context_type(self, element: Any) -> str | None:
        self._count("data_context_type")
        el = element
        while el is not None:  # inherited, as in WPF
            if el.data_context is not None:
                return str(el.data_context)
            el = el.parent
        return None

    def binding_error_count(self, element: Any) -> int:
        self._count("binding_error_count")
        return int(element.binding_errors)

    def diagnostic_facts(self, element: Any, memo: dict[Any, Any]) -> DiagnosticFacts:
        self._count("diagnostic_facts")
        return DiagnosticFacts(bounds=element.bounds, **element.facts)

    # -- why is my UI wrong --------------------------------------------------

    def _extras(self) -> Unsupported | None:
        return None if self.toolkit == "wpf" else Unsupported(f"{self.toolkit} has none of these")

    def bindings(self, element: Any) -> list[BindingDescription]:
        self._count("bindings")
        return list(element.bindings.values())

    def binding(self, element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
        self._count("binding")
        return element.bindings.get(prop.name.lower())

    def binding_errors(self, element: Any) -> list[BindingErrorRecord]:
        self._count("binding_errors")
        return list(element.error_records)

    def resources(self, element: Any | None) -> list[ResourceEntry] | Unsupported:
        self._count("resources")
        unsupported = self._extras()
        if unsupported is not None:
            return unsupported
        out: list[ResourceEntry] = []

        def add(pairs: list[tuple[str, Any]], origin: str, kind: str, owner: Any) -> None:
            for key, value in pairs:
                type_name = getattr(value, "net_type", None) or (
                    _RUNTIME_TYPES.get(type(value), type(value).__name__) if value is not None else None
                )
                # Like WPF, the value's type is only known once the value is loaded.
                out.append(ResourceEntry(key, f"s:{key}", None, origin, kind, owner, (key, value, type_name)))

        el = element
        while el is not None:
            kind = "element" if el is element else ("window" if el.parent is None else "ancestor")
            add(el.resources, f"{el.type_name}#{el.name or ''} Resources", kind, el)
            el = el.parent
        add(self.app.resources, "Application Resources", "application", None)
        for i, merged in reversed(list(enumerate(self.app.merged))):
            add(merged, f"Application merged dictionary {i}", "merged", None)
        return out

    def resource_value_type(self, entry: ResourceEntry) -> str | None:
        self._count("resource_value_type")
        self.loaded.append(entry.key)
        type_name: str | None = entry.handle[2]
        return type_name

    def resource_summary(self, entry: ResourceEntry) -> PlainValue:
        self._count("resource_summary")
        self.summarised.append(entry.key)
        value = entry.handle[1]
        return value if isinstance(value, (str, int, float, bool)) or value is None else repr(value)

    def triggers(self, element: Any, may_read: MayRead) -> list[TriggerDescription] | Unsupported:
        self._count("triggers")
        unsupported = self._extras()
        if unsupported is not None:
            return unsupported
        out = []
        for spec in element.triggers:
            conditions = []
            for name, expected in spec.conditions:
                fake = element.props.get(name.lower())
                if fake is None:
                    conditions.append(TriggerCondition(name, None, expected, note="no such property"))
                elif not may_read(fake.descriptor(element)):
                    conditions.append(TriggerCondition(name, None, expected, redacted=True))
                else:
                    current = fake.read(element)
                    conditions.append(TriggerCondition(name, None, expected, current, current == expected))
            met = [c.met for c in conditions]
            active = None if None in met or not met else all(met)
            setters = tuple(TriggerSetter(p, v) for p, v in spec.setters)
            out.append(
                TriggerDescription(spec.kind, spec.source, f"fake {spec.source}", active, tuple(conditions), setters)
            )
        return out

    def behaviors(self, element: Any, may_read: MayRead) -> list[BehaviorDescription] | Unsupported:
        self._count("behaviors")
        unsupported = self._extras()
        if unsupported is not None:
            return unsupported
        out = []
        for type_name, assembly, props in element.behaviors:
            values = tuple(
                (p.name, p.read(element) if may_read(p.descriptor(element)) else "[REDACTED]") for p in props
            )
            out.append(BehaviorDescription("behavior", type_name, assembly, values))
        return out

    def capture(self, element: Any) -> Capture:
        self._count("capture")
        if not self.state(element).visible:
            raise ElementNotRenderableError("The element is hidden.", suggestion="Capture a visible element.")
        # 2x2 BGRA: blue, green / red, white.
        data = bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255])
        return Capture(2, 2, "BGRA", data, 8)

    # -- input (interact tier) ---------------------------------------------

    def action_state(self, element: Any) -> dict[str, PlainValue]:
        self._count("action_state")
        state: dict[str, PlainValue] = {}
        if element.item_selected is not None:
            state["selected"] = element.item_selected
        if element.checkable:
            state["checked"] = element.checked
        items = element.item_texts()
        if items is not None:
            state["selectedIndex"] = element.selected
            state["selectedItem"] = items[element.selected] if 0 <= element.selected < len(items) else None
        return state

    def blocker(self, element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        """Like the WPF adapter's: unsupported, hidden, disabled, zero-size, read-only, then the pointer."""
        self._count("blocker")
        if action == "set":
            return None
        if action == "select" and element.item_texts() is None and element.item_selected is None:
            return Blocker("unsupported", f"A {element.type_name} has no items to select.")
        if action == "toggle" and not element.checkable:
            return Blocker("unsupported", f"A {element.type_name} cannot be checked.")
        if not self.state(element).visible:
            return Blocker("hidden", "It, or an element it is in, is collapsed or hidden.")
        el = element
        while el is not None:
            if not el.enabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
            el = el.parent
        if element.bounds is not None and (element.bounds.width <= 0 or element.bounds.height <= 0):
            return Blocker("zero-size", f"Its size is {element.bounds.width} x {element.bounds.height}.")
        if action == "type" and element.read_only:
            return Blocker("read-only", "It is a read-only text box.")
        if mode == "os" or action == "click":
            if mode == "os" and self.click_point(element) is None:
                return Blocker("offscreen", "It has no point on screen to click.")
            if element.covered_by is not None:
                return Blocker("covered", f"{element.covered_by!r} is on top of its centre.", element.covered_by)
        return None

    def click_point(self, element: Any) -> tuple[int, int] | None:
        self._count("click_point")
        b = element.bounds
        if b is None or b.width <= 0 or b.height <= 0 or not self.state(element).visible:
            return None
        return b.x + b.width // 2, b.y + b.height // 2

    def focused_element(self) -> Any | None:
        self._count("focused_element")
        for window in self.roots():
            for el in iter_elements(window):
                if el.focused:
                    return el
        return None

    def _record(self, kind: str, element: Any, **args: Any) -> None:
        self.actions.append((kind, element, args, threading.get_ident()))

    def _done(self, element: Any, kind: str) -> None:
        if element is not None and element.on_action is not None:
            element.on_action(element, kind)

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        self._count("click")
        self._record("click", element, button=button, count=count)
        if element.on_click is not None:
            element.on_click(element)
        self._done(element, "click")

    def type_text(self, element: Any, text: str, *, replace: bool) -> None:
        self._count("type_text")
        self._record("type", element, text=text, replace=replace)
        self._move_focus(element)
        element.text = text if replace else (element.text or "") + text
        self._done(element, "type")

    def send_keys(self, element: Any | None, chords: tuple[KeyChord, ...]) -> None:
        self._count("send_keys")
        self._record("keys", element, chords=chords)
        if element is not None:
            self._move_focus(element)
        target = element if element is not None else self.focused_element()
        if target is not None:
            target.keys.extend(chords)
        self._done(target, "keys")

    def select(self, element: Any, *, item: str | None, index: int | None) -> None:
        self._count("select")
        self._record("select", element, item=item, index=index)
        if item is None and index is None:
            # An item selected by itself: it becomes its list's selection.
            owner = element.parent
            for sibling in owner.children:
                sibling.item_selected = sibling is element
            owner.selected = owner.children.index(element)
            self._done(element, "select")
            return
        items = element.item_texts() or []
        if item is not None:
            if item not in items:
                raise InvalidArgumentError(
                    f"{element.type_name} has no item {item!r}.",
                    suggestion="Pass the text of one of its items.",
                    detail={"itemCount": len(items)},
                )
            element.selected = items.index(item)
        else:
            assert index is not None
            if not 0 <= index < len(items):
                raise InvalidArgumentError(
                    f"index {index} is out of range: {element.type_name} has {len(items)} items.",
                    detail={"itemCount": len(items)},
                )
            element.selected = index
        self._done(element, "select")

    def toggle(self, element: Any, *, state: bool | None) -> None:
        self._count("toggle")
        self._record("toggle", element, state=state)
        element.checked = (not element.checked) if state is None else state
        self._done(element, "toggle")

    def focus(self, element: Any) -> None:
        self._count("focus")
        self._record("focus", element)
        self._move_focus(element)
        self._done(element, "focus")

    def _move_focus(self, element: Any) -> None:
        for window in self.roots():
            for el in iter_elements(window):
                el.focused = False
        element.focused = True

    # -- mutation (mutate tier) ----------------------------------------------

    def enum_spec(self, prop: PropertyDescriptor) -> EnumSpec | None:
        self._count("enum_spec")
        fake: FakeProp = prop.handle
        if fake.enum_members is None:
            return None
        return EnumSpec(tuple(fake.enum_members), tuple(fake.enum_members.values()), fake.flags)

    def set_value(self, element: Any, prop: PropertyDescriptor, value: Converted) -> None:
        self._count("set_value")
        fake: FakeProp = prop.handle
        self.set_values.append((element, prop.name, value))
        fake.sets.append(value)
        fake.write(element, plain_of(value, fake))


def plain_of(value: Converted, prop: FakeProp | None = None) -> Any:
    """The plain Python value a Converted stands for (an enum as its member name when known)."""
    if value.kind == "null":
        return None
    if value.kind == "enum" and prop is not None and prop.enum_members is not None and not prop.flags:
        by_value = {v: k for k, v in prop.enum_members.items()}
        return by_value.get(int(value.parts[0]), value.parts[0])
    if len(value.parts) == 1:
        return value.parts[0]
    return value.parts


# -- the object table ----------------------------------------------------------


class FakeObjectTable:
    """id -> element through weakrefs, element -> id in a WeakKeyDictionary.

    Nothing here keeps an element alive. When ``ui`` is given, any use off the
    UI thread is recorded in ``off_thread_calls``.
    """

    def __init__(self, ui: Any = None) -> None:
        self._by_id: dict[str, weakref.ref[Any]] = {}
        self._ids: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._counter = itertools.count(1)
        self._ui = ui
        self.off_thread_calls: list[str] = []

    def _check(self, what: str) -> None:
        if self._ui is not None and not self._ui.is_ui_thread():
            self.off_thread_calls.append(what)

    def id_for(self, element: Any) -> str:
        self._check("id_for")
        if isinstance(element, ItemRef):
            return f"{self.id_for(element.owner)}.{element.index}"
        node_id = self._ids.get(element)
        if node_id is None:
            node_id = f"n{next(self._counter)}"
            self._ids[element] = node_id
            by_id = self._by_id
            self._by_id[node_id] = weakref.ref(element, lambda _ref, key=node_id: by_id.pop(key, None))
        return node_id

    def get(self, node_id: str) -> Any | None:
        self._check("get")
        owner_id, dot, index = node_id.rpartition(".")
        if dot:
            owner = self.get(owner_id) if index.isdigit() else None
            return ItemRef(owner, int(index)) if owner is not None else None
        ref = self._by_id.get(node_id)
        return ref() if ref is not None else None

    def __len__(self) -> int:
        return len(self._by_id)


# -- the UI thread -------------------------------------------------------------

_STOP = object()


class UiWorker:
    """A real thread that runs posted callables one at a time, like a dispatcher."""

    def __init__(self, name: str = "fake-ui-thread") -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._ready = threading.Event()
        self.ident: int | None = None
        self.errors: list[str] = []
        self.executed = 0
        #: How many nested loops (pump_until) are running right now.
        self.nesting = 0

    def start(self) -> UiWorker:
        self._thread.start()
        assert self._ready.wait(5), "the fake UI thread did not start"
        return self

    def _loop(self) -> None:
        self.ident = threading.get_ident()
        self._ready.set()
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            self._execute(item)
            item = None  # hold nothing between calls

    def _execute(self, item: Callable[[], Any]) -> None:
        try:
            item()
        except BaseException as exc:
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            self.executed += 1

    def pump_until(self, done: threading.Event, timeout: float = 10.0) -> bool:
        """Run queued callables from inside a running one until ``done`` is set: a nested loop.

        Models a modal dialog (ShowDialog, a message box): the handler that opened
        it does not return, yet the thread keeps taking messages. Call it only on
        this worker's thread. Returns False on timeout or when the worker is being
        stopped (the stop request stays queued for the outer loop).
        """
        assert self.is_current(), "pump_until runs only on the fake UI thread"
        self.nesting += 1
        try:
            deadline = time.monotonic() + timeout
            while not done.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                try:
                    item = self._queue.get(timeout=min(remaining, 0.02))
                except queue.Empty:
                    continue
                if item is _STOP:
                    self._queue.put(_STOP)
                    return False
                self._execute(item)
                item = None
            return True
        finally:
            self.nesting -= 1

    def post(self, fn: Callable[[], Any]) -> None:
        self._queue.put(fn)

    def is_current(self) -> bool:
        return threading.get_ident() == self.ident

    def stop(self) -> None:
        self._queue.put(_STOP)
        self._thread.join(5)


class FakeUiThread:
    """The UiThread protocol over a UiWorker: run() executes on the worker and waits."""

    def __init__(self, worker: UiWorker, *, default_timeout: float = 5.0) -> None:
        self.worker = worker
        self.default_timeout = default_timeout
        self.runs = 0
        self.posts = 0
        #: What posted callables raised: dropped like the real UiThread.post does, kept here for tests.
        self.dropped: list[BaseException] = []
        self.closed = False

    @property
    def thread_id(self) -> int | None:
        return self.worker.ident

    def is_ui_thread(self) -> bool:
        return threading.get_ident() == self.worker.ident

    def run(self, fn: Callable[[], Any], *, timeout: float | None = None) -> Any:
        self.runs += 1
        if self.is_ui_thread():
            return fn()
        box: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

        def call() -> None:
            try:
                box.put((True, fn()))
            except BaseException as exc:
                box.put((False, exc))

        self.worker.post(call)
        wait = self.default_timeout if timeout is None else timeout
        try:
            ok, value = box.get(timeout=wait)
        except queue.Empty:
            raise DispatcherBusyError(f"fake UI thread busy for {wait} s", detail={"timeoutSeconds": wait}) from None
        if ok:
            return value
        raise value

    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` and return at once, even from the UI thread; its exceptions are dropped."""
        self.posts += 1

        def guarded() -> None:
            try:
                fn()
            except BaseException as exc:
                self.dropped.append(exc)

        self.worker.post(guarded)

    def close(self) -> None:
        """The engine stopped (the real one then refuses calls; this one only notes it)."""
        self.closed = True


# -- the demo app ----------------------------------------------------------------

API_KEY = "hunter-api-key"
PASSWORD = "hunter2"
PIN = "hunter-pin"


def connection_panel() -> FakeElement:
    """An element full of secrets and look-alikes; every getter counts."""
    return FakeElement(
        "ConnectionPanel",
        "connection",
        namespace="Demo.Views",
        props=[
            FakeProp("ApiKey", "System.String", API_KEY),
            FakeProp("Title", "System.String", "Production DB"),
            FakeProp("ConnectionString", "System.String", "Server=db;Password=hunter3"),
            FakeProp("TokenizerMode", "System.String", "Fast"),
            FakeProp("Auth", "System.String", "basic"),
            FakeProp("Token", "System.String", "plain-token"),
            FakeProp("SecureBlob", "System.Security.SecureString", "System.Security.SecureString"),
            FakeProp("Login", "System.Net.NetworkCredential", "System.Net.NetworkCredential"),
            FakeProp("Builder", "System.Data.SqlClient.SqlConnectionStringBuilder", "Data Source=db;Password=hunter4"),
            FakeProp("Payload", "System.Object", "hunter-payload", runtime_type="System.Security.SecureString"),
            FakeProp("MinWidth", "System.Double", 0.0, category="Layout", source="default"),
        ],
    )


def build_app() -> FakeApp:
    """The demo app used by most tests.

    MainWindow#mainWindow "Main Window"
      Grid
        StackPanel#toolbar
          Button#saveButton "Save"
          Button#cancelButton "Cancel" (disabled)
          Button "Help"                       (unnamed)
          Button#dup "Dup A"                  (duplicate name)
          Button#dup "Dup B"                  (duplicate name)
          Button automationId=printAuto "Print"
          Button#'odd "one"/x' "Odd"          (a name that needs quoting)
        StackPanel                            (unnamed)
          Label "User name"
          TextBox#userName "alice"
          PasswordBox#passwordBox  (Password = PASSWORD)
          TextBox#pinBox (password char; Text = PIN)
          TextBox#dup "not a button"          (same name as Buttons, other type)
          Label#statusLabel "Status: ready"   (hidden)
          CheckBox#rememberMe "Remember me"
        Border                                (visual only)
          TextBlock "Footer"
    Window#settingsWindow "Settings"
      StackPanel
        ConnectionPanel#connection            (secrets)
        Button#applyButton "Apply"
        Button#okButton "OK"
        Button name=alpha automationId=beta "Alpha"
        Button#beta "Beta"
        ListBox#bigList with 120 ListBoxItem "Item i"
    Window#toolWindow "Tools" (hidden)
      Button#toolButton "Tool"
      Button#okButton "OK"
    """
    E = FakeElement
    main = E(
        "Window", "mainWindow", text="Main Window", data_context="Demo.MainViewModel", binding_errors=2,
        bounds=Bounds(0, 0, 800, 600),
        children=[
            E("Grid", children=[
                E("StackPanel", "toolbar", children=[
                    E("Button", "saveButton", text="Save"),
                    E("Button", "cancelButton", text="Cancel", enabled=False),
                    E("Button", text="Help"),
                    E("Button", "dup", text="Dup A"),
                    E("Button", "dup", text="Dup B"),
                    E("Button", automation_id="printAuto", text="Print"),
                    E("Button", 'odd "one"/x', text="Odd"),
                ]),
                E("StackPanel", children=[
                    E("Label", text="User name"),
                    E("TextBox", "userName", text="alice", focused=True),
                    E("PasswordBox", "passwordBox", text=PASSWORD),
                    E("TextBox", "pinBox", text=PIN, password_char=True),
                    E("TextBox", "dup", text="not a button"),
                    E("Label", "statusLabel", text="Status: ready", visible=False),
                    E("CheckBox", "rememberMe", text="Remember me"),
                ]),
                E("Border", visual_only=True, children=[E("TextBlock", text="Footer")]),
            ]),
        ],
    )  # fmt: skip
    settings = E(
        "Window", "settingsWindow", text="Settings",
        children=[
            E("StackPanel", children=[
                connection_panel(),
                E("Button", "applyButton", text="Apply"),
                E("Button", "okButton", text="OK"),
                E("Button", "alpha", automation_id="beta", text="Alpha"),
                E("Button", "beta", text="Beta"),
                E("ListBox", "bigList", children=[E("ListBoxItem", text=f"Item {i}") for i in range(120)]),
            ]),
        ],
    )  # fmt: skip
    tool = E(
        "Window", "toolWindow", text="Tools", visible=False,
        children=[E("Button", "toolButton", text="Tool"), E("Button", "okButton", text="OK")],
    )  # fmt: skip
    return FakeApp(main, settings, tool)


def find_element(root: FakeElement | FakeApp, predicate: Callable[[FakeElement], bool]) -> FakeElement:
    """The single element under ``root`` for which ``predicate`` holds (test-side, no engine)."""
    found = [el for el in iter_elements(root) if predicate(el)]
    assert len(found) == 1, f"expected one element, found {found}"
    return found[0]


def by_name(root: FakeElement | FakeApp, name: str, type_name: str | None = None) -> FakeElement:
    return find_element(root, lambda el: el.name == name and (type_name is None or el.type_name == type_name))


def by_text(root: FakeElement | FakeApp, text: str) -> FakeElement:
    return find_element(root, lambda el: el.text == text)


def iter_elements(root: FakeElement | FakeApp) -> Iterator[FakeElement]:
    stack = list(reversed(root.windows)) if isinstance(root, FakeApp) else [root]
    while stack:
        el = stack.pop()
        yield el
        stack.extend(reversed(el.children))


# -- OS input ------------------------------------------------------------------


class FakeOsInput:
    """The OsInput protocol, recording calls (made off the UI thread) instead of sending events.

    ``reason`` is what ``available()`` answers (None: available). ``on_click``,
    ``on_type`` and ``on_keys`` let a test model what the OS delivers to the app.
    """

    def __init__(self, reason: str | None = None) -> None:
        self.reason = reason
        self.calls: list[tuple[Any, ...]] = []
        self.threads: list[int] = []
        self.on_click: Callable[[int, int], Any] | None = None
        self.on_type: Callable[[str], Any] | None = None
        self.on_keys: Callable[[Any], Any] | None = None

    def available(self) -> str | None:
        return self.reason

    def click(self, x: int, y: int, *, button: MouseButton = "left", count: int = 1) -> None:
        self.calls.append(("click", x, y, button, count))
        self.threads.append(threading.get_ident())
        if self.on_click is not None:
            self.on_click(x, y)

    def type_text(self, text: str) -> None:
        self.calls.append(("type_text", text))
        self.threads.append(threading.get_ident())
        if self.on_type is not None:
            self.on_type(text)

    def send_keys(self, chords: Any) -> None:
        self.calls.append(("send_keys", tuple(chords)))
        self.threads.append(threading.get_ident())
        if self.on_keys is not None:
            self.on_keys(chords)


# -- wiring ----------------------------------------------------------------------

#: The harness's default: no audit log, so no test writes into the real home.
DEFAULT_SETTINGS = ProbeSettings(audit=False)


class Harness:
    """An app, a UI thread, an object table and an engine wired together.

    Without ``settings`` auditing is off. Settings that audit must name both
    ``audit_log`` and ``audit_key_file`` (in tmp_path): otherwise the first
    audited action fails the test instead of writing into the real home.
    """

    def __init__(
        self,
        app: FakeApp | None = None,
        settings: ProbeSettings | None = None,
        os_input: FakeOsInput | None = None,
    ) -> None:
        self.app = app if app is not None else build_app()
        self.worker = UiWorker().start()
        self.ui = FakeUiThread(self.worker)
        self.objects = FakeObjectTable(ui=self.ui)
        self.adapter = FakeAdapter(self.app)
        self.os_input = os_input
        settings = settings or DEFAULT_SETTINGS
        self.engine = Engine(
            adapter=self.adapter,
            ui=self.ui,
            objects=self.objects,
            settings=settings,
            app_name="Fake Demo",
            same=lambda a, b: a is b,
            os_input=os_input,
        )
        if settings.audit and (settings.audit_log is None or settings.audit_key_file is None):
            self.engine.driver.audit_log = _refuse_home_audit  # type: ignore[method-assign]
        self.probe = Probe(self.engine)

    def close(self) -> None:
        self.worker.stop()
        self.engine.driver.close()
        assert not self.worker.errors, self.worker.errors

    def id_of(self, element: FakeElement) -> str:
        """The node id the engine gives ``element`` (asked on the UI thread)."""
        return self.ui.run(lambda: self.objects.id_for(element))


def _refuse_home_audit() -> None:
    raise AssertionError(
        "This test audits into the real home: pass ProbeSettings(audit_log=tmp_path / ..., "
        "audit_key_file=tmp_path / ...) or audit=False."
    )


@contextlib.contextmanager
def harness(
    app: FakeApp | None = None, settings: ProbeSettings | None = None, os_input: FakeOsInput | None = None
) -> Iterator[Harness]:
    h = Harness(app, settings, os_input)
    try:
        yield h
    finally:
        h.close()


@pytest.fixture
def fake() -> Iterator[Harness]:
    with harness() as h:
        yield h
