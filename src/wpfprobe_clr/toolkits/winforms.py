"""The WinForms adapter (.NET on Windows, Mono on Linux). UI thread only.

Elements are Controls (Forms included), ToolStripItems (MenuStrip and
ToolStrip items) and, where the runtime still has them, Menu objects
(MainMenu/MenuItem, gone from .NET Core 3.1+). The tree is the same whether
asked as visual or logical: WinForms has one.
"""

from __future__ import annotations

import sys
from typing import Any

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System import Action, Object  # noqa: E402
from System.ComponentModel import TypeDescriptor  # noqa: E402
from System.Drawing import Bitmap, Graphics, Rectangle, Size  # noqa: E402
from System.Drawing.Imaging import ImageLockMode, PixelFormat  # noqa: E402
from System.Threading import Thread  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    AccessibleObject,
    Application,
    Control,
    Form,
    MaskedTextBox,
    SystemInformation,
    TextBox,
    ToolStrip,
    ToolStripDropDownItem,
    ToolStripItem,
)

from wpfprobe._adapter import (  # noqa: E402
    Bounds,
    Capture,
    ElementState,
    Naming,
    PlainValue,
    PropertyDescriptor,
    PropertyReading,
    TreeType,
)
from wpfprobe._errors import AppNotAvailableError, ElementNotRenderableError  # noqa: E402

from .._ui_thread import UiThread, exception_identity  # noqa: E402
from .._values import to_plain, type_full_name  # noqa: E402

try:  # MainMenu/MenuItem exist on .NET Framework and Mono, not on .NET Core 3.1+.
    from System.Windows.Forms import Menu as _Menu  # noqa: E402

    _MENU_TYPES: tuple[type, ...] = (_Menu,)
except ImportError:  # pragma: no cover - depends on the runtime
    _MENU_TYPES = ()

# A password box keeps its secret in these properties, whatever their names say.
_PASSWORD_BOX_SECRETS = frozenset({"Text", "Lines", "SelectedText"})
_TEXT_FAST = object()


class WinFormsAdapter:
    toolkit = "winforms"
    capabilities = ("tree", "properties", "data-bindings", "menus", "screenshot")

    def __init__(self, main: Any) -> None:
        from System import WeakReference  # noqa: PLC0415

        form = main.FindForm() if not isinstance(main, Form) and isinstance(main, Control) else main
        self._main = WeakReference(form)
        self._type_names: dict[type, tuple[str, str]] = {}

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
            return PropertyReading(_plain(raw), type_full_name(raw), "binding", True, True)
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
        # Binding failures are not recorded yet; nothing has been counted.
        return 0

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
    bindings = getattr(element, "DataBindings", None) if isinstance(element, Control) else None
    if bindings is None or not bindings.Count:
        return None
    for binding in bindings:
        if str(binding.PropertyName).lower() == name.lower():
            return binding
    return None


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


def find_app() -> Any | None:
    """The app's main form, read from any thread (OpenForms is locked internally)."""
    forms = [f for f in Application.OpenForms if not f.IsDisposed]
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

    return WinFormsAdapter(form), UiThread(post=post, check_access=check_access, default_timeout=timeout)


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
