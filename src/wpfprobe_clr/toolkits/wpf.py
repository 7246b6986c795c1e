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
5. wpf-api.tsv lists WPF interfaces without their members. The automation
   pattern providers (IInvokeProvider...) are reached through pythonnet's
   interface cast (``_through``) and typed with Protocols that spell out the
   documented members used (``_InvokePattern``...); so is ICommand
   (``_Command``), a BCL interface that lives in a WPF namespace.

Importing this module does not fail where WPF is missing (Linux, Mono):
``is_wpf_object`` stays usable for auto-detection, and ``WpfAdapter`` or
``connect`` raise ClrUnavailableError instead.
"""

from __future__ import annotations

import ctypes
import math
from ctypes import CDLL
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import clr

from wpfprobe._adapter import (
    ActionKind,
    Blocker,
    Bounds,
    Capture,
    ElementState,
    InputMode,
    KeyChord,
    MouseButton,
    Naming,
    PlainValue,
    PropertyDescriptor,
    PropertyReading,
    Toolkit,
    TreeType,
)
from wpfprobe._convert import Converted, EnumSpec, UnsupportedPropertyTypeError, conversion_error
from wpfprobe._errors import (
    AppNotAvailableError,
    ClrUnavailableError,
    ElementNotInteractableError,
    ElementNotRenderableError,
    InvalidArgumentError,
    PropertyReadOnlyError,
)
from wpfprobe_clr._build import build_value, enum_spec_of
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

from System import Action, ArgumentException, Byte, Environment, Object, Type  # noqa: E402
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor  # noqa: E402
from System.ComponentModel import PropertyDescriptorCollection, TypeDescriptor  # noqa: E402
from System.IO import MemoryStream  # noqa: E402
from System.Reflection import TargetInvocationException  # noqa: E402

if _WPF_LOAD_ERROR is None:
    from System.ComponentModel import DependencyPropertyDescriptor
    from System.Windows import (
        Application,
        BaseValueSource,
        ContentElement,
        CornerRadius,
        DependencyObject,
        DependencyProperty,
        DependencyPropertyHelper,
        DpiScale,
        FontStyles,
        FontWeight,
        FrameworkContentElement,
        FrameworkElement,
        GridLength,
        GridUnitType,
        LocalValueEntry,
        LocalValueEnumerator,
        LogicalTreeHelper,
        Point,
        PresentationSource,
        Rect,
        RoutedEvent,
        RoutedEventArgs,
        Size,
        SystemParameters,
        Thickness,
        UIElement,
        UIElement3D,
        ValueSource,
        Visibility,
        Window,
    )
    from System.Windows.Automation import AutomationProperties, ExpandCollapseState
    from System.Windows.Automation.Peers import (
        AutomationPeer,
        ContentElementAutomationPeer,
        ItemAutomationPeer,
        PatternInterface,
        UIElementAutomationPeer,
    )
    from System.Windows.Automation.Provider import (
        IExpandCollapseProvider,
        IInvokeProvider,
        ISelectionItemProvider,
        IToggleProvider,
        IValueProvider,
    )
    from System.Windows.Controls import (
        ComboBox,
        ContentControl,
        ContextMenu,
        Control,
        Expander,
        HeaderedContentControl,
        HeaderedItemsControl,
        ItemCollection,
        ItemsControl,
        ListBoxItem,
        Menu,
        MenuItem,
        PasswordBox,
        RadioButton,
        RichTextBox,
        TabItem,
        TextBlock,
        TextBox,
        TreeViewItem,
        ValidationError,
    )
    from System.Windows.Controls.Primitives import ButtonBase, RangeBase, Selector, TextBoxBase, ToggleButton
    from System.Windows.Data import Binding, BindingExpression, BindingExpressionBase, BindingOperations, BindingStatus
    from System.Windows.Input import (
        AccessKeyManager,
        AccessKeyPressedEventArgs,
        ApplicationCommands,
        CommandBinding,
        FocusManager,
        FocusNavigationDirection,
        InputBinding,
        InputManager,
        Key,
        KeyEventArgs,
        Keyboard,
        KeyGesture,
        Mouse,
        MouseButtonEventArgs,
        RoutedCommand,
        TextComposition,
        TextCompositionEventArgs,
        TextCompositionManager,
        TraversalRequest,
    )
    from System.Windows.Input import MouseButton as NetMouseButton
    from System.Windows.Interop import WindowInteropHelper
    from System.Windows.Media import (
        BrushMappingMode,
        Color,
        DrawingVisual,
        FontFamily,
        HitTestResult,
        Matrix,
        PixelFormats,
        SolidColorBrush,
        Visual,
        VisualBrush,
        VisualTreeHelper,
    )
    from System.Windows.Media.Imaging import BitmapFrame, PngBitmapEncoder, RenderTargetBitmap
    from System.Windows.Media.Media3D import Visual3D
    from System.Windows.Threading import (
        Dispatcher,
        DispatcherFrame,
        DispatcherObject,
        DispatcherOperationStatus,
        DispatcherPriority,
    )

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

    # The canonical key names of wpfprobe._keys, as WPF keys.
    _KEYS: dict[str, Key] = {
        "A": Key.A, "B": Key.B, "C": Key.C, "D": Key.D, "E": Key.E, "F": Key.F, "G": Key.G, "H": Key.H,
        "I": Key.I, "J": Key.J, "K": Key.K, "L": Key.L, "M": Key.M, "N": Key.N, "O": Key.O, "P": Key.P,
        "Q": Key.Q, "R": Key.R, "S": Key.S, "T": Key.T, "U": Key.U, "V": Key.V, "W": Key.W, "X": Key.X,
        "Y": Key.Y, "Z": Key.Z,
        "0": Key.D0, "1": Key.D1, "2": Key.D2, "3": Key.D3, "4": Key.D4,
        "5": Key.D5, "6": Key.D6, "7": Key.D7, "8": Key.D8, "9": Key.D9,
        "F1": Key.F1, "F2": Key.F2, "F3": Key.F3, "F4": Key.F4, "F5": Key.F5, "F6": Key.F6,
        "F7": Key.F7, "F8": Key.F8, "F9": Key.F9, "F10": Key.F10, "F11": Key.F11, "F12": Key.F12,
        "F13": Key.F13, "F14": Key.F14, "F15": Key.F15, "F16": Key.F16, "F17": Key.F17, "F18": Key.F18,
        "F19": Key.F19, "F20": Key.F20, "F21": Key.F21, "F22": Key.F22, "F23": Key.F23, "F24": Key.F24,
        "Enter": Key.Return, "Tab": Key.Tab, "Escape": Key.Escape, "Backspace": Key.Back,
        "Delete": Key.Delete, "Insert": Key.Insert, "Home": Key.Home, "End": Key.End,
        "PageUp": Key.PageUp, "PageDown": Key.PageDown, "Left": Key.Left, "Right": Key.Right,
        "Up": Key.Up, "Down": Key.Down, "Space": Key.Space,
    }  # fmt: skip
    # Keys the keyboard navigation moves focus with when the focused element leaves them unhandled.
    _NAVIGATION_KEYS: dict[str, FocusNavigationDirection] = {
        "Tab": FocusNavigationDirection.Next,
        "Left": FocusNavigationDirection.Left,
        "Right": FocusNavigationDirection.Right,
        "Up": FocusNavigationDirection.Up,
        "Down": FocusNavigationDirection.Down,
    }
    _CLICK_PATTERNS: tuple[PatternInterface, ...] = (
        PatternInterface.Invoke,
        PatternInterface.SelectionItem,
        PatternInterface.ExpandCollapse,
        PatternInterface.Toggle,
    )
    _VISIBLE = str(Visibility.Visible)
    _EXPANDED = str(ExpandCollapseState.Expanded)
    _GRID_UNITS: dict[str, GridUnitType] = {
        "Auto": GridUnitType.Auto,
        "Pixel": GridUnitType.Pixel,
        "Star": GridUnitType.Star,
    }

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
        "input",
        "set-property",
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

    # -- input (interact tier)
    #
    # Toolkit mode acts as a user would, through WPF's own automation peers
    # (the Invoke, Toggle, SelectionItem, ExpandCollapse and Value patterns:
    # what UI Automation clients use) and through routed input events raised
    # on the element (TextInput, KeyDown/KeyUp, MouseDoubleClick), so the app's
    # handlers, commands and bindings run as they would for real input.

    def action_state(self, element: Any) -> dict[str, PlainValue]:
        state: dict[str, PlainValue] = {}
        if isinstance(element, ToggleButton):
            checked = element.IsChecked
            state["checked"] = None if checked is None else bool(checked)
        if isinstance(element, MenuItem):
            if element.IsCheckable:
                state["checked"] = bool(element.IsChecked)
            if element.HasItems:
                state["expanded"] = bool(element.IsSubmenuOpen)
        if isinstance(element, Selector):
            state["selectedIndex"] = int(element.SelectedIndex)
            state["selectedItem"] = self._item_text(element, element.SelectedItem)
        if isinstance(element, ComboBox):
            state["expanded"] = bool(element.IsDropDownOpen)
        if isinstance(element, Expander):
            state["expanded"] = bool(element.IsExpanded)
        if isinstance(element, TreeViewItem):
            state["expanded"] = bool(element.IsExpanded)
        if isinstance(element, RangeBase):
            state["value"] = _plain(float(element.Value))
        return state

    def blocker(self, element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        if action == "set":
            return None  # a property can be set on any element, shown or not
        unsupported = self._unsupported(element, action, mode)
        if unsupported is not None:
            return Blocker("unsupported", unsupported)
        # In toolkit mode a menu item in a closed drop-down is reached by opening
        # the menus above it (File/Save As), as a user would.
        through_menu = mode == "toolkit" and isinstance(element, MenuItem) and self._menu_reachable(element)
        found = self._state_blocker(element, action, through_menu)
        if found is None:
            found = self._modal_blocker(element)
        if found is None and (mode == "os" or action == "click"):
            found = self._pointer_blocker(element, mode)
        return found

    def click_point(self, element: Any) -> tuple[int, int] | None:
        if not isinstance(element, UIElement) or not element.IsVisible:
            return None
        if PresentationSource.FromVisual(element) is None:
            return None
        box = self._box(element)
        if box.width <= 0 or box.height <= 0:
            return None
        try:
            # PointToScreen answers in physical pixels (it applies the monitor's DPI).
            centre: Point = box.visual.PointToScreen(Point(box.x + box.width / 2, box.y + box.height / 2))
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        return math.floor(centre.X + 0.5), math.floor(centre.Y + 0.5)

    def focused_element(self) -> Any | None:
        focused = _unwrap(Keyboard.FocusedElement)
        if isinstance(focused, DependencyObject):
            return focused
        # No keyboard focus on this thread (the app is not the foreground app):
        # the element that gets it back is the logical focus of the active, else
        # the most recently opened, window.
        windows = [w for w in reversed(self.roots()) if isinstance(w, Window) and w.IsVisible]
        windows.sort(key=self.is_active_window, reverse=True)
        for window in windows:
            logical = _unwrap(FocusManager.GetFocusedElement(window))
            if isinstance(logical, DependencyObject):
                return logical
        return None

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        if button == "right":
            self._open_context_menu(element)
            self._settle()
            return
        if button != "left":
            raise _cannot(element, f"a {button} click through the toolkit", 'Use mode="os" for a real mouse click.')
        for n in range(max(count, 1)):
            if n == 1 and isinstance(element, UIElement):
                # A second click within the double-click time: WPF's Controls raise
                # MouseDoubleClick on the second button press, before its click.
                self._double_click(element)
            self._left_click(element)
            self._settle()

    def type_text(self, element: Any, text: str, *, replace: bool) -> None:
        if isinstance(element, TextBoxBase) or isinstance(element, PasswordBox):
            if isinstance(element, TextBoxBase) and element.IsReadOnly:
                raise ElementNotInteractableError(
                    f"{_describe(element)} is read-only.",
                    suggestion="Type into an editable element instead.",
                    detail={"reason": "read-only"},
                )
            self._take_focus(element)
            _prepare_text_box(element, replace)
            for ch in text.replace("\r\n", "\n").replace("\r", "\n"):
                if ch == "\n":
                    # A line break is the Enter key: a new line where the box accepts
                    # returns, the default button where it does not, as for a user.
                    self._stroke(element, "Enter", None)
                else:
                    self._text_input(element, ch)
            self._settle()
            return
        provider = _pattern(element, PatternInterface.Value)
        if provider is None:
            raise _cannot(element, "typed text", "Type into a text box, password box or editable combo box.")
        value: _ValuePattern = _through(IValueProvider, provider)
        if value.IsReadOnly:
            raise ElementNotInteractableError(
                f"{_describe(element)} is read-only.",
                suggestion="Type into an editable element instead.",
                detail={"reason": "read-only"},
            )
        self._take_focus(element)
        value.SetValue(text if replace else str(value.Value or "") + text)

    def send_keys(self, element: Any | None, chords: tuple[KeyChord, ...]) -> None:
        if element is not None:
            self._take_focus(element)
        target = self._key_target(element)
        if target is None:
            raise ElementNotInteractableError(
                "No element has keyboard focus to take the keys.",
                suggestion="Pass the element that should get the keys (nodeId or locator).",
                detail={"reason": "unsupported"},
            )
        for chord in chords:
            self._press(target, chord)
            self._settle()
            # Focus may have moved (Tab): the next key goes where it went.
            target = self._key_target(None) or target

    def select(self, element: Any, *, item: str | None, index: int | None) -> None:
        if not isinstance(element, Selector):
            raise _cannot(element, "select", "Use wpf_click or wpf_toggle for this element.")
        items: ItemCollection = element.Items
        count = int(items.Count)
        chosen = -1
        if index is not None and 0 <= index < count:
            chosen = index
        else:
            texts = [self._item_text(element, items[i]) or "" for i in range(count)]
            chosen = _choose(texts, item, index)
        container = element.ItemContainerGenerator.ContainerFromIndex(chosen)
        if isinstance(container, UIElement) and not container.IsEnabled:
            raise ElementNotInteractableError(
                f"Item {chosen} of {_describe(element)} is disabled.",
                suggestion="Select an enabled item.",
                detail={"reason": "disabled", "index": chosen},
            )
        self._select_index(element, chosen)
        self._settle()

    def toggle(self, element: Any, *, state: bool | None) -> None:
        if isinstance(element, RadioButton):
            if state is False:
                raise InvalidArgumentError(
                    "A radio button is unchecked by checking another one in its group.",
                    suggestion="Toggle the radio button that should be checked (state=true).",
                )
            if not element.IsChecked:
                self._toggle_once(element)
            self._settle()
            return
        if isinstance(element, ToggleButton):
            # Clicks, as a user would: a three-state box may need two to get there.
            for _ in range(1 if state is None else 3):
                if state is not None and element.IsChecked == state:
                    break
                self._toggle_once(element)
            self._settle()
            return
        if isinstance(element, MenuItem) and element.IsCheckable:
            if state is None or bool(element.IsChecked) != state:
                provider = _pattern(element, PatternInterface.Toggle)
                if provider is not None:
                    toggle: _TogglePattern = _through(IToggleProvider, provider)
                    toggle.Toggle()
                else:
                    element.IsChecked = not element.IsChecked
            return
        raise _cannot(
            element, "toggle", "Only check boxes, radio buttons, toggle buttons and checkable menu items toggle."
        )

    def focus(self, element: Any) -> None:
        if not self._take_focus(element):
            raise _cannot(element, "keyboard focus", "Focus an element that is focusable (Focusable=true) and enabled.")

    # -- mutation (mutate tier)

    def enum_spec(self, prop: PropertyDescriptor) -> EnumSpec | None:
        declared = _declared_type(prop)
        return None if declared is None else enum_spec_of(declared)

    def set_value(self, element: Any, prop: PropertyDescriptor, value: Converted) -> None:
        handle = prop.handle
        if not isinstance(handle, _PropertyHandle):
            raise PropertyReadOnlyError(f"{prop.name} cannot be set here.", detail={"property": prop.name})
        dp = handle.dp
        descriptor = handle.descriptor
        read_only = (
            prop.read_only
            or (dp is not None and bool(dp.ReadOnly))
            or (dp is None and (descriptor is None or bool(descriptor.IsReadOnly)))
        )
        if read_only:
            raise PropertyReadOnlyError(
                f"{prop.name} is read-only.",
                suggestion="Set a writable property instead (isReadOnly=false in wpf_get_properties).",
                detail={"property": prop.name, "typeName": prop.type_name},
            )
        built = _build(value, _declared_type(prop))
        refused = False
        if dp is not None and isinstance(element, DependencyObject):
            try:
                element.SetValue(dp, built)
            except ArgumentException:
                # A value of the wrong type, or one its validation callback refuses.
                refused = True
        elif descriptor is not None:
            try:
                descriptor.SetValue(element, built)
            except (ArgumentException, TargetInvocationException) as exc:
                inner = getattr(exc, "InnerException", None)
                if not isinstance(exc, ArgumentException) and not isinstance(inner, ArgumentException):
                    raise
                refused = True
        else:
            raise PropertyReadOnlyError(f"{prop.name} cannot be set on this element.", detail={"property": prop.name})
        if refused:
            # Raised outside the except block: no chained exception carries the value.
            raise conversion_error(
                prop.type_name, "the property refused the value", toolkit="wpf", property_name=prop.name
            )

    # -- input helpers

    def _unsupported(self, element: Any, action: ActionKind, mode: InputMode) -> str | None:
        """Why ``element`` has no such action at all (a BlockReason "unsupported"), or None."""
        if not isinstance(element, (UIElement, ContentElement, UIElement3D)):
            return "It is not an input element (UIElement or ContentElement)."
        if action == "click":
            if mode == "toolkit" and not self._has_click_route(element):
                return (
                    "It has nothing to click through the toolkit (no Invoke, Toggle, SelectionItem or "
                    'ExpandCollapse automation pattern, and it takes no focus); use mode="os".'
                )
        elif action == "type":
            if isinstance(element, TextBoxBase) or isinstance(element, PasswordBox):
                return None
            if isinstance(element, ComboBox) and not element.IsEditable:
                return "It is a drop-down list without a text box; choose an item with wpf_select."
            if _pattern(element, PatternInterface.Value) is None:
                return "It takes no typed text."
        elif action == "select":
            if not isinstance(element, Selector):
                return "It has no items to select."
        elif action == "toggle":
            if isinstance(element, ToggleButton):
                return None
            if not (isinstance(element, MenuItem) and element.IsCheckable):
                return "It is not a check box, radio button, toggle button or checkable menu item."
        elif action == "focus":
            if not _focusable(element):
                return "It cannot take keyboard focus (Focusable is false)."
        return None

    def _state_blocker(self, element: Any, action: ActionKind, through_menu: bool) -> Blocker | None:
        if isinstance(element, UIElement):
            if not element.IsVisible and not through_menu:
                return Blocker("hidden", "It, or an element it is in, is collapsed or hidden, or not shown.")
            if not element.IsEnabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
            if element.IsVisible:
                width, height = _layout_size(element)
                if width <= 0 or height <= 0:
                    return Blocker("zero-size", f"Its size is {width:g} x {height:g}.")
        elif isinstance(element, UIElement3D):
            if not element.IsVisible:
                return Blocker("hidden", "It, or an element it is in, is not visible.")
            if not element.IsEnabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
        elif isinstance(element, ContentElement):
            if not self._host_visible(element):
                return Blocker("hidden", "The element that shows it is not visible.")
            if not element.IsEnabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
        if action == "type":
            if isinstance(element, TextBoxBase) and element.IsReadOnly:
                return Blocker("read-only", "It is a read-only text box.")
            if not isinstance(element, TextBoxBase) and not isinstance(element, PasswordBox):
                provider = _pattern(element, PatternInterface.Value)
                if provider is not None:
                    value: _ValuePattern = _through(IValueProvider, provider)
                    if value.IsReadOnly:
                        return Blocker("read-only", "Its value is read-only.")
        return None

    def _menu_reachable(self, item: MenuItem) -> bool:
        """Whether a hidden menu item shows once the menus above it open: all enabled, the top one shown."""
        if item.IsVisible:
            return False  # nothing to open: it is on screen already
        current: MenuItem = item
        for _ in range(_MAX_DEPTH):
            if str(current.Visibility) != _VISIBLE or not current.IsEnabled:
                return False
            parent = ItemsControl.ItemsControlFromItemContainer(current)
            if not isinstance(parent, MenuItem):
                # A top-level item: it must be on a menu bar that is shown.
                return isinstance(parent, Menu) and bool(current.IsVisible)
            current = parent
        return False

    def _modal_blocker(self, element: Any) -> Blocker | None:
        if not isinstance(element, DependencyObject):
            return None
        host = Window.GetWindow(element)
        user32 = _user32()
        if host is None or user32 is None:
            return None
        hwnd = _hwnd(host)
        # A modal dialog (ShowDialog, a message box) disables every other window
        # of its thread; the WPF windows' IsEnabled does not show it, the HWND does.
        if hwnd == 0 or user32.IsWindowEnabled(hwnd):
            return None
        modal: Window | None = None
        for window in self.roots():
            if not isinstance(window, Window):
                continue
            if Object.ReferenceEquals(window, host) or not window.IsVisible:
                continue
            other = _hwnd(window)
            if other == 0 or not user32.IsWindowEnabled(other):
                continue
            if modal is None or _owned_by(window, host) or window.IsActive:
                modal = window
        if modal is None:
            return Blocker("modal", "A modal dialog that is not a WPF window (a message box?) blocks its window.")
        return Blocker("modal", f"The modal dialog {_describe(modal)} is open.", modal)

    def _pointer_blocker(self, element: Any, mode: InputMode) -> Blocker | None:
        point = self.click_point(element)
        if point is None:
            if mode == "toolkit":
                return None  # a menu item in a closed drop-down, a content element: reached without a pointer
            return Blocker("offscreen", "It has no point on screen to click.")
        x, y = point
        if not _on_screen(x, y, element):
            return Blocker("offscreen", f"Its centre ({x}, {y}) is outside every screen.")
        if isinstance(element, UIElement):
            cover = self._cover(element, x, y)
            if cover is not None:
                return Blocker("covered", f"{_describe(cover)} is on top of its centre.", cover)
        return None

    def _cover(self, element: UIElement, x: int, y: int) -> Any | None:
        """What a click at screen point (x, y) lands on instead of ``element``, within its window."""
        source = PresentationSource.FromVisual(element)
        root: Visual | None = source.RootVisual if source is not None else None
        if root is None:
            return None
        try:
            local: Point = root.PointFromScreen(Point(float(x), float(y)))
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        result: HitTestResult | None = VisualTreeHelper.HitTest(root, local)
        hit = result.VisualHit if result is not None else None
        if hit is None or Object.ReferenceEquals(hit, element) or element.IsAncestorOf(hit):
            return None
        if isinstance(hit, Visual) and hit.IsAncestorOf(element):
            # Nothing is on top: the element is transparent there (no background)
            # and the click falls through to what it is in.
            return None
        return _presentable(hit)

    def _has_click_route(self, element: Any) -> bool:
        if isinstance(element, MenuItem) or isinstance(element, ToggleButton) or isinstance(element, TreeViewItem):
            return True
        if (isinstance(element, ListBoxItem) or isinstance(element, TabItem)) and isinstance(
            ItemsControl.ItemsControlFromItemContainer(element), Selector
        ):
            return True
        for pattern in _CLICK_PATTERNS:
            if _pattern(element, pattern) is not None:
                return True
        return _focusable(element)

    def _left_click(self, element: Any) -> None:
        if isinstance(element, MenuItem):
            self._click_menu_item(element)
            return
        if isinstance(element, ToggleButton):
            self._toggle_once(element)
            return
        if isinstance(element, ListBoxItem) or isinstance(element, TabItem):
            owner = ItemsControl.ItemsControlFromItemContainer(element)
            if isinstance(owner, Selector):
                index = int(owner.ItemContainerGenerator.IndexFromContainer(element))
                if index >= 0:
                    # A list or tab item's own peer is a wrapper without patterns;
                    # the selection goes through its list, as a click's does.
                    self._take_focus(element)
                    self._select_index(owner, index)
                    if isinstance(owner, ComboBox) and owner.IsDropDownOpen:
                        owner.IsDropDownOpen = False
                    return
        if isinstance(element, TreeViewItem):
            self._take_focus(element)
            element.IsSelected = True
            return
        provider = _pattern(element, PatternInterface.Invoke)
        if provider is not None:
            # ButtonAutomationPeer queues the click at input priority; _settle runs it.
            invoke: _InvokePattern = _through(IInvokeProvider, provider)
            invoke.Invoke()
            return
        provider = _pattern(element, PatternInterface.SelectionItem)
        if provider is not None:
            selection: _SelectionItemPattern = _through(ISelectionItemProvider, provider)
            selection.Select()
            return
        provider = _pattern(element, PatternInterface.ExpandCollapse)
        if provider is not None:
            _flip(provider)
            return
        provider = _pattern(element, PatternInterface.Toggle)
        if provider is not None:
            toggle: _TogglePattern = _through(IToggleProvider, provider)
            toggle.Toggle()
            return
        # A click on a text box (or anything else focusable) focuses it.
        if not self._take_focus(element):
            raise _cannot(element, "a click through the toolkit", 'Use mode="os" for a real mouse click.')

    def _click_menu_item(self, item: MenuItem) -> None:
        self._open_menu_chain(item)
        provider = _pattern(item, PatternInterface.Invoke)
        if provider is not None:
            # MenuItem closes its menus, then raises Click after the next render
            # (so a dialog its handler opens is not drawn under an open menu).
            invoke: _InvokePattern = _through(IInvokeProvider, provider)
            invoke.Invoke()
            return
        provider = _pattern(item, PatternInterface.ExpandCollapse)
        if provider is not None:
            _flip(provider)
            return
        item.IsSubmenuOpen = not item.IsSubmenuOpen

    def _open_menu_chain(self, item: MenuItem) -> None:
        """Open the menus above ``item``, top first, as a user clicking its path would."""
        chain: list[MenuItem] = []
        parent = ItemsControl.ItemsControlFromItemContainer(item)
        while isinstance(parent, MenuItem) and len(chain) < _MAX_DEPTH:
            chain.append(parent)
            parent = ItemsControl.ItemsControlFromItemContainer(parent)
        for header in reversed(chain):
            if not isinstance(header, MenuItem):
                continue
            if header.IsSubmenuOpen:
                continue
            provider = _pattern(header, PatternInterface.ExpandCollapse)
            if provider is not None:
                expand: _ExpandCollapsePattern = _through(IExpandCollapseProvider, provider)
                expand.Expand()
            else:
                header.IsSubmenuOpen = True

    def _toggle_once(self, button: ToggleButton) -> None:
        """One click on a toggle button: toggle it, then Click and its command, as ToggleButton.OnClick does."""
        if isinstance(button, RadioButton):
            provider = _pattern(button, PatternInterface.SelectionItem)
            if provider is not None:
                selection: _SelectionItemPattern = _through(ISelectionItemProvider, provider)
                selection.Select()
            else:
                button.IsChecked = True
        else:
            provider = _pattern(button, PatternInterface.Toggle)
            if provider is not None:
                toggle: _TogglePattern = _through(IToggleProvider, provider)
                toggle.Toggle()
            else:
                button.IsChecked = not bool(button.IsChecked)
        # The Toggle pattern only toggles; a click also raises Click and runs the command.
        button.RaiseEvent(RoutedEventArgs(ButtonBase.ClickEvent, button))
        _run_command(button.Command, button.CommandParameter, button.CommandTarget, button)

    def _select_index(self, selector: Selector, index: int) -> None:
        items: ItemCollection = selector.Items
        wanted = items[index]
        # Item peers are made for every item: for a very long list, set the index directly.
        peer: AutomationPeer | None = _peer(selector) if int(items.Count) <= _MAX_ITEM_PEERS else None
        if peer is not None:
            # The SelectionItem pattern lives on the list's item peers (the peer of
            # an item container is a wrapper without patterns).
            matches: list[ItemAutomationPeer] = []
            for child in peer.GetChildren() or []:
                if isinstance(child, ItemAutomationPeer) and Object.Equals(child.Item, wanted):
                    matches.append(child)
            if len(matches) == 1:
                match: ItemAutomationPeer = matches[0]
                provider = match.GetPattern(PatternInterface.SelectionItem)
                if provider is not None:
                    selection: _SelectionItemPattern = _through(ISelectionItemProvider, provider)
                    selection.Select()
                    if int(selector.SelectedIndex) == index:
                        return
        selector.SelectedIndex = index

    def _open_context_menu(self, element: Any) -> None:
        node: Any = element
        for _ in range(_MAX_DEPTH):
            menu: ContextMenu | None = None
            if isinstance(node, FrameworkElement):
                menu = node.ContextMenu
            elif isinstance(node, FrameworkContentElement):
                menu = node.ContextMenu
            if menu is not None:
                # The nearest element with a context menu opens it, as WPF does for a right click.
                if isinstance(node, UIElement):
                    menu.PlacementTarget = node
                menu.IsOpen = True
                return
            node = self.parent(node, "visual")
            if node is None:
                break
        raise _cannot(element, "a right click through the toolkit (it has no context menu)", 'Use mode="os".')

    def _double_click(self, element: UIElement) -> None:
        """Raise (Preview)MouseDoubleClick on every Control from ``element`` up, as WPF's Control does."""
        controls: list[Control] = []
        node: DependencyObject | None = element
        while node is not None and len(controls) < _MAX_DEPTH:
            if isinstance(node, Control):
                controls.append(node)
            node = VisualTreeHelper.GetParent(node) if isinstance(node, Visual) else None
        for control in reversed(controls):  # the preview tunnels from the root
            if isinstance(control, Control):
                control.RaiseEvent(_mouse_args(Control.PreviewMouseDoubleClickEvent, element))
        for control in controls:
            if isinstance(control, Control):
                control.RaiseEvent(_mouse_args(Control.MouseDoubleClickEvent, element))

    def _take_focus(self, element: Any) -> bool:
        """Give ``element`` keyboard focus, else at least logical focus (its window is not active)."""
        if isinstance(element, UIElement):
            if not element.IsKeyboardFocused:
                Keyboard.Focus(element)
            if not element.IsKeyboardFocused:
                element.Focus()
            return bool(element.IsKeyboardFocused) or _has_logical_focus(element)
        if isinstance(element, ContentElement):
            if not element.IsKeyboardFocused:
                Keyboard.Focus(element)
            if not element.IsKeyboardFocused:
                element.Focus()
            return bool(element.IsKeyboardFocused) or _has_logical_focus(element)
        if isinstance(element, UIElement3D):
            return bool(element.Focus())
        return False

    def _key_target(self, element: Any | None) -> Any | None:
        """Where keys go: the focused element within ``element`` (or anywhere), else ``element``."""
        focused = self.focused_element()
        if element is None:
            return focused
        if isinstance(focused, DependencyObject) and (
            Object.ReferenceEquals(focused, element)
            or (isinstance(element, Visual) and isinstance(focused, Visual) and element.IsAncestorOf(focused))
        ):
            return focused
        return element

    def _press(self, target: Any, chord: KeyChord) -> None:
        held = set(chord.modifiers)
        if not held:
            self._stroke(target, chord.key, _char_of(chord.key))
            return
        if held == {"shift"} and chord.key == "Tab":
            _move_focus(target, FocusNavigationDirection.Previous)
            return
        key: Key = _KEYS[chord.key]
        if self._run_gesture(target, key, {_MODIFIER_NAMES[m] for m in held}):
            return
        if held == {"alt"} and self._access_key(target, chord.key):
            return
        if held == {"shift"} and len(chord.key) == 1 and chord.key.isalpha():
            # Shift only changes the character typed; the key events cannot carry it.
            self._stroke(target, chord.key, chord.key.upper())
            return
        # KeyEventArgs cannot fake held modifiers (WPF reads them from the real
        # keyboard), so only what a gesture is bound to can run through the toolkit.
        shown = "+".join([*(m.capitalize() for m in chord.modifiers), chord.key])
        raise ElementNotInteractableError(
            f"{shown} runs nothing through the toolkit: no key binding or command gesture for it was "
            f"found on {_describe(target)} or the elements it is in, and WPF key events cannot carry "
            "held modifier keys.",
            suggestion='Send it as real keyboard input with mode="os", or send keys without modifiers.',
            detail={"reason": "unsupported", "keys": shown},
        )

    def _stroke(self, target: Any, name: str, char: str | None) -> None:
        """One key pressed and released, as WPF's input manager routes it, then what follows it."""
        key: Key = _KEYS[name]
        source = _source_of(target)
        if source is None:
            raise ElementNotInteractableError(
                f"{_describe(target)} is not shown in a window, so it takes no keys.",
                suggestion="Show it first, or send the keys to an element that is shown.",
                detail={"reason": "hidden"},
            )
        handled = _raise_key(target, source, key, Keyboard.PreviewKeyDownEvent)
        if not handled:
            # KeyDown reaches the element's and its ancestors' InputBindings and
            # the controls' class bindings (Backspace, arrows, Enter in a text box).
            handled = _raise_key(target, source, key, Keyboard.KeyDownEvent)
        if not handled:
            self._after_key(target, name, char)
        if not _raise_key(target, source, key, Keyboard.PreviewKeyUpEvent):
            _raise_key(target, source, key, Keyboard.KeyUpEvent)

    def _after_key(self, target: Any, name: str, char: str | None) -> None:
        """What the input manager does with a key nothing handled: text, navigation, default buttons."""
        if char is not None:
            self._text_input(target, char)
            return
        direction = _NAVIGATION_KEYS.get(name)
        if direction is not None:
            _move_focus(target, direction)
            return
        access = {"Enter": "\r", "Escape": "\x1b"}.get(name)
        if access is not None:
            # Enter presses the default button (IsDefault), Escape the cancel button (IsCancel).
            self._access_key(target, access)

    def _access_key(self, target: Any, key: str) -> bool:
        """Press an access key (a letter, or Enter/Escape for the default/cancel button) from ``target``."""
        if not isinstance(target, DependencyObject):
            return False
        # The scope WPF looks in for a key pressed on target: the one its
        # AccessKeyPressed handlers name (a menu, a popup), else its window's.
        probe = AccessKeyPressedEventArgs(key)
        probe.RoutedEvent = AccessKeyManager.AccessKeyPressedEvent
        _raise(target, probe)
        scope: object | None = probe.Scope
        if scope is None:
            scope = PresentationSource.FromDependencyObject(target)
        if scope is None or not AccessKeyManager.IsKeyRegistered(scope, key):
            return False
        AccessKeyManager.ProcessKey(scope, key, False)
        return True

    def _run_gesture(self, target: Any, key: Key, modifiers: set[str]) -> bool:
        """Run the command bound to key + modifiers, as WPF's CommandManager would for the real keys."""
        node: Any = target
        for _ in range(_MAX_DEPTH):
            if node is None:
                break
            bindings: Iterable[Any] = ()
            command_bindings: Iterable[Any] = ()
            if isinstance(node, UIElement):
                bindings, command_bindings = node.InputBindings, node.CommandBindings
            elif isinstance(node, ContentElement):
                bindings, command_bindings = node.InputBindings, node.CommandBindings
            elif isinstance(node, UIElement3D):
                bindings, command_bindings = node.InputBindings, node.CommandBindings
            for binding in bindings:
                if isinstance(binding, InputBinding) and _gesture_matches(binding.Gesture, key, modifiers):
                    _run_command(binding.Command, binding.CommandParameter, binding.CommandTarget, node)
                    return True
            for command_binding in command_bindings:
                if not isinstance(command_binding, CommandBinding):
                    continue
                command = _unwrap(command_binding.Command)
                if isinstance(command, RoutedCommand) and any(
                    _gesture_matches(g, key, modifiers) for g in command.InputGestures
                ):
                    if command.CanExecute(None, target):
                        command.Execute(None, target)
                    return True
            node = self.parent(node, "visual")
        # The framework's own commands (Ctrl+A, Ctrl+C, Ctrl+Z...), handled by the
        # controls' class command bindings (a text box's SelectAll).
        for command in _gesture_commands():
            if isinstance(command, RoutedCommand) and any(
                _gesture_matches(g, key, modifiers) for g in command.InputGestures
            ):
                if command.CanExecute(None, target):
                    command.Execute(None, target)
                    return True
        return False

    def _text_input(self, target: Any, text: str) -> None:
        """Characters as the keyboard delivers them: PreviewTextInput, then TextInput."""
        preview = _text_args(target, text, TextCompositionManager.PreviewTextInputEvent)
        _raise(target, preview)
        if not preview.Handled:
            _raise(target, _text_args(target, text, TextCompositionManager.TextInputEvent))

    def _settle(self) -> None:
        """Run what the action queued at input priority or above before returning.

        ButtonAutomationPeer.Invoke queues the click (DispatcherPriority.Input),
        and MenuItem raises Click after the next render: without this the
        engine's next read (Normal priority, which runs before Input) would see
        the state from before the click. If the handler opens a modal dialog,
        this returns when the dialog closes; the engine reads from inside it.
        """
        frame = DispatcherFrame()

        def stop() -> None:
            frame.Continue = False

        self.dispatcher.BeginInvoke(DispatcherPriority.Input, Action(stop))
        Dispatcher.PushFrame(frame)

    def _item_text(self, owner: ItemsControl | None, item: Any) -> str | None:
        """An item's display text: its content or header, else the data item's display member or text."""
        if item is None:
            return None
        if isinstance(item, str):
            return item
        value: Any = item
        if isinstance(item, PasswordBox):
            return None
        if isinstance(item, HeaderedContentControl):
            value = item.Header
        elif isinstance(item, HeaderedItemsControl):
            value = item.Header
        elif isinstance(item, ContentControl):
            value = item.Content
        elif isinstance(item, TextBlock):
            value = item.Text
        elif isinstance(item, TextBox):
            value = item.Text
        elif owner is not None and owner.DisplayMemberPath:
            value = _member_value(item, str(owner.DisplayMemberPath))
        if isinstance(value, TextBlock):
            value = value.Text
        if value is None or isinstance(value, (Visual, Visual3D, ContentElement)):
            return None  # an element shown as content has no text of its own here
        return value if isinstance(value, str) else str(to_plain(value))

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


