"""The fixed converter table of wpf_set_property (the pure-Python half, wpfprobe.core.convert)."""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path
from typing import Any

import pytest
import wpf_surface

from wpfprobe.core.convert import (
    FIXED_ENUMS,
    FONT_STYLES,
    FONT_WEIGHTS,
    KNOWN_COLOR_NAMES,
    MAX_VALUE_LENGTH,
    WPF_COLOR_NAMES,
    Converted,
    EnumSpec,
    TypeConversionFailedError,
    UnsupportedPropertyTypeError,
    conversion_error,
    enum_spec,
    expected_format,
    parse_value,
    supported_types,
)
from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.protocol import Toolkit

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "set-property.md"

TOOLKITS: tuple[Toolkit, ...] = ("wpf", "winforms")
INT32_MAX = 2**31 - 1
NULLABLE_BOOL = (
    "System.Nullable`1[[System.Boolean, mscorlib, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089]]"
)
NULLABLE_INT = "System.Nullable`1[[System.Int32, System.Private.CoreLib]]"
ORIENTATION = EnumSpec(("Horizontal", "Vertical"), (0, 1))
FONT_STYLE_FLAGS = EnumSpec(("Regular", "Bold", "Italic", "Underline", "Strikeout"), (0, 1, 2, 4, 8), flags=True)


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def convert(text: str, type_name: str, toolkit: Toolkit = "wpf", **kw: Any) -> Converted:
    return parse_value(text, type_name, toolkit=toolkit, **kw)


def failure(text: Any, type_name: str, toolkit: Toolkit = "wpf", **kw: Any) -> ProbeError:
    with pytest.raises(ProbeError) as info:
        parse_value(text, type_name, toolkit=toolkit, **kw)
    return info.value


# --------------------------------------------------------------------------- good inputs

