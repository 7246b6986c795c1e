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
import re
from ctypes import CDLL
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import clr

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
    PlainValue,
    PropertyDescriptor,
    PropertyReading,
    ResourceEntry,
    Toolkit,
    TreeType,
    TriggerCondition,
    TriggerDescription,
    TriggerSetter,
)
from wpfprobe.core.convert import Converted, EnumSpec, UnsupportedPropertyTypeError, conversion_error
from wpfprobe.core.errors import (
    AppNotAvailableError,
    ClrUnavailableError,
    ElementNotInteractableError,
    ElementNotRenderableError,
    InvalidArgumentError,
    PropertyReadOnlyError,
)
from wpfprobe.core.redaction import REDACTED
from wpfprobe_clr._binding_errors import BindingErrorStore
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
from System.Collections import IEnumerable  # noqa: E402
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor  # noqa: E402
from System.Diagnostics import SourceLevels, TraceListener  # noqa: E402
from System.ComponentModel import PropertyDescriptorCollection, TypeDescriptor  # noqa: E402
from System.IO import MemoryStream  # noqa: E402
from System.Reflection import PropertyInfo, TargetInvocationException  # noqa: E402

if _WPF_LOAD_ERROR is None:
    from System.ComponentModel import DependencyPropertyDescriptor
    from System.Diagnostics import PresentationTraceSources
    from System.Windows import (
        Application,
        BaseValueSource,
        Condition,
        DataTrigger,
        EventTrigger,
        FrameworkPropertyMetadata,
        FrameworkTemplate,
        MultiDataTrigger,
        MultiTrigger,
        PropertyMetadata,
        PropertyPath,
        ResourceDictionary,
        Setter,
        SetterBase,
        Style,
        TemplateBindingExpression,
        TemplateBindingExtension,
        Trigger,
        TriggerAction,
        TriggerBase,
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
        ControlTemplate,
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
    from System.Windows.Controls.Primitives import LayoutInformation  # diagnostic_facts
    from System.Windows.Controls import Panel, ScrollContentPresenter, ScrollViewer, VirtualizingPanel
    from System.Windows.Input import KeyboardNavigation
    from System.Windows.Data import (
        Binding,
        BindingBase,
        BindingExpression,
        BindingExpressionBase,
        BindingMode,
        BindingOperations,
        BindingStatus,
        MultiBinding,
        MultiBindingExpression,
        PriorityBinding,
        PriorityBindingExpression,
        RelativeSource,
        RelativeSourceMode,
        UpdateSourceTrigger,
    )
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
    _STATUS_NAMES: dict[str, str] = {
        str(BindingStatus.Unattached): "unattached",
        str(BindingStatus.Inactive): "inactive",
        str(BindingStatus.Active): "active",
        str(BindingStatus.Detached): "detached",
        str(BindingStatus.AsyncRequestPending): "async-request-pending",
        str(BindingStatus.PathError): "path-error",
        str(BindingStatus.UpdateTargetError): "update-target-error",
        str(BindingStatus.UpdateSourceError): "update-source-error",
    }
    _DEFAULT_MODE = str(BindingMode.Default)
    _DEFAULT_TRIGGER = str(UpdateSourceTrigger.Default)
    _FIND_ANCESTOR = str(RelativeSourceMode.FindAncestor)

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

    # The canonical key names of wpfprobe.core.keys, as WPF keys.
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

    # -- diagnostics

    def diagnostic_facts(self, element: Any, memo: dict[Any, Any]) -> DiagnosticFacts:
        if not isinstance(element, UIElement):
            return DiagnosticFacts(unresolved_resources=self._unresolved_resources(element))
        bounds = self.bounds(element)
        item_count: int | None = None
        virtualized: bool | None = None
        if isinstance(element, ItemsControl):
            items: ItemCollection = element.Items
            item_count = int(items.Count)
            virtualized = self._virtualizes(element)
        return DiagnosticFacts(
            bounds=bounds,
            client_area=bounds if bool(element.ClipToBounds) or isinstance(element, Window) else None,
            clip=self._layout_clip(element),
            scrolls=isinstance(element, (ScrollContentPresenter, ScrollViewer)),
            tab_index=int(KeyboardNavigation.GetTabIndex(element)),
            tab_stop=bool(KeyboardNavigation.GetIsTabStop(element)) and bool(element.Focusable),
            has_accessible_name=bool(str(AutomationProperties.GetName(element) or "")),
            item_count=item_count,
            virtualized=virtualized,
            unresolved_resources=self._unresolved_resources(element),
        )

    def _virtualizes(self, control: ItemsControl) -> bool | None:
        """Whether the control's items panel creates containers only for what shows; None before it has one."""
        host = self._items_host(control)
        if host is None:
            return None
        if not isinstance(host, VirtualizingPanel):
            return False
        if control.IsGrouping and not VirtualizingPanel.GetIsVirtualizingWhenGrouping(control):
            return False
        return bool(VirtualizingPanel.GetIsVirtualizing(control)) and bool(ScrollViewer.GetCanContentScroll(control))

    def _items_host(self, control: ItemsControl) -> Panel | None:
        # The panel the template marks IsItemsHost, a few levels down (breadth first).
        level: list[Any] = [control]
        for _depth in range(8):
            below: list[Any] = []
            for visual in level:
                for child in self.children(visual, "visual"):
                    if isinstance(child, Panel) and child.IsItemsHost:
                        return child
                    if not isinstance(child, ItemsControl):  # a nested list's host is not ours
                        below.append(child)
            level = below
            if not level:
                break
        return None

    def _layout_clip(self, element: UIElement) -> Bounds | None:
        """The layout slot the element is cut to when it is larger than the space it was given (screen px)."""
        if not isinstance(element, FrameworkElement) or LayoutInformation.GetLayoutClip(element) is None:
            return None
        parent = VisualTreeHelper.GetParent(element)
        if not isinstance(parent, UIElement):
            return None
        if PresentationSource.FromVisual(parent) is None:
            return None
        slot: Rect = LayoutInformation.GetLayoutSlot(element)
        if slot.IsEmpty:
            return None
        try:
            top_left: Point = parent.PointToScreen(slot.TopLeft)
            bottom_right: Point = parent.PointToScreen(slot.BottomRight)
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        x, y = math.floor(top_left.X + 0.5), math.floor(top_left.Y + 0.5)
        return Bounds(x, y, math.floor(bottom_right.X + 0.5) - x, math.floor(bottom_right.Y + 0.5) - y)

    def _unresolved_resources(self, element: Any) -> tuple[tuple[str, str], ...]:
        """(property, key) of each DynamicResource set on the element whose key finds nothing."""
        if not isinstance(element, (FrameworkElement, FrameworkContentElement)):
            return ()
        owner: DependencyObject = element
        found: list[tuple[str, str]] = []
        entries: LocalValueEnumerator = owner.GetLocalValueEnumerator()
        while entries.MoveNext():
            entry: LocalValueEntry = entries.Current
            value: object = entry.Value
            if value is None or type_full_name(value) != "System.Windows.ResourceReferenceExpression":
                continue
            # The expression type is internal; its ResourceKey property is public.
            reflected: Type = value.GetType()
            info: PropertyInfo | None = reflected.GetProperty("ResourceKey")
            key = info.GetValue(value, None) if info is not None else None
            if key is not None and _find_resource(element, key) is None:
                dp: DependencyProperty = entry.Property
                found.append((str(dp.Name), str(key)[:200]))
        return tuple(found)

    def binding_error_count(self, element: Any) -> int:
        return len(self.binding_errors(element))

    # -- why is my UI wrong: bindings

    def bindings(self, element: Any) -> list[BindingDescription]:
        if not isinstance(element, DependencyObject):
            return []
        found: list[BindingDescription] = []
        seen: set[str] = set()
        for dp in _bindable_properties(element):
            name = _dp_name(dp)
            if name.lower() in seen:
                continue
            seen.add(name.lower())
            described = _describe_dp_binding(element, dp, name)
            if described is not None:
                found.append(described)
        return found

    def binding(self, element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
        handle: _PropertyHandle | None = prop.handle if isinstance(prop.handle, _PropertyHandle) else None
        if handle is None or handle.dp is None or not isinstance(element, DependencyObject):
            return None
        return _describe_dp_binding(element, handle.dp, prop.name)

    def binding_errors(self, element: Any) -> list[BindingErrorRecord]:
        if not isinstance(element, DependencyObject):
            return []
        described = {d.property_name.lower(): d for d in self.bindings(element)}
        traced: list[BindingErrorRecord] = []
        for key in _trace_keys(element, self._type_names_of(element)[0]):
            for record in _TRACE_ERRORS.get(key):
                desc = described.get((record.property_name or "").lower())
                # The trace names its target by type and name only: a record counts
                # for this element when it has that binding (same path) now.
                if desc is None or (record.path and desc.path and record.path != desc.path):
                    continue
                traced.append(record)
        seen = {(r.property_name or "").lower() for r in traced}
        live = [
            BindingErrorRecord(d.property_name, d.error, 1, "status", d.path)
            for name, d in described.items()
            if d.error is not None and name not in seen
        ]
        return live + traced

    # -- why is my UI wrong: resources

    def resources(self, element: Any | None) -> list[ResourceEntry]:
        found: list[ResourceEntry] = []
        current: Any = element
        first = True
        while current is not None:
            label = _describe(current)
            kind = "element" if first else ("window" if isinstance(current, Window) else "ancestor")
            if isinstance(current, FrameworkElement):
                _add_dictionary(found, current.Resources, f"{label} Resources", kind, current, [])
                _add_style_resources(found, current.Style, label, current)
                if isinstance(current, Control):
                    template: ControlTemplate | None = current.Template
                    if template is not None:
                        _add_dictionary(found, template.Resources, f"Template of {label}", "template", current, [])
            elif isinstance(current, FrameworkContentElement):
                _add_dictionary(found, current.Resources, f"{label} Resources", kind, current, [])
                _add_style_resources(found, current.Style, label, current)
            first = False
            current = _resource_parent(current)
        app = self._application()
        if app is not None:
            _add_dictionary(found, app.Resources, "Application Resources", "application", None, [])
        return found

    def resource_value_type(self, entry: ResourceEntry) -> str | None:
        return type_full_name(_resource_value(entry))

    def resource_summary(self, entry: ResourceEntry) -> PlainValue:
        return _summary(_resource_value(entry))

    # -- why is my UI wrong: triggers and behaviors

    def triggers(self, element: Any, may_read: MayRead) -> list[TriggerDescription]:
        if not isinstance(element, FrameworkElement):
            return []
        found: list[TriggerDescription] = []
        trigger: TriggerBase
        style: Style | None = element.Style
        level = 0
        while style is not None:
            target: Type | None = style.TargetType
            origin = f"Style for {target.Name if target is not None else '?'}"
            if level:
                origin += f" (BasedOn, {level} up)"
            for trigger in style.Triggers:
                found.append(_describe_trigger(element, trigger, "style", origin, None, may_read))
            style = style.BasedOn
            level += 1
        if isinstance(element, Control):
            template: ControlTemplate | None = element.Template
            if template is not None:
                target_type: Type | None = template.TargetType
                origin = f"ControlTemplate for {target_type.Name if target_type is not None else '?'}"
                for trigger in template.Triggers:
                    found.append(_describe_trigger(element, trigger, "template", origin, template, may_read))
        for trigger in element.Triggers:
            found.append(_describe_trigger(element, trigger, "element", f"{_describe(element)} Triggers", None, may_read))
        return found

    def behaviors(self, element: Any, may_read: MayRead) -> list[BehaviorDescription]:
        if not isinstance(element, DependencyObject):
            return []
        found: list[BehaviorDescription] = []
        entries: LocalValueEnumerator = element.GetLocalValueEnumerator()
        while entries.MoveNext():
            entry: LocalValueEntry = entries.Current
            dp: DependencyProperty = entry.Property
            owner: Type = dp.OwnerType
            # Matched by name, so neither behaviors assembly has to be present.
            if str(owner.FullName) not in _INTERACTION_TYPES:
                continue
            kind = "trigger" if "Trigger" in str(dp.Name) else "behavior"
            collection: IEnumerable = entry.Value
            item: Object
            for item in collection:
                found.append(_describe_behavior(item, kind, may_read))
        return found


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


def _find_resource(element: Any, key: object) -> object | None:
    if isinstance(element, FrameworkElement):
        return element.TryFindResource(key)
    if isinstance(element, FrameworkContentElement):
        return element.TryFindResource(key)
    return None


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


# -- why is my UI wrong (module level) ------------------------------------------

_INTERACTION_TYPES = frozenset({"Microsoft.Xaml.Behaviors.Interaction", "System.Windows.Interactivity.Interaction"})
# Plumbing every DependencyObject has; not what a behavior's author set.
_BEHAVIOR_SKIP = frozenset(
    {"AssociatedObject", "Dispatcher", "DependencyObjectType", "IsSealed", "IsFrozen", "CanFreeze", "HasAnimatedProperties"}
)
_MAX_BEHAVIOR_PROPERTIES = 20
_MAX_SUMMARY = 120


def _dp_name(dp: DependencyProperty) -> str:
    return str(dp.Name)


def _style_of(element: DependencyObject) -> Style | None:
    if isinstance(element, FrameworkElement):
        return element.Style
    if isinstance(element, FrameworkContentElement):
        return element.Style
    return None


def _bindable_properties(element: DependencyObject) -> list[DependencyProperty]:
    """Local values, plus what the element's style setters set: a style's binding is not a local value."""
    found: list[DependencyProperty] = []
    entries: LocalValueEnumerator = element.GetLocalValueEnumerator()
    while entries.MoveNext():
        entry: LocalValueEntry = entries.Current
        found.append(entry.Property)
    style = _style_of(element)
    setter_base: SetterBase
    while style is not None:
        for setter_base in style.Setters:
            if isinstance(setter_base, Setter) and isinstance(setter_base.Value, BindingBase):
                found.append(setter_base.Property)
        style = style.BasedOn
    return found


def _describe_dp_binding(element: DependencyObject, dp: DependencyProperty, name: str) -> BindingDescription | None:
    declared: Type = dp.PropertyType
    type_name = str(declared.FullName or declared.Name)
    expression = BindingOperations.GetBindingExpressionBase(element, dp)
    if expression is not None:
        return _describe_expression(element, dp, name, type_name, expression)
    local = element.ReadLocalValue(dp)
    if isinstance(local, TemplateBindingExpression):
        extension: TemplateBindingExtension = local.TemplateBindingExtension
        source: DependencyProperty | None = extension.Property
        parent: DependencyObject | None = element.TemplatedParent if isinstance(element, FrameworkElement) else None
        return BindingDescription(
            property_name=name,
            property_type_name=type_name,
            kind="TemplateBinding",
            path=_dp_name(source) if source is not None else None,
            mode="OneWay",
            converter_type=type_full_name(extension.Converter),
            converter_parameter=_summary_text(extension.ConverterParameter),
            source_kind="RelativeSource",
            source_description="TemplatedParent",
            source_type_name=type_full_name(parent),
            status="active" if parent is not None else "inactive",
        )
    return None


def _describe_expression(
    element: DependencyObject, dp: DependencyProperty, name: str, type_name: str, expression: BindingExpressionBase
) -> BindingDescription:
    status = _STATUS_NAMES.get(str(expression.Status), str(expression.Status).lower())
    if status == "active" and bool(expression.HasValidationError):
        status = "validation-error"
    context: Any = None
    has_context = False
    if isinstance(element, FrameworkElement):
        context, has_context = element.DataContext, True
    elif isinstance(element, FrameworkContentElement):
        context, has_context = element.DataContext, True
    common: dict[str, Any] = {
        "property_name": name,
        "property_type_name": type_name,
        "status": status,
        "error": _binding_error(expression),
        "data_context_is_null": (context is None) if has_context else None,
        "data_context_type": type_full_name(context),
    }
    child: BindingExpressionBase
    if isinstance(expression, BindingExpression):
        binding: Binding = expression.ParentBinding
        kind, description = _binding_source(binding)
        path: PropertyPath | None = binding.Path
        path_text = str(path.Path) if path is not None else ""
        if binding.XPath:
            path_text = f"{path_text} XPath={binding.XPath}".strip()
        return BindingDescription(
            kind="Binding",
            path=path_text or None,
            mode=_mode(element, dp, binding.Mode),
            update_trigger=_update_trigger(element, dp, binding.UpdateSourceTrigger),
            converter_type=type_full_name(binding.Converter),
            converter_parameter=_summary_text(binding.ConverterParameter),
            string_format=str(binding.StringFormat or "") or None,
            fallback_value=_set_summary(binding.FallbackValue),
            target_null_value=_set_summary(binding.TargetNullValue),
            source_kind=kind,  # type: ignore[arg-type]
            source_description=description,
            source_type_name=type_full_name(expression.DataItem),
            **common,
        )
    if isinstance(expression, MultiBindingExpression):
        multi: MultiBinding = expression.ParentMultiBinding
        parts = []
        for child in expression.BindingExpressions:
            parts.append(_describe_expression(element, dp, name, type_name, child))
        return BindingDescription(
            kind="MultiBinding",
            mode=_mode(element, dp, multi.Mode),
            update_trigger=_update_trigger(element, dp, multi.UpdateSourceTrigger),
            converter_type=type_full_name(multi.Converter),
            converter_parameter=_summary_text(multi.ConverterParameter),
            string_format=str(multi.StringFormat or "") or None,
            fallback_value=_set_summary(multi.FallbackValue),
            children=tuple(parts),
            **common,
        )
    if isinstance(expression, PriorityBindingExpression):
        priority: PriorityBinding = expression.ParentPriorityBinding
        active: BindingExpressionBase | None = expression.ActiveBindingExpression
        parts = []
        active_index: int | None = None
        for index, child in enumerate(expression.BindingExpressions):
            if active is not None and Object.ReferenceEquals(child, active):
                active_index = index
            parts.append(_describe_expression(element, dp, name, type_name, child))
        chosen = f"part {active_index} is active" if active_index is not None else "no part has a value yet"
        return BindingDescription(
            kind="PriorityBinding",
            fallback_value=_set_summary(priority.FallbackValue),
            source_description=chosen,
            children=tuple(parts),
            **common,
        )
    return BindingDescription(kind=str(expression.GetType().Name), **common)


def _binding_source(binding: Binding) -> tuple[str, str]:
    if binding.ElementName:
        return "ElementName", f"ElementName={binding.ElementName}"
    relative: RelativeSource | None = binding.RelativeSource
    if relative is not None:
        mode = str(relative.Mode)
        if mode == _FIND_ANCESTOR:
            ancestor: Type | None = relative.AncestorType
            kind = ancestor.Name if ancestor is not None else "?"
            return "RelativeSource", f"FindAncestor {kind}, level {int(relative.AncestorLevel)}"
        return "RelativeSource", mode
    if binding.Source is not None:
        return "Source", f"Source={type_full_name(binding.Source)}"
    return "DataContext", "the DataContext (set on the element or inherited from an ancestor)"


def _mode(element: DependencyObject, dp: DependencyProperty, mode: BindingMode) -> str:
    text = str(mode)
    if text != _DEFAULT_MODE:
        return text
    metadata: PropertyMetadata = dp.GetMetadata(element.DependencyObjectType)
    two_way = isinstance(metadata, FrameworkPropertyMetadata) and bool(metadata.BindsTwoWayByDefault)
    return "TwoWay (default)" if two_way else "OneWay (default)"


def _update_trigger(element: DependencyObject, dp: DependencyProperty, trigger: UpdateSourceTrigger) -> str:
    text = str(trigger)
    if text != _DEFAULT_TRIGGER:
        return text
    metadata: PropertyMetadata = dp.GetMetadata(element.DependencyObjectType)
    if isinstance(metadata, FrameworkPropertyMetadata):
        return f"{metadata.DefaultUpdateSourceTrigger} (default)"
    return "PropertyChanged (default)"


def _summary(value: Any) -> PlainValue:
    """A short rendering of a resource, parameter or setter value: never an element's own text."""
    if value is None:
        return None
    if isinstance(value, Style):
        target: Type | None = value.TargetType
        return f"Style for {target.Name if target is not None else '?'}"
    if isinstance(value, FrameworkTemplate):
        return f"<{type(value).__name__}>"
    if isinstance(value, ResourceDictionary):
        return f"<ResourceDictionary, {int(value.Count)} keys>"
    if isinstance(value, BindingBase):
        return f"<{type(value).__name__}>"
    plain = _plain(value)
    if isinstance(plain, str) and len(plain) > _MAX_SUMMARY:
        return plain[: _MAX_SUMMARY - 1] + "…"
    return plain


def _summary_text(value: Any) -> str | None:
    plain = _summary(value)
    return None if plain is None else str(plain)


def _set_summary(value: Any) -> str | None:
    """A FallbackValue or TargetNullValue: None when it was never set."""
    if value is None or Object.ReferenceEquals(value, DependencyProperty.UnsetValue):
        return None
    return _summary_text(value)


# -- binding errors as they happen: WPF's binding trace ----------------------------

_TRACE_ERRORS = BindingErrorStore()
# "System.Windows.Data Error: 40 : ": the source's name, the level and the event id.
_TRACE_HEADER = re.compile(r"^\S+ (?P<level>\w+): (?P<code>\d+) : ")
_TRACE_TARGET = re.compile(
    r"target element is '(?P<type>[^']*)' \((?:Name='(?P<name>[^']*)'|HashCode=(?P<hash>-?\d+))\)"
)
_TRACE_PROPERTY = re.compile(r"target property is '(?P<property>[^']*)'")
_TRACE_PATH = re.compile(r"BindingExpression:Path=(?P<path>[^;]*);")
_trace_installed: list[bool] = []
_trace_pending: list[str] = []


def parse_binding_trace(text: str) -> tuple[str, str | None, str | None, str] | None:
    """(element key, target property, binding path, message) of one binding trace line, or None.

    The trace names its target element by type and x:Name, or by hash code
    when it has no name: the key is built the way ``_trace_keys`` builds it
    for a live element.
    """
    target = _TRACE_TARGET.search(text)
    if target is None:
        return None
    if target.group("hash") is not None:
        key = f"{target.group('type')}|hash={target.group('hash')}"
    else:
        key = f"{target.group('type')}|name={target.group('name')}"
    prop = _TRACE_PROPERTY.search(text)
    path = _TRACE_PATH.search(text)
    message = _TRACE_HEADER.sub("", text, count=1).strip()
    return key, prop.group("property") if prop else None, path.group("path") if path else None, message


def record_binding_trace(text: str) -> None:
    parsed = parse_binding_trace(text)
    if parsed is None:
        return
    key, prop, path, message = parsed
    _TRACE_ERRORS.add(key, prop, message, kind="trace", path=path)


def _trace_keys(element: DependencyObject, short: str) -> list[str]:
    name = ""
    if isinstance(element, FrameworkElement):
        name = str(element.Name or "")
    elif isinstance(element, FrameworkContentElement):
        name = str(element.Name or "")
    # DependencyObject.GetHashCode is sealed to object identity: what the trace prints.
    return [f"{short}|name={name}", f"{short}|hash={int(element.GetHashCode())}"]


class BindingTraceListener(TraceListener):
    """Receives WPF's data binding trace; each finished line is parsed and recorded.

    A trace event arrives as Write(header) then WriteLine(message). It must
    never throw into the binding engine that reports it.
    """

    __namespace__ = "WpfProbe.Diagnostics"

    def Write(self, *args: Any) -> None:  # noqa: N802 - overrides TraceListener.Write
        if args:
            _trace_pending.append(str(args[0]))

    def WriteLine(self, *args: Any) -> None:  # noqa: N802 - overrides TraceListener.WriteLine
        text = "".join(_trace_pending) + (str(args[0]) if args else "")
        _trace_pending.clear()
        try:
            record_binding_trace(text)
        except Exception:  # noqa: BLE001, S110 - recording an error must not become one
            pass


def install_binding_trace() -> None:
    """Listen to PresentationTraceSources.DataBindingSource, once per process.

    WPF only traces after Refresh() (or under a debugger); the level is raised
    to Warning, never lowered if the app asked for more.
    """
    if _trace_installed:
        return
    _trace_installed.append(True)
    PresentationTraceSources.Refresh()
    source = PresentationTraceSources.DataBindingSource
    level = int(source.Switch.Level)
    if 0 <= level < int(SourceLevels.Warning):
        source.Switch.Level = SourceLevels.Warning
    source.Listeners.Add(BindingTraceListener())


# -- resources -----------------------------------------------------------------------


def _resource_key(key: Any) -> tuple[str, str]:
    """(display, identity) of a resource key: a Type key is an implicit style or template."""
    if isinstance(key, str):
        return key, f"s:{key}"
    if isinstance(key, Type):
        full = str(key.FullName)
        return f"{{x:Type {key.Name}}}", f"t:{full}"
    text = str(key)
    return text, f"{type_full_name(key)}:{text}"


def _add_dictionary(
    found: list[ResourceEntry],
    dictionary: ResourceDictionary | None,
    origin: str,
    kind: str,
    owner: Any,
    visited: list[ResourceDictionary],
) -> None:
    """Its own keys, then its merged dictionaries, the last merged first (WPF's lookup order)."""
    if dictionary is None or any(Object.ReferenceEquals(dictionary, d) for d in visited):
        return
    visited.append(dictionary)
    key: Object
    for key in dictionary.Keys:
        shown, ident = _resource_key(key)
        found.append(ResourceEntry(shown, ident, None, origin, kind, owner, (dictionary, key)))
    merged: list[ResourceDictionary] = list(dictionary.MergedDictionaries)
    for index in range(len(merged) - 1, -1, -1):
        part: ResourceDictionary = merged[index]
        source = part.Source
        name = str(source) if source is not None else f"#{index}"
        merged_kind = "merged" if kind in ("application", "merged") else kind
        _add_dictionary(found, part, f"{origin} > merged {name}", merged_kind, owner, visited)


def _add_style_resources(found: list[ResourceEntry], style: Style | None, label: str, owner: Any) -> None:
    level = 0
    while style is not None:
        origin = f"Style of {label}" if not level else f"Style of {label} (BasedOn, {level} up)"
        _add_dictionary(found, style.Resources, origin, "style", owner, [])
        style = style.BasedOn
        level += 1


def _resource_value(entry: ResourceEntry) -> Any:
    dictionary: ResourceDictionary = entry.handle[0]
    # Reading it loads a deferred resource, as the app's own first lookup would.
    return dictionary[entry.handle[1]]


def _resource_parent(element: Any) -> Any | None:
    """Where a resource lookup goes next: the logical parent, else the templated or visual parent."""
    if not isinstance(element, DependencyObject):
        return None
    parent = LogicalTreeHelper.GetParent(element)
    if parent is not None:
        return parent
    if isinstance(element, FrameworkElement) and element.TemplatedParent is not None:
        return element.TemplatedParent
    if isinstance(element, (Visual, Visual3D)):
        return VisualTreeHelper.GetParent(element)
    return None


# -- triggers ------------------------------------------------------------------------


def _describe_trigger(
    element: FrameworkElement,
    trigger: TriggerBase,
    source: str,
    origin: str,
    template: FrameworkTemplate | None,
    may_read: MayRead,
) -> TriggerDescription:
    conditions: list[TriggerCondition] = []
    setters: tuple[TriggerSetter, ...] = ()
    event: str | None = None
    condition: Condition
    actions = [f"enter: {type(a).__name__}" for a in trigger.EnterActions]
    actions += [f"exit: {type(a).__name__}" for a in trigger.ExitActions]
    if isinstance(trigger, Trigger):
        kind = "Trigger"
        conditions.append(_property_condition(element, trigger.Property, trigger.Value, trigger.SourceName, template, may_read))
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, MultiTrigger):
        kind = "MultiTrigger"
        for condition in trigger.Conditions:
            conditions.append(
                _property_condition(element, condition.Property, condition.Value, condition.SourceName, template, may_read)
            )
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, DataTrigger):
        kind = "DataTrigger"
        conditions.append(_data_condition(element, trigger.Binding, trigger.Value, may_read))
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, MultiDataTrigger):
        kind = "MultiDataTrigger"
        for condition in trigger.Conditions:
            conditions.append(_data_condition(element, condition.Binding, condition.Value, may_read))
        setters = _setters(trigger.Setters, may_read)
    elif isinstance(trigger, EventTrigger):
        kind = "EventTrigger"
        routed: RoutedEvent | None = trigger.RoutedEvent
        event = str(routed.Name) if routed is not None else None
        action: TriggerAction
        actions += [type(action).__name__ for action in trigger.Actions]
    else:
        kind = type(trigger).__name__
    met = [c.met for c in conditions]
    if not conditions:
        active: bool | None = None  # an EventTrigger fires; it has no state to be in
    elif False in met:
        active = False
    elif None in met:
        active = None
    else:
        active = True
    return TriggerDescription(kind, source, origin, active, tuple(conditions), setters, event, tuple(actions))


