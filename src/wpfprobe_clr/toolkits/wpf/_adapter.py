"""WpfAdapter, assembled from one mixin per concern, and how the engine connects to a WPF app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from System import Action

from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe.core.protocol import ObjectTable, Toolkit, Walk
from wpfprobe_clr._hooks import take_off_left
from wpfprobe_clr._ui_thread import UiThread
from wpfprobe_clr.toolkits.wpf._actions import _ActionsMixin
from wpfprobe_clr.toolkits.wpf._bindings import _BindingsMixin
from wpfprobe_clr.toolkits.wpf._blockers import _BlockersMixin
from wpfprobe_clr.toolkits.wpf._capture import _CaptureMixin
from wpfprobe_clr.toolkits.wpf._diagnostics import _DiagnosticsMixin
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._mutation import _MutationMixin
from wpfprobe_clr.toolkits.wpf._resources import _ResourcesMixin
from wpfprobe_clr.toolkits.wpf._structure import _StructureMixin
from wpfprobe_clr.toolkits.wpf._triggers import _TriggersMixin
from wpfprobe_clr.toolkits.wpf._walker import can_walk, ready, walking

if _WPF_LOAD_ERROR is None:
    from System.Windows.Threading import Dispatcher, DispatcherOperationStatus, DispatcherPriority


class WpfAdapter(
    # Counting structure changes needs nothing from the others (and comes before them all).
    _StructureMixin,
    # Then: the actions build on the items' reads and the properties (item texts), which
    # therefore come before the mixins that only need the trees (_items before _tree).
    _ActionsMixin,
    _MutationMixin,
    _BindingsMixin,
    _ResourcesMixin,
    _TriggersMixin,
    _DiagnosticsMixin,
    _CaptureMixin,
    _BlockersMixin,
):
    """ToolkitAdapter for one WPF UI thread; every method runs on that thread."""

    toolkit: Toolkit = "wpf"
    capabilities: tuple[str, ...] = (
        "visual-tree",
        "logical-tree",
        "dependency-properties",
        "value-source",
        "bindings",
        "data-context",
        "screenshot",
        "input",
        "set-property",
    )

    def walk(self, root: Any, *, objects: ObjectTable, max_depth: int, cap: int, watch: bool = False) -> Walk | None:
        # ``watch``: WPF counts layout passes once per adapter, and below a shown window every element is
        # watched as it is (``_structure.StructureWatch.watch``): the engine watches the windows themselves.
        registry = getattr(objects, "registry", None)
        if registry is None or not can_walk(root):
            return None  # ids that are not the .NET registry's (a test's table), or no visual to walk from
        if not ready():
            return None  # not compiled (yet): the engine reads this snapshot itself
        prune = getattr(objects, "prune_if_due", None)
        if prune is not None:
            prune()  # walks register ids without asking the table
        return walking(root, registry, max_depth=max_depth, cap=cap)


def connect(app: Any, *, timeout: float) -> tuple[WpfAdapter, UiThread]:
    """The adapter for ``app`` and a UiThread that marshals onto its Dispatcher (from any thread:
    a Dispatcher takes calls from every thread, so nothing is made on the UI thread first)."""
    adapter = WpfAdapter(app)
    dispatcher: Dispatcher = adapter.dispatcher

    def post(call: Callable[[], None]) -> None:
        if dispatcher.HasShutdownStarted or dispatcher.HasShutdownFinished:
            raise AppNotAvailableError(
                "The app's WPF dispatcher has shut down: the app is closing or closed.",
                suggestion="Start the app again, then reconnect.",
            )
        operation = dispatcher.BeginInvoke(DispatcherPriority.Normal, Action(call))
        if str(operation.Status) == str(DispatcherOperationStatus.Aborted):
            # Shutdown won the race with the check above.
            raise AppNotAvailableError(
                "The app's WPF dispatcher refused the call: it is shutting down.",
                suggestion="Start the app again, then reconnect.",
            )

    def check_access() -> bool:
        return bool(dispatcher.CheckAccess())

    ui = UiThread(post=post, check_access=check_access, default_timeout=timeout)
    # First, what an earlier probe's stop left on (its UI thread was busy): one set of handlers.
    ui.post(take_off_left)
    # Once the dispatcher shuts down, calls waiting for it fail at once instead of timing out.
    ui.post(lambda: adapter.on_ui_exit(ui.end))
    return adapter, ui