# (toolkit, type, text, kind, parts, extra kwargs)
GOOD: list[tuple[Toolkit, str, str, str, tuple[Any, ...], dict[str, Any]]] = [
    # strings: verbatim, whitespace and line breaks kept, empty allowed (clears a Text)
    ("wpf", "System.String", "Save", "string", ("Save",), {}),
    ("wpf", "System.String", "  padded  ", "string", ("  padded  ",), {}),
    ("winforms", "System.String", "", "string", ("",), {}),
    ("wpf", "System.String", "line one\r\nline\ttwo", "string", ("line one\r\nline\ttwo",), {}),
    ("wpf", "System.String", "Grüße, 世界 🎉", "string", ("Grüße, 世界 🎉",), {}),
    ("wpf", "System.String", "null", "string", ("null",), {}),
    ("wpf", "System.Object", "Save", "string", ("Save",), {}),
    # bool: true/false only, any case, outer blanks ignored
    ("wpf", "System.Boolean", "true", "bool", (True,), {}),
    ("wpf", "System.Boolean", "True", "bool", (True,), {}),
    ("winforms", "System.Boolean", "FALSE", "bool", (False,), {}),
    ("wpf", "System.Boolean", " \tfalse\n", "bool", (False,), {}),
    # integers, both range edges of each
    ("wpf", "System.Byte", "0", "int", (0,), {}),
    ("wpf", "System.Byte", "255", "int", (255,), {}),
    ("wpf", "System.SByte", "-128", "int", (-128,), {}),
    ("wpf", "System.SByte", "127", "int", (127,), {}),
    ("wpf", "System.Int16", "-32768", "int", (-32768,), {}),
    ("wpf", "System.UInt16", "65535", "int", (65535,), {}),
    ("wpf", "System.Int32", "2147483647", "int", (INT32_MAX,), {}),
    ("wpf", "System.Int32", "-2147483648", "int", (-(2**31),), {}),
    ("wpf", "System.Int32", "+42", "int", (42,), {}),
    ("wpf", "System.Int32", "007", "int", (7,), {}),
    ("wpf", "System.Int32", "-0", "int", (0,), {}),
    ("winforms", "System.Int32", " 12 ", "int", (12,), {}),
    ("wpf", "System.UInt32", "4294967295", "int", (2**32 - 1,), {}),
    ("wpf", "System.Int64", "-9223372036854775808", "int", (-(2**63),), {}),
    ("wpf", "System.Int64", "9223372036854775807", "int", (2**63 - 1,), {}),
    ("wpf", "System.UInt64", "18446744073709551615", "int", (2**64 - 1,), {}),
    ("wpf", "System.UInt64", "0000000000000000000000000000001", "int", (1,), {}),
    # floating point, InvariantCulture
    ("wpf", "System.Double", "12", "float", (12.0,), {}),
    ("wpf", "System.Double", "1.5", "float", (1.5,), {}),
    ("wpf", "System.Double", "-.5", "float", (-0.5,), {}),
    ("wpf", "System.Double", "2.", "float", (2.0,), {}),
    ("wpf", "System.Double", "1e3", "float", (1000.0,), {}),
    ("wpf", "System.Double", "1.5E-2", "float", (0.015,), {}),
    ("wpf", "System.Double", "-0", "float", (0.0,), {}),
    ("wpf", "System.Double", "1e-400", "float", (0.0,), {}),
    ("winforms", "System.Double", "0.75", "float", (0.75,), {"property_name": "Opacity"}),
    ("wpf", "System.Double", "Infinity", "float", (math.inf,), {"property_name": "MaxWidth"}),
    ("wpf", "System.Double", "+infinity", "float", (math.inf,), {"property_name": "MaxHeight"}),
    ("wpf", "System.Double", "120", "float", (120.0,), {"property_name": "Width"}),
    ("wpf", "System.Single", "0.1", "float", (f32(0.1),), {}),
    ("wpf", "System.Single", "3.4028234e38", "float", (f32(3.4028234e38),), {}),
    ("wpf", "System.Single", "-2.5", "float", (-2.5,), {}),
    # decimal: canonical invariant text, scale kept
    ("wpf", "System.Decimal", "12.50", "decimal", ("12.50",), {}),
    ("wpf", "System.Decimal", "+.5", "decimal", ("0.5",), {}),
    ("wpf", "System.Decimal", "-0.000", "decimal", ("0.000",), {}),
    ("wpf", "System.Decimal", "00042", "decimal", ("42",), {}),
    ("wpf", "System.Decimal", "-1234.56", "decimal", ("-1234.56",), {}),
    ("wpf", "System.Decimal", "79228162514264337593543950335", "decimal",
     ("79228162514264337593543950335",), {}),
    ("wpf", "System.Decimal", "0." + "0" * 27 + "1", "decimal", ("0." + "0" * 27 + "1",), {}),
    # trailing zeros beyond 28 places carry no value: dropped, not an error
    ("wpf", "System.Decimal", "1." + "0" * 40, "decimal", ("1." + "0" * 28,), {}),
    # char: exactly one UTF-16 unit, taken verbatim (a space is a character)
    ("winforms", "System.Char", "*", "char", ("*",), {}),
    ("winforms", "System.Char", " ", "char", (" ",), {}),
    ("winforms", "System.Char", "é", "char", ("é",), {}),
    # WPF Thickness: 1, 2 or 4 parts, commas and/or blanks
    ("wpf", "System.Windows.Thickness", "4", "thickness", (4.0, 4.0, 4.0, 4.0), {}),
    ("wpf", "System.Windows.Thickness", "1,2", "thickness", (1.0, 2.0, 1.0, 2.0), {}),
    ("wpf", "System.Windows.Thickness", "1,5", "thickness", (1.0, 5.0, 1.0, 5.0), {}),
    ("wpf", "System.Windows.Thickness", "1,2,3,4", "thickness", (1.0, 2.0, 3.0, 4.0), {}),
    ("wpf", "System.Windows.Thickness", " 1 2 3 4 ", "thickness", (1.0, 2.0, 3.0, 4.0), {}),
    ("wpf", "System.Windows.Thickness", "1, 2 ,3 ,4", "thickness", (1.0, 2.0, 3.0, 4.0), {}),
    ("wpf", "System.Windows.Thickness", "-5,0.5", "thickness", (-5.0, 0.5, -5.0, 0.5), {}),
    ("wpf", "System.Windows.CornerRadius", "3", "cornerradius", (3.0,) * 4, {}),
    ("wpf", "System.Windows.CornerRadius", "4,4,0,0", "cornerradius", (4.0, 4.0, 0.0, 0.0), {}),
    # WPF colors and brushes
    ("wpf", "System.Windows.Media.Color", "Red", "color", (255, 255, 0, 0), {}),
    ("wpf", "System.Windows.Media.Color", "cornflowerblue", "color", (255, 0x64, 0x95, 0xED), {}),
    ("wpf", "System.Windows.Media.Color", "TRANSPARENT", "color", (0, 255, 255, 255), {}),
    ("wpf", "System.Windows.Media.Color", "#F80", "color", (255, 255, 0x88, 0), {}),
    ("wpf", "System.Windows.Media.Color", "#8F80", "color", (0x88, 255, 0x88, 0), {}),
    ("wpf", "System.Windows.Media.Color", "#ff8800", "color", (255, 255, 0x88, 0), {}),
    ("wpf", "System.Windows.Media.Color", "#80FF8800", "color", (0x80, 255, 0x88, 0), {}),
    ("wpf", "System.Windows.Media.Brush", "Green", "brush", (255, 0, 0x80, 0), {}),
    ("wpf", "System.Windows.Media.Brush", "#00000000", "brush", (0, 0, 0, 0), {}),
    ("wpf", "System.Windows.Media.SolidColorBrush", "white", "brush", (255,) * 4, {}),
    # GridLength
    ("wpf", "System.Windows.GridLength", "Auto", "gridlength", (1.0, "Auto"), {}),
    ("wpf", "System.Windows.GridLength", "auto", "gridlength", (1.0, "Auto"), {}),
    ("wpf", "System.Windows.GridLength", "*", "gridlength", (1.0, "Star"), {}),
    ("wpf", "System.Windows.GridLength", "2*", "gridlength", (2.0, "Star"), {}),
    ("wpf", "System.Windows.GridLength", "0.5*", "gridlength", (0.5, "Star"), {}),
    ("wpf", "System.Windows.GridLength", "120", "gridlength", (120.0, "Pixel"), {}),
    ("wpf", "System.Windows.GridLength", "0", "gridlength", (0.0, "Pixel"), {}),
    # WPF Size / Point / Rect
    ("wpf", "System.Windows.Size", "100,40", "size", (100.0, 40.0), {}),
    ("wpf", "System.Windows.Size", "100 40.5", "size", (100.0, 40.5), {}),
    ("wpf", "System.Windows.Point", "0.5,0.5", "point", (0.5, 0.5), {}),
    ("wpf", "System.Windows.Point", "-10 4", "point", (-10.0, 4.0), {}),
    ("wpf", "System.Windows.Rect", "-1,-2,3,4", "rect", (-1.0, -2.0, 3.0, 4.0), {}),
    # fonts
    ("wpf", "System.Windows.FontWeight", "Bold", "fontweight", (700,), {}),
    ("wpf", "System.Windows.FontWeight", "semibold", "fontweight", (600,), {}),
    ("wpf", "System.Windows.FontWeight", "UltraBlack", "fontweight", (950,), {}),
    ("wpf", "System.Windows.FontWeight", "1", "fontweight", (1,), {}),
    ("wpf", "System.Windows.FontWeight", "999", "fontweight", (999,), {}),
    ("wpf", "System.Windows.FontStyle", "italic", "fontstyle", ("Italic",), {}),
    ("wpf", "System.Windows.FontStyle", "Oblique", "fontstyle", ("Oblique",), {}),
    ("wpf", "System.Windows.Media.FontFamily", "Segoe UI", "fontfamily", ("Segoe UI",), {}),
    ("wpf", "System.Windows.Media.FontFamily", " Consolas,Courier New ", "fontfamily",
     ("Consolas, Courier New",), {}),
    # fixed enums: by name in any case, or by member value
    ("wpf", "System.Windows.Visibility", "Collapsed", "enum", (2,), {}),
    ("wpf", "System.Windows.Visibility", "hidden", "enum", (1,), {}),
    ("wpf", "System.Windows.Visibility", "0", "enum", (0,), {}),
    ("wpf", "System.Windows.HorizontalAlignment", "STRETCH", "enum", (3,), {}),
    ("wpf", "System.Windows.VerticalAlignment", "Bottom", "enum", (2,), {}),
    ("winforms", "System.Windows.Forms.DockStyle", "fill", "enum", (5,), {}),
    ("winforms", "System.Windows.Forms.AnchorStyles", "Top, Left", "enum", (5,), {}),
    ("winforms", "System.Windows.Forms.AnchorStyles", "top,left,RIGHT", "enum", (13,), {}),
    ("winforms", "System.Windows.Forms.AnchorStyles", "Left, Left", "enum", (4,), {}),
    ("winforms", "System.Windows.Forms.AnchorStyles", "None", "enum", (0,), {}),
    ("winforms", "System.Windows.Forms.AnchorStyles", "15", "enum", (15,), {}),
    # WinForms value types
    ("winforms", "System.Windows.Forms.Padding", "3", "padding", (3, 3, 3, 3), {}),
    ("winforms", "System.Windows.Forms.Padding", "1,2,3,4", "padding", (1, 2, 3, 4), {}),
    ("winforms", "System.Windows.Forms.Padding", "-1, 0, 0, 0", "padding", (-1, 0, 0, 0), {}),
    ("winforms", "System.Drawing.Color", "Red", "knowncolor", ("Red",), {}),
    ("winforms", "System.Drawing.Color", "control", "knowncolor", ("Control",), {}),
    ("winforms", "System.Drawing.Color", "WINDOWTEXT", "knowncolor", ("WindowText",), {}),
    ("winforms", "System.Drawing.Color", "Transparent", "knowncolor", ("Transparent",), {}),
    ("winforms", "System.Drawing.Color", "#FF8800", "color", (255, 255, 0x88, 0), {}),
    ("winforms", "System.Drawing.Color", "#80ff8800", "color", (0x80, 255, 0x88, 0), {}),
    ("winforms", "System.Drawing.Color", "255,128,0", "color", (255, 255, 128, 0), {}),
    ("winforms", "System.Drawing.Color", "128, 0, 0, 255", "color", (128, 0, 0, 255), {}),
    ("winforms", "System.Drawing.Size", "300,200", "size", (300, 200), {}),
    ("winforms", "System.Drawing.Point", "-5,10", "point", (-5, 10), {}),
    ("winforms", "System.Drawing.Rectangle", "-1,-1,10,20", "rect", (-1, -1, 10, 20), {}),
    ("winforms", "System.Drawing.SizeF", "10.5,0.1", "size", (10.5, f32(0.1)), {}),
    ("winforms", "System.Drawing.PointF", "-1.25 2", "point", (-1.25, 2.0), {}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("toolkit", "type_name", "text", "kind", "parts", "kw"),
    GOOD,
    ids=[f"{t[1].rsplit('.', 1)[-1]}:{t[2]!r}"[:60] for t in GOOD],
)
def test_accepts(
    toolkit: Toolkit,
    type_name: str,
    text: str,
    kind: str,
    parts: tuple[Any, ...],
    kw: dict[str, Any],
) -> None:
    result = parse_value(text, type_name, toolkit=toolkit, **kw)
    assert result == Converted(kind, type_name, parts)  # type: ignore[arg-type]
    # == lets 1 equal 1.0 and True equal 1; the adapter picks constructors by type.
    assert [type(p) for p in result.parts] == [type(p) for p in parts]


def test_double_zero_is_never_negative_zero() -> None:
    (value,) = convert("-0", "System.Double").parts
    assert math.copysign(1.0, float(value)) == 1.0


@pytest.mark.parametrize("prop", ["Width", "height", "Left", "Top", "Canvas.Left", "Canvas.Bottom"])
@pytest.mark.parametrize("text", ["Auto", "auto", "NaN", " nan "])
def test_wpf_auto_is_nan_for_size_and_position_doubles(prop: str, text: str) -> None:
    result = convert(text, "System.Double", property_name=prop)
    assert result.kind == "float"
    assert math.isnan(float(result.parts[0]))


# --------------------------------------------------------------------------- bad inputs

# (toolkit, type, text, extra kwargs, fragment of the reason)
BAD: list[tuple[Toolkit, str, str, dict[str, Any], str]] = [
    # bool: nothing but true/false
    ("wpf", "System.Boolean", "1", {}, "neither true nor false"),
    ("wpf", "System.Boolean", "0", {}, "neither"),
    ("wpf", "System.Boolean", "yes", {}, "neither"),
    ("wpf", "System.Boolean", "on", {}, "neither"),
    ("wpf", "System.Boolean", "t", {}, "neither"),
    ("wpf", "System.Boolean", "", {}, "empty"),
    ("wpf", "System.Boolean", "true false", {}, "neither"),
    ("wpf", "System.Boolean", "fals\u0435", {}, "neither"),  # Cyrillic e
    # Unicode case folding is not .NET's: the Kelvin sign lowers to "k" in Python
    ("wpf", "System.Windows.Media.Color", "\u212Ahaki", {}, "accepted names"),
    ("wpf", "System.Windows.FontWeight", "Blac\u212A", {}, "accepted names"),
    # integers: range edges, culture traps, Python-only syntax
    ("wpf", "System.Int32", "2147483648", {}, "out of range"),
    ("wpf", "System.Int32", "-2147483649", {}, "out of range"),
    ("wpf", "System.Byte", "256", {}, "out of range"),
    ("wpf", "System.Byte", "-1", {}, "out of range"),
    ("wpf", "System.SByte", "128", {}, "out of range"),
    ("wpf", "System.Int16", "32768", {}, "out of range"),
    ("wpf", "System.UInt16", "65536", {}, "out of range"),
    ("wpf", "System.UInt32", "4294967296", {}, "out of range"),
    ("wpf", "System.Int64", "9223372036854775808", {}, "out of range"),
    ("wpf", "System.UInt64", "18446744073709551616", {}, "out of range"),
    ("wpf", "System.UInt64", "-1", {}, "out of range"),
    ("wpf", "System.Int32", "9" * 4000, {}, "out of range"),
    ("wpf", "System.Int32", "1.0", {}, "whole number"),
    ("wpf", "System.Int32", "1,000", {}, "whole number"),
    ("wpf", "System.Int32", "1 000", {}, "whole number"),
    ("wpf", "System.Int32", "1_000", {}, "whole number"),
    ("wpf", "System.Int32", "0x10", {}, "whole number"),
    ("wpf", "System.Int32", "1e3", {}, "whole number"),
    ("wpf", "System.Int32", "\u0661\u0662", {}, "whole number"),  # Arabic-Indic 12
    ("wpf", "System.Int32", "\uff11\uff12", {}, "whole number"),  # full-width 12
    ("wpf", "System.Int32", "--1", {}, "whole number"),
    ("wpf", "System.Int32", "+", {}, "whole number"),
    ("wpf", "System.Int32", "", {}, "empty"),
    ("wpf", "System.Int32", "   ", {}, "empty"),
    # doubles: the culture traps must fail, not become 15 or 1000.5
    ("wpf", "System.Double", "1,5", {}, "invariant"),
    ("wpf", "System.Double", "1.000,5", {}, "invariant"),
    ("wpf", "System.Double", "1,000.5", {}, "invariant"),
    ("wpf", "System.Double", "1 000", {}, "invariant"),
    ("wpf", "System.Double", "1_000.5", {}, "invariant"),
    ("wpf", "System.Double", "\u0661.\u0665", {}, "invariant"),
    ("wpf", "System.Double", "1.5.2", {}, "invariant"),
    ("wpf", "System.Double", ".", {}, "invariant"),
    ("wpf", "System.Double", "e5", {}, "invariant"),
    ("wpf", "System.Double", "1e", {}, "invariant"),
    ("wpf", "System.Double", "0x1p3", {}, "invariant"),
    ("wpf", "System.Double", "12px", {}, "invariant"),
    ("wpf", "System.Double", "inf", {}, "invariant"),
    ("wpf", "System.Double", "1e400", {}, "out of range"),
    ("wpf", "System.Double", "-1e400", {}, "out of range"),
    ("wpf", "System.Double", "NaN", {}, "NaN and infinities"),
    ("wpf", "System.Double", "Infinity", {}, "NaN and infinities"),
    ("wpf", "System.Double", "Auto", {"property_name": "Opacity"}, "NaN and infinities"),
    ("wpf", "System.Double", "Auto", {"property_name": "MinWidth"}, "NaN and infinities"),
    ("wpf", "System.Double", "Infinity", {"property_name": "Width"}, "NaN and infinities"),
    ("wpf", "System.Double", "-Infinity", {"property_name": "MaxWidth"}, "NaN and infinities"),
    ("wpf", "System.Double", "NaN", {"property_name": "MaxWidth"}, "NaN and infinities"),
    # WinForms has no NaN sizes: Width is an Int32 there, and no double takes Auto
    ("winforms", "System.Double", "Auto", {"property_name": "Width"}, "NaN and infinities"),
    ("wpf", "System.Single", "3.5e38", {}, "out of range"),
    ("wpf", "System.Single", "NaN", {}, "NaN and infinities"),
    ("wpf", "System.Single", "1,5", {}, "invariant"),
    # decimal
    ("wpf", "System.Decimal", "1e3", {}, "invariant"),
    ("wpf", "System.Decimal", "1,5", {}, "invariant"),
    ("wpf", "System.Decimal", "79228162514264337593543950336", {}, "out of range"),
    ("wpf", "System.Decimal", "0." + "0" * 28 + "1", {}, "28 decimal places"),
    ("wpf", "System.Decimal", "NaN", {}, "invariant"),
    ("wpf", "System.Decimal", "-", {}, "invariant"),
    # char
    ("winforms", "System.Char", "", {}, "exactly one character"),
    ("winforms", "System.Char", "ab", {}, "exactly one character"),
    ("winforms", "System.Char", "🎉", {}, "exactly one character"),
    ("winforms", "System.Char", "\x00", {}, "control"),
    ("winforms", "System.Char", "\ud800", {}, "control"),
    # strings: control characters other than tab and line breaks, lone surrogates
    ("wpf", "System.String", "a\x00b", {}, "control"),
    ("wpf", "System.String", "\x1b[31m", {}, "control"),
    ("wpf", "System.String", "a\x7fb", {}, "control"),
    ("wpf", "System.String", "a\x85b", {}, "control"),
    ("wpf", "System.String", "bad \udc80 half", {}, "control"),
    ("wpf", "System.Object", "\x07", {}, "control"),
    # Thickness / CornerRadius
    ("wpf", "System.Windows.Thickness", "1,2,3", {}, "number of parts"),
    ("wpf", "System.Windows.Thickness", "1,2,3,4,5", {}, "number of parts"),
    ("wpf", "System.Windows.Thickness", "1,,2", {}, "empty part"),
    ("wpf", "System.Windows.Thickness", "1,2,", {}, "empty part"),
    ("wpf", "System.Windows.Thickness", ",", {}, "empty part"),
    ("wpf", "System.Windows.Thickness", "1;2", {}, "invariant"),
    ("wpf", "System.Windows.Thickness", "Auto", {}, "invariant"),
    ("wpf", "System.Windows.Thickness", "1,NaN", {}, "invariant"),
    ("wpf", "System.Windows.Thickness", "1e999", {}, "out of range"),
    ("wpf", "System.Windows.Thickness", "", {}, "empty"),
    ("wpf", "System.Windows.CornerRadius", "1,2", {}, "number of parts"),
    ("wpf", "System.Windows.CornerRadius", "-1", {}, "negative"),
    # colors
    ("wpf", "System.Windows.Media.Color", "Redd", {}, "accepted names"),
    # a WinForms system color is not a WPF color
    ("wpf", "System.Windows.Media.Color", "Control", {}, "accepted names"),
    ("wpf", "System.Windows.Media.Color", "#12", {}, "hex"),
    ("wpf", "System.Windows.Media.Color", "#12345", {}, "hex"),
    ("wpf", "System.Windows.Media.Color", "#1234567", {}, "hex"),
    ("wpf", "System.Windows.Media.Color", "#GGGGGG", {}, "hex"),
    ("wpf", "System.Windows.Media.Color", "#", {}, "hex"),
    ("wpf", "System.Windows.Media.Color", "FF0000", {}, "accepted names"),
    ("wpf", "System.Windows.Media.Color", "255,0,0", {}, "accepted names"),
    ("wpf", "System.Windows.Media.Color", "sc#1,0,0,0", {}, "accepted names"),
    ("wpf", "System.Windows.Media.Brush", "Light Blue", {}, "accepted names"),
    ("wpf", "System.Windows.Media.Brush", "", {}, "empty"),
    ("winforms", "System.Drawing.Color", "#F80", {}, "hex"),
    ("winforms", "System.Drawing.Color", "256,0,0", {}, "0..255"),
    ("winforms", "System.Drawing.Color", "-1,0,0", {}, "0..255"),
    ("winforms", "System.Drawing.Color", "1,2", {}, "number of parts"),
    ("winforms", "System.Drawing.Color", "1,2,3,4,5", {}, "number of parts"),
    ("winforms", "System.Drawing.Color", "1.5,2,3", {}, "whole number"),
    ("winforms", "System.Drawing.Color", "RebeccaPurple", {}, "accepted names"),
    ("winforms", "System.Drawing.Color", "Empty", {}, "accepted names"),
    # GridLength
    ("wpf", "System.Windows.GridLength", "-1", {}, "negative"),
    ("wpf", "System.Windows.GridLength", "-2*", {}, "negative"),
    ("wpf", "System.Windows.GridLength", "**", {}, "invariant"),
    ("wpf", "System.Windows.GridLength", "2 *", {}, "invariant"),
    ("wpf", "System.Windows.GridLength", "1,5*", {}, "invariant"),
    ("wpf", "System.Windows.GridLength", "Automatic", {}, "invariant"),
    ("wpf", "System.Windows.GridLength", "12px", {}, "invariant"),
    # Size / Point / Rect
    ("wpf", "System.Windows.Size", "100", {}, "number of parts"),
    ("wpf", "System.Windows.Size", "-1,5", {}, "negative"),
    ("wpf", "System.Windows.Size", "1,5,", {}, "empty part"),
    ("wpf", "System.Windows.Point", "1,2,3", {}, "number of parts"),
    ("wpf", "System.Windows.Point", "1;2", {}, "number of parts"),
    ("wpf", "System.Windows.Rect", "0,0,-1,5", {}, "negative"),
    ("wpf", "System.Windows.Rect", "Empty", {}, "number of parts"),
    ("winforms", "System.Drawing.Size", "10.5,3", {}, "whole number"),
    ("winforms", "System.Drawing.Size", "-10,3", {}, "negative"),
    ("winforms", "System.Drawing.Size", "2147483648,1", {}, "out of range"),
    ("winforms", "System.Drawing.Point", "1", {}, "number of parts"),
    ("winforms", "System.Drawing.Rectangle", "0,0,10,-1", {}, "negative"),
    ("winforms", "System.Drawing.SizeF", "-1,1", {}, "negative"),
    ("winforms", "System.Drawing.PointF", "1e39,0", {}, "out of range"),
    ("winforms", "System.Windows.Forms.Padding", "1,2", {}, "number of parts"),
    ("winforms", "System.Windows.Forms.Padding", "1.5", {}, "whole number"),
    # fonts
    ("wpf", "System.Windows.FontWeight", "0", {}, "out of range"),
    ("wpf", "System.Windows.FontWeight", "1000", {}, "out of range"),
    ("wpf", "System.Windows.FontWeight", "Bolder", {}, "accepted names"),
    ("wpf", "System.Windows.FontWeight", "700.5", {}, "accepted names"),
    ("wpf", "System.Windows.FontStyle", "Slanted", {}, "accepted names"),
    ("wpf", "System.Windows.FontStyle", "Bold", {}, "accepted names"),
    ("wpf", "System.Windows.Media.FontFamily", "", {}, "empty"),
    ("wpf", "System.Windows.Media.FontFamily", "   ", {}, "empty"),
    ("wpf", "System.Windows.Media.FontFamily", "Segoe\tUI", {}, "control"),
    ("wpf", "System.Windows.Media.FontFamily", "Arial,,Segoe UI", {}, "empty part"),
    ("wpf", "System.Windows.Media.FontFamily", "file:///C:/fonts/x.ttf#X", {}, "not allowed"),
    ("wpf", "System.Windows.Media.FontFamily", "./#Custom", {}, "not allowed"),
    # fixed enums
    ("wpf", "System.Windows.Visibility", "Invisible", {}, "accepted names"),
    ("wpf", "System.Windows.Visibility", "3", {}, "not the value of any member"),
    ("wpf", "System.Windows.Visibility", "-1", {}, "not the value of any member"),
    ("wpf", "System.Windows.Visibility", "Visible, Hidden", {}, "single name"),
    ("wpf", "System.Windows.Visibility", "", {}, "empty"),
    ("wpf", "System.Windows.HorizontalAlignment", "Middle", {}, "accepted names"),
    ("winforms", "System.Windows.Forms.DockStyle", "Top, Left", {}, "single name"),
    ("winforms", "System.Windows.Forms.AnchorStyles", "Top | Left", {}, "accepted names"),
    ("winforms", "System.Windows.Forms.AnchorStyles", "Top,,Left", {}, "empty part"),
    ("winforms", "System.Windows.Forms.AnchorStyles", "Top,", {}, "empty part"),
    ("winforms", "System.Windows.Forms.AnchorStyles", "16", {}, "sets bits"),
    ("winforms", "System.Windows.Forms.AnchorStyles", "-1", {}, "sets bits"),
    ("winforms", "System.Windows.Forms.AnchorStyles", "Top, 4", {}, "accepted names"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("toolkit", "type_name", "text", "kw", "reason"),
    BAD,
    ids=[f"{t[1].rsplit('.', 1)[-1]}:{t[2][:20]!r}" for t in BAD],
)
def test_rejects(toolkit: Toolkit, type_name: str, text: str, kw: dict[str, Any], reason: str) -> None:
    err = failure(text, type_name, toolkit, **kw)
    assert isinstance(err, TypeConversionFailedError)
    assert err.code == "TYPE_CONVERSION_FAILED"
    assert reason in err.detail["reason"]
    assert err.detail["typeName"] == type_name
    fmt = err.detail["expectedFormat"]
    assert fmt and fmt in err.message and fmt in err.suggestion
    assert err.detail["examples"], "an agent needs at least one example to copy"
    assert "wpf_set_property" in err.suggestion
    # Every example offered must itself be accepted: a suggestion that fails is worse than none.
    for example in err.detail["examples"]:
        parse_value(example, type_name, toolkit=toolkit, **kw)


def test_every_supported_type_has_examples_that_parse() -> None:
    for toolkit in TOOLKITS:
        for type_name in supported_types(toolkit):
            described = expected_format(type_name, toolkit=toolkit)
            assert described is not None, type_name
            fmt, examples = described
            assert fmt and examples, type_name
            for example in examples:
                parse_value(example, type_name, toolkit=toolkit)


# --------------------------------------------------------------------------- enums from the adapter


def test_adapter_enum_by_name_case_insensitively() -> None:
    name = "System.Windows.Controls.Orientation"
    assert convert("vertical", name, enum=ORIENTATION).parts == (1,)
    assert convert(" Horizontal ", name, enum=ORIENTATION).parts == (0,)
    assert convert("1", name, enum=ORIENTATION) == Converted("enum", name, (1,))


def test_adapter_flags_enum() -> None:
    name = "System.Drawing.FontStyle"
    assert convert("Bold, Italic", name, "winforms", enum=FONT_STYLE_FLAGS).parts == (3,)
    assert convert("underline,STRIKEOUT", name, "winforms", enum=FONT_STYLE_FLAGS).parts == (12,)
    assert convert("Regular", name, "winforms", enum=FONT_STYLE_FLAGS).parts == (0,)
    assert convert("15", name, "winforms", enum=FONT_STYLE_FLAGS).parts == (15,)
    assert failure("32", name, "winforms", enum=FONT_STYLE_FLAGS).code == "TYPE_CONVERSION_FAILED"
    assert failure("Bold Italic", name, "winforms", enum=FONT_STYLE_FLAGS).detail["reason"] == (
        "the value is not one of the accepted names"
    )


def test_non_flags_adapter_enum_refuses_lists_and_undefined_numbers() -> None:
    def reason(text: str) -> str:
        return str(failure(text, "X.Orientation", enum=ORIENTATION).detail["reason"])

    assert "single name" in reason("Horizontal,Vertical")
    assert "not the value" in reason("2")
    assert "out of range" in reason("1" + "0" * 20)


def test_enum_names_differing_only_in_case() -> None:
    spec = EnumSpec(("Value", "VALUE", "Other"), (1, 2, 3))
    assert convert("Value", "X.E", enum=spec).parts == (1,)
    assert convert("VALUE", "X.E", enum=spec).parts == (2,)
    assert "several members" in failure("value", "X.E", enum=spec).detail["reason"]
    assert convert("other", "X.E", enum=spec).parts == (3,)


def test_enum_error_lists_the_members() -> None:
    err = failure("Diagonal", "X.Orientation", enum=ORIENTATION)
    assert "Horizontal, Vertical" in err.detail["expectedFormat"]
    assert err.detail["examples"] == ["Horizontal", "Vertical"]


def test_long_enum_member_list_is_cut_in_the_message() -> None:
    spec = enum_spec({f"Member{i}": i for i in range(100)})
    fmt = failure("Nope", "X.Big", enum=spec).detail["expectedFormat"]
    assert "Member29" in fmt and "Member30" not in fmt and "..." in fmt


def test_fixed_enums_ignore_the_adapters_spec() -> None:
    wrong = EnumSpec(("Visible", "Gone"), (7, 8))
    assert convert("Visible", "System.Windows.Visibility", enum=wrong).parts == (0,)
    assert failure("Gone", "System.Windows.Visibility", enum=wrong).code == "TYPE_CONVERSION_FAILED"


def test_table_types_ignore_an_enum_spec() -> None:
    assert convert("5", "System.Int32", enum=ORIENTATION) == Converted("int", "System.Int32", (5,))


def test_enum_spec_validation() -> None:
    with pytest.raises(ValueError, match="one value per name"):
        EnumSpec(("A", "B"), (1,))
    with pytest.raises(ValueError, match="non-empty"):
        EnumSpec(("",), (1,))
    with pytest.raises(ValueError, match="integers"):
        EnumSpec(("A",), (True,))
    assert enum_spec({"A": 1, "B": 2}, flags=True) == EnumSpec(("A", "B"), (1, 2), True)


# --------------------------------------------------------------------------- Nullable<T>


def test_nullable_bool_takes_null_true_and_false() -> None:
    assert convert("null", NULLABLE_BOOL) == Converted("null", NULLABLE_BOOL, ())
    assert convert(" NULL ", NULLABLE_BOOL).kind == "null"
    assert convert("true", NULLABLE_BOOL) == Converted("bool", "System.Boolean", (True,))
    err = failure("maybe", NULLABLE_BOOL)
    assert err.code == "TYPE_CONVERSION_FAILED"
    assert err.detail["typeName"] == NULLABLE_BOOL
    assert "true or false" in err.detail["expectedFormat"]


def test_nullable_forms_and_inner_types() -> None:
    assert convert("42", NULLABLE_INT, "winforms") == Converted("int", "System.Int32", (42,))
    short = "System.Nullable`1[System.Double]"
    assert convert("1.5", short).parts == (1.5,)
    nullable_enum = "System.Nullable`1[[System.Windows.Controls.Orientation, PresentationFramework]]"
    assert convert("Vertical", nullable_enum, enum=ORIENTATION).parts == (1,)
    assert convert("null", nullable_enum, enum=ORIENTATION).kind == "null"


def test_null_is_only_for_nullable_types() -> None:
    assert failure("null", "System.Int32").code == "TYPE_CONVERSION_FAILED"
    assert convert("null", "System.String").parts == ("null",)


# --------------------------------------------------------------------------- unsupported types


@pytest.mark.parametrize(
    ("toolkit", "type_name"),
    [
        ("winforms", "System.Drawing.Font"),
        ("winforms", "System.Drawing.Image"),
        ("winforms", "System.Windows.Forms.Cursor"),
        ("wpf", "System.Windows.Media.Transform"),
        ("wpf", "System.Windows.Style"),
        ("wpf", "System.Windows.Media.LinearGradientBrush"),
        ("wpf", "System.Windows.Input.ICommand"),
        ("wpf", "System.Uri"),
        ("wpf", "System.DateTime"),
        ("wpf", "System.TimeSpan"),
        ("wpf", "System.String[]"),
        ("wpf", "system.string"),  # .NET type names are case-sensitive
        ("wpf", "System.Collections.Generic.List`1[[System.String, mscorlib]]"),
        ("wpf", "System.Nullable`1[[System.DateTime, mscorlib]]"),
        # the other toolkit's types do not exist in this process
        ("wpf", "System.Drawing.Color"),
        ("wpf", "System.Windows.Forms.Padding"),
        ("winforms", "System.Windows.Thickness"),
        ("winforms", "System.Windows.Media.Brush"),
        ("winforms", "System.Windows.Visibility"),
    ],
)
def test_unsupported_types(toolkit: Toolkit, type_name: str) -> None:
    err = failure("1", type_name, toolkit)
    assert isinstance(err, UnsupportedPropertyTypeError)
    assert err.code == "UNSUPPORTED_PROPERTY_TYPE"
    assert err.detail["typeName"] == type_name
    assert err.detail["supportedTypes"] == supported_types(toolkit)
    assert err.detail["enumsSupported"] is True
    assert type_name in err.message
    assert err.suggestion
    assert expected_format(type_name, toolkit=toolkit) is None


def test_unsupported_type_wins_over_a_bad_value() -> None:
    # The agent should learn it cannot set Font at all, not how to shorten the text.
    assert failure("x" * (MAX_VALUE_LENGTH + 1), "System.Drawing.Font", "winforms").code == (
        "UNSUPPORTED_PROPERTY_TYPE"
    )


# --------------------------------------------------------------------------- limits and arguments


def test_length_limit() -> None:
    at_limit = "x" * MAX_VALUE_LENGTH
    assert convert(at_limit, "System.String").parts == (at_limit,)
    err = failure(at_limit + "x", "System.String")
    assert isinstance(err, InvalidArgumentError)
    assert err.detail == {"typeName": "System.String", "maxLength": MAX_VALUE_LENGTH}
    # Blanks count too: the limit is on what was sent, before any trimming.
    assert failure(" " * MAX_VALUE_LENGTH + "1", "System.Int32").code == "INVALID_ARGUMENT"


@pytest.mark.parametrize("value", [None, 42, 1.5, True, b"42", ["42"]])
def test_non_string_value_is_an_invalid_argument(value: Any) -> None:
    err = failure(value, "System.Int32")
    assert isinstance(err, InvalidArgumentError)
    assert "string" in err.message


def test_unknown_toolkit_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="toolkit"):
        parse_value("1", "System.Int32", toolkit="avalonia")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="toolkit"):
        supported_types("qt")  # type: ignore[arg-type]


