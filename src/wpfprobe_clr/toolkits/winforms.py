"""The WinForms adapter (.NET on Windows, Mono on Linux). UI thread only.

Elements are Controls (Forms included), ToolStripItems (MenuStrip and
ToolStrip items) and, where the runtime still has them, Menu objects
(MainMenu/MenuItem, gone from .NET Core 3.1+). The tree is the same whether
asked as visual or logical: WinForms has one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System import Action, ArgumentException, EventArgs, IntPtr, Object  # noqa: E402
from System.ComponentModel import TypeDescriptor  # noqa: E402
from System.Drawing import Bitmap, Graphics, Point, Rectangle, Size  # noqa: E402
from System.Reflection import BindingFlags, TargetInvocationException  # noqa: E402
from System.Drawing.Imaging import ImageLockMode, PixelFormat  # noqa: E402
from System.Threading import Thread  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    AccessibleObject,
    Application,
    BindingSource,
    CheckBox,
    CheckState,
    ComboBox,
    ComboBoxStyle,
    ContainerControl,
    Control,
    Form,
    GetChildAtPointSkip,
    IButtonControl,
    Keys,
    ListBox,
    ListView,
    MaskedTextBox,
    Message,
    MouseButtons,
    MouseEventArgs,
    NumericUpDown,
    ProgressBar,
    RadioButton,
    ScrollBar,
    SystemInformation,
    TabControl,
    TextBox,
    TextBoxBase,
    ToolStrip,
    ToolStripComboBox,
    ToolStripDropDown,
    ToolStripDropDownItem,
    ToolStripItem,
    ToolStripMenuItem,
    TrackBar,
)

from wpfprobe.core.protocol import (  # noqa: E402
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
    TreeType,
    TriggerDescription,
    Unsupported,
)
from wpfprobe.core.convert import Converted, EnumSpec, conversion_error  # noqa: E402
from wpfprobe.core.errors import (  # noqa: E402
    AppNotAvailableError,
    ElementNotInteractableError,
    ElementNotRenderableError,
    InvalidArgumentError,
    PropertyReadOnlyError,
)

from wpfprobe_clr._build import build_value, enum_spec_of  # noqa: E402

from wpfprobe_clr._binding_errors import BindingErrorStore, WeakKeys  # noqa: E402
from wpfprobe_clr._ui_thread import UiThread, exception_identity  # noqa: E402
from wpfprobe_clr._values import to_plain, type_full_name  # noqa: E402

try:  # MainMenu/MenuItem exist on .NET Framework and Mono, not on .NET Core 3.1+.
    from System.Windows.Forms import Menu as _Menu  # noqa: E402

    _MENU_TYPES: tuple[type, ...] = (_Menu,)
except ImportError:  # pragma: no cover - depends on the runtime
    _MENU_TYPES = ()

from System.Windows.Forms import (  # noqa: E402 - what diagnostic_facts tells apart
    DataGridView,
    DateTimePicker,
    FlowLayoutPanel,
    GroupBox,
    Label,
    Panel,
    ScrollableControl,
    SplitContainer,
    TableLayoutPanel,
    ToolStripSeparator,
    TreeView,
    UpDownBase,
    UserControl,
)

@dataclass(frozen=True, slots=True)
class _Kind:
    control: bool
    container: bool  # its children are the app's controls
    scrollable: bool
    free_layout: bool
    input: bool
    names_itself: bool
    label: bool
    separator: bool
    items: str | None  # "virtual-mode" (ListView, DataGridView), "native" (ListBox, ComboBox) or None


#: Containers whose children are the app's own controls (not a control's parts).
_APP_CONTAINERS = (Form, Panel, GroupBox, TabControl, SplitContainer, UserControl)
#: Controls a user types, picks or sets a value in: each needs a name a screen reader can say.
_INPUT_TYPES = (TextBoxBase, ComboBox, ListBox, ListView, TreeView, UpDownBase, TrackBar, DateTimePicker, CheckBox, RadioButton)

# A password box keeps its secret in these properties, whatever their names say.
_PASSWORD_BOX_SECRETS = frozenset({"Text", "Lines", "SelectedText"})
_TEXT_FAST = object()


class WinFormsAdapter:
    toolkit = "winforms"
    capabilities = (
        "tree", "properties", "data-bindings", "binding-errors", "menus", "screenshot", "input", "set-property",
    )  # fmt: skip

    def __init__(self, main: Any) -> None:
        from System import WeakReference  # noqa: PLC0415

        form = main.FindForm() if not isinstance(main, Form) and isinstance(main, Control) else main
        self._main = WeakReference(form)
        self._type_names: dict[type, tuple[str, str]] = {}
        self._kinds: dict[type, _Kind] = {}

    # -- tree ------------------------------------------------------------
    def roots(self) -> list[Any]:
        main = self._main.Target
        forms = [f for f in Application.OpenForms if not f.IsDisposed]
        ordered = []
        if main is not None and not main.IsDisposed:
            ordered.append(main)
        ordered.extend(f for f in forms if main is None or not Object.ReferenceEquals(f, main))
        return ordered

    def children(self, element: Any, tree_type: TreeType) -> list[Any]:
        if isinstance(element, ToolStrip):
            return list(element.Items)
        if isinstance(element, Control):
            kids = list(element.Controls)
            menu = getattr(element, "Menu", None) if isinstance(element, Form) else None
            return [menu, *kids] if menu is not None else kids
        if isinstance(element, ToolStripDropDownItem):
            # Reading DropDownItems creates the drop-down; ask first.
            return list(element.DropDownItems) if element.HasDropDownItems else []
        if _MENU_TYPES and isinstance(element, _MENU_TYPES):
            return list(element.MenuItems)
        return []

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        if isinstance(element, Control):
            return element.Parent
        if isinstance(element, ToolStripItem):
            return element.OwnerItem if element.OwnerItem is not None else element.Owner
        if _MENU_TYPES and isinstance(element, _MENU_TYPES):
            parent = getattr(element, "Parent", None)
            if parent is not None:
                return parent
            get_form = getattr(element, "GetForm", None)
            return get_form() if get_form is not None else None
        return None

    def is_alive(self, element: Any) -> bool:
        disposed = getattr(element, "IsDisposed", None)
        return not bool(disposed) if disposed is not None else True

    def naming(self, element: Any) -> Naming:
        short, full = self._type_name(element)
        name = getattr(element, "Name", None)
        return Naming(short, full, str(name) if name else None, None)

    def _type_name(self, element: Any) -> tuple[str, str]:
        key = type(element)
        names = self._type_names.get(key)
        if names is None:
            net_type = element.GetType()
            names = (str(net_type.Name), str(net_type.FullName))
            self._type_names[key] = names
        return names

    def state(self, element: Any) -> ElementState:
        if isinstance(element, Control):
            return ElementState(bool(element.Visible), bool(element.Enabled), bool(element.Focused))
        if isinstance(element, ToolStripItem):
            return ElementState(bool(element.Visible), bool(element.Enabled), bool(element.Selected))
        visible = getattr(element, "Visible", True)
        enabled = getattr(element, "Enabled", True)
        return ElementState(bool(visible), bool(enabled), False)

    def bounds(self, element: Any) -> Bounds | None:
        if isinstance(element, Control):
            if element.Parent is None:
                r = element.Bounds
            elif element.Parent.IsHandleCreated:
                r = element.Parent.RectangleToScreen(element.Bounds)
            else:
                return None
            return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
        if isinstance(element, ToolStripItem):
            owner = element.Owner
            if owner is None or not owner.IsHandleCreated or not element.Visible:
                return None
            r = owner.RectangleToScreen(element.Bounds)
            return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
        return None

    def is_active_window(self, element: Any) -> bool:
        active = Form.ActiveForm
        return active is not None and bool(Object.ReferenceEquals(active, element))

    def is_template_part(self, element: Any) -> bool:
        return False  # WinForms has no templates: every control is the app's own

    def on_ui_exit(self, callback: Any) -> None:
        ui_thread = Thread.CurrentThread
        fired: list[bool] = []

        def on_thread_exit(sender: Any, args: Any) -> None:
            # ThreadExit is raised on every thread whose message loop ends: only ours counts.
            if fired or not Object.ReferenceEquals(Thread.CurrentThread, ui_thread):
                return
            fired.append(True)
            callback()

        Application.ThreadExit += on_thread_exit

    # -- properties --------------------------------------------------------
    def text_property(self, element: Any) -> PropertyDescriptor | None:
        if isinstance(element, (Control, ToolStripItem)) or (_MENU_TYPES and isinstance(element, _MENU_TYPES)):
            if getattr(type(element), "Text", None) is None:
                return None
            return PropertyDescriptor(
                "Text", "System.String", None, False, secret=_is_password_box(element), handle=_TEXT_FAST
            )
        return None

    def properties(self, element: Any) -> list[PropertyDescriptor]:
        secrets = _PASSWORD_BOX_SECRETS if _is_password_box(element) else frozenset()
        return [_describe(pd, secrets) for pd in TypeDescriptor.GetProperties(element)]

    def find_property(self, element: Any, name: str) -> PropertyDescriptor | None:
        pd = TypeDescriptor.GetProperties(element).Find(name, True)
        if pd is None:
            return None
        secrets = _PASSWORD_BOX_SECRETS if _is_password_box(element) else frozenset()
        return _describe(pd, secrets)

    def read_property(self, element: Any, prop: PropertyDescriptor) -> PropertyReading:
        if prop.handle is _TEXT_FAST:
            # The hot path of every tree node: one getter, nothing else.
            text = element.Text
            return PropertyReading(to_plain(text), "System.String", "local" if text else "default", bool(text), False)
        pd = prop.handle
        try:
            raw = pd.GetValue(element)
        except Exception as exc:  # noqa: BLE001 - one failing getter must not fail the page
            kind, message = exception_identity(exc)
            return PropertyReading(f"<{kind}: {message}>"[:256], None, "error", False, False)
        binding = _binding_for(element, prop.name)
        if binding is not None:
            errors = [
                r for r in self.binding_errors(element) if (r.property_name or "").lower() == prop.name.lower()
            ]
            # What the binding is in now first, else the most recent error.
            error = (errors[0] if errors[0].kind == "status" else errors[-1]).message if errors else None
            return PropertyReading(_plain(raw), type_full_name(raw), "binding", True, True, binding_error=error)
        if not pd.IsBrowsable or str(pd.SerializationVisibility) == "Hidden":
            # Runtime state (Parent, Capture, Bounds...), not a setting anyone made:
            # ShouldSerializeValue says "set" for anything without a known default.
            return PropertyReading(_plain(raw), type_full_name(raw), "runtime", False, False)
        try:
            local = bool(pd.ShouldSerializeValue(element))
        except Exception:  # noqa: BLE001 - some descriptors cannot say; treat as default
            local = False
        return PropertyReading(_plain(raw), type_full_name(raw), "local" if local else "default", local, False)

    def data_context_type(self, element: Any) -> str | None:
        context = getattr(element, "DataContext", None)  # .NET 7+ has one
        if context is not None:
            return type_full_name(context)
        bindings = getattr(element, "DataBindings", None)
        if bindings is not None and bindings.Count:
            return type_full_name(bindings[0].DataSource)
        return None

    def binding_error_count(self, element: Any) -> int:
        return len(self.binding_errors(element))

    # -- why is my UI wrong ------------------------------------------------
    def bindings(self, element: Any) -> list[BindingDescription]:
        return [self._describe_binding(element, b) for b in _bindings_of(element)]

    def binding(self, element: Any, prop: PropertyDescriptor) -> BindingDescription | None:
        found = _binding_for(element, prop.name)
        return self._describe_binding(element, found) if found is not None else None

    def binding_errors(self, element: Any) -> list[BindingErrorRecord]:
        bindings = _bindings_of(element)
        if not bindings:
            return []
        recorded = _ERRORS.get(_element_key(element))
        live = []
        for binding in bindings:
            problem = _no_current_item(binding)
            if problem is not None:
                name = str(binding.PropertyName)
                live.append(BindingErrorRecord(name, problem, 1, "status", _member_path(binding)))
        return live + recorded

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

    def hook_bindings(self) -> None:
        """Listen to every binding of every open form, so errors are recorded as they happen.

        Bindings made later are hooked when the probe first looks at their control.
        """
        stack: list[Any] = list(Application.OpenForms)
        while stack:
            control = stack.pop()
            if isinstance(control, Control):
                _bindings_of(control)
                stack.extend(control.Controls)

    def _describe_binding(self, element: Any, binding: Any) -> BindingDescription:
        name = str(binding.PropertyName)
        pd = TypeDescriptor.GetProperties(element).Find(name, True)
        type_name = str(pd.PropertyType.FullName) if pd is not None else "System.Object"
        source = binding.DataSource
        manager = binding.BindingManagerBase
        has_current = _has_current_item(manager)
        problem = _no_current_item(binding)
        recorded = [
            r for r in _ERRORS.get(_element_key(element)) if (r.property_name or "").lower() == name.lower()
        ]
        if manager is None:
            status, error = "inactive", "Not bound yet: the control has no BindingContext (is it on a form?)."
        elif problem is not None:
            status, error = "no-current-item", problem
        elif recorded:
            status, error = "error", recorded[-1].message
        elif bool(manager.IsBindingSuspended):
            status, error = "suspended", "The binding manager's binding is suspended (SuspendBinding)."
        else:
            status, error = "active", None
        format_string = str(binding.FormatString or "")
        return BindingDescription(
            property_name=name,
            property_type_name=type_name,
            kind="Binding",
            path=_member_path(binding),
            update_trigger=str(binding.DataSourceUpdateMode),
            control_update_mode=str(binding.ControlUpdateMode),
            string_format=format_string or None,
            formatting_enabled=bool(binding.FormattingEnabled),
            target_null_value=_summary(binding.NullValue),
            source_kind="DataSource",
            source_description=_describe_source(source),
            source_type_name=type_full_name(source),
            has_current_item=has_current,
            status=status,
            error=error,
        )

    # -- diagnostics -------------------------------------------------------
    def diagnostic_facts(self, element: Any, memo: dict[Any, Any]) -> DiagnosticFacts:
        kind = self._kind(element)
        if not kind.control:
            # Menu and tool strip items: their strip lays them out, Tab never stops on them.
            owner = element.Owner if isinstance(element, ToolStripItem) else None
            return DiagnosticFacts(
                bounds=self._walk_bounds(element, owner, memo), zero_size_expected=kind.separator
            )
        parent = element.Parent
        bounds = self._walk_bounds(element, parent, memo)
        if parent is not None and not self._kind(parent).container:
            # A control's own parts (the text box inside an up-down or a combo box).
            return DiagnosticFacts(bounds=bounds)
        client = None
        if kind.container and element.Controls.Count:
            origin = _client_origin(element, memo)
            if origin is not None:
                size = element.ClientSize
                client = Bounds(origin[0], origin[1], int(size.Width), int(size.Height))
        item_count: int | None = None
        virtualized: bool | None = None
        if kind.items == "virtual-mode":  # ListView, DataGridView
            virtualized = bool(element.VirtualMode)
            if isinstance(element, ListView):
                item_count = int(element.VirtualListSize) if virtualized else int(element.Items.Count)
            else:
                item_count = int(element.RowCount)
        elif kind.items == "native":  # ListBox, ComboBox: drawn natively, virtualization does not apply
            item_count = int(element.Items.Count)
        return DiagnosticFacts(
            bounds=bounds,
            client_area=client,
            scrolls=kind.scrollable and bool(element.AutoScroll),
            free_layout=kind.free_layout,
            docked=int(element.Dock) != 0,
            tab_index=int(element.TabIndex),
            tab_stop=bool(element.TabStop),
            is_input=kind.input,
            names_itself=kind.names_itself,
            has_accessible_name=bool(element.AccessibleName),
            is_label=kind.label,
            item_count=item_count,
            virtualized=virtualized,
        )

    def _kind(self, element: Any) -> _Kind:
        """What diagnostic_facts tells apart, decided once per Python type (isinstance on a .NET type is slow)."""
        key = type(element)
        kind = self._kinds.get(key)
        if kind is None:
            container = isinstance(element, _APP_CONTAINERS)
            if isinstance(element, (ListView, DataGridView)):
                items = "virtual-mode"
            elif isinstance(element, (ListBox, ComboBox)):
                items = "native"
            else:
                items = None
            kind = _Kind(
                control=isinstance(element, Control),
                container=container,
                scrollable=container and isinstance(element, ScrollableControl),
                free_layout=container and not isinstance(element, (FlowLayoutPanel, TableLayoutPanel, TabControl)),
                input=isinstance(element, _INPUT_TYPES),
                names_itself=isinstance(element, (CheckBox, RadioButton)),
                label=isinstance(element, Label),
                separator=isinstance(element, ToolStripSeparator),
                items=items,
            )
            self._kinds[key] = kind
        return kind

    def _walk_bounds(self, element: Any, parent: Any, memo: dict[Any, Any]) -> Bounds | None:
        """``bounds`` from the parent's screen origin, read once per walk (each read is an X11 round trip on Mono)."""
        if parent is None or not isinstance(parent, Control):
            return self.bounds(element)
        if isinstance(element, ToolStripItem) and not element.Visible:
            return None
        origin = _client_origin(parent, memo)
        if origin is None:
            return None
        r = element.Bounds
        return Bounds(origin[0] + int(r.X), origin[1] + int(r.Y), int(r.Width), int(r.Height))

    # -- input -------------------------------------------------------------
    def action_state(self, element: Any) -> dict[str, PlainValue]:
        state: dict[str, PlainValue] = {}
        if isinstance(element, CheckBox):
            check = element.CheckState
            state["checked"] = None if check == CheckState.Indeterminate else bool(element.Checked)
        elif isinstance(element, RadioButton):
            state["checked"] = bool(element.Checked)
        elif isinstance(element, ToolStripMenuItem):
            if element.CheckOnClick or element.Checked:
                state["checked"] = bool(element.Checked)
            if element.HasDropDownItems:
                state["expanded"] = bool(element.DropDown.Visible)
        if isinstance(element, ToolStripComboBox):
            element = element.ComboBox
        if isinstance(element, (ListBox, ComboBox)):
            index = int(element.SelectedIndex)
            state["selectedIndex"] = index
            state["selectedItem"] = str(element.GetItemText(element.SelectedItem)) if index >= 0 else None
            if isinstance(element, ComboBox):
                state["expanded"] = bool(element.DroppedDown)
        elif isinstance(element, TabControl):
            index = int(element.SelectedIndex)
            state["selectedIndex"] = index
            state["selectedItem"] = str(element.SelectedTab.Text) if element.SelectedTab is not None else None
        elif isinstance(element, ListView):
            selected = list(element.SelectedIndices)
            state["selectedIndex"] = int(selected[0]) if selected else -1
            state["selectedItem"] = str(element.Items[int(selected[0])].Text) if selected else None
        elif isinstance(element, (TrackBar, NumericUpDown, ProgressBar, ScrollBar)):
            state["value"] = float(str(element.Value)) if isinstance(element, NumericUpDown) else int(element.Value)
        return state

    def blocker(self, element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        unsupported = _unsupported_reason(element, action)
        if unsupported is not None:
            return Blocker("unsupported", unsupported)
        # Before the rest: a modal dialog disables the windows it blocks, and
        # "modal" says what to do about it where "disabled" would not.
        modal = self._modal_over(element)
        if modal is not None:
            return Blocker("modal", f"The modal dialog {_describe_element(modal)} is open.", modal)
        if isinstance(element, ToolStripItem):
            found = self._menu_blocker(element, mode)
        else:
            found = self._control_blocker(element, action)
        if found is not None:
            return found
        if mode == "os" or action == "click":
            return self._pointer_blocker(element, mode)
        return None

    def _control_blocker(self, element: Any, action: ActionKind) -> Blocker | None:
        if not isinstance(element, Control):
            return None
        if not element.Visible:
            return Blocker("hidden", "It, or a container it is in, is not visible.")
        if not element.Enabled:
            return Blocker("disabled", "It, or a container it is in, is disabled.")
        if element.Width <= 0 or element.Height <= 0:
            return Blocker("zero-size", f"Its size is {element.Width}x{element.Height}.")
        if action == "type" and isinstance(element, TextBoxBase) and element.ReadOnly:
            return Blocker("read-only", "It is a read-only text box.")
        return None

    def _menu_blocker(self, item: Any, mode: InputMode) -> Blocker | None:
        # A user reaches a menu item by opening each menu above it: the whole
        # chain must be enabled and present, and the menu bar shown.
        chain = []
        current = item
        while current is not None:
            chain.append(current)
            current = current.OwnerItem
        for link in chain:
            if not link.Available:
                return Blocker("hidden", f"The menu item {_describe_element(link)} is not shown.")
            if not link.Enabled:
                return Blocker("disabled", f"The menu item {_describe_element(link)} is disabled.")
        strip = chain[-1].Owner
        if strip is None or not strip.Visible:
            return Blocker("hidden", "The menu it belongs to is not shown.")
        if not strip.Enabled:
            return Blocker("disabled", "The menu it belongs to is disabled.")
        if mode == "os" and not item.Visible:
            return Blocker("hidden", "Its drop-down is closed; OS input needs it open (click the menu above it).")
        return None

    def _modal_over(self, element: Any) -> Any | None:
        form = _form_of(element)
        for other in Application.OpenForms:
            if other.IsDisposed or not other.Visible or not other.Modal:
                continue
            if form is None or Object.ReferenceEquals(other, form) or _owned_by(form, other):
                continue
            return other
        return None

    def _pointer_blocker(self, element: Any, mode: InputMode) -> Blocker | None:
        point = self.click_point(element)
        if point is None:
            if isinstance(element, ToolStripItem) and mode != "os":
                return None  # PerformClick reaches an item in a closed drop-down
            return Blocker("offscreen", "It has no position on screen.")
        screen = SystemInformation.VirtualScreen
        x, y = point
        if not (screen.X <= x < screen.X + screen.Width and screen.Y <= y < screen.Y + screen.Height):
            return Blocker("offscreen", f"Its centre ({x}, {y}) is outside the screen.")
        hit = self._hit(element, x, y)
        if hit is not None and not _is_self_or_descendant(element, hit):
            return Blocker("covered", f"{_describe_element(hit)} is on top of its centre.", hit)
        return None

    def _hit(self, element: Any, x: int, y: int) -> Any | None:
        """The topmost control (or tool strip item) under a screen point, within the element's window."""
        owner = element.Owner if isinstance(element, ToolStripItem) else element
        root = owner.TopLevelControl if isinstance(owner, Control) else None
        if root is None:
            return None
        current = root
        skip = GetChildAtPointSkip.Invisible
        while True:
            child = current.GetChildAtPoint(current.PointToClient(Point(x, y)), skip)
            if child is None:
                break
            current = child
        if isinstance(current, ToolStrip):
            item = current.GetItemAt(current.PointToClient(Point(x, y)))
            if item is not None:
                return item
        return current

    def click_point(self, element: Any) -> tuple[int, int] | None:
        box = self.bounds(element)
        if box is None or box.width <= 0 or box.height <= 0:
            return None
        return box.x + box.width // 2, box.y + box.height // 2

    def focused_element(self) -> Any | None:
        forms = self.roots()
        active = Form.ActiveForm
        if active is not None:
            forms.insert(0, active)
        fallback = None
        for form in forms:
            if form.IsDisposed or not form.Visible:
                continue
            control = form
            while isinstance(control, ContainerControl) and control.ActiveControl is not None:
                control = control.ActiveControl
            if control is form:
                continue
            if control.Focused:
                return control
            fallback = fallback or control
        return fallback

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        if isinstance(element, ToolStripItem):
            if button != "left":
                raise _cannot(element, f"a {button} click on a menu item", "Use a left click.")
            self._click_menu_item(element)
            return
        if button == "left" and element.CanSelect:
            self._take_focus(element)  # a pointer click focuses what it clicks
        if button == "left" and count == 1 and isinstance(element, (IButtonControl, RadioButton)):
            element.PerformClick()
            return
        self._mouse(element, button, count)

    def _click_menu_item(self, item: Any) -> None:
        if isinstance(item, ToolStripDropDownItem) and item.HasDropDownItems:
            # A menu with items opens; its parents open first, as the user would.
            self._open_menu_chain(item.OwnerItem)
            item.ShowDropDown()
            return
        # A real click closes the menus before the item's handler runs, so a
        # dialog the handler opens is not drawn under an open drop-down.
        owner = item.Owner
        if isinstance(owner, ToolStripDropDown):
            top = item
            while top.OwnerItem is not None:
                top = top.OwnerItem
            if isinstance(top, ToolStripDropDownItem):
                top.HideDropDown()
            owner.Close()
        item.PerformClick()

    def _open_menu_chain(self, item: Any) -> None:
        chain = []
        while item is not None:
            chain.append(item)
            item = item.OwnerItem
        for link in reversed(chain):
            if isinstance(link, ToolStripDropDownItem) and link.HasDropDownItems and not link.DropDown.Visible:
                link.ShowDropDown()

    def _mouse(self, element: Any, button: MouseButton, count: int) -> None:
        which = {"left": MouseButtons.Left, "right": MouseButtons.Right, "middle": MouseButtons.Middle}[button]
        x, y = max(element.Width // 2, 0), max(element.Height // 2, 0)
        for n in range(1, count + 1):
            args = MouseEventArgs(which, n, x, y, 0)
            _protected(element, "OnMouseDown", args)
            _protected(element, "OnMouseUp", args)
            if button == "left":
                _protected(element, "OnClick", EventArgs.Empty)
            _protected(element, "OnMouseClick", args)
            if n == 2:
                if button == "left":
                    _protected(element, "OnDoubleClick", EventArgs.Empty)
                _protected(element, "OnMouseDoubleClick", args)
        if button == "right" and element.ContextMenuStrip is not None:
            element.ContextMenuStrip.Show(element, Point(x, y))

    def type_text(self, element: Any, text: str, *, replace: bool) -> None:
        target = element.ComboBox if isinstance(element, ToolStripComboBox) else element
        self._take_focus(target)
        if replace:
            if isinstance(target, TextBoxBase):
                target.SelectAll()
                if not text:
                    target.SelectedText = ""
            else:
                target.Text = ""
        if not target.IsHandleCreated:
            target.Text = (target.Text if not replace else "") + text
            return
        for ch in text.replace("\r\n", "\n"):
            if ch == "\n" and not (isinstance(target, TextBoxBase) and target.Multiline):
                self._press(target, KeyChord((), "Enter"))  # a single-line box: Enter, as a user would press it
                continue
            code = "\r" if ch == "\n" else ch
            _deliver(target, _WM_CHAR, ord(code) if ord(code) < 0x10000 else 0xFFFD)

    def send_keys(self, element: Any | None, chords: tuple[KeyChord, ...]) -> None:
        target = element
        if target is None:
            target = self.focused_element()
        elif isinstance(target, Control):
            self._take_focus(target)
        if not isinstance(target, Control):
            raise ElementNotInteractableError(
                "Keys go to a control; nothing with keyboard focus was found.",
                suggestion="Pass the control that should get the keys (nodeId or locator).",
                detail={"reason": "unsupported"},
            )
        for chord in chords:
            self._press(target, chord)
            # Focus may move (Tab); the next key goes where it went.
            target = self.focused_element() or target

    def _press(self, control: Any, chord: KeyChord) -> None:
        """One key press as the message loop delivers it: command keys, dialog keys, then the control."""
        code = _key_code(chord.key)
        modifiers = _modifier_keys(chord.modifiers)
        data = Keys(int(code) | int(modifiers))
        message = Message.Create(control.Handle, _WM_KEYDOWN, IntPtr(int(code)), IntPtr.Zero)
        # ProcessCmdKey and ProcessDialogKey take the modifiers as data: the
        # message loop would read them from the real keyboard, which the probe
        # does not press. Menu shortcuts, Tab, Enter (AcceptButton) live here.
        handled = bool(_protected(control, "ProcessCmdKey", message, data))
        if not handled and not _protected(control, "IsInputKey", data):
            handled = bool(_protected(control, "ProcessDialogKey", data))
        if handled:
            return
        _deliver(control, _WM_KEYDOWN, int(code))
        char = _char_of(chord)
        if char is not None:
            _deliver(control, _WM_CHAR, ord(char))
        _deliver(control, _WM_KEYUP, int(code))

    def select(self, element: Any, *, item: str | None, index: int | None) -> None:
        target = element.ComboBox if isinstance(element, ToolStripComboBox) else element
        if isinstance(target, (ListBox, ComboBox)):
            texts = [str(target.GetItemText(i)) for i in target.Items]
        elif isinstance(target, TabControl):
            texts = [str(p.Text) for p in target.TabPages]
        elif isinstance(target, ListView):
            texts = [str(i.Text) for i in target.Items]
        else:
            raise _cannot(element, "select", "Use wpf_click or wpf_toggle for this element.")
        chosen = _choose(texts, item, index)
        if isinstance(target, ListView):
            target.SelectedIndices.Clear()
            target.Items[chosen].Selected = True
            target.Items[chosen].Focused = True
        else:
            target.SelectedIndex = chosen

    def toggle(self, element: Any, *, state: bool | None) -> None:
        if isinstance(element, RadioButton):
            if state is False:
                raise InvalidArgumentError(
                    "A radio button is unchecked by checking another one in its group.",
                    suggestion="Toggle the radio button that should be checked (state=true).",
                )
            if not element.Checked:
                element.PerformClick()
            return
        if isinstance(element, ToolStripMenuItem):
            if state is None or bool(element.Checked) != state:
                if element.CheckOnClick:
                    self._click_menu_item(element)
                else:
                    element.Checked = not element.Checked if state is None else state
            return
        if isinstance(element, CheckBox):
            # Clicks, as a user would: a three-state box may need two to get there.
            for _ in range(3 if state is not None else 1):
                if state is not None and bool(element.Checked) == state and element.CheckState != CheckState.Indeterminate:
                    return
                _protected(element, "OnClick", EventArgs.Empty)
            return
        raise _cannot(element, "toggle", "Only check boxes, radio buttons and checkable menu items toggle.")

    def focus(self, element: Any) -> None:
        if isinstance(element, ToolStripItem):
            element.Select()
            return
        self._take_focus(element)
        if not element.ContainsFocus and not _is_active_control(element):
            raise _cannot(element, "focus", "It cannot take keyboard focus (not selectable).")

    def _take_focus(self, control: Any) -> None:
        form = control.FindForm()
        if form is not None and Form.ActiveForm is None:
            form.Activate()
        if not control.Focus():
            # Without a window manager (Xvfb) the form may not be active, so
            # Focus() refuses; selecting it still makes it the form's active control.
            control.Select()

    # -- mutation ----------------------------------------------------------
    def enum_spec(self, prop: PropertyDescriptor) -> EnumSpec | None:
        pd = prop.handle
        if pd is None or pd is _TEXT_FAST:
            return None
        return enum_spec_of(pd.PropertyType)

    def set_value(self, element: Any, prop: PropertyDescriptor, value: Converted) -> None:
        pd = prop.handle
        if pd is _TEXT_FAST:
            pd = TypeDescriptor.GetProperties(element).Find(prop.name, True)
        if pd is None or pd.IsReadOnly:
            raise PropertyReadOnlyError(f"{prop.name} is read-only.", suggestion="Set a writable property instead.")
        built = build_value(value, pd.PropertyType)
        try:
            pd.SetValue(element, built)
        except (ArgumentException, TargetInvocationException) as exc:
            inner = getattr(exc, "InnerException", None) or exc
            if not isinstance(inner, ArgumentException) and not isinstance(exc, ArgumentException):
                raise
            raise conversion_error(
                prop.type_name, "the property refused the value", toolkit="winforms", property_name=prop.name
            ) from None

    # -- pixels ------------------------------------------------------------
    def _capture_rect(self, element: Any) -> Bounds | None:
        if isinstance(element, Form) and element.Parent is None and not sys.platform.startswith("win"):
            # Mono's Form.Bounds includes a frame that only a window manager draws;
            # the client area is where the pixels certainly are.
            r = element.RectangleToScreen(element.ClientRectangle)
            return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
        return self.bounds(element)

    def capture(self, element: Any) -> Capture:
        state = self.state(element)
        if not state.visible:
            raise ElementNotRenderableError(
                "The element is hidden, so it has no pixels on screen.",
                suggestion="Capture a visible element, or its window.",
            )
        box = self._capture_rect(element)
        if box is None or box.width <= 0 or box.height <= 0:
            raise ElementNotRenderableError(
                "The element has no size or position on screen.",
                suggestion="Capture a visible element with a size, or its window.",
                detail={"bounds": None if box is None else [box.x, box.y, box.width, box.height]},
            )
        screen = SystemInformation.VirtualScreen
        left, top = max(box.x, int(screen.X)), max(box.y, int(screen.Y))
        right = min(box.x + box.width, int(screen.X) + int(screen.Width))
        bottom = min(box.y + box.height, int(screen.Y) + int(screen.Height))
        if right <= left or bottom <= top:
            raise ElementNotRenderableError(
                "The element lies outside the screen.",
                suggestion="Move its window onto the screen first.",
            )
        width, height = right - left, bottom - top
        # Mono's DrawToBitmap leaves children unpainted, so copy the screen instead.
        bmp = Bitmap(width, height, PixelFormat.Format32bppArgb)
        try:
            g = Graphics.FromImage(bmp)
            try:
                g.CopyFromScreen(left, top, 0, 0, Size(width, height))
            finally:
                g.Dispose()
            data = bmp.LockBits(Rectangle(0, 0, width, height), ImageLockMode.ReadOnly, PixelFormat.Format32bppArgb)
            try:
                import ctypes  # noqa: PLC0415

                stride = int(data.Stride)
                pixels = ctypes.string_at(int(data.Scan0.ToInt64()), stride * height)
            finally:
                bmp.UnlockBits(data)
        finally:
            bmp.Dispose()
        return Capture(width, height, "BGRA", pixels, stride)


# -- input helpers -----------------------------------------------------------

_WM_KEYDOWN = 0x0100
_WM_KEYUP = 0x0101
_WM_CHAR = 0x0102
_INSTANCE = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public
_KEY_NAMES = {
    "Enter": "Return", "Escape": "Escape", "Backspace": "Back", "PageUp": "PageUp", "PageDown": "PageDown",
    "Tab": "Tab", "Delete": "Delete", "Insert": "Insert", "Home": "Home", "End": "End", "Left": "Left",
    "Right": "Right", "Up": "Up", "Down": "Down", "Space": "Space",
}  # fmt: skip
_CHARS = {"Enter": "\r", "Tab": "\t", "Space": " ", "Backspace": "\b", "Escape": "\x1b"}


def _key_code(name: str) -> Any:
    if len(name) == 1 and name.isdigit():
        return getattr(Keys, f"D{name}")
    return getattr(Keys, _KEY_NAMES.get(name, name))


def _modifier_keys(modifiers: tuple[str, ...]) -> Any:
    value = 0
    for m in modifiers:
        value |= int({"ctrl": Keys.Control, "shift": Keys.Shift, "alt": Keys.Alt, "meta": Keys.LWin}[m])
    return Keys(value)


def _char_of(chord: KeyChord) -> str | None:
    """The character a chord types (WM_CHAR), or None: Ctrl and Alt chords type nothing."""
    if "ctrl" in chord.modifiers or "alt" in chord.modifiers or "meta" in chord.modifiers:
        return None
    if len(chord.key) == 1:
        return chord.key if "shift" in chord.modifiers or chord.key.isdigit() else chord.key.lower()
    return _CHARS.get(chord.key)


_methods: dict[str, Any] = {}


def _protected(control: Any, name: str, *args: Any) -> Any:
    """Call a protected Control member (OnClick, ProcessCmdKey...) the way the framework itself does."""
    from System import Array  # noqa: PLC0415

    arity = len(args)
    key = f"{name}/{arity}"
    method = _methods.get(key)
    if method is None:
        candidates = [m for m in clr.GetClrType(Control).GetMethods(_INSTANCE) if m.Name == name and len(m.GetParameters()) == arity]
        if not candidates:
            raise AttributeError(f"Control has no method {name} taking {arity} arguments")
        method = _methods[key] = candidates[0]
    return method.Invoke(control, Array[Object](list(args)))


def _deliver(control: Any, msg: int, wparam: int) -> None:
    """Hand one window message to the control's own WndProc, as dispatching it would."""
    _protected(control, "WndProc", Message.Create(control.Handle, msg, IntPtr(wparam), IntPtr.Zero))


def _unsupported_reason(element: Any, action: ActionKind) -> str | None:
    if action == "type":
        target = element.ComboBox if isinstance(element, ToolStripComboBox) else element
        if isinstance(target, ComboBox) and target.DropDownStyle == ComboBoxStyle.DropDownList:
            return "It is a drop-down list without a text box; choose an item with wpf_select."
        if not isinstance(target, (TextBoxBase, ComboBox, NumericUpDown)):
            return "It takes no typed text."
    elif action == "select":
        target = element.ComboBox if isinstance(element, ToolStripComboBox) else element
        if not isinstance(target, (ListBox, ComboBox, TabControl, ListView)):
            return "It has no items to select."
    elif action == "toggle":
        if not isinstance(element, (CheckBox, RadioButton, ToolStripMenuItem)):
            return "It is not a check box, radio button or checkable menu item."
    elif action in ("focus", "keys") and not isinstance(element, (Control, ToolStripItem)):
        return "It cannot take keyboard focus."
    return None


def _choose(texts: list[str], item: str | None, index: int | None) -> int:
    if index is not None:
        if index >= len(texts):
            raise InvalidArgumentError(
                f"index {index} is out of range: there are {len(texts)} items.",
                suggestion="Pass an index from 0 to the item count minus one, or the item's text.",
                detail={"count": len(texts), "items": texts[:50]},
            )
        return index
    assert item is not None
    for candidates in (texts, [t.lower() for t in texts]):
        wanted = item if candidates is texts else item.lower()
        if wanted in candidates:
            return candidates.index(wanted)
    raise InvalidArgumentError(
        f"No item has the text {item!r}.",
        suggestion="Pick one of detail.items (exact text, case-insensitive), or pass index.",
        detail={"count": len(texts), "items": texts[:50]},
    )


def _cannot(element: Any, what: str, suggestion: str) -> ElementNotInteractableError:
    return ElementNotInteractableError(
        f"{_describe_element(element)} does not support {what}.",
        suggestion=suggestion,
        detail={"reason": "unsupported"},
    )


def _describe_element(element: Any) -> str:
    name = getattr(element, "Name", None)
    kind = type(element).__name__
    return f"{kind}#{name}" if name else kind


def _form_of(element: Any) -> Any | None:
    if isinstance(element, ToolStripItem):
        owner = element
        while isinstance(owner, ToolStripItem) and owner.OwnerItem is not None:
            owner = owner.OwnerItem
        strip = owner.Owner if isinstance(owner, ToolStripItem) else None
        return strip.FindForm() if strip is not None else None
    if isinstance(element, Form):
        return element
    if isinstance(element, Control):
        return element.FindForm()
    return None


def _owned_by(form: Any, owner: Any) -> bool:
    current = form.Owner
    while current is not None:
        if Object.ReferenceEquals(current, owner):
            return True
        current = current.Owner
    return False


def _is_self_or_descendant(element: Any, hit: Any) -> bool:
    if Object.ReferenceEquals(element, hit):
        return True
    if isinstance(element, Control) and isinstance(hit, Control):
        return bool(element.Contains(hit))
    return False


def _is_active_control(control: Any) -> bool:
    form = control.FindForm()
    current = form
    while isinstance(current, ContainerControl) and current.ActiveControl is not None:
        current = current.ActiveControl
        if Object.ReferenceEquals(current, control):
            return True
    return False


def _client_origin(control: Any, memo: dict[Any, Any]) -> tuple[int, int] | None:
    """The screen position of the control's client area's top-left corner, memoised for one walk."""
    key = ("origin", control)
    if key not in memo:
        if control.IsHandleCreated:
            p = control.PointToScreen(Point(0, 0))
            memo[key] = (int(p.X), int(p.Y))
        else:
            memo[key] = None
    return memo[key]


def _is_password_box(element: Any) -> bool:
    if isinstance(element, (TextBox, MaskedTextBox)):
        return str(element.PasswordChar) not in ("", "\x00") or bool(element.UseSystemPasswordChar)
    return False


def _describe(pd: Any, secrets: frozenset[str]) -> PropertyDescriptor:
    name = str(pd.Name)
    return PropertyDescriptor(
        name=name,
        type_name=str(pd.PropertyType.FullName or pd.PropertyType.Name),
        category=str(pd.Category) if pd.Category else None,
        read_only=bool(pd.IsReadOnly),
        secret=name in secrets,
        handle=pd,
    )


def _binding_for(element: Any, name: str) -> Any | None:
    for binding in _bindings_of(element):
        if str(binding.PropertyName).lower() == name.lower():
            return binding
    return None


# -- data binding errors -----------------------------------------------------
# One store and one set of hooks per process: every probe attached to this app
# sees the same errors, and a binding is listened to once however many attach.

_ERRORS = BindingErrorStore()
_keys: WeakKeys | None = None
_hooked: WeakKeys | None = None


def _element_key(element: Any) -> str:
    global _keys
    if _keys is None:
        _keys = WeakKeys()
    return _keys.key(element)


def _bindings_of(element: Any) -> list[Any]:
    """The control's bindings, each hooked for errors the first time it is seen."""
    collection = getattr(element, "DataBindings", None) if isinstance(element, Control) else None
    if collection is None or not collection.Count:
        return []
    found = list(collection)
    for binding in found:
        _hook(binding)
    return found


def _hook(binding: Any) -> None:
    global _hooked
    if _hooked is None:
        _hooked = WeakKeys()
    if _hooked.known(binding) is None:
        _hooked.key(binding)
        binding.BindingComplete += _on_binding_complete


def _on_binding_complete(sender: Any, args: Any) -> None:
    # Runs inside the app's own binding code: it must never throw into it.
    try:
        binding = args.Binding
        control = binding.Control if binding is not None else None
        if control is None:
            return
        name = str(binding.PropertyName)
        # Measured on Mono: a throwing Format handler reports Exception in
        # ControlUpdate, text that does not parse ("abc" into Int32) Exception in
        # DataSourceUpdate, both only with FormattingEnabled; without it the
        # parse error throws out of the property setter and nothing is raised.
        kind = "format" if str(args.BindingCompleteContext) == "ControlUpdate" else "parse"
        state = str(args.BindingCompleteState)
        key = _element_key(control)
        if state == "Success":
            _ERRORS.discard(key, name, (kind,))
            return
        text = str(args.ErrorText or "")
        if not text and args.Exception is not None:
            text = str(args.Exception.Message)
        step = "formatting the value for the control" if kind == "format" else "writing the value to the source"
        message = f"{state} while {step}: {text or 'no message'}"
        _ERRORS.add(key, name, message, kind=kind, path=_member_path(binding))
    except Exception:  # noqa: BLE001, S110 - recording an error must not become one
        pass


def _member_path(binding: Any) -> str | None:
    member = str(binding.BindingMemberInfo.BindingMember or "")
    return member or None


def _has_current_item(manager: Any) -> bool | None:
    if manager is None:
        return None
    return int(manager.Count) > 0 and int(manager.Position) >= 0


def _no_current_item(binding: Any) -> str | None:
    """Why the binding has no value to show, when its source has no current item."""
    manager = binding.BindingManagerBase
    if manager is None or _has_current_item(manager):
        return None
    return (
        f"The data source has no current item ({_describe_source(binding.DataSource)}: "
        f"{int(manager.Count)} items, position {int(manager.Position)}), so {binding.PropertyName} "
        "gets no value from it."
    )


def _describe_source(source: Any) -> str | None:
    if source is None:
        return None
    if isinstance(source, BindingSource):
        inner = _describe_source(source.DataSource) or "nothing"
        member = str(source.DataMember or "")
        over = f"{inner}, DataMember {member!r}" if member else inner
        return f"BindingSource over {over}"
    table_name = getattr(source, "TableName", None)
    if table_name is not None:
        return f"DataTable {str(table_name)!r} ({int(source.Rows.Count)} rows)"
    set_name = getattr(source, "DataSetName", None)
    if set_name is not None:
        return f"DataSet {str(set_name)!r}"
    return str(source.GetType().Name) if hasattr(source, "GetType") else type(source).__name__


def _summary(value: Any) -> str | None:
    if value is None:
        return None
    plain = _plain(value)
    return None if plain is None else str(plain)


def _plain(value: Any) -> PlainValue:
    # A UI object's ToString embeds its Text (Mono's AccessibleObject too), which
    # would leak a password box through properties like ActiveControl: show a
    # reference instead, never the object's own rendering.
    if isinstance(value, (Control, ToolStripItem)) or (_MENU_TYPES and isinstance(value, _MENU_TYPES)):
        name = getattr(value, "Name", None)
        return f"<{type(value).__name__}#{name}>" if name else f"<{type(value).__name__}>"
    if isinstance(value, AccessibleObject):
        return f"<{type(value).__name__}>"
    return to_plain(value)


def is_winforms_object(obj: Any) -> bool:
    return _has_base(obj, ("System.Windows.Forms.Control", "System.Windows.Forms.ToolStripItem"))


def _has_base(obj: Any, names: tuple[str, ...]) -> bool:
    get_type = getattr(obj, "GetType", None)
    if get_type is None:
        return False
    t = get_type()
    while t is not None:
        if str(t.FullName) in names:
            return True
        t = t.BaseType
    return False


def find_app(*, shown: bool = False) -> Any | None:
    """The app's main form, read from any thread (OpenForms is locked internally).

    ``shown``: only a visible form with its window handle, so that calls can be
    posted to its thread (a form without a handle has no message loop to post to).
    """
    forms = [f for f in Application.OpenForms if not f.IsDisposed and (not shown or (f.IsHandleCreated and f.Visible))]
    return forms[0] if forms else None


def connect(app: Any, *, timeout: float) -> tuple[WinFormsAdapter, UiThread]:
    form = app.FindForm() if not isinstance(app, Form) and isinstance(app, Control) else app
    if form is None:
        raise AppNotAvailableError(
            "The control is not on a form yet.",
            suggestion="Attach to the Form, or attach once the control is placed on one.",
        )
    marshal = _marshal_control(form, timeout)
    ui_thread = marshal.thread

    def post(call: Any) -> None:
        if marshal.control.IsDisposed or not ui_thread.IsAlive:
            raise AppNotAvailableError(
                "The app's UI thread has ended.",
                suggestion="The app has closed; start it again and reattach.",
            )
        marshal.control.BeginInvoke(Action(call))

    def check_access() -> bool:
        return not marshal.control.InvokeRequired

    adapter = WinFormsAdapter(form)
    ui = UiThread(post=post, check_access=check_access, default_timeout=timeout)
    # Errors are recorded from now on; the walk runs on the UI thread, not here.
    ui.post(adapter.hook_bindings)
    # Once the loop ends, calls waiting for it fail at once instead of timing out.
    ui.post(lambda: adapter.on_ui_exit(ui.end))
    return adapter, ui


class _Marshal:
    def __init__(self, control: Any, thread: Any) -> None:
        self.control = control
        self.thread = thread


def _marshal_control(form: Any, timeout: float) -> _Marshal:
    """A hidden control owned by the UI thread, used only to post calls to it.

    The app's own forms may close; this control lives as long as the thread's
    message loop. If the form has no handle yet (attached before
    Application.Run), the caller is taken to be the UI thread itself.
    """

    def create() -> _Marshal:
        control = Control()
        control.CreateControl()
        _ = control.Handle  # an invisible control only gets a handle when asked
        return _Marshal(control, Thread.CurrentThread)

    if not form.IsHandleCreated:
        return create()
    if not form.InvokeRequired:
        return create()
    # Posting through the app's form once, with the same machinery as every later call.
    bootstrap = UiThread(
        post=lambda call: form.BeginInvoke(Action(call)),
        check_access=lambda: not form.InvokeRequired,
        default_timeout=timeout,
    )
    return bootstrap.run(create)
