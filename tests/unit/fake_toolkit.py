"""A pure-Python toolkit for the engine's unit tests (no CLR).

Elements are plain Python objects forming a tree; ``FakeAdapter`` implements
every method of ``wpfprobe._adapter.ToolkitAdapter`` over them. The "UI
thread" is a real ``threading.Thread`` draining a queue (``UiWorker``), so
thread affinity is real: ``FakeUiThread.is_ui_thread`` compares thread idents.
``FakeObjectTable`` hands out ids while holding elements only weakly.

Every property has a counting getter (``FakeProp.calls``), so tests can prove
that a secret's getter never ran.
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from wpfprobe._adapter import (
    Bounds,
    Capture,
    ElementState,
    Naming,
    PropertyDescriptor,
    PropertyReading,
    TreeType,
)
from wpfprobe._api import Probe
from wpfprobe._engine import Engine
from wpfprobe._errors import DispatcherBusyError, ElementNotRenderableError
from wpfprobe._settings import ProbeSettings

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
        self.calls = 0

    def read(self, element: FakeElement) -> Any:
        self.calls += 1
        return self.getter(element) if self.getter is not None else self.value

    def descriptor(self, element: FakeElement) -> PropertyDescriptor:
        return PropertyDescriptor(
            name=self.name,
            type_name=self.type_name,
            category=self.category,
            read_only=self.read_only,
            secret=self.secret or (element.password_char and self.name in ("Text", "SelectedText")),
            handle=self,
        )


class FakeElement:
    """A UI element. ``visual_only`` elements (template chrome) are skipped by the logical tree."""

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
        data_context: str | None = None,
        binding_errors: int = 0,
        bounds: Bounds | None = None,
        props: tuple[FakeProp, ...] | list[FakeProp] = (),
        children: tuple[FakeElement, ...] | list[FakeElement] = (),
        common_props: bool = True,
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
        self.data_context = data_context
        self.binding_errors = binding_errors
        self.bounds = bounds if bounds is not None else Bounds(10, 20, 100, 30)
        self.disposed = False
        self.parent: FakeElement | None = None
        self.children: list[FakeElement] = []
        self.props: dict[str, FakeProp] = {}
        self.text_prop: FakeProp | None = None
        if type_name in TEXT_PROPERTIES:
            tname, ttype = TEXT_PROPERTIES[type_name]
            self.text_prop = FakeProp(
                tname, ttype, getter=lambda el: el.text, source="local" if text else "default"
            )
            self.props[tname.lower()] = self.text_prop
        if common_props:
            for prop in (
                FakeProp("Width", "System.Double", 100.0, category="Layout", source="default"),
                FakeProp("Height", "System.Double", 30.0, category="Layout", source="default"),
                FakeProp("ActualWidth", "System.Double", 100.0, category="Layout", read_only=True, source="default"),
                FakeProp(
                    "IsEnabled", "System.Boolean", getter=lambda el: el.enabled,
                    source="default" if enabled else "local",
                ),
                FakeProp(
                    "Visibility", "System.Windows.Visibility",
                    getter=lambda el: "Visible" if el.visible else "Collapsed",
                    category="Appearance", source="default" if visible else "local",
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
        return child

    def remove(self, child: FakeElement, *, dispose: bool = False) -> None:
        self.children.remove(child)
        child.parent = None
        if dispose:
            child.dispose()

    def dispose(self) -> None:
        self.disposed = True

    def prop(self, name: str) -> FakeProp:
        return self.props[name.lower()]

    def __repr__(self) -> str:
        ident = f"#{self.name}" if self.name else ""
        return f"<{self.type_name}{ident} {self.text!r}>"


class FakeApp:
    def __init__(self, *windows: FakeElement) -> None:
        self.windows: list[FakeElement] = list(windows)
        self.active: FakeElement | None = windows[0] if windows else None

    def close(self, window: FakeElement) -> None:
        self.windows.remove(window)
        window.dispose()
        if self.active is window:
            self.active = None


# -- the adapter ---------------------------------------------------------------


class FakeAdapter:
    """Implements every method of ToolkitAdapter over FakeElements."""

    toolkit = "wpf"
    capabilities = ("tree", "properties", "screenshot")

    def __init__(self, app: FakeApp) -> None:
        self.app = app
        self.calls: dict[str, int] = {}

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def roots(self) -> list[Any]:
        self._count("roots")
        return [w for w in self.app.windows if not w.disposed]

    def children(self, element: Any, tree_type: TreeType) -> list[Any]:
        self._count("children")
        if tree_type == "logical":
            out: list[FakeElement] = []
            for kid in element.children:
                out.extend(self.children(kid, "logical") if kid.visual_only else [kid])
            return out
        return list(element.children)

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        self._count("parent")
        parent = element.parent
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
        self._count("naming")
        return Naming(element.type_name, element.full_type_name, element.name, element.automation_id)

    def state(self, element: Any) -> ElementState:
        self._count("state")
        visible, el = True, element
        while el is not None:  # like WPF IsVisible: hidden if any ancestor is hidden
            visible = visible and el.visible
            el = el.parent
        return ElementState(visible, element.enabled, element.focused)

    def bounds(self, element: Any) -> Bounds | None:
        self._count("bounds")
        return element.bounds

    def is_active_window(self, element: Any) -> bool:
        self._count("is_active_window")
        return self.app.active is element

    def is_template_part(self, element: Any) -> bool:
        self._count("is_template_part")
        return bool(element.visual_only)

    def text_property(self, element: Any) -> PropertyDescriptor | None:
        self._count("text_property")
        return element.text_prop.descriptor(element) if element.text_prop is not None else None

    def properties(self, element: Any) -> list[PropertyDescriptor]:
        self._count("properties")
        return [p.descriptor(element) for p in element.props.values()]

    def find_property(self, element: Any, name: str) -> PropertyDescriptor | None:
        self._count("find_property")
        prop = element.props.get(name.lower())
        return prop.descriptor(element) if prop is not None else None

    def read_property(self, element: Any, prop: PropertyDescriptor) -> PropertyReading:
        self._count("read_property")
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

    def capture(self, element: Any) -> Capture:
        self._count("capture")
        if not self.state(element).visible:
            raise ElementNotRenderableError("The element is hidden.", suggestion="Capture a visible element.")
        # 2x2 BGRA: blue, green / red, white.
        data = bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255])
        return Capture(2, 2, "BGRA", data, 8)


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
        node_id = self._ids.get(element)
        if node_id is None:
            node_id = f"n{next(self._counter)}"
            self._ids[element] = node_id
            by_id = self._by_id
            self._by_id[node_id] = weakref.ref(element, lambda _ref, key=node_id: by_id.pop(key, None))
        return node_id

    def get(self, node_id: str) -> Any | None:
        self._check("get")
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
            try:
                item()
            except BaseException as exc:  # noqa: BLE001 - a posted callable must not kill the loop
                self.errors.append(f"{type(exc).__name__}: {exc}")
            finally:
                self.executed += 1
                item = None  # hold nothing between calls

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
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
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


# -- wiring ----------------------------------------------------------------------


class Harness:
    """An app, a UI thread, an object table and an engine wired together."""

    def __init__(self, app: FakeApp | None = None, settings: ProbeSettings | None = None) -> None:
        self.app = app if app is not None else build_app()
        self.worker = UiWorker().start()
        self.ui = FakeUiThread(self.worker)
        self.objects = FakeObjectTable(ui=self.ui)
        self.adapter = FakeAdapter(self.app)
        self.engine = Engine(
            adapter=self.adapter,
            ui=self.ui,
            objects=self.objects,
            settings=settings or ProbeSettings(),
            app_name="Fake Demo",
            same=lambda a, b: a is b,
        )
        self.probe = Probe(self.engine)

    def close(self) -> None:
        self.worker.stop()
        assert not self.worker.errors, self.worker.errors

    def id_of(self, element: FakeElement) -> str:
        """The node id the engine gives ``element`` (asked on the UI thread)."""
        return self.ui.run(lambda: self.objects.id_for(element))


@contextlib.contextmanager
def harness(app: FakeApp | None = None, settings: ProbeSettings | None = None) -> Iterator[Harness]:
    h = Harness(app, settings)
    try:
        yield h
    finally:
        h.close()


@pytest.fixture
def fake() -> Iterator[Harness]:
    with harness() as h:
        yield h
