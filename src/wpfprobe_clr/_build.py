"""Build .NET values from a parsed ``Converted`` (the CLR half of wpf_set_property's table).

``wpfprobe.core.convert.parse_value`` turns an agent's text into plain parts;
this module makes the .NET object from them with plain constructors and
factories of the framework itself (System, System.Drawing,
System.Windows.Forms). It never calls ``Parse`` or a TypeConverter on an app
type and never reflects over an app assembly: the only thing read from the
target type is, for an enum, the type itself (``Enum.ToObject``) and its
members (``enum_spec_of``).

Every number is built as its exact .NET type (``System.Int16(n)``,
``System.Single(x)``, ``System.Char(c)``): pythonnet boxes a bare Python int
as Int32, a float as Double and a str as String when the target is
``Object`` (PropertyDescriptor.SetValue, PropertyInfo.SetValue,
DependencyObject.SetValue), and Mono's reflection setters then refuse it
(InvalidCastException / "not a widening conversion"), even Int32 to Int64.

WPF-only kinds (thickness, brush, gridlength, System.Windows.Size, ...) are
built by the WPF adapter; here they raise UnsupportedPropertyTypeError.
Called on the UI thread; assumes the CLR is loaded, and imports System
lazily so that importing this module never loads a runtime by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from wpfprobe.core.convert import KNOWN_COLOR_NAMES, Converted, EnumSpec, Part, UnsupportedPropertyTypeError

__all__ = ["build_value", "enum_spec_of", "nullable_underlying"]

_INT64_MAX: Final = 2**63 - 1
_UNSIGNED_UNDERLYING: Final = frozenset({"System.Byte", "System.UInt16", "System.UInt32", "System.UInt64"})


def nullable_underlying(net_type: Any) -> Any:
    """``T`` for a ``System.Type`` of ``Nullable<T>``, else None (also for None)."""
    if net_type is None:
        return None
    from System import Nullable  # noqa: PLC0415

    return Nullable.GetUnderlyingType(_as_type(net_type))


def enum_spec_of(net_type: Any) -> EnumSpec | None:
    """The members of an enum type (or of ``Nullable<enum>``'s enum); None for any other type.

    Values are read with Convert.ToUInt64 for enums over an unsigned integral
    type and Convert.ToInt64 otherwise, so a UInt64 [Flags] member above
    Int64.MaxValue and a negative Int64 member both keep their real value.
    """
    if net_type is None:
        return None
    enum_type = _enum_type(net_type)
    if enum_type is None:
        return None
    from System import Convert, Enum, FlagsAttribute  # noqa: PLC0415

    to_int: Callable[[Any], Any] = (
        Convert.ToUInt64 if str(Enum.GetUnderlyingType(enum_type).FullName) in _UNSIGNED_UNDERLYING else Convert.ToInt64
    )
    # GetNames and GetValues list the members in the same order (by unsigned value).
    names = tuple(str(n) for n in Enum.GetNames(enum_type))
    values = tuple(int(to_int(v)) for v in Enum.GetValues(enum_type))
    flags = bool(enum_type.IsDefined(_type_of(FlagsAttribute), False))
    return EnumSpec(names, values, flags)


def build_value(value: Converted, target_type: Any) -> Any:
    """The .NET object for ``value``, ready for a setter of ``target_type``.

    ``target_type`` (a System.Type, or a pythonnet class) is the property's
    declared type; only kind ``enum`` needs it (``Nullable<E>`` is fine), other
    kinds accept None.
    Kind ``null`` gives None. A kind this module does not build (the WPF ones,
    or a Drawing kind whose type_name is not a Drawing type) raises
    UnsupportedPropertyTypeError.
    """
    builder = _BUILDERS.get(value.kind)
    if builder is None:
        raise _unsupported(value)
    return builder(value, target_type)


# --------------------------------------------------------------------------- builders


def _build_string(value: Converted, _target: Any) -> Any:
    (text,) = value.parts
    return str(text)


def _build_null(_value: Converted, _target: Any) -> Any:
    return None


def _build_bool(value: Converted, _target: Any) -> Any:
    import System  # noqa: PLC0415

    (flag,) = value.parts
    return System.Boolean(bool(flag))


def _build_int(value: Converted, _target: Any) -> Any:
    import System  # noqa: PLC0415

    ctor = {
        "System.SByte": System.SByte,
        "System.Byte": System.Byte,
        "System.Int16": System.Int16,
        "System.UInt16": System.UInt16,
        "System.Int32": System.Int32,
        "System.UInt32": System.UInt32,
        "System.Int64": System.Int64,
        "System.UInt64": System.UInt64,
    }.get(value.type_name)
    if ctor is None:
        raise _unsupported(value)
    (n,) = value.parts
    return ctor(_int(n))


def _build_float(value: Converted, _target: Any) -> Any:
    import System  # noqa: PLC0415

    (x,) = value.parts
    if value.type_name == "System.Double":
        return System.Double(float(x))
    if value.type_name == "System.Single":
        return System.Single(float(x))
    raise _unsupported(value)


def _build_decimal(value: Converted, _target: Any) -> Any:
    from System import Decimal  # noqa: PLC0415
    from System.Globalization import CultureInfo, NumberStyles  # noqa: PLC0415

    (text,) = value.parts
    styles = NumberStyles.AllowLeadingSign | NumberStyles.AllowDecimalPoint
    return Decimal.Parse(str(text), styles, CultureInfo.InvariantCulture)


def _build_char(value: Converted, _target: Any) -> Any:
    import System  # noqa: PLC0415

    (ch,) = value.parts
    return System.Char(str(ch))


def _build_enum(value: Converted, target: Any) -> Any:
    enum_type = None if target is None else _enum_type(target)
    if enum_type is None:
        # The adapter must pass the property's (enum) type; parts alone cannot name it.
        raise _unsupported(value)
    import System  # noqa: PLC0415

    (n,) = value.parts
    number = _int(n)
    boxed = System.Int64(number) if number <= _INT64_MAX else System.UInt64(number)
    return System.Enum.ToObject(enum_type, boxed)


def _build_color(value: Converted, _target: Any) -> Any:
    _require(value, "System.Drawing.Color")
    from System.Drawing import Color  # noqa: PLC0415

    a, r, g, b = (_int(p) for p in value.parts)
    return Color.FromArgb(a, r, g, b)


def _build_known_color(value: Converted, _target: Any) -> Any:
    _require(value, "System.Drawing.Color")
    (name,) = value.parts
    # Only a name of the table's fixed list, read as an attribute of the framework's own
    # KnownColor enum (no Enum.Parse, and no getattr with anything else).
    if name not in KNOWN_COLOR_NAMES:
        raise _unsupported(value)
    from System.Drawing import Color, KnownColor  # noqa: PLC0415

    return Color.FromKnownColor(getattr(KnownColor, str(name)))


def _build_size(value: Converted, _target: Any) -> Any:
    _require(value, "System.Drawing.Size", "System.Drawing.SizeF")
    from System.Drawing import Size, SizeF  # noqa: PLC0415

    if value.type_name == "System.Drawing.Size":
        return Size(*_ints(value.parts, 2))
    if value.type_name == "System.Drawing.SizeF":
        return SizeF(*_singles(value.parts, 2))
    raise _unsupported(value)


def _build_point(value: Converted, _target: Any) -> Any:
    _require(value, "System.Drawing.Point", "System.Drawing.PointF")
    from System.Drawing import Point, PointF  # noqa: PLC0415

    if value.type_name == "System.Drawing.Point":
        return Point(*_ints(value.parts, 2))
    if value.type_name == "System.Drawing.PointF":
        return PointF(*_singles(value.parts, 2))
    raise _unsupported(value)


def _build_rect(value: Converted, _target: Any) -> Any:
    _require(value, "System.Drawing.Rectangle")
    from System.Drawing import Rectangle  # noqa: PLC0415

    return Rectangle(*_ints(value.parts, 4))


def _build_padding(value: Converted, _target: Any) -> Any:
    _require(value, "System.Windows.Forms.Padding")
    from System.Windows.Forms import Padding  # noqa: PLC0415

    return Padding(*_ints(value.parts, 4))


_BUILDERS: Final[dict[str, Callable[[Converted, Any], Any]]] = {
    "string": _build_string,
    "null": _build_null,
    "bool": _build_bool,
    "int": _build_int,
    "float": _build_float,
    "decimal": _build_decimal,
    "char": _build_char,
    "enum": _build_enum,
    "color": _build_color,
    "knowncolor": _build_known_color,
    "size": _build_size,
    "point": _build_point,
    "rect": _build_rect,
    "padding": _build_padding,
}


# --------------------------------------------------------------------------- helpers


def _as_type(net_type: Any) -> Any:
    """A System.Type for either a System.Type or a pythonnet class (``DockStyle``)."""
    from System import Type  # noqa: PLC0415

    if isinstance(net_type, Type):
        return net_type
    return _type_of(net_type)


def _type_of(cls: Any) -> Any:
    import clr  # noqa: PLC0415

    return clr.GetClrType(cls)


def _enum_type(net_type: Any) -> Any:
    """The enum type itself, or Nullable<E>'s E; None when neither is an enum."""
    t = _as_type(net_type)
    inner = nullable_underlying(t)
    if inner is not None:
        t = inner
    return t if bool(t.IsEnum) else None


def _require(value: Converted, *type_names: str) -> None:
    """Refuse a shared kind with another toolkit's type, then load the type's assembly.

    "color", "size", "point" and "rect" are WPF kinds too (System.Windows.Media.Color,
    System.Windows.Size, ...): those are the WPF adapter's to build, and are refused
    before System.Drawing is even referenced.
    """
    if value.type_name not in type_names:
        raise _unsupported(value)
    import clr  # noqa: PLC0415

    clr.AddReference(value.type_name.rsplit(".", 1)[0])  # System.Drawing / System.Windows.Forms


def _int(part: Part) -> int:
    if isinstance(part, bool) or not isinstance(part, int):
        raise TypeError("an integer part was expected")
    return part


def _ints(parts: tuple[Part, ...], count: int) -> tuple[int, ...]:
    if len(parts) != count:
        raise ValueError(f"expected {count} parts")
    return tuple(_int(p) for p in parts)


def _singles(parts: tuple[Part, ...], count: int) -> tuple[Any, ...]:
    import System  # noqa: PLC0415

    if len(parts) != count:
        raise ValueError(f"expected {count} parts")
    return tuple(System.Single(float(p)) for p in parts)


def _unsupported(value: Converted) -> UnsupportedPropertyTypeError:
    # Only the kind and type name: never the parts, which are the value.
    return UnsupportedPropertyTypeError(
        f"Properties of type {value.type_name} cannot be set on this toolkit: "
        f"values of kind {value.kind} are not built here.",
        suggestion="Set a property of a supported type instead, or change the value in the app's code.",
        detail={"typeName": value.type_name, "kind": value.kind},
    )
