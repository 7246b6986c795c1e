"""The base of the WPF adapter: the app, its dispatcher, and the element trees.

``_TreeAdapter`` holds what every part of the adapter needs (the Application
or Window it was given, the Dispatcher of its UI thread) and answers the tree
questions: the root windows, visual and logical children and parents, whether
an element is still alive, and its naming, state and bounds. Every mixin of
``WpfAdapter`` derives from it. The layout box helpers live here too: bounds,
click points and screenshots must agree on them to the pixel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from System import EventHandler, Object, Type

from wpfprobe.core.errors import ClrUnavailableError, InvalidArgumentError
from wpfprobe.core.protocol import Bounds, ElementState, ItemRef, Naming, TreeType, UiThread
from wpfprobe_clr import _exit, _hooks
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.toolkits.wpf._binding_trace import install_binding_trace
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        Application,
        ContentElement,
        DependencyObject,
        DpiScale,
        FrameworkContentElement,
        FrameworkElement,
        LogicalTreeHelper,
        Point,
        PresentationSource,
        Rect,
        Size,
        UIElement,
        UIElement3D,
        Window,
    )
    from System.Windows.Automation import AutomationProperties
    from System.Windows.Media import Matrix, Visual, VisualTreeHelper
    from System.Windows.Media.Media3D import Visual3D
    from System.Windows.Threading import Dispatcher, DispatcherObject, DispatcherPriority

# How many steps a walk up (or along) a tree takes at most: a guard, not a limit real UIs reach.
_MAX_DEPTH = 256


@dataclass(frozen=True, slots=True)
class _Box:
    """The visual whose pixels the user sees, and its layout box in its own DIPs."""

    visual: Visual
    x: float
    y: float
    width: float
    height: float


class _TreeAdapter:
    """The adapter's state and its element trees; every method runs on the app's UI thread."""

    def __init__(self, app: Any) -> None:
        if _WPF_LOAD_ERROR is not None:
            first_line = (str(_WPF_LOAD_ERROR).splitlines() or [type(_WPF_LOAD_ERROR).__name__])[0]
            raise ClrUnavailableError(
                f"WPF assemblies could not be loaded: {first_line}",
                suggestion="WPF needs Windows with .NET Framework 4.6.2+ or the Windows Desktop runtime.",
            )
        self._app: Application | None = None
        self._window: Window | None = None
        if isinstance(app, Application):
            self._app = app
        elif isinstance(app, Window):
            self._window = app
        elif isinstance(app, DependencyObject) and _same_dispatcher(Application.Current, app):
            # Any element of the app's UI thread stands for the whole app.
            self._app = Application.Current
        else:
            raise InvalidArgumentError(
                f"A WPF adapter needs a System.Windows.Application or Window, not {type_full_name(app)}.",
                suggestion="Pass Application.Current or the main window.",
            )
        # DispatcherObject.Dispatcher is free-threaded, so this is safe off the UI thread.
        owner: DispatcherObject = self._app if self._app is not None else self._window
        self.dispatcher: Dispatcher = owner.Dispatcher
        self._type_names: dict[type, tuple[str, str]] = {}
        #: The handlers this adapter adds to the app's events, taken off by ``detach`` (``_hooks``).
        self.hooks = _hooks.Hooks()
        _hooks.acquire()  # the process's shared hooks (exceptions, binding trace), until detach
        install_binding_trace()

    # -- trees

    def roots(self) -> list[Any]:
        found: list[Any] = []

        def add(window: Window | None) -> None:
            # MainWindow can still point at a window that has been closed.
            if window is None or not self._window_alive(window):
                return
            if not any(Object.ReferenceEquals(window, w) for w in found):
                found.append(window)

        if self._window is not None:
            add(self._window)
        app = self._application()
        if app is not None:
            add(app.MainWindow)
            for window in app.Windows:
                add(window)
        # A window on a bare dispatcher (no Application) lists its dialogs only
        # as owned windows; with an Application they are all in app.Windows.
        index = 0
        while index < len(found):
            owner = found[index]
            if isinstance(owner, Window):
                for owned in owner.OwnedWindows:
                    add(owned)
            index += 1
        return found

    def children(self, element: Any, tree_type: TreeType) -> list[Any]:
        if tree_type == "logical":
            if not isinstance(element, DependencyObject):
                return []
            # Logical children include plain content (strings, data items); only
            # DependencyObjects are elements.
            return [c for c in LogicalTreeHelper.GetChildren(element) if isinstance(c, DependencyObject)]
        if not isinstance(element, (Visual, Visual3D)):
            return []
        count = int(VisualTreeHelper.GetChildrenCount(element))
        return [VisualTreeHelper.GetChild(element, i) for i in range(count)]

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        if not isinstance(element, DependencyObject):
            return None
        if tree_type == "visual" and isinstance(element, (Visual, Visual3D)):
            return VisualTreeHelper.GetParent(element)
        # Content elements (Run, Hyperlink) have no visual parent; their logical
        # parent is the closest thing to one.
        return LogicalTreeHelper.GetParent(element)

    def is_alive(self, element: Any) -> bool:
        if isinstance(element, Window):
            return self._window_alive(element)
        if isinstance(element, DependencyObject):
            host = Window.GetWindow(element)
            if host is not None:
                return self._window_alive(host)
        return True

    # -- summary

    def naming(self, element: Any) -> Naming:
        short, full = self._type_names_of(element)
        name: str | None = None
        if isinstance(element, FrameworkElement):
            name = str(element.Name or "") or None
        elif isinstance(element, FrameworkContentElement):
            name = str(element.Name or "") or None
        automation_id: str | None = None
        if isinstance(element, DependencyObject):
            automation_id = str(AutomationProperties.GetAutomationId(element) or "") or None
        return Naming(type_name=short, full_type_name=full, name=name, automation_id=automation_id)

    def state(self, element: Any) -> ElementState:
        if isinstance(element, UIElement):
            return ElementState(
                visible=bool(element.IsVisible),
                enabled=bool(element.IsEnabled),
                focused=bool(element.IsKeyboardFocusWithin),
            )
        if isinstance(element, UIElement3D):
            return ElementState(
                visible=bool(element.IsVisible),
                enabled=bool(element.IsEnabled),
                focused=bool(element.IsKeyboardFocusWithin),
            )
        if isinstance(element, ContentElement):
            # A content element is shown exactly when the element hosting it is.
            return ElementState(
                visible=self._host_visible(element),
                enabled=bool(element.IsEnabled),
                focused=bool(element.IsKeyboardFocusWithin),
            )
        # Brushes, definitions and other non-visual objects are never shown on their own.
        return ElementState(visible=False, enabled=True, focused=False)

    def bounds(self, element: Any) -> Bounds | None:
        if not isinstance(element, UIElement) or PresentationSource.FromVisual(element) is None:
            return None
        box = self._box(element)
        try:
            # PointToScreen already answers in physical pixels of the element's monitor.
            origin: Point = box.visual.PointToScreen(Point(box.x, box.y))
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        # The size is computed exactly as capture() sizes its bitmap, so a
        # screenshot is always as large as the bounds say.
        width, height = self._pixel_size(box)
        return Bounds(x=math.floor(origin.X + 0.5), y=math.floor(origin.Y + 0.5), width=width, height=height)

    def is_active_window(self, element: Any) -> bool:
        return isinstance(element, Window) and bool(element.IsActive)

    def on_ui_exit(self, callback: Callable[[], None]) -> None:
        """``callback`` once, on the UI thread, when its dispatcher starts to shut down; it must
        return at once (see the WinForms ``ui_loop.on_ui_exit``). Unhooked when the probe stops
        (``detach``) or at exit (``_exit``)."""
        fired: list[bool] = []
        dispatcher = self.dispatcher
        hooks = self.hooks

        def on_shutdown(sender: object, args: object) -> None:
            if not fired and not _exit.exiting and hooks.live:
                fired.append(True)
                callback()

        handler = EventHandler(on_shutdown)
        dispatcher.ShutdownStarted += handler

        def unhook() -> None:
            dispatcher.ShutdownStarted -= handler

        hooks.added(unhook, at_exit=True)

    def detach(self, ui: UiThread, *, timeout: float) -> None:
        """Take off every handler this adapter added to the app's events, and the shared ones if it
        is the last adapter using them (``_hooks``); on the UI thread, waiting ``timeout`` at most."""
        _hooks.take_off([self.hooks, *_hooks.release()], ui, timeout=timeout)

    def request_close(self, then: Callable[[], object] | None = None) -> None:
        """Ask the app to end, as its user closing it would (on the UI thread).

        With an Application on this thread, its Shutdown: windows close and its Exit event
        runs, and Application.Run returns into the app's code. An app that runs a bare
        Dispatcher has its windows closed (each may refuse in Closing), then its dispatcher
        shut down if none refused, so Dispatcher.Run returns. ``then``, a builtin, is called
        from .NET once the dispatcher has shut down (``_after_loop``)."""
        if then is not None:
            from wpfprobe_clr.toolkits._after_loop import native_handler  # noqa: PLC0415

            handler = native_handler(then)
            dispatcher = self.dispatcher
            dispatcher.ShutdownFinished += handler

            def unhook() -> None:
                dispatcher.ShutdownFinished -= handler

            # The app may refuse to close: a stop after that must not leave ``then`` for a later end.
            self.hooks.added(unhook)
        app = self._application()
        if app is not None:
            app.Shutdown()
            return
        closed = []
        for root in self.roots():
            if isinstance(root, Window):
                root.Close()
                closed.append(root)
        if not any(self._window_alive(w) for w in closed):
            self.dispatcher.BeginInvokeShutdown(DispatcherPriority.Normal)

    def is_template_part(self, element: Any) -> bool:
        if isinstance(element, FrameworkElement):
            return element.TemplatedParent is not None
        if isinstance(element, FrameworkContentElement):
            return element.TemplatedParent is not None
        return False

    # -- helpers

    def _application(self) -> Application | None:
        """The Application whose windows are ours: only if it lives on this UI thread."""
        app = self._app if self._app is not None else Application.Current
        if app is None or not app.CheckAccess():
            return None
        return app

    def _window_alive(self, window: Window) -> bool:
        # A shown window has a PresentationSource until it is closed; a window
        # not shown yet is still listed by its Application until it is closed.
        if PresentationSource.FromVisual(window) is not None:
            return True
        app = self._application()
        return app is not None and any(Object.ReferenceEquals(window, w) for w in app.Windows)

    def _type_names_of(self, element: Any) -> tuple[str, str]:
        key = type(element)
        names = self._type_names.get(key)
        if names is None:
            net_type: Type = element.GetType()
            names = (str(net_type.Name), str(net_type.FullName or net_type.Name))
            self._type_names[key] = names
        return names

    def _host_visible(self, element: ContentElement) -> bool:
        current: DependencyObject | None = LogicalTreeHelper.GetParent(element)
        while current is not None:
            if isinstance(current, UIElement):
                return bool(current.IsVisible)
            current = LogicalTreeHelper.GetParent(current)
        return False

    # -- layout boxes: in the element's own DIPs, and in pixels

    def _box(self, element: Visual) -> _Box:
        if isinstance(element, UIElement):
            target: UIElement = element
            # A Window's RenderSize includes the non-client frame while its
            # visuals cover only the client area: measure its root visual instead.
            if isinstance(element, Window) and VisualTreeHelper.GetChildrenCount(element) > 0:
                child = VisualTreeHelper.GetChild(element, 0)
                if isinstance(child, UIElement):
                    target = child
            size: Size = target.RenderSize
            return _Box(target, 0.0, 0.0, float(size.Width), float(size.Height))
        drawn: Rect = VisualTreeHelper.GetDescendantBounds(element)
        if drawn.IsEmpty:
            return _Box(element, 0.0, 0.0, 0.0, 0.0)
        return _Box(element, float(drawn.X), float(drawn.Y), float(drawn.Width), float(drawn.Height))

    def _pixel_size(self, box: _Box) -> tuple[int, int]:
        scale_x, scale_y = self._dpi_scale(box.visual)
        return round(box.width * scale_x), round(box.height * scale_y)

    def _dpi_scale(self, visual: Visual) -> tuple[float, float]:
        try:
            dpi: DpiScale = VisualTreeHelper.GetDpi(visual)
            return float(dpi.DpiScaleX), float(dpi.DpiScaleY)
        except Exception:  # noqa: BLE001 - GetDpi needs .NET Framework 4.6.2; fall back to the device transform
            source = PresentationSource.FromVisual(visual)
            if source is None or source.CompositionTarget is None:
                return 1.0, 1.0
            matrix: Matrix = source.CompositionTarget.TransformToDevice
            return float(matrix.M11), float(matrix.M22)


def _same_dispatcher(app: Application | None, element: DependencyObject) -> bool:
    return app is not None and bool(Object.ReferenceEquals(app.Dispatcher, element.Dispatcher))


def _describe(element: Any) -> str:
    if isinstance(element, ItemRef):
        return f"item {element.index} of {_describe(element.owner)}"
    short = type(element).__name__
    name = ""
    if isinstance(element, FrameworkElement):
        name = str(element.Name or "")
    elif isinstance(element, FrameworkContentElement):
        name = str(element.Name or "")
    return f"{short}#{name}" if name else short