def _property_condition(
    element: FrameworkElement,
    dp: DependencyProperty | None,
    expected: Any,
    source_name: str | None,
    template: FrameworkTemplate | None,
    may_read: MayRead,
) -> TriggerCondition:
    wanted = _summary(expected)
    if dp is None:
        return TriggerCondition(None, None, wanted, note="the trigger names no property")
    name = _dp_name(dp)
    declared: Type = dp.PropertyType
    described = PropertyDescriptor(name, str(declared.FullName or declared.Name), None, True)
    source_name = str(source_name or "") or None
    if not may_read(described):
        return TriggerCondition(name, None, None, None, None, source_name, redacted=True)
    target: Any = element
    if source_name is not None:
        target = template.FindName(source_name, element) if template is not None else element.FindName(source_name)
    if not isinstance(target, DependencyObject):
        return TriggerCondition(name, None, wanted, None, None, source_name, note=f"{source_name} was not found")
    current = target.GetValue(dp)
    return TriggerCondition(name, None, wanted, _summary(current), _equal(current, expected), source_name)


def _data_condition(element: FrameworkElement, base: BindingBase | None, expected: Any, may_read: MayRead) -> TriggerCondition:
    wanted = _summary(expected)
    if not isinstance(base, Binding):
        kind = type(base).__name__ if base is not None else "no binding"
        return TriggerCondition(None, kind, wanted, note="not evaluated: only a plain Binding is")
    path: PropertyPath | None = base.Path
    path_text = str(path.Path) if path is not None else ""
    if any(_name_secret(part, may_read) for part in path_text.split(".") if part):
        return TriggerCondition(None, path_text, None, redacted=True)
    if base.Converter is not None or base.XPath or any(c in path_text for c in "[]()/"):
        return TriggerCondition(None, path_text, wanted, note="not evaluated: it uses a converter, XPath or indexer")
    found, value, why = _evaluate_path(element, base, path_text, may_read)
    if not found:
        return TriggerCondition(None, path_text, wanted, note=f"not evaluated: {why}")
    if why == "redacted":
        return TriggerCondition(None, path_text, None, redacted=True)
    return TriggerCondition(None, path_text, wanted, _summary(value), _equal(value, expected))