# -- input helpers (module level) ---------------------------------------------

_MAX_DEPTH = 256
_MAX_ITEM_PEERS = 2000
_MODIFIER_NAMES: dict[str, str] = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "meta": "Windows"}


class _InvokePattern(Protocol):
    """System.Windows.Automation.Provider.IInvokeProvider (members as documented)."""

    def Invoke(self) -> None: ...  # noqa: N802 - .NET member names


class _TogglePattern(Protocol):
    """IToggleProvider."""

    def Toggle(self) -> None: ...  # noqa: N802


class _SelectionItemPattern(Protocol):
    """ISelectionItemProvider."""

    def Select(self) -> None: ...  # noqa: N802


class _ExpandCollapsePattern(Protocol):
    """IExpandCollapseProvider."""

    ExpandCollapseState: ExpandCollapseState

    def Expand(self) -> None: ...  # noqa: N802

    def Collapse(self) -> None: ...  # noqa: N802


class _ValuePattern(Protocol):
    """IValueProvider."""

    IsReadOnly: bool
    Value: str

    def SetValue(self, value: str) -> None: ...  # noqa: N802


class _Command(Protocol):
    """System.Windows.Input.ICommand: a BCL interface (System / System.ObjectModel), not in wpf-api.tsv."""

    def CanExecute(self, parameter: object) -> bool: ...  # noqa: N802

    def Execute(self, parameter: object) -> None: ...  # noqa: N802


