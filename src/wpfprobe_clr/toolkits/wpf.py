"""The WPF adapter: reads a live WPF UI for the engine, on the app's UI thread.

WPF cannot run where most of this project is tested, so this module follows a
convention that lets ``tests/unit/wpf_surface.py`` check every WPF type and
member it uses against the public WPF API (``wpf-api.tsv``):

1. WPF types are imported by name from their namespaces (``from
   System.Windows.Media import VisualTreeHelper``), never reached through a
   namespace object.
2. ``Type.Member`` is used only for static members, enum values and nested
   types; ``Type(...)`` only for public constructors.
3. Every value whose members are used has a known type: an annotation
   (``el: FrameworkElement``, ``self._x: T``), an ``isinstance`` narrowing, or
   the declared type of the member that produced it. Elements the engine hands
   in are ``Any`` and are narrowed before any member is touched.
4. Members inherited from BCL base classes are listed explicitly in the
   checker (``BCL_BASE_MEMBERS``); BCL types themselves are not checked.

Importing this module does not fail where WPF is missing (Linux, Mono):
``is_wpf_object`` stays usable for auto-detection, and ``WpfAdapter`` or
``connect`` raise ClrUnavailableError instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import clr

from wpfprobe._adapter import (
    Bounds,
    Capture,
    ElementState,
    Naming,
    PlainValue,
    PropertyDescriptor,
    PropertyReading,
    Toolkit,
    TreeType,
)
from wpfprobe._errors import (
    AppNotAvailableError,
    ClrUnavailableError,
    ElementNotRenderableError,
    InvalidArgumentError,
)
from wpfprobe_clr._ui_thread import UiThread, exception_identity
from wpfprobe_clr._values import net_bytes, to_plain, type_full_name

__all__ = ["WpfAdapter", "connect", "find_app", "is_wpf_object"]

_WPF_ASSEMBLIES = ("WindowsBase", "PresentationCore", "PresentationFramework", "UIAutomationTypes")

# Judged by name so that detection never loads WPF (it must work on Linux too).
_WPF_ROOT_TYPES = frozenset({"System.Windows.Application", "System.Windows.Window", "System.Windows.DependencyObject"})


def is_wpf_object(obj: object) -> bool:
    """Whether ``obj`` is a WPF Application, Window or DependencyObject."""
    get_type = getattr(obj, "GetType", None)
    if get_type is None:
        return False
    try:
        net_type: Type | None = get_type()
        while net_type is not None:
            if str(net_type.FullName) in _WPF_ROOT_TYPES:
                return True
            net_type = net_type.BaseType
    except Exception:  # noqa: BLE001 - a pythonnet class object (not an instance) has an unbound GetType
        return False
    return False


def _load_wpf() -> Exception | None:
    try:
        for assembly in _WPF_ASSEMBLIES:
            clr.AddReference(assembly)
    except Exception as exc:  # noqa: BLE001 - reported when an adapter is asked for, not at import
        return exc
    return None


_WPF_LOAD_ERROR = _load_wpf()

from System import Action, Object, Type  # noqa: E402
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor  # noqa: E402
from System.ComponentModel import PropertyDescriptorCollection, TypeDescriptor  # noqa: E402
from System.IO import MemoryStream  # noqa: E402

if _WPF_LOAD_ERROR is None:
    from System.ComponentModel import DependencyPropertyDescriptor
    from System.Windows import (
        Application,
        BaseValueSource,
        ContentElement,
        DependencyObject,
        DependencyProperty,
        DependencyPropertyHelper,
        DpiScale,
        FrameworkContentElement,
        FrameworkElement,
        LocalValueEntry,
        LocalValueEnumerator,
        LogicalTreeHelper,
        Point,
        PresentationSource,
        Rect,
        Size,
        UIElement,
        UIElement3D,
        ValueSource,
        Window,
    )
    from System.Windows.Automation import AutomationProperties
    from System.Windows.Controls import (
        ContentControl,
        HeaderedContentControl,
        HeaderedItemsControl,
        PasswordBox,
        TextBlock,
        TextBox,
        ValidationError,
    )
    from System.Windows.Data import Binding, BindingExpression, BindingExpressionBase, BindingOperations, BindingStatus
    from System.Windows.Media import (
        BrushMappingMode,
        Color,
        DrawingVisual,
        Matrix,
        PixelFormats,
        SolidColorBrush,
        Visual,
        VisualBrush,
        VisualTreeHelper,
    )
    from System.Windows.Media.Imaging import BitmapFrame, PngBitmapEncoder, RenderTargetBitmap
    from System.Windows.Media.Media3D import Visual3D
    from System.Windows.Threading import Dispatcher, DispatcherObject, DispatcherOperationStatus, DispatcherPriority

    # The engine speaks lower-camel; "templatedParent" is what WPF's docs call
    # the ParentTemplate source.
    _VALUE_SOURCES: dict[str, str] = {
        str(BaseValueSource.Unknown): "unknown",
        str(BaseValueSource.Default): "default",
        str(BaseValueSource.Inherited): "inherited",
        str(BaseValueSource.DefaultStyle): "defaultStyle",
        str(BaseValueSource.DefaultStyleTrigger): "defaultStyleTrigger",
        str(BaseValueSource.Style): "style",
        str(BaseValueSource.TemplateTrigger): "templateTrigger",
        str(BaseValueSource.StyleTrigger): "styleTrigger",
        str(BaseValueSource.ImplicitStyleReference): "implicitStyleReference",
        str(BaseValueSource.ParentTemplate): "templatedParent",
        str(BaseValueSource.ParentTemplateTrigger): "templatedParentTrigger",
        str(BaseValueSource.Local): "local",
    }
    _BINDING_ERROR_STATUSES = frozenset(
        {
            str(BindingStatus.PathError),
            str(BindingStatus.UpdateTargetError),
            str(BindingStatus.UpdateSourceError),
        }
    )
    _PATH_ERROR = str(BindingStatus.PathError)

    # Most specific first: a Window is a ContentControl, a MenuItem is not a
    # ContentControl but is headered.
    _TEXT_PROPERTIES: tuple[tuple[type, DependencyProperty], ...] = (
        (Window, Window.TitleProperty),
        (TextBox, TextBox.TextProperty),
        (TextBlock, TextBlock.TextProperty),
        (HeaderedContentControl, HeaderedContentControl.HeaderProperty),
        (HeaderedItemsControl, HeaderedItemsControl.HeaderProperty),
        (ContentControl, ContentControl.ContentProperty),
    )

# Password is a plain CLR property (no DependencyProperty), so it is named here.
_PASSWORD_BOX_TEXT = "Password"
_PASSWORD_BOX_SECRETS = frozenset({"Password", "SecurePassword"})

# Values pythonnet hands back as Python primitives lose their exact .NET type;
# when the declared type is one of these, it is the runtime type too.
_PRIMITIVE_TYPE_NAMES = frozenset(
    {
        "System.Boolean",
        "System.Byte",
        "System.SByte",
        "System.Int16",
        "System.UInt16",
        "System.Int32",
        "System.UInt32",
        "System.Int64",
        "System.UInt64",
        "System.Single",
        "System.Double",
        "System.Decimal",
        "System.Char",
        "System.String",
    }
)


@dataclass(frozen=True, slots=True)
class _PropertyHandle:
    """What read_property needs later, found while describing (never by reading)."""

    descriptor: NetPropertyDescriptor | None
    dp: DependencyProperty | None
    #: Read as an element's visible text: content that is itself an element is not text.
    as_text: bool = False


@dataclass(frozen=True, slots=True)
class _Box:
    """The visual whose pixels the user sees, and its layout box in its own DIPs."""

    visual: Visual
    x: float
    y: float
    width: float
    height: float


class WpfAdapter:
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
    )

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
        fired: list[bool] = []

        def on_shutdown(sender: object, args: object) -> None:
            if not fired:
                fired.append(True)
                callback()

        self.dispatcher.ShutdownStarted += on_shutdown

    def is_template_part(self, element: Any) -> bool:
        if isinstance(element, FrameworkElement):
            return element.TemplatedParent is not None
        if isinstance(element, FrameworkContentElement):
            return element.TemplatedParent is not None
        return False

    # -- properties

    def text_property(self, element: Any) -> PropertyDescriptor | None:
        if isinstance(element, PasswordBox):
            return self.find_property(element, _PASSWORD_BOX_TEXT)
        dp: DependencyProperty
        for wpf_type, dp in _TEXT_PROPERTIES:
            if isinstance(element, wpf_type):
                # Every tree node asks for this: describe it straight from the
                # DependencyProperty instead of building the TypeDescriptor list.
                declared: Type = dp.PropertyType
                return PropertyDescriptor(
                    name=str(dp.Name),
                    type_name=str(declared.FullName),
                    category=None,
                    read_only=bool(dp.ReadOnly),
                    handle=_PropertyHandle(None, dp, as_text=True),
                )
        return None

    def properties(self, element: Any) -> list[PropertyDescriptor]:
        collection: PropertyDescriptorCollection = TypeDescriptor.GetProperties(element)
        found: list[PropertyDescriptor] = []
        seen: set[str] = set()
        net: NetPropertyDescriptor
        for net in collection:
            described = self._describe(element, net)
            key = described.name.lower()
            if key not in seen:
                seen.add(key)
                found.append(described)
        return found

    def find_property(self, element: Any, name: str) -> PropertyDescriptor | None:
        collection: PropertyDescriptorCollection = TypeDescriptor.GetProperties(element)
        net: NetPropertyDescriptor | None = collection.Find(name, True)
        if net is not None:
            return self._describe(element, net)
        if "." in name:
            # Attached properties are named Owner.Property here, which Find does not know.
            wanted = name.lower()
            for prop in self.properties(element):
                if prop.name.lower() == wanted:
                    return prop
        return None

    def read_property(self, element: Any, prop: PropertyDescriptor) -> PropertyReading:
        handle: _PropertyHandle = prop.handle
        dp = handle.dp
        if dp is not None and isinstance(element, DependencyObject):
            value = element.GetValue(dp)
            if handle.as_text and isinstance(value, DependencyObject):
                value = None
            source: ValueSource = DependencyPropertyHelper.GetValueSource(element, dp)
            base_source = str(source.BaseValueSource)
            local = element.ReadLocalValue(dp)
            expression = BindingOperations.GetBindingExpressionBase(element, dp)
            value_source = _VALUE_SOURCES.get(base_source, base_source[:1].lower() + base_source[1:])
            if expression is not None and value_source == "local":
                # A local binding is what the user set; say so, as the WinForms adapter does.
                value_source = "binding"
            return PropertyReading(
                value=_plain(value),
                value_type_name=_value_type_name(value, prop.type_name),
                value_source=value_source,
                is_locally_set=not Object.ReferenceEquals(local, DependencyProperty.UnsetValue),
                is_data_bound=expression is not None,
                binding_error=_binding_error(expression) if expression is not None else None,
            )
        descriptor = handle.descriptor
        if descriptor is None:
            return PropertyReading(None, None, "clr", False, False)
        try:
            value = descriptor.GetValue(element)
        except Exception as exc:  # noqa: BLE001 - an app's getter may throw; show that, not fail the page
            kind, message = exception_identity(exc)
            return PropertyReading(f"<{kind}: {message}>"[:256], None, "error", False, False)
        return PropertyReading(
            value=_plain(value),
            value_type_name=_value_type_name(value, prop.type_name),
            value_source="clr",
            is_locally_set=False,
            is_data_bound=False,
        )

    def data_context_type(self, element: Any) -> str | None:
        if isinstance(element, FrameworkElement):
            return type_full_name(element.DataContext)
        if isinstance(element, FrameworkContentElement):
            return type_full_name(element.DataContext)
        return None

    def binding_error_count(self, element: Any) -> int:
        if not isinstance(element, DependencyObject):
            return 0
        count = 0
        entries: LocalValueEnumerator = element.GetLocalValueEnumerator()
        while entries.MoveNext():
            entry: LocalValueEntry = entries.Current
            expression = BindingOperations.GetBindingExpressionBase(element, entry.Property)
            if expression is not None and _binding_error(expression) is not None:
                count += 1
        return count

    # -- pixels

    def capture(self, element: Any) -> Capture:
        short, _ = self._type_names_of(element)
        if not isinstance(element, Visual):
            raise ElementNotRenderableError(
                f"{short} is not a Visual: it has no pixels of its own.",
                suggestion="Capture its nearest visual ancestor (see wpf_get_ancestors) or the window.",
                detail={"type": short, "reason": "not-a-visual"},
            )
        if isinstance(element, UIElement) and not element.IsVisible:
            raise ElementNotRenderableError(
                f"{short} is not visible (collapsed, hidden, or inside something hidden).",
                suggestion="Make it visible first, or capture a visible ancestor.",
                detail={"type": short, "reason": "hidden"},
            )
        if PresentationSource.FromVisual(element) is None:
            raise ElementNotRenderableError(
                f"{short} is not connected to a window, so it is not rendered.",
                suggestion="Capture an element that is shown in a window.",
                detail={"type": short, "reason": "not-connected"},
            )
        box = self._box(element)
        if box.width <= 0 or box.height <= 0:
            raise ElementNotRenderableError(
                f"{short} has zero size ({box.width:g} x {box.height:g}).",
                suggestion="Capture its parent, or wait until layout gives it a size.",
                detail={"type": short, "reason": "zero-size"},
            )
        pixel_width, pixel_height = self._pixel_size(box)
        if pixel_width <= 0 or pixel_height <= 0:
            raise ElementNotRenderableError(
                f"{short} is smaller than a pixel ({box.width:g} x {box.height:g}).",
                suggestion="Capture its parent instead.",
                detail={"type": short, "reason": "zero-size"},
            )
        scale_x, scale_y = self._dpi_scale(box.visual)
        bitmap = RenderTargetBitmap(pixel_width, pixel_height, 96.0 * scale_x, 96.0 * scale_y, PixelFormats.Pbgra32)
        # Rendering the element itself would include its offset in the parent;
        # a VisualBrush over exactly its layout box draws it at the origin, 1:1.
        brush = VisualBrush(box.visual)
        brush.ViewboxUnits = BrushMappingMode.Absolute
        brush.Viewbox = Rect(box.x, box.y, box.width, box.height)
        drawing = DrawingVisual()
        context = drawing.RenderOpen()
        try:
            context.DrawRectangle(brush, None, Rect(0.0, 0.0, box.width, box.height))
        finally:
            context.Close()
        bitmap.Render(drawing)
        encoder = PngBitmapEncoder()
        encoder.Frames.Add(BitmapFrame.Create(bitmap))
        stream = MemoryStream()
        try:
            encoder.Save(stream)
            data = net_bytes(stream.ToArray())
        finally:
            stream.Dispose()
        return Capture(width=pixel_width, height=pixel_height, mode="PNG", data=data)

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

    def _describe(self, element: Any, net: NetPropertyDescriptor) -> PropertyDescriptor:
        descriptor = DependencyPropertyDescriptor.FromProperty(net)
        dp: DependencyProperty | None = descriptor.DependencyProperty if descriptor is not None else None
        name = str(net.Name)
        if descriptor is not None and dp is not None and descriptor.IsAttached:
            # Attached properties read as Owner.Property, as in XAML (Grid.Row).
            owner: Type = dp.OwnerType
            name = f"{owner.Name}.{dp.Name}"
        declared: Type = net.PropertyType
        category = net.Category
        return PropertyDescriptor(
            name=name,
            type_name=str(declared.FullName or declared.Name),
            category=str(category) if category else None,
            read_only=bool(net.IsReadOnly),
            secret=isinstance(element, PasswordBox) and name in _PASSWORD_BOX_SECRETS,
            handle=_PropertyHandle(net, dp),
        )


def find_app() -> Any | None:
    """The process's WPF Application, or None (Application.Current is readable from any thread)."""
    if _WPF_LOAD_ERROR is not None:
        return None
    return Application.Current


