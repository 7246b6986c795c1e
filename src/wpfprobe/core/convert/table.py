"""The table itself: which declared .NET type takes which format, per toolkit.

A ``_Rule`` pairs a parser with the format and examples an error shows.
``_rule_for`` picks the rule for a type: the common types, the toolkit's
own, the enums the table lists itself, then an enum the adapter described.
Anything else has no rule and is UNSUPPORTED_PROPERTY_TYPE.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from wpfprobe.core.convert.data import _AUTO_DOUBLES, _INFINITE_DOUBLES, _INT_RANGES, FIXED_ENUMS, FONT_WEIGHTS
from wpfprobe.core.convert.lexical import _Parsed
from wpfprobe.core.convert.parsers import (
    _double_parser,
    _enum_parser,
    _float_tuple,
    _int_parser,
    _int_tuple,
    _parse_bool,
    _parse_char,
    _parse_corner_radius,
    _parse_decimal,
    _parse_drawing_color,
    _parse_font_family,
    _parse_font_style,
    _parse_font_weight,
    _parse_grid_length,
    _parse_padding,
    _parse_single,
    _parse_string,
    _parse_thickness,
    _parse_wpf_color,
    _single_tuple,
)
from wpfprobe.core.convert.values import MAX_VALUE_LENGTH, EnumSpec, Kind, Part
from wpfprobe.core.protocol import Toolkit


@dataclass(frozen=True, slots=True)
class _Rule:
    expected: str
    examples: tuple[str, ...]
    #: Returns the kind with the parts: System.Drawing.Color yields "color" for
    #: ARGB input and "knowncolor" for a name, so the kind is the parser's call.
    parse: Callable[[str], _Parsed]
    #: Strings and chars are taken verbatim; everything else ignores outer whitespace.
    strip: bool = True


def _rule(
    kind: Kind,
    expected: str,
    examples: tuple[str, ...],
    parser: Callable[[str], tuple[Part, ...]],
    *,
    strip: bool = True,
) -> _Rule:
    def parse(text: str) -> _Parsed:
        return kind, parser(text)

    return _Rule(expected, examples, parse, strip)


_TEXT_FORMAT: Final = (
    f"any text up to {MAX_VALUE_LENGTH} characters (tab and line breaks allowed, no other control characters)"
)
_NUMBER: Final = "a number with '.' as the decimal point and no thousands separators"


def _int_rule(type_name: str) -> _Rule:
    low, high = _INT_RANGES[type_name]
    examples = ("0", "42", "-7") if low < 0 else ("0", "42", str(high))
    expected = f"a whole number from {low} to {high}"
    return _rule("int", expected, examples, _int_parser(low, high))


_COMMON: Final[dict[str, _Rule]] = {
    "System.String": _rule(
        "string", _TEXT_FORMAT, ("Save", "Line one\nLine two"), _parse_string, strip=False
    ),
    # An Object-typed property (Content, Header, ToolTip, Tag) takes the text as
    # a String, which is what XAML does with Content="Save".
    "System.Object": _rule(
        "string", _TEXT_FORMAT + ", stored as a String", ("Save",), _parse_string, strip=False
    ),
    "System.Boolean": _rule(
        "bool", "true or false (case-insensitive)", ("true", "false"), _parse_bool
    ),
    **{name: _int_rule(name) for name in _INT_RANGES},
    "System.Double": _rule(
        "float", f"{_NUMBER}, optionally with an exponent", ("12", "0.5", "-3.25", "1e3"),
        _double_parser(allow_auto=False, allow_infinity=False),
    ),
    "System.Single": _rule(
        "float", f"{_NUMBER}, optionally with an exponent, within the range of System.Single",
        ("12", "0.5", "-3.25"), _parse_single,
    ),
    "System.Decimal": _rule(
        "decimal", f"{_NUMBER}, no exponent, at most 28 decimal places",
        ("12", "0.5", "-1234.56"), _parse_decimal,
    ),
    "System.Char": _rule("char", "exactly one character", ("A", ";"), _parse_char, strip=False),
}  # fmt: skip

_COLOR_FORMATS_WPF: Final = (
    "a named color of System.Windows.Media.Colors (case-insensitive) or #RGB, #ARGB, #RRGGBB, #AARRGGBB in hex"
)

_WPF: Final[dict[str, _Rule]] = {
    "System.Windows.Thickness": _rule(
        "thickness",
        "1, 2 or 4 numbers separated by commas or spaces: uniform; left-and-right, "
        "top-and-bottom; or left, top, right, bottom",
        ("4", "8,4", "1,2,3,4"), _parse_thickness,
    ),
    "System.Windows.CornerRadius": _rule(
        "cornerradius",
        "1 or 4 non-negative numbers separated by commas or spaces: uniform; or "
        "top-left, top-right, bottom-right, bottom-left",
        ("4", "4,4,0,0"), _parse_corner_radius,
    ),
    "System.Windows.Media.Color": _rule(
        "color", _COLOR_FORMATS_WPF, ("Red", "#FF8800", "#80FF0000"), _parse_wpf_color
    ),
    "System.Windows.Media.Brush": _rule(
        "brush", _COLOR_FORMATS_WPF + ", made into a SolidColorBrush",
        ("Red", "#FF8800", "Transparent"), _parse_wpf_color,
    ),
    "System.Windows.Media.SolidColorBrush": _rule(
        "brush", _COLOR_FORMATS_WPF, ("Red", "#FF8800", "Transparent"), _parse_wpf_color
    ),
    "System.Windows.GridLength": _rule(
        "gridlength",
        "Auto, a star size (*, 2*, 0.5*) or a non-negative number of pixels",
        ("Auto", "*", "2*", "120"), _parse_grid_length,
    ),
    "System.Windows.Size": _rule(
        "size", "width,height: two non-negative numbers separated by a comma or spaces",
        ("100,40", "100 40"), _float_tuple(2, non_negative_from=0),
    ),
    "System.Windows.Point": _rule(
        "point", "x,y: two numbers separated by a comma or spaces", ("0.5,0.5", "10 -4"),
        _float_tuple(2),
    ),
    "System.Windows.Rect": _rule(
        "rect",
        "x,y,width,height: four numbers separated by commas or spaces, width and height "
        "non-negative",
        ("0,0,100,40",), _float_tuple(4, non_negative_from=2),
    ),
    "System.Windows.FontWeight": _rule(
        "fontweight",
        "a FontWeights name (" + ", ".join(FONT_WEIGHTS) + ") or an OpenType weight from 1 to 999",
        ("Bold", "Normal", "600"), _parse_font_weight,
    ),
    "System.Windows.FontStyle": _rule(
        "fontstyle", "Normal, Italic or Oblique (case-insensitive)", ("Italic", "Normal"),
        _parse_font_style,
    ),
    "System.Windows.Media.FontFamily": _rule(
        "fontfamily",
        "an installed font family name, or a comma-separated fallback list of them "
        "(no '#' font-file references)",
        ("Segoe UI", "Consolas, Courier New"), _parse_font_family,
    ),
}  # fmt: skip

_WINFORMS: Final[dict[str, _Rule]] = {
    "System.Windows.Forms.Padding": _rule(
        "padding",
        "1 or 4 whole numbers separated by commas or spaces: all sides; or left, top, "
        "right, bottom",
        ("4", "4,2,4,2"), _parse_padding,
    ),
    "System.Drawing.Color": _Rule(
        "a KnownColor name (web or system color, case-insensitive), #RRGGBB or #AARRGGBB in "
        "hex, or r,g,b / a,r,g,b with channels from 0 to 255",
        ("Red", "Control", "#FF8800", "255,128,0"), _parse_drawing_color,
    ),
    "System.Drawing.Size": _rule(
        "size", "width,height: two non-negative whole numbers", ("100,40",),
        _int_tuple(2, non_negative_from=0),
    ),
    "System.Drawing.Point": _rule(
        "point", "x,y: two whole numbers", ("10,20", "-5,0"), _int_tuple(2)
    ),
    "System.Drawing.Rectangle": _rule(
        "rect", "x,y,width,height: four whole numbers, width and height non-negative",
        ("0,0,100,40",), _int_tuple(4, non_negative_from=2),
    ),
    "System.Drawing.SizeF": _rule(
        "size", "width,height: two non-negative numbers with '.' as the decimal point",
        ("100,40.5",), _single_tuple(2, non_negative_from=0),
    ),
    "System.Drawing.PointF": _rule(
        "point", "x,y: two numbers with '.' as the decimal point", ("10.5,20",), _single_tuple(2)
    ),
}  # fmt: skip

_TOOLKIT_TABLES: Final[dict[Toolkit, dict[str, _Rule]]] = {"wpf": _WPF, "winforms": _WINFORMS}


@lru_cache(maxsize=256)
def _enum_rule(spec: EnumSpec) -> _Rule:
    # Cached: the adapter describes the same few enum types over and over.
    # A long member list is cut: the message is for reading, not a schema.
    shown = ", ".join([*spec.names[:30], *(["..."] if len(spec.names) > 30 else [])])
    examples: tuple[str, ...]
    if not spec.names:
        expected, examples = "a member name, but this enum has no members", ()
    elif spec.flags:
        expected = f"one or more of {shown} (case-insensitive) separated by commas, or the combined integer value"
        # Show a real combination, skipping a zero "None" member.
        nonzero = [n for n, v in zip(spec.names, spec.values, strict=True) if v != 0][:2]
        examples = (", ".join(nonzero or spec.names[:1]),)
    else:
        expected = f"one of {shown} (case-insensitive), or its integer value"
        examples = spec.names[:2]
    return _rule("enum", expected, examples, _enum_parser(spec))


_AUTO_DOUBLE: Final = _rule(
    "float", f"{_NUMBER}, or Auto (NaN) to size or place automatically",
    ("120", "12.5", "Auto"), _double_parser(allow_auto=True, allow_infinity=False),
)  # fmt: skip
_UNLIMITED_DOUBLE: Final = _rule(
    "float", f"{_NUMBER}, or Infinity for no limit", ("480", "Infinity"),
    _double_parser(allow_auto=False, allow_infinity=True),
)  # fmt: skip


def _double_rule(toolkit: Toolkit, property_name: str | None) -> _Rule:
    if toolkit != "wpf" or not property_name:
        return _COMMON["System.Double"]
    # Attached properties arrive as Owner.Property ("Canvas.Left").
    short = property_name.rsplit(".", 1)[-1].lower()
    if short in _AUTO_DOUBLES:
        return _AUTO_DOUBLE
    if short in _INFINITE_DOUBLES:
        return _UNLIMITED_DOUBLE
    return _COMMON["System.Double"]


def _rule_for(type_name: str, toolkit: Toolkit, property_name: str | None, enum: EnumSpec | None) -> _Rule | None:
    if type_name == "System.Double":
        return _double_rule(toolkit, property_name)
    rule = _COMMON.get(type_name) or _TOOLKIT_TABLES[toolkit].get(type_name)
    if rule is not None:
        return rule
    fixed = FIXED_ENUMS[toolkit].get(type_name)
    if fixed is not None:
        # The table's own members win over whatever the adapter reports.
        return _enum_rule(fixed)
    if enum is not None:
        return _enum_rule(enum)
    return None