def _through(interface: Any, value: object) -> Any:
    """``value`` seen through a .NET interface: pythonnet's cast, ``IInvokeProvider(peer)``.

    Automation peers implement their pattern interfaces explicitly, so the
    members are reachable only through the interface. wpf-api.tsv lists the
    UIAutomationProvider interfaces without their members, so the checker
    cannot verify them: callers type the result with the Protocols above,
    which spell out the documented members the adapter uses.
    """
    return interface(value)


def _unwrap(value: Any) -> Any:
    """The object itself when pythonnet hands it back wrapped in an interface (IInputElement, ICommand)."""
    return getattr(value, "__implementation__", value)


def _peer(element: Any) -> AutomationPeer | None:
    """The element's automation peer (created on first use, as for a UI Automation client)."""
    try:
        if isinstance(element, UIElement):
            return UIElementAutomationPeer.CreatePeerForElement(element)
        if isinstance(element, ContentElement):
            return ContentElementAutomationPeer.CreatePeerForElement(element)
    except Exception:  # noqa: BLE001 - an app's OnCreateAutomationPeer may throw: then it has none
        return None
    return None


def _pattern(element: Any, pattern: PatternInterface) -> object | None:
    """The element's automation pattern provider, or None if its peer does not support it."""
    peer = _peer(element)
    if peer is None:
        return None
    try:
        provider: object | None = peer.GetPattern(pattern)
    except Exception:  # noqa: BLE001 - a custom peer may throw: then it has no such pattern
        return None
    return provider