def _same_dispatcher(app: Application | None, element: DependencyObject) -> bool:
    return app is not None and bool(Object.ReferenceEquals(app.Dispatcher, element.Dispatcher))


def _binding_error(expression: BindingExpressionBase) -> str | None:
    status = str(expression.Status)
    has_error = bool(expression.HasError)
    if status not in _BINDING_ERROR_STATUSES and not has_error:
        return None
    path = ""
    source_type = "null"
    if isinstance(expression, BindingExpression):
        binding: Binding = expression.ParentBinding
        if binding is not None and binding.Path is not None:
            path = str(binding.Path.Path)
        source_type = type_full_name(expression.DataItem) or "null"
    if status == _PATH_ERROR:
        return f"Path error: property '{path}' not found on {source_type}"
    if has_error:
        error: ValidationError | None = expression.ValidationError
        if error is not None:
            return f"Validation error on '{path}': {to_plain(error.ErrorContent)}"
    return f"{status} on '{path}' (source {source_type})"


def _plain(value: Any) -> PlainValue:
    # An element's ToString embeds its text (TextBox.ToString gives "...TextBox: Ada"),
    # which could leak what redaction hides elsewhere: show a reference instead.
    if isinstance(value, FrameworkElement):
        return _reference(value, str(value.Name or ""))
    if isinstance(value, FrameworkContentElement):
        return _reference(value, str(value.Name or ""))
    if isinstance(value, (Visual, Visual3D, ContentElement)):
        return _reference(value, "")
    if isinstance(value, SolidColorBrush):
        color: Color = value.Color
        return f"#{int(color.A):02X}{int(color.R):02X}{int(color.G):02X}{int(color.B):02X}"
    if isinstance(value, float) and not math.isfinite(value):
        # NaN (WPF's "Auto" size) and infinities are not JSON numbers.
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return to_plain(value)


def _reference(element: Any, name: str) -> str:
    short = type(element).__name__
    return f"<{short}#{name}>" if name else f"<{short}>"


def _value_type_name(value: Any, declared: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (bool, int, float, str)) and declared in _PRIMITIVE_TYPE_NAMES:
        return declared
    return type_full_name(value)


def connect(app: Any, *, timeout: float) -> tuple[WpfAdapter, UiThread]:
    """The adapter for ``app`` and a UiThread that marshals onto its Dispatcher."""
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

    return adapter, UiThread(post=post, check_access=check_access, default_timeout=timeout)