def test_control_characters_are_refused_for_every_type() -> None:
    for toolkit in TOOLKITS:
        for type_name in supported_types(toolkit):
            for bad in ("\x00", "1\x00", "\x1b", "Red\x7f", "1\x1c"):
                err = failure(bad, type_name, toolkit)
                assert err.code == "TYPE_CONVERSION_FAILED", (type_name, bad)


def test_outer_whitespace_is_ignored_except_for_text() -> None:
    assert convert("\t 1,2 \r\n", "System.Windows.Point").parts == (1.0, 2.0)
    assert convert(" x ", "System.String").parts == (" x ",)
    assert convert(" ", "System.Char", "winforms").parts == (" ",)


# --------------------------------------------------------------------------- values never leak

MARK = "Qz7Wv"
LEAK_PROBES = [
    MARK, f"\x01{MARK}", f"#{MARK}", f"{MARK},1", f"1,{MARK}", f"1e{MARK}", f"{MARK}*",
    f"1,2,3,{MARK},5", f"Top, {MARK}", f"file:///{MARK}#X", "98765432109876543210987",
    "3141592653589793238462643383279", "1,5", "-7e999",
]  # fmt: skip
ENUMS = {"X.Orientation": ORIENTATION}


def _all_types() -> list[tuple[Toolkit, str]]:
    found: list[tuple[Toolkit, str]] = []
    for toolkit in TOOLKITS:
        found += [(toolkit, t) for t in supported_types(toolkit)]
        found += [(toolkit, t) for t in ENUMS]
        found += [(toolkit, NULLABLE_BOOL), (toolkit, "System.Drawing.Font")]
    return found