def _flip(provider: object) -> None:
    pattern: _ExpandCollapsePattern = _through(IExpandCollapseProvider, provider)
    if str(pattern.ExpandCollapseState) == _EXPANDED:
        pattern.Collapse()
    else:
        pattern.Expand()


def _run_command(command: _Command | None, parameter: object, command_target: Any, source: Any) -> None:
    """Execute a command source's command as WPF does after a click or a key gesture."""
    if command is None:
        return
    routed = _unwrap(command)
    if isinstance(routed, RoutedCommand):
        # A routed command goes to its CommandTarget, else to the element it came from.
        target = _unwrap(command_target)
        if not isinstance(target, (UIElement, ContentElement, UIElement3D)):
            target = source
        if routed.CanExecute(parameter, target):
            routed.Execute(parameter, target)
        return
    if command.CanExecute(parameter):
        command.Execute(parameter)


def _gesture_matches(gesture: Any, key: Key, modifiers: set[str]) -> bool:
    if not isinstance(gesture, KeyGesture):
        return False
    if str(gesture.Key) != str(key):
        return False
    held = {part.strip() for part in str(gesture.Modifiers).split(",")} - {"None"}
    return held == modifiers


def _gesture_commands() -> tuple[RoutedCommand, ...]:
    return (
        ApplicationCommands.SelectAll,
        ApplicationCommands.Copy,
        ApplicationCommands.Cut,
        ApplicationCommands.Paste,
        ApplicationCommands.Undo,
        ApplicationCommands.Redo,
        ApplicationCommands.Delete,
        ApplicationCommands.Find,
        ApplicationCommands.Replace,
        ApplicationCommands.New,
        ApplicationCommands.Open,
        ApplicationCommands.Save,
        ApplicationCommands.Print,
        ApplicationCommands.Close,
        ApplicationCommands.Help,
    )


