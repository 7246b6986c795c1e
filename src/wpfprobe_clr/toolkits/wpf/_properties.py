"""Properties and values: describing an element's properties, reading them, and showing values.

Properties are listed as a property grid lists them (TypeDescriptor), attached
properties named Owner.Property as in XAML. A dependency property is read with
where its value comes from (DependencyPropertyHelper's value source), whether
it is set locally and whether it is bound. Values are shown as plain values,
and an element never by its ToString, which embeds its text: what redaction
hides must not leak through a reference to the element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from System import Object, Type
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor
from System.ComponentModel import PropertyDescriptorCollection, TypeDescriptor

from wpfprobe.core.protocol import ItemRef, PlainValue, PropertyDescriptor, PropertyReading
from wpfprobe.core.redaction import Redactor
from wpfprobe_clr._ui_thread import exception_identity
from wpfprobe_clr._values import to_plain, type_full_name
from wpfprobe_clr.toolkits._wpf_items import strip_wpf_access_key
from wpfprobe_clr.toolkits.wpf._binding_trace import _binding_error
from wpfprobe_clr.toolkits.wpf._items import _CellText, _ItemsAdapter, _ItemText
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

if _WPF_LOAD_ERROR is None:
    from System.ComponentModel import DependencyPropertyDescriptor
    from System.Windows import (
        BaseValueSource,
        ContentElement,
        DependencyObject,
        DependencyProperty,
        DependencyPropertyHelper,
        FrameworkContentElement,
        FrameworkElement,
        FrameworkTemplate,
        PropertyPath,
        ResourceDictionary,
        Style,
        ValueSource,
        Window,
    )
    from System.Windows.Controls import (
        AccessText,
        ContentControl,
        DataGridCell,
        Expander,
        GroupBox,
        HeaderedContentControl,
        HeaderedItemsControl,
        Label,
        MenuItem,
        PasswordBox,
        TabItem,
        TextBlock,
        TextBox,
    )
    from System.Windows.Controls.Primitives import ButtonBase
    from System.Windows.Data import Binding, BindingBase, BindingOperations, MultiBinding, PriorityBinding
    from System.Windows.Media import Color, SolidColorBrush, Visual
    from System.Windows.Media.Media3D import Visual3D

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

    # Most specific first: a Window is a ContentControl, a MenuItem is not a
    # ContentControl but is headered.
    _TEXT_PROPERTIES: tuple[tuple[type, DependencyProperty], ...] = (
        (Window, Window.TitleProperty),
        (TextBox, TextBox.TextProperty),
        (TextBlock, TextBlock.TextProperty),
        (AccessText, AccessText.TextProperty),
        (HeaderedContentControl, HeaderedContentControl.HeaderProperty),
        (HeaderedItemsControl, HeaderedItemsControl.HeaderProperty),
        (ContentControl, ContentControl.ContentProperty),
    )

# WPF's themes show a string caption through AccessText (a ContentPresenter with
# RecognizesAccessKey="True") in ButtonBase (buttons, check boxes, radio buttons, the
# DataGrid and GridView column headers), Label, MenuItem, TabItem, GroupBox and Expander
# (see display_text); ListBoxItem, ComboBoxItem, TreeViewItem, TextBlock and a plain
# HeaderedContentControl show "_" as it is. Of the containers a list makes for an item,
# these show the item's own string through AccessText:
_ACCESS_KEY_CONTAINERS = frozenset({"MenuItem", "TabItem"})
# Judges binding paths while describing (no getter runs); the engine's own redactor judges names.
_PATHS = Redactor()

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

_MAX_SUMMARY = 120


@dataclass(frozen=True, slots=True)
class _PropertyHandle:
    """What read_property needs later, found while describing (never by reading)."""

    descriptor: NetPropertyDescriptor | None
    dp: DependencyProperty | None
    #: Read as an element's visible text: content that is itself an element is not text.
    as_text: bool = False


class _PropertiesMixin(_ItemsAdapter):
    """The property methods of WpfAdapter."""

    def display_text(self, element: Any, raw: str) -> tuple[str, str | None]:
        source = self._item_text_source(element)
        if source is not None:
            # An item's own string shows through its container's ContentPresenter: through
            # AccessText in a tab or menu item; a value at a display path, through a TextBlock.
            container = self.naming(element).type_name if isinstance(element, ItemRef) else ""
            if isinstance(element, (MenuItem, TabItem)) or container in _ACCESS_KEY_CONTAINERS:
                return strip_wpf_access_key(raw) if not source.path else (raw, None)
            return raw, None
        # These show a string caption through an AccessText, which reads "_" as the key marker.
        if isinstance(element, (ButtonBase, Label, MenuItem, TabItem, GroupBox, Expander, AccessText)):
            return strip_wpf_access_key(raw)
        return raw, None

    def error_identity(self, error: BaseException) -> tuple[str, str]:
        return exception_identity(error)

    def text_property(self, element: Any) -> PropertyDescriptor | None:
        source = self._item_text_source(element)
        if source is not None:
            # Described by its path, so the engine's redaction judges the path's names; an
            # item shown as itself is described by its type (a NetworkCredential is a secret).
            item_type = None if source.path else type_full_name(self._text_item(element))
            return PropertyDescriptor(
                name=source.descriptor_name,
                type_name=item_type or "System.Object",
                category=None,
                read_only=True,
                handle=_ItemText(element, source),
            )
        if isinstance(element, DataGridCell):
            return PropertyDescriptor(
                name=self._cell_text_name(element),
                type_name="System.String",
                category=None,
                read_only=True,
                handle=_CellText(element),
            )
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
                    # Text bound to User.Password shows the password, whatever the property is called.
                    secret=_bound_to_secret(element, dp),
                    handle=_PropertyHandle(None, dp, as_text=True),
                )
        return None

    def properties(self, element: Any) -> list[PropertyDescriptor]:
        if isinstance(element, ItemRef):
            # A data item's own properties (a DataRowView's columns, a view model's properties).
            element = self._data_item(element)
            if element is None:
                return []
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
        if isinstance(element, ItemRef):
            element = self._data_item(element)
            if element is None:
                return None
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
        if isinstance(prop.handle, _ItemText):
            raw, text = self._item_text_value(prop.handle)
            # The raw value's type decides redaction (a SecureString at the path is a secret).
            return PropertyReading(text, type_full_name(raw) if text is not None else None, "item", False, False)
        if isinstance(prop.handle, _CellText):
            text = self._cell_text(prop.handle.cell)
            return PropertyReading(text, "System.String" if text is not None else None, "item", False, False)
        if isinstance(element, ItemRef):
            element = self._data_item(element)
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
        # A getter that throws propagates: the engine turns it into this one row's error.
        value = descriptor.GetValue(element)
        return PropertyReading(
            value=_plain(value),
            value_type_name=_value_type_name(value, prop.type_name),
            value_source="clr",
            is_locally_set=False,
            is_data_bound=False,
        )

    def data_context_type(self, element: Any) -> str | None:
        if isinstance(element, ItemRef):
            return type_full_name(self._data_item(element))  # what its container's DataContext would be
        if isinstance(element, FrameworkElement):
            return type_full_name(element.DataContext)
        if isinstance(element, FrameworkContentElement):
            return type_full_name(element.DataContext)
        return None

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
        secret = isinstance(element, PasswordBox) and name in _PASSWORD_BOX_SECRETS
        if not secret and dp is not None and isinstance(element, DependencyObject):
            secret = _bound_to_secret(element, dp)
        return PropertyDescriptor(
            name=name,
            type_name=str(declared.FullName or declared.Name),
            category=str(category) if category else None,
            read_only=bool(net.IsReadOnly),
            secret=secret,
            handle=_PropertyHandle(net, dp),
        )


def _bound_to_secret(element: DependencyObject, dp: DependencyProperty) -> bool:
    """Whether the property is data-bound through a path that names a secret (``{Binding User.Password}``)."""
    return any(_PATHS.name_is_secret(path) for path in _binding_paths(BindingOperations.GetBindingBase(element, dp)))


def _binding_paths(binding: BindingBase | None) -> list[str]:
    if isinstance(binding, Binding):
        path: PropertyPath | None = binding.Path
        return [str(path.Path)] if path is not None else []
    part: BindingBase
    found: list[str] = []
    if isinstance(binding, MultiBinding):
        for part in binding.Bindings:
            found.extend(_binding_paths(part))
    elif isinstance(binding, PriorityBinding):
        for part in binding.Bindings:
            found.extend(_binding_paths(part))
    return found


# -- values, as results show them --------------------------------------------------


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