@pytest.mark.parametrize(("toolkit", "type_name"), _all_types())
def test_no_error_contains_the_value(toolkit: Toolkit, type_name: str) -> None:
    raised = 0
    for text in [*LEAK_PROBES, MARK * 1000]:
        try:
            parse_value(text, type_name, toolkit=toolkit, enum=ENUMS.get(type_name))
        except ProbeError as err:
            raised += 1
            rendered = " ".join([str(err), repr(err), err.message, err.suggestion, json.dumps(err.to_dict())])
            assert MARK not in rendered
            assert MARK.lower() not in rendered.lower()
            if len(text) > 8 and not text.startswith(MARK):
                assert text not in rendered
                assert text.strip("-") not in rendered
            # No chained exception either: tracebacks and loggers print those.
            assert err.__context__ is None and err.__cause__ is None
    # Text types take most probes as they are; everything else must refuse nearly
    # all of them (a list type takes "1,5", a double the long numbers), or this
    # test would prove nothing about the messages.
    text_types = ("System.String", "System.Object", "System.Windows.Media.FontFamily")
    assert raised >= (2 if type_name in text_types else len(LEAK_PROBES) - 3)


def test_conversion_error_helper_for_the_adapter() -> None:
    err = conversion_error("System.Double", "the app rejected the value", toolkit="wpf", property_name="MinWidth")
    assert err.code == "TYPE_CONVERSION_FAILED"
    assert err.detail["reason"] == "the app rejected the value"
    assert "Auto" not in err.detail["expectedFormat"]
    width = conversion_error("System.Double", "x", toolkit="wpf", property_name="Width")
    assert "Auto" in width.detail["expectedFormat"]
    unknown = conversion_error("System.Drawing.Font", "x", toolkit="winforms")
    assert unknown.detail["examples"] == []