def _char_of(key: str) -> str | None:
    """The character an unmodified key types, or None."""
    if len(key) == 1:
        return key.lower()
    return " " if key == "Space" else None


def _source_of(target: Any) -> PresentationSource | None:
    if isinstance(target, DependencyObject):
        return PresentationSource.FromDependencyObject(target)
    return None


def _raise(target: Any, args: RoutedEventArgs) -> None:
    if isinstance(target, UIElement):
        target.RaiseEvent(args)
    elif isinstance(target, ContentElement):
        target.RaiseEvent(args)
    elif isinstance(target, UIElement3D):
        target.RaiseEvent(args)


def _args(*values: Any) -> tuple[Any, ...]:
    """Constructor arguments of the input event args, passed as ``T(*_args(...))``.

    Their signatures in wpf-api.tsv end in a ``: base(...)`` clause that
    tests/unit/wpf_surface.py counts as parameters (KeyEventArgs would "take
    5"), so the count is left to pythonnet; the types are still checked.
    """
    return values


def _raise_key(target: Any, source: PresentationSource, key: Key, event: RoutedEvent) -> bool:
    """Raise one keyboard event on ``target``; whether a handler handled it."""
    # Raised on the element itself, not through the input manager: KeyEventArgs
    # carries no modifier state (handlers read the real keyboard's).
    args = KeyEventArgs(*_args(Keyboard.PrimaryDevice, source, Environment.TickCount, key))
    args.RoutedEvent = event
    _raise(target, args)
    return bool(args.Handled)


