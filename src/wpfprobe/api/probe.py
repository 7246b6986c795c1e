"""The notebook- and test-friendly face of the engine (SPEC section 1)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.models import (
    ActionResult,
    Ancestor,
    BehaviorList,
    BindingErrorInfo,
    BindingInfo,
    DiagnosticsPage,
    ElementInfo,
    FindingLevel,
    FindResults,
    Node,
    Page,
    Property,
    PropertyCondition,
    ResourcePage,
    Screenshot,
    SessionInfo,
    SetPropertyResult,
    Tree,
    TriggerList,
    WaitResult,
    Window,
)
from wpfprobe.core.protocol import MouseButton, TreeType
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.actions import Condition, Mode
from wpfprobe.engine.engine import Engine, Target
from wpfprobe.engine.locators import Selector, parse_locator

if TYPE_CHECKING:
    from PIL.Image import Image

    from wpfprobe_clr import Connection


def attach(
    app: Any = None,
    *,
    name: str | None = None,
    timeout: float | None = None,
    settings: ProbeSettings | None = None,
) -> Probe:
    """Inspect the live UI of this process, without a server.

    ``app`` is a WPF Application or Window, a WinForms Form, or None to find
    the running UI. Call from any thread: every read hops to the UI thread.
    """
    from wpfprobe_clr import connect  # noqa: PLC0415 - the CLR loads only when asked for

    settings = settings or ProbeSettings.from_env()
    if timeout is not None:
        settings = settings.model_copy(update={"ui_timeout": float(timeout)})
    conn = connect(app, timeout=settings.ui_timeout, test_hooks=settings.test_hooks, first_wait=settings.attach_wait)
    probe = connected(conn, name, settings)
    # A notebook runs `probe = wpfprobe.attach(form)` again and again, dropping the last Probe
    # each time: each one's handlers on the app's events (its structure watch, the UI loop's
    # end) stayed, and ran, for the life of the app. Dropped, a Probe takes them off.
    probe._finalizer = weakref.finalize(probe, _close_dropped, probe.engine)
    probe._finalizer.atexit = False  # the app is ending: nothing to take off, and no UI to wait for
    return probe


def _close_dropped(engine: Engine) -> None:
    """Close a dropped Probe's engine on a thread of its own: the last reference may go on the UI
    thread, inside an event the handlers belong to, or in a collection, where waiting for the UI
    thread would deadlock."""
    threading.Thread(target=engine.close, name="wpfprobe-detach", daemon=True).start()


def connected(conn: Connection, name: str | None, settings: ProbeSettings) -> Probe:
    """The Probe over a connection ``wpfprobe_clr.connect`` made (``wpfprobe.start`` makes it on
    a thread of its own)."""
    engine = Engine(
        adapter=conn.adapter,
        ui=conn.ui,
        objects=conn.objects,
        settings=settings,
        runtime=conn.runtime,
        app_name=name,
        same=conn.same,
        os_input=conn.os_input,
    )
    return Probe(engine)


class Probe:
    """An attached app. Cheap to keep: it holds no UI object strongly.

    ``close()`` (or a ``with`` block) takes the handlers the probe added to the app's events off
    again; a Probe ``attach`` made and then dropped does that by itself. A closed Probe's reads and
    actions raise ``APP_NOT_AVAILABLE``; attach again to go on.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def close(self) -> None:
        """Take the probe's handlers off the app's events (on its UI thread, at most ``ui_timeout``).
        Never raises; a second call does nothing."""
        if self._finalizer is not None:
            self._finalizer.detach()
        self._engine.close()

    def __enter__(self) -> Probe:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def toolkit(self) -> str:
        return str(self._engine.adapter.toolkit)

    def session_info(self) -> SessionInfo:
        return self._engine.session_info()

    def windows(self, *, include_hidden: bool = False) -> list[Window]:
        return self._engine.windows(include_hidden=include_hidden)

    def tree(
        self,
        root: str | Locator | None = None,
        *,
        max_depth: int = 3,
        tree_type: TreeType = "visual",
        include_properties: Sequence[str] | None = None,
    ) -> Tree:
        """A snapshot from ``root`` (a locator, a Locator, or the main window)."""
        target = None if root is None else self._target(root)
        return self._engine.tree(
            target, max_depth=max_depth, tree_type=tree_type, include_properties=include_properties
        )

    def locator(self, selector: str) -> Locator:
        """A lazy query, re-resolved on every use (see docs/locators.md)."""
        return Locator(self, Target(locators=(_checked(selector),)))

    def node(self, node_id: str) -> Locator:
        """A Locator for one node id; it fails with NODE_NOT_FOUND once the element is gone."""
        return Locator(self, Target(node_id=node_id))

    def children(
        self,
        node_id: str | None = None,
        *,
        tree_type: TreeType = "visual",
        cursor: str | None = None,
        take: int = 50,
    ) -> Page[Node]:
        return self._engine.children(node_id, tree_type=tree_type, cursor=cursor, take=take)

    def find(
        self,
        locator: str | None = None,
        *,
        root: str | Locator | None = None,
        type_name: str | None = None,
        name: str | None = None,
        automation_id: str | None = None,
        text: str | None = None,
        property_conditions: Sequence[PropertyCondition | dict[str, Any]] = (),
        tree_type: TreeType = "visual",
        max_results: int = 20,
    ) -> FindResults:
        return self._engine.find(
            root=None if root is None else self._target(root),
            locator=locator,
            type_name=type_name,
            name=name,
            automation_id=automation_id,
            text=text,
            property_conditions=property_conditions,
            tree_type=tree_type,
            max_results=max_results,
        )

    def screenshot(self) -> Image:
        """The main window as a PIL image."""
        return cast("Image", self._engine.screenshot().image())

    def diagnostics(
        self,
        *,
        root: str | Locator | None = None,
        providers: Sequence[str] | None = None,
        min_level: FindingLevel = "info",
        cursor: str | None = None,
        take: int = 50,
    ) -> DiagnosticsPage:
        """Problems found in every window (or under ``root``), most severe first (see docs/diagnostics.md).

        ``providers`` picks checks by name (default all); ``min_level`` leaves
        out findings below it; follow ``next_cursor`` for more than ``take``.
        """
        return self._engine.diagnostics(
            None if root is None else self._target(root),
            providers=providers, min_level=min_level, cursor=cursor, take=take,
        )  # fmt: skip

    def wait_for(
        self,
        target: str | Locator,
        condition: Condition = "exists",
        *,
        property: str | None = None,  # noqa: A002 - mirrors the MCP tool
        value: str | None = None,
        timeout: float = 5.0,
    ) -> WaitResult:
        """Wait until ``condition`` holds for ``target``, re-resolving it on every poll.

        Raises OperationTimedOutError (OPERATION_TIMED_OUT) with the last
        observed value when ``timeout`` seconds pass first.
        """
        return self._engine.driver.wait_for(
            self._target(target), condition, property=property, value=value, timeout_ms=_ms(timeout)
        )

    def send_keys(self, keys: str, *, mode: Mode = "auto") -> ActionResult:
        """Press ``keys`` ("Ctrl+S", "Tab Tab Enter") on whatever has keyboard focus."""
        return self._engine.driver.send_keys(None, keys, mode=mode)

    def resources(
        self,
        root: str | Locator | None = None,
        *,
        resource_key: str | None = None,
        cursor: str | None = None,
        take: int = 50,
    ) -> ResourcePage:
        """Resource keys visible from ``root`` (None: the Application's), closest first.

        On WinForms the page says ``supported=False``: it has no resource dictionaries.
        """
        target = None if root is None else self._target(root)
        return self._engine.resources(target, resource_key=resource_key, cursor=cursor, take=take)

    def _target(self, ref: str | Locator) -> Target:
        if isinstance(ref, Locator):
            return ref.target
        return Target(locators=(_checked(ref),))

    def __repr__(self) -> str:
        return f"<wpfprobe.Probe {self._engine.app_name!r} ({self.toolkit})>"