# --------------------------------------------------------------------------- supported types


def test_supported_types_lists() -> None:
    wpf = supported_types("wpf")
    winforms = supported_types("winforms")
    assert wpf == sorted(wpf) and winforms == sorted(winforms)
    common = {
        "System.String", "System.Object", "System.Boolean", "System.Byte", "System.SByte",
        "System.Int16", "System.UInt16", "System.Int32", "System.UInt32", "System.Int64",
        "System.UInt64", "System.Single", "System.Double", "System.Decimal", "System.Char",
    }  # fmt: skip
    assert set(wpf) - common == {
        "System.Windows.Thickness", "System.Windows.CornerRadius", "System.Windows.Media.Color",
        "System.Windows.Media.Brush", "System.Windows.Media.SolidColorBrush",
        "System.Windows.GridLength", "System.Windows.Size", "System.Windows.Point",
        "System.Windows.Rect", "System.Windows.Visibility", "System.Windows.HorizontalAlignment",
        "System.Windows.VerticalAlignment", "System.Windows.FontWeight",
        "System.Windows.FontStyle", "System.Windows.Media.FontFamily",
    }  # fmt: skip
    assert set(winforms) - common == {
        "System.Windows.Forms.Padding", "System.Drawing.Color", "System.Drawing.Size",
        "System.Drawing.Point", "System.Drawing.Rectangle", "System.Drawing.SizeF",
        "System.Drawing.PointF", "System.Windows.Forms.DockStyle",
        "System.Windows.Forms.AnchorStyles",
    }  # fmt: skip
    assert common <= set(wpf) and common <= set(winforms)
    assert "System.Drawing.Font" not in winforms