def _name_secret(name: str, may_read: MayRead) -> bool:
    return not may_read(PropertyDescriptor(name, "System.Object", None, True))


def _evaluate_path(element: FrameworkElement, binding: Binding, path: str, may_read: MayRead) -> tuple[bool, Any, str]:
    """(evaluated, value, why not / "redacted") of a plain binding path from the binding's source."""
    relative: RelativeSource | None = binding.RelativeSource
    source: Any
    if binding.ElementName:
        source = element.FindName(binding.ElementName)
        if source is None:
            return False, None, f"no element named {binding.ElementName}"
    elif relative is not None:
        mode = str(relative.Mode)
        if mode == str(RelativeSourceMode.Self):
            source = element
        elif mode == str(RelativeSourceMode.TemplatedParent):
            source = element.TemplatedParent
        else:
            return False, None, f"RelativeSource {mode} is not evaluated"
    elif binding.Source is not None:
        source = binding.Source
    else:
        source = element.DataContext
    value = source
    for segment in [p for p in path.split(".") if p]:
        if value is None:
            return True, None, ""
        descriptor: NetPropertyDescriptor | None = TypeDescriptor.GetProperties(value).Find(segment, False)
        if descriptor is None:
            return False, None, f"{type_full_name(value)} has no property {segment}"
        declared: Type = descriptor.PropertyType
        if not may_read(PropertyDescriptor(segment, str(declared.FullName or declared.Name), None, True)):
            return True, None, "redacted"
        value = descriptor.GetValue(value)
    return True, value, ""