def _text_args(target: Any, text: str, event: RoutedEvent) -> TextCompositionEventArgs:
    composition = TextComposition(InputManager.Current, target, text)
    args = TextCompositionEventArgs(*_args(Keyboard.PrimaryDevice, composition))
    args.RoutedEvent = event
    return args


def _mouse_args(event: RoutedEvent, source: UIElement) -> MouseButtonEventArgs:
    args = MouseButtonEventArgs(*_args(Mouse.PrimaryDevice, Environment.TickCount, NetMouseButton.Left))
    args.RoutedEvent = event
    args.Source = source
    return args


def _move_focus(target: Any, direction: FocusNavigationDirection) -> None:
    if isinstance(target, UIElement):
        target.MoveFocus(TraversalRequest(direction))
    elif isinstance(target, ContentElement):
        target.MoveFocus(TraversalRequest(direction))


def _has_logical_focus(element: DependencyObject) -> bool:
    scope = FocusManager.GetFocusScope(element)
    if scope is None:
        return False
    return bool(Object.ReferenceEquals(_unwrap(FocusManager.GetFocusedElement(scope)), element))


def _focusable(element: Any) -> bool:
    if isinstance(element, UIElement):
        return bool(element.Focusable)
    if isinstance(element, ContentElement):
        return bool(element.Focusable)
    if isinstance(element, UIElement3D):
        return bool(element.Focusable)
    return False