def test_known_color_names() -> None:
    # 174 = KnownColor on .NET Framework 4.x and Mono (RebeccaPurple came later).
    assert len(KNOWN_COLOR_NAMES) == 174 == len({n.lower() for n in KNOWN_COLOR_NAMES})
    assert set(WPF_COLOR_NAMES) <= set(KNOWN_COLOR_NAMES)
    for name in ("Control", "ControlText", "Window", "Highlight", "ButtonFace", "MenuHighlight"):
        assert name in KNOWN_COLOR_NAMES
    for name in KNOWN_COLOR_NAMES:
        assert convert(name.upper(), "System.Drawing.Color", "winforms").parts == (name,)


def test_every_wpf_named_color_converts() -> None:
    for name in WPF_COLOR_NAMES:
        parts = convert(name.lower(), "System.Windows.Media.Color").parts
        assert len(parts) == 4 and all(0 <= int(p) <= 255 for p in parts)
        assert parts[0] == (0 if name == "Transparent" else 255)


# --------------------------------------------------------------------------- against the WPF API


@pytest.fixture(scope="module")
def api() -> wpf_surface.WpfApi:
    return wpf_surface.load_api()


def _members(api: wpf_surface.WpfApi, type_name: str, kind: str) -> dict[str, str]:
    found = api.types[type_name].members
    return {name: ms[0].signature for name, ms in found.items() if ms[0].kind == kind}