def _equal(current: Any, expected: Any) -> bool:
    if current is None or expected is None:
        return current is None and expected is None
    if bool(Object.Equals(current, expected)):
        return True
    # XAML leaves a DataTrigger's Value a string when it cannot know the source type.
    return str(current).lower() == str(expected).lower()


def _setters(collection: Any, may_read: MayRead) -> tuple[TriggerSetter, ...]:
    found: list[TriggerSetter] = []
    setter_base: SetterBase
    for setter_base in collection:
        if not isinstance(setter_base, Setter):
            continue
        dp: DependencyProperty | None = setter_base.Property
        if dp is None:
            continue
        declared: Type = dp.PropertyType
        name = _dp_name(dp)
        target = str(setter_base.TargetName or "") or None
        if not may_read(PropertyDescriptor(name, str(declared.FullName or declared.Name), None, True)):
            found.append(TriggerSetter(name, None, target, redacted=True))
        else:
            found.append(TriggerSetter(name, _summary(setter_base.Value), target))
    return tuple(found)


# -- behaviors -----------------------------------------------------------------------


def _describe_behavior(item: Any, kind: str, may_read: MayRead) -> BehaviorDescription:
    net_type: Type = item.GetType()
    assembly_name = str(net_type.Assembly.GetName().Name)
    values: list[tuple[str, PlainValue]] = []
    collection: PropertyDescriptorCollection = TypeDescriptor.GetProperties(item)
    net: NetPropertyDescriptor
    for net in collection:
        name = str(net.Name)
        if name in _BEHAVIOR_SKIP or len(values) >= _MAX_BEHAVIOR_PROPERTIES:
            continue
        declared: Type = net.PropertyType
        described = PropertyDescriptor(name, str(declared.FullName or declared.Name), None, bool(net.IsReadOnly))
        if not may_read(described):
            values.append((name, REDACTED))
            continue
        try:
            values.append((name, _summary(net.GetValue(item))))
        except Exception as exc:  # noqa: BLE001 - a behavior's getter may throw; show that
            error_kind, message = exception_identity(exc)
            values.append((name, f"<{error_kind}: {message}>"[:200]))
    actions = getattr(item, "Actions", None)
    names = tuple(type(a).__name__ for a in actions) if actions is not None else ()
    return BehaviorDescription(kind, str(net_type.FullName), assembly_name, tuple(values), names)


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

    ui = UiThread(post=post, check_access=check_access, default_timeout=timeout)
    # Once the dispatcher shuts down, calls waiting for it fail at once instead of timing out.
    ui.post(lambda: adapter.on_ui_exit(ui.end))
    return adapter, ui
