"""What a converted value is, as plain data: the vocabulary shared by the table and the adapters.

``Converted`` is what ``parse_value`` hands the toolkit adapter, ``EnumSpec``
what the adapter tells the table about an enum type, and the two errors are
the table's answers when a value or a type does not fit. The adapter protocol
(``wpfprobe.core.protocol``) names ``Converted`` and ``EnumSpec`` in its
signatures, so this module imports nothing from it: the protocol depends on
these descriptions, and only the parsing rules depend on the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from wpfprobe.core.errors import ErrorCode, ProbeError

#: Longest value accepted, in characters; checked before any parsing.
MAX_VALUE_LENGTH: Final = 4096

Part = str | int | float | bool

Kind = Literal[
    "string",
    "null",
    "bool",
    "int",
    "float",
    "decimal",
    "char",
    "enum",
    "thickness",
    "cornerradius",
    "color",
    "brush",
    "knowncolor",
    "gridlength",
    "size",
    "point",
    "rect",
    "padding",
    "fontweight",
    "fontstyle",
    "fontfamily",
]


class TypeConversionFailedError(ProbeError):
    """The value does not have the format the property's type takes."""

    code: ErrorCode = "TYPE_CONVERSION_FAILED"


class UnsupportedPropertyTypeError(ProbeError):
    """The property's declared type is not in the fixed table."""

    code: ErrorCode = "UNSUPPORTED_PROPERTY_TYPE"


@dataclass(frozen=True, slots=True)
class EnumSpec:
    """An enum type's members as the adapter read them (Enum.GetNames / GetValues).

    ``values[i]`` is the integer value of ``names[i]``; ``flags`` is whether
    the type carries [Flags]. Values are needed, not just names, so that an
    integer input can be checked against the members and so that the adapter
    builds the value with ``Enum.ToObject`` instead of parsing text.
    """

    names: tuple[str, ...]
    values: tuple[int, ...]
    flags: bool = False

    def __post_init__(self) -> None:
        # A mismatch is an adapter bug; fail loudly rather than map names to wrong values.
        if len(self.names) != len(self.values):
            raise ValueError("EnumSpec needs exactly one value per name")
        if not all(isinstance(n, str) and n for n in self.names):
            raise ValueError("EnumSpec names must be non-empty strings")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in self.values):
            raise ValueError("EnumSpec values must be integers")


@dataclass(frozen=True, slots=True)
class Converted:
    """A parsed, validated value, described with plain data only.

    ``type_name`` is the .NET type the adapter builds (for a ``Nullable<T>``
    property: ``T``, except for kind ``null``). ``parts`` by kind, and the
    construction the adapter is expected to use:

    ============  ===================================  ==========================================
    kind          parts                                built as
    ============  ===================================  ==========================================
    string        (text,)                              the string itself (also for System.Object)
    null          ()                                   null, for a Nullable<T> property
    bool          (flag,)                              System.Boolean
    int           (n,)                                 the integral type named by type_name
    float         (x,)                                 System.Single / System.Double (already
                                                       rounded to float32 for Single)
    decimal       (canonical text,)                    Decimal.Parse(text, AllowLeadingSign |
                                                       AllowDecimalPoint, InvariantCulture)
    char          (one character,)                     System.Char
    enum          (n,)                                 Enum.ToObject(enumType, n)
    thickness     (left, top, right, bottom)           Thickness(l, t, r, b)
    cornerradius  (topLeft, topRight, bottomRight,     CornerRadius(tl, tr, br, bl)
                  bottomLeft)
    color         (a, r, g, b)                         Color.FromArgb(a, r, g, b) (WPF or
                                                       System.Drawing, by type_name)
    brush         (a, r, g, b)                         SolidColorBrush(Color.FromArgb(a, r, g, b))
    knowncolor    (KnownColor member name,)            Color.FromKnownColor(KnownColor.<name>)
    gridlength    (value, "Auto"|"Pixel"|"Star")       GridLength(value, GridUnitType.<unit>)
    size          (width, height)                      Size / SizeF (int parts for Drawing.Size)
    point         (x, y)                               Point / PointF (int parts for Drawing.Point)
    rect          (x, y, width, height)                Rect / Rectangle (ints for Rectangle)
    padding       (left, top, right, bottom)           Padding(l, t, r, b)
    fontweight    (OpenType weight 1..999,)            FontWeight.FromOpenTypeWeight(n)
    fontstyle     ("Normal"|"Italic"|"Oblique",)       FontStyles.<name>
    fontfamily    (family name list,)                  FontFamily(text)
    ============  ===================================  ==========================================
    """

    kind: Kind
    type_name: str
    parts: tuple[Part, ...]


def enum_spec(members: Mapping[str, int], *, flags: bool = False) -> EnumSpec:
    """Build an EnumSpec from a name-to-value mapping (the adapter's Enum.GetNames/GetValues)."""
    return EnumSpec(tuple(members), tuple(members.values()), flags)