def _prepare_text_box(element: Any, replace: bool) -> None:
    """Clear the box (replace), or put the caret at the end of its text (append)."""
    if isinstance(element, PasswordBox):
        if replace:
            element.Clear()
        # Otherwise the text goes where the caret is: PasswordBox does not expose it.
    elif isinstance(element, TextBox):
        if replace:
            element.Clear()
        else:
            # .NET counts UTF-16 units: a character beyond the BMP is two.
            element.Select(len(str(element.Text or "").encode("utf-16-le")) // 2, 0)
    elif isinstance(element, RichTextBox):
        if replace:
            element.SelectAll()
            element.Selection.Text = ""
        else:
            element.CaretPosition = element.Document.ContentEnd
    elif isinstance(element, TextBoxBase) and replace:
        element.SelectAll()  # the first character typed replaces the selection


def _layout_size(element: UIElement) -> tuple[float, float]:
    if isinstance(element, FrameworkElement):
        return float(element.ActualWidth), float(element.ActualHeight)
    size: Size = element.RenderSize
    return float(size.Width), float(size.Height)


def _presentable(hit: Any) -> Any:
    """The element a user would name for a hit: a template's part stands for the control it draws."""
    current = hit
    for _ in range(_MAX_DEPTH):
        if not isinstance(current, FrameworkElement):
            break
        templated = current.TemplatedParent
        if templated is None:
            break
        current = templated
    return current


def _owned_by(window: Window, owner: Window) -> bool:
    current = window.Owner
    for _ in range(_MAX_DEPTH):
        if current is None:
            return False
        if Object.ReferenceEquals(current, owner):
            return True
        current = current.Owner
    return False


def _describe(element: Any) -> str:
    short = type(element).__name__
    name = ""
    if isinstance(element, FrameworkElement):
        name = str(element.Name or "")
    elif isinstance(element, FrameworkContentElement):
        name = str(element.Name or "")
    return f"{short}#{name}" if name else short


def _cannot(element: Any, what: str, suggestion: str) -> ElementNotInteractableError:
    return ElementNotInteractableError(
        f"{_describe(element)} does not support {what}.",
        suggestion=suggestion,
        detail={"reason": "unsupported"},
    )


def _choose(texts: list[str], item: str | None, index: int | None) -> int:
    """The index of the item to select: by index, else by text (exact, then case-insensitive)."""
    if index is not None:
        if not 0 <= index < len(texts):
            raise InvalidArgumentError(
                f"index {index} is out of range: there are {len(texts)} items.",
                suggestion="Pass an index from 0 to the item count minus one, or the item's text.",
                detail={"count": len(texts), "items": texts[:50]},
            )
        return index
    if item is not None:
        if item in texts:
            return texts.index(item)
        folded = [t.casefold() for t in texts]
        if item.casefold() in folded:
            return folded.index(item.casefold())
    raise InvalidArgumentError(
        f"No item has the text {item!r}.",
        suggestion="Pick one of detail.items (exact text, case-insensitive), or pass index.",
        detail={"count": len(texts), "items": texts[:50]},
    )


def _member_value(item: Any, path: str) -> Any:
    """A data item's DisplayMemberPath value (a single property name only, as a binding reads it)."""
    if "." in path or "[" in path:
        return None
    try:
        found: NetPropertyDescriptor | None = TypeDescriptor.GetProperties(item).Find(path, False)
        return None if found is None else found.GetValue(item)
    except Exception:  # noqa: BLE001 - an app's getter may throw; the item just has no text then
        return None


# -- screens and windows (user32; WPF runs on Windows only) --------------------


class _POINT(ctypes.Structure):
    _fields_ = [("x", ctypes.c_long), ("y", ctypes.c_long)]


_USER32: list[CDLL | None] = []


def _user32() -> CDLL | None:
    """user32.dll with the signatures used here, or None where there is none."""
    if not _USER32:
        windll = getattr(ctypes, "windll", None)
        user32: CDLL | None = None
        if windll is not None:
            user32 = windll.user32
            user32.IsWindowEnabled.argtypes = [ctypes.c_void_p]
            user32.IsWindowEnabled.restype = ctypes.c_int
            user32.MonitorFromPoint.argtypes = [_POINT, ctypes.c_uint32]
            user32.MonitorFromPoint.restype = ctypes.c_void_p
        _USER32.append(user32)
    return _USER32[0]


def _hwnd(window: Window) -> int:
    handle = WindowInteropHelper(window).Handle
    return int(handle.ToInt64()) if hasattr(handle, "ToInt64") else int(handle)


def _on_screen(x: int, y: int, element: Any) -> bool:
    user32 = _user32()
    if user32 is not None:
        return bool(user32.MonitorFromPoint(_POINT(x, y), 0))  # MONITOR_DEFAULTTONULL
    # SystemParameters speaks device-independent units; the point is in pixels.
    scale = 1.0
    source = _source_of(element)
    if source is not None and source.CompositionTarget is not None:
        matrix: Matrix = source.CompositionTarget.TransformToDevice
        scale = float(matrix.M11)
    left = float(SystemParameters.VirtualScreenLeft) * scale
    top = float(SystemParameters.VirtualScreenTop) * scale
    width = float(SystemParameters.VirtualScreenWidth) * scale
    height = float(SystemParameters.VirtualScreenHeight) * scale
    return left <= x < left + width and top <= y < top + height


# -- mutation helpers -----------------------------------------------------------


def _declared_type(prop: PropertyDescriptor) -> Type | None:
    handle = prop.handle
    if not isinstance(handle, _PropertyHandle):
        return None
    if handle.dp is not None:
        declared: Type = handle.dp.PropertyType
        return declared
    if handle.descriptor is not None:
        described: Type = handle.descriptor.PropertyType
        return described
    return None


def _numbers(value: Converted, count: int) -> list[float]:
    if len(value.parts) != count or any(isinstance(p, (bool, str)) for p in value.parts):
        raise _unbuildable(value)
    return [float(p) for p in value.parts]


def _build(value: Converted, declared: Type | None) -> Any:
    """The .NET value for ``value``, with plain constructors and factories only."""
    kind = value.kind
    if kind == "thickness":
        left, top, right, bottom = _numbers(value, 4)
        return Thickness(left, top, right, bottom)
    if kind == "cornerradius":
        top_left, top_right, bottom_right, bottom_left = _numbers(value, 4)
        return CornerRadius(top_left, top_right, bottom_right, bottom_left)
    if kind in ("color", "brush"):
        a, r, g, b = (int(n) for n in _numbers(value, 4))
        color = Color.FromArgb(Byte(a), Byte(r), Byte(g), Byte(b))
        return SolidColorBrush(color) if kind == "brush" else color
    if kind == "gridlength":
        if len(value.parts) != 2 or str(value.parts[1]) not in _GRID_UNITS:
            raise _unbuildable(value)
        return GridLength(float(value.parts[0]), _GRID_UNITS[str(value.parts[1])])
    if kind == "size" and value.type_name == "System.Windows.Size":
        width, height = _numbers(value, 2)
        return Size(width, height)
    if kind == "point" and value.type_name == "System.Windows.Point":
        x, y = _numbers(value, 2)
        return Point(x, y)
    if kind == "rect" and value.type_name == "System.Windows.Rect":
        x, y, width, height = _numbers(value, 4)
        return Rect(x, y, width, height)
    if kind == "fontweight":
        (weight,) = _numbers(value, 1)
        return FontWeight.FromOpenTypeWeight(int(weight))
    if kind == "fontstyle":
        styles = {"Normal": FontStyles.Normal, "Italic": FontStyles.Italic, "Oblique": FontStyles.Oblique}
        style = styles.get(str(value.parts[0])) if len(value.parts) == 1 else None
        if style is None:
            raise _unbuildable(value)
        return style
    if kind == "fontfamily":
        if len(value.parts) != 1:
            raise _unbuildable(value)
        return FontFamily(str(value.parts[0]))
    # string, null, bool, the numbers, char and enum are the same on every toolkit.
    return build_value(value, declared)


def _unbuildable(value: Converted) -> UnsupportedPropertyTypeError:
    # Only the kind and type name: never the parts, which are the value.
    return UnsupportedPropertyTypeError(
        f"Properties of type {value.type_name} cannot be set on WPF: values of kind {value.kind} are not built here.",
        suggestion="Set a property of a supported type instead, or change the value in the app's code.",
        detail={"typeName": value.type_name, "kind": value.kind},
    )


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
