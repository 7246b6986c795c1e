"""WinFormsAdapter: the adapter protocol for WinForms, assembled from the modules beside it.

Each method hands its call to the module that owns the concern (tree, properties,
bindings, diagnostics, blockers, actions, capture, ui_loop), so this class reads
as the map of the protocol onto them. It keeps what is per adapter: the app's
main form (weakly: a .NET WeakReference, or the DerivedHandle of a form whose
class is written in Python), the per-type caches, and the handlers it added to
the app's events (``_hooks``), taken off by ``detach`` when the probe stops. The answers for what WinForms does
not have (resources, triggers, behaviors, templates) need no module and are here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wpfprobe.core.convert import Converted, EnumSpec
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
    KeyChord,
    MayRead,
    MouseButton,
    Naming,
    ObjectTable,
    PlainValue,
    PropertyDescriptor,
    PropertyReading,
    ResourceEntry,
    TreeType,
    TriggerDescription,
    UiThread,
    Unsupported,
    Walk,
)
from wpfprobe_clr import _hooks
from wpfprobe_clr._ui_thread import exception_identity
from wpfprobe_clr.net.derived import DerivedHandle, call, handle_of, is_a
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms import (
    actions,
    bindings,
    blockers,
    capture,
    diagnostics,
    items,
    properties,
    structure,
    tree,
    ui_loop,
    walker,
)
from wpfprobe_clr.toolkits.winforms.kinds import KindTable

WF = clr_namespace("System.Windows.Forms")


class WinFormsAdapter:
    toolkit = "winforms"
    capabilities = (
        "tree", "items", "properties", "data-bindings", "binding-errors", "menus", "screenshot", "input", "set-property",
    )  # fmt: skip

    def __init__(self, main: Any) -> None:
        from System import WeakReference  # noqa: PLC0415

        # The app hands its own form over (still alive in Python): from here on it is
        # held only in .NET, so a form whose class is written in Python stays usable.
        main = handle_of(main)
        form = call(main, "FindForm") if not is_a(main, WF.types.Form) and is_a(main, WF.types.Control) else main
        self._main: Any = form if type(form) is DerivedHandle else WeakReference(form)
        self._type_names = tree.TypeNames()
        self._kinds = KindTable()
        self.hooks = _hooks.Hooks()
        self._structure = structure.StructureWatch(self.hooks)
        _hooks.acquire()  # the process's shared hooks (exceptions, bindings), until detach

    def _main_form(self) -> Any | None:
        if type(self._main) is DerivedHandle:
            return self._main if self._main.alive else None
        return self._main.Target

    # -- tree ------------------------------------------------------------
    def roots(self) -> list[Any]:
        return tree.roots(self._main_form())

    def children(self, element: Any, tree_type: TreeType) -> list[Any]:
        return tree.children(element)  # one tree: visual and logical are the same

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        return tree.parent(element)

    def is_alive(self, element: Any) -> bool:
        return tree.is_alive(element)

    def naming(self, element: Any) -> Naming:
        return tree.naming(element, self._type_names)

    def state(self, element: Any) -> ElementState:
        return tree.state(element)

    def bounds(self, element: Any) -> Bounds | None:
        return tree.bounds(element)

    def is_active_window(self, element: Any) -> bool:
        return tree.is_active_window(element)

    def is_template_part(self, element: Any) -> bool:
        return False  # WinForms has no templates: every control is the app's own

    def display_text(self, element: Any, raw: str) -> tuple[str, str | None]:
        return properties.display_text(element, raw)

    def child_total(self, element: Any) -> int | None:
        return items.child_total(element)  # a grid lists the rows in view

    def structure_version(self) -> int | None:
        return self._structure.version()

    def walk(self, root: Any, *, objects: ObjectTable, max_depth: int, cap: int, watch: bool = False) -> Walk | None:
        registry = getattr(objects, "registry", None)
        if registry is None or not is_a(root, WF.types.Control):
            return None  # ids that are not the .NET registry's (a test's table), or no control to walk
        if not walker.ready():
            return None  # not compiled (yet): the engine reads this snapshot itself
        prune = getattr(objects, "prune_if_due", None)
        if prune is not None:
            prune()  # walks register ids without asking the table
        return walker.walking(
            root, registry, max_depth=max_depth, cap=cap, watch=self._structure.for_walk() if watch else None
        )

    def watch_structure(self, element: Any) -> bool:
        return self._structure.watch(element)

    def error_identity(self, error: BaseException) -> tuple[str, str]:
        return exception_identity(error)

    def on_ui_exit(self, callback: Any) -> None:
        ui_loop.on_ui_exit(callback, self.hooks)

    def request_close(self, then: Callable[[], object] | None = None) -> None:
        ui_loop.request_close(self.hooks, then)

    def detach(self, ui: UiThread, *, timeout: float) -> None:
        """Take off every handler this adapter added to the app's events, and the shared ones if it
        is the last adapter using them (``_hooks``); on the UI thread, waiting ``timeout`` at most."""
        _hooks.take_off([self.hooks, *_hooks.release()], ui, timeout=timeout)

    # -- properties --------------------------------------------------------
    def text_property(self, element: Any) -> PropertyDescriptor | None:
        return properties.text_property(element)

    def properties(self, element: Any) -> list[PropertyDescriptor]:
        return properties.properties(element)

    def find_property(self, element: Any, name: str) -> PropertyDescriptor | None:
        return properties.find_property(element, name)

    def read_property(self, element: Any, prop: PropertyDescriptor) -> PropertyReading:
        return properties.read_property(element, prop)

    def data_context_type(self, element: Any) -> str | None:
        item = items.item_of(element)
        if item is not None:
            return item.data_type(element)  # the data object behind the item (a bound row)
        return bindings.data_context_type(element)

    def binding_error_count(self, element: Any) -> int:
        return len(bindings.binding_errors(element))

    # -- why is my UI wrong ------------------------------------------------
    def bindings(self, element: Any) -> list[BindingDescription]:
        return bindings.bindings(element)

    def binding(self, element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
        return bindings.binding(element, prop)

    def binding_errors(self, element: Any) -> list[BindingErrorRecord]:
        return bindings.binding_errors(element)

    def hook_bindings(self) -> None:
        """Listen to every binding of every open form, so errors are recorded as they happen."""
        bindings.hook_bindings()

    def resources(self, element: Any | None) -> list[ResourceEntry] | Unsupported:
        return Unsupported(
            "WinForms has no resource dictionaries, so there are no resource keys to look up: a control's "
            "look comes from its own properties and the ambient ones (Font, ForeColor, BackColor) it takes "
            "from its parent. Read them with wpf_get_properties."
        )

    def resource_value_type(self, entry: ResourceEntry) -> str | None:
        return None  # never asked: resources() has no entries on WinForms

    def resource_summary(self, entry: ResourceEntry) -> PlainValue:
        return None  # never asked: resources() has no entries on WinForms

    def triggers(self, element: Any, may_read: MayRead) -> list[TriggerDescription] | Unsupported:
        return Unsupported(
            "WinForms has no styles or triggers: property changes come from the app's event handlers. "
            "Read the current values with wpf_get_properties and the data bindings with wpf_get_binding_info."
        )

    def behaviors(self, element: Any, may_read: MayRead) -> list[BehaviorDescription] | Unsupported:
        return Unsupported(
            "WinForms has no attached behaviors: Microsoft.Xaml.Behaviors and System.Windows.Interactivity "
            "are WPF libraries. Behavior in WinForms lives in the app's event handlers."
        )

    # -- diagnostics -------------------------------------------------------
    def diagnostic_facts(self, element: Any, memo: dict[Any, Any]) -> DiagnosticFacts:
        return diagnostics.diagnostic_facts(element, memo, self._kinds)

    # -- input -------------------------------------------------------------
    def action_state(self, element: Any) -> dict[str, PlainValue]:
        return actions.action_state(element)

    def blocker(self, element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        return blockers.blocker(element, action, mode)

    def click_point(self, element: Any) -> tuple[int, int] | None:
        return tree.click_point(element)

    def focused_element(self) -> Any | None:
        return actions.focused_element(self._main_form())

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        actions.click(element, button=button, count=count)

    def type_text(self, element: Any, text: str, *, replace: bool) -> None:
        actions.type_text(element, text, replace=replace)

    def send_keys(self, element: Any | None, chords: tuple[KeyChord, ...]) -> None:
        actions.send_keys(element, chords, self._main_form())

    def select(self, element: Any, *, item: str | None, index: int | None) -> None:
        actions.select(element, item=item, index=index)

    def toggle(self, element: Any, *, state: bool | None) -> None:
        actions.toggle(element, state=state)

    def focus(self, element: Any) -> None:
        actions.focus(element)

    # -- mutation ----------------------------------------------------------
    def enum_spec(self, prop: PropertyDescriptor) -> EnumSpec | None:
        return properties.enum_spec(prop)

    def set_value(self, element: Any, prop: PropertyDescriptor, value: Converted) -> None:
        properties.set_value(element, prop, value)

    # -- pixels ------------------------------------------------------------
    def capture(self, element: Any) -> Capture:
        return capture.capture(element)