def test_wpf_table_types_exist_in_the_wpf_api(api: wpf_surface.WpfApi) -> None:
    for type_name in supported_types("wpf"):
        if type_name.startswith("System.Windows."):
            assert type_name in api.types, type_name


@pytest.mark.parametrize(
    ("type_name", "arity"),
    [
        ("System.Windows.Thickness", 4),
        ("System.Windows.CornerRadius", 4),
        ("System.Windows.Size", 2),
        ("System.Windows.Point", 2),
        ("System.Windows.Rect", 4),
        ("System.Windows.GridLength", 2),
        ("System.Windows.Media.FontFamily", 1),
        ("System.Windows.Media.SolidColorBrush", 1),
    ],
)
def test_wpf_constructors_take_the_parts(api: wpf_surface.WpfApi, type_name: str, arity: int) -> None:
    ctors = api.types[type_name].members[type_name.rsplit(".", 1)[-1]]
    arities = {ctor.signature.count(",") + 1 for ctor in ctors if "()" not in ctor.signature}
    assert arity in arities


def test_wpf_factories_used_by_the_adapter_exist(api: wpf_surface.WpfApi) -> None:
    color = api.types["System.Windows.Media.Color"].members["FromArgb"][0]
    assert color.is_static and color.signature.count("byte") == 4
    weight = api.types["System.Windows.FontWeight"].members["FromOpenTypeWeight"][0]
    assert weight.is_static and "int" in weight.signature
    units = _members(api, "System.Windows.GridUnitType", "enumvalue")
    assert set(units) == {"Auto", "Pixel", "Star"}
    # GridLength.Auto's own value, which the table copies as (1.0, "Auto").
    assert "Auto" in api.types["System.Windows.GridLength"].members