class Locator:
    """A query for elements, resolved anew each time it is used (like Playwright's)."""

    def __init__(self, probe: Probe, target: Target) -> None:
        self._probe = probe
        self.target = target

    @property
    def _engine(self) -> Engine:
        return self._probe.engine

    # -- refining ----------------------------------------------------------
    def locator(self, selector: str) -> Locator:
        """Elements matching ``selector`` inside the single element this locator finds."""
        if self.target.node_id is not None:
            raise InvalidArgumentError(
                "A node-id locator cannot be refined; use the node's .locator string instead.",
                suggestion="probe.locator(node.locator).locator(...)",
            )
        steps = list(self.target.locators)
        if self.target.nth is not None:
            # Written in the language itself, so the engine needs no special case.
            if not isinstance(parse_locator(steps[-1]), Selector):
                raise InvalidArgumentError(
                    "nth() of a path locator cannot be refined; a path already names one element.",
                    suggestion="Refine the path locator without nth().",
                )
            steps[-1] = f"{steps[-1]}:nth({self.target.nth})"
        return Locator(self._probe, Target(locators=(*steps, _checked(selector))))

    def nth(self, index: int) -> Locator:
        if isinstance(index, bool) or not isinstance(index, int):
            raise InvalidArgumentError("nth takes an integer.")
        return Locator(self._probe, Target(node_id=self.target.node_id, locators=self.target.locators, nth=index))

    @property
    def first(self) -> Locator:
        return self.nth(0)

    @property
    def last(self) -> Locator:
        return self.nth(-1)

    # -- querying ----------------------------------------------------------
    def count(self) -> int:
        return self._engine.count(self.target)

    def exists(self) -> bool:
        return self.count() > 0

    def all(self) -> list[Locator]:
        """One node-id Locator per current match."""
        return [self._probe.node(i) for i in self._engine.resolve_ids(self.target)]

    def node(self) -> Node:
        return self._engine.node(self.target)

    def inspect(self) -> ElementInfo:
        return self._engine.inspect(self.target)

    def properties(
        self,
        *,
        filter: str | None = None,  # noqa: A002 - mirrors the MCP tool
        category: str | None = None,
        include_defaults: bool | None = None,
        cursor: str | None = None,
        take: int = 100,
    ) -> Page[Property]:
        return self._engine.properties(
            self.target, filter=filter, category=category, include_defaults=include_defaults, cursor=cursor, take=take
        )

    def property(self, name: str) -> Property:
        return self._engine.property(self.target, name)

    def binding_info(self, property_name: str) -> BindingInfo:
        """The binding behind ``property_name`` (``is_bound=False`` if there is none)."""
        return self._engine.binding_info(self.target, property_name)

    def bindings(self) -> list[BindingInfo]:
        """Every data-bound property of the element, with status, errors and resolved values."""
        return self._engine.bindings(self.target)

    def binding_errors(self) -> list[BindingErrorInfo]:
        """Binding errors recorded for the element while the app ran, and those it is in now."""
        return self._engine.binding_errors(self.target)

    def resources(self, *, resource_key: str | None = None, cursor: str | None = None, take: int = 50) -> ResourcePage:
        """Resource keys this element can see, closest first, effective or shadowed."""
        return self._engine.resources(self.target, resource_key=resource_key, cursor=cursor, take=take)

    def triggers(self) -> TriggerList:
        """Triggers from the element's style, template and own Triggers, evaluated now."""
        return self._engine.triggers(self.target)

    def behaviors(self) -> BehaviorList:
        """Attached behaviors and interaction triggers of the element."""
        return self._engine.behaviors(self.target)

    def tree(
        self, *, max_depth: int = 3, tree_type: TreeType = "visual", include_properties: Sequence[str] | None = None
    ) -> Tree:
        return self._engine.tree(
            self.target, max_depth=max_depth, tree_type=tree_type, include_properties=include_properties
        )

    def ancestors(self, *, max_levels: int | None = None) -> list[Ancestor]:
        return self._engine.ancestors(self.target, max_levels=max_levels)

    def screenshot(self) -> Image:
        return cast("Image", self._engine.screenshot(self.target).image())

    def screenshot_png(self) -> Screenshot:
        return self._engine.screenshot(self.target)

    def diagnostics(
        self,
        *,
        providers: Sequence[str] | None = None,
        min_level: FindingLevel = "info",
        cursor: str | None = None,
        take: int = 50,
    ) -> DiagnosticsPage:
        """Problems found in the one element this locator finds and its descendants, most severe first."""
        return self._engine.diagnostics(self.target, providers=providers, min_level=min_level, cursor=cursor, take=take)

    # -- acting (what an agent's interact and mutate tools do) ---------------
    def click(self, *, mode: Mode = "auto", button: MouseButton = "left", click_count: int = 1) -> ActionResult:
        """Click the one element this locator finds; the result says what changed."""
        return self._engine.driver.click(self.target, mode=mode, button=button, click_count=click_count)

    def type_text(self, text: str, *, replace: bool = True, mode: Mode = "auto") -> ActionResult:
        """Focus the element and type ``text`` as characters, replacing its text unless ``replace=False``."""
        return self._engine.driver.type_text(self.target, text, replace=replace, mode=mode)

    def send_keys(self, keys: str, *, mode: Mode = "auto") -> ActionResult:
        """Focus the element and press ``keys`` ("Ctrl+S", "Enter", "Shift+Tab")."""
        return self._engine.driver.send_keys(self.target, keys, mode=mode)

    def select(self, item: str | None = None, *, index: int | None = None) -> ActionResult:
        """Select an item of a list, combo box, list view, tab control or tree view (``item`` a path
        such as "Vegetables/Carrot") by its text or index; with neither, select this element, an item."""
        return self._engine.driver.select(self.target, item=item, index=index)

    def toggle(self, state: bool | None = None) -> ActionResult:
        """Check (True), uncheck (False) or flip (None) a check box, radio button or checkable menu item."""
        return self._engine.driver.toggle(self.target, state=state)

    def focus(self) -> ActionResult:
        return self._engine.driver.focus(self.target)

    def set_property(self, name: str, value: str) -> SetPropertyResult:
        """Set a property from text through the fixed converter table (see docs/set-property.md)."""
        return self._engine.driver.set_property(self.target, name, value)

    def wait_for(
        self,
        condition: Condition = "exists",
        *,
        property: str | None = None,  # noqa: A002 - mirrors the MCP tool
        value: str | None = None,
        timeout: float = 5.0,
    ) -> WaitResult:
        """``probe.wait_for(this locator, ...)``."""
        return self._probe.wait_for(self, condition, property=property, value=value, timeout=timeout)

    def __repr__(self) -> str:
        return f"<wpfprobe.Locator {self.target.describe()!r}>"


def _ms(seconds: float) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 60:
        raise InvalidArgumentError("timeout must be a number of seconds from 0 to 60.")
    return round(seconds * 1000)


def _checked(selector: str) -> str:
    parse_locator(selector)  # fail at creation on a malformed locator, not at first use
    return selector
