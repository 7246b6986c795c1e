"""Setting a property (the mutate tier): the .NET value for a converted one, then setting it.

The engine converts what the user asked for (wpfprobe.core.convert); here the
WPF kinds (Thickness, CornerRadius, colors and brushes, GridLength, fonts...)
are built with plain constructors and factories, and the value is set through
the dependency property, else the CLR property descriptor. A value the
property refuses is reported by type only, never by the value itself.
"""

from __future__ import annotations

from typing import Any

from System import ArgumentException, Byte, Type
from System.Reflection import TargetInvocationException

from wpfprobe.core.convert import Converted, EnumSpec, UnsupportedPropertyTypeError, conversion_error
from wpfprobe.core.errors import PropertyReadOnlyError
from wpfprobe.core.protocol import ItemRef, PropertyDescriptor
from wpfprobe_clr._build import build_value, enum_spec_of
from wpfprobe_clr.toolkits.wpf._items import _ItemsAdapter
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _PropertyHandle

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        CornerRadius,
        DependencyObject,
        FontStyles,
        FontWeight,
        GridLength,
        GridUnitType,
        Point,
        Rect,
        Size,
        Thickness,
    )
    from System.Windows.Media import Color, FontFamily, SolidColorBrush

    _GRID_UNITS: dict[str, GridUnitType] = {
        "Auto": GridUnitType.Auto,
        "Pixel": GridUnitType.Pixel,
        "Star": GridUnitType.Star,
    }


class _MutationMixin(_ItemsAdapter):
    """WpfAdapter.enum_spec and set_value."""

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
        if isinstance(element, ItemRef):
            element = self._data_item(element)  # a data item's own property (a view model's, a row's column)
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