def test_wpf_color_names_are_the_colors_class(api: wpf_surface.WpfApi) -> None:
    assert set(WPF_COLOR_NAMES) == set(_members(api, "System.Windows.Media.Colors", "property"))


def test_font_names_are_the_wpf_classes(api: wpf_surface.WpfApi) -> None:
    assert set(FONT_WEIGHTS) == set(_members(api, "System.Windows.FontWeights", "property"))
    assert set(FONT_STYLES) == set(_members(api, "System.Windows.FontStyles", "property"))


@pytest.mark.parametrize("type_name", sorted(FIXED_ENUMS["wpf"]))
def test_fixed_wpf_enums_match_the_api(api: wpf_surface.WpfApi, type_name: str) -> None:
    rows = _members(api, type_name, "enumvalue")
    actual = {name: int(re.sub(r"\(\w+\)", "", sig.split("=", 1)[1])) for name, sig in rows.items()}
    spec = FIXED_ENUMS["wpf"][type_name]
    assert dict(zip(spec.names, spec.values, strict=True)) == actual
    assert not spec.flags


# --------------------------------------------------------------------------- the documentation


def test_docs_list_every_supported_type() -> None:
    text = DOC.read_text(encoding="utf-8")
    for toolkit in TOOLKITS:
        for type_name in supported_types(toolkit):
            assert f"`{type_name}`" in text, type_name
    for code in ("TYPE_CONVERSION_FAILED", "UNSUPPORTED_PROPERTY_TYPE", "INVALID_ARGUMENT"):
        assert code in text


def test_docs_python_examples_run_without_an_app() -> None:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})


def test_enum_without_members_refuses_everything_cleanly() -> None:
    err = failure("Anything", "X.Empty", enum=EnumSpec((), ()))
    assert err.code == "TYPE_CONVERSION_FAILED"
    assert err.detail["examples"] == []
    assert failure("0", "X.Empty", enum=EnumSpec((), ())).code == "TYPE_CONVERSION_FAILED"


def test_flags_example_is_a_real_combination() -> None:
    fmt = expected_format("System.Drawing.FontStyle", toolkit="winforms", enum=FONT_STYLE_FLAGS)
    assert fmt is not None and fmt[1] == ("Bold, Italic",)
