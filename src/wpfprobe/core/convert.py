"""The fixed converter table of wpf_set_property: an agent's string to a plain value description.

This is the toolkit-agnostic, pure-Python half. ``parse_value`` turns the
text an agent sends into a ``Converted``: a closed ``kind``, the .NET type
to build, and ``parts``, a tuple of plain numbers, strings and bools. The
toolkit adapter then builds the .NET value from those parts with plain
constructors and factories (see ``Converted``); it never hands the text to a
TypeConverter, ``Parse`` on an app type, XAML, or reflection over the app.

Why a closed table: an app's own TypeConverters run app code with
agent-controlled input, and the framework converters read the *current*
culture, so "1,5" would be 15 on a German machine and 1.5 on an English
one. Every format here is InvariantCulture and spelled out, and anything not
in the table is UNSUPPORTED_PROPERTY_TYPE rather than a best guess.

Errors never contain the value: the property may be one a user would not want
echoed (the caller refuses redacted properties first, but an error message is
the easiest place for a value to leak into logs anyway). Messages are built
from fixed phrases, the type name and the expected format only, and are
raised outside any ``except`` block so no chained exception carries the text.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

from wpfprobe.core.protocol import Toolkit
from wpfprobe.core.errors import ErrorCode, InvalidArgumentError, ProbeError

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


# --------------------------------------------------------------------------- internal failure


class _Fail(Exception):
    """A parse failure with a fixed, value-free reason; never leaves this module."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_Parsed = tuple[Kind, tuple[Part, ...]]


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


# --------------------------------------------------------------------------- lexical pieces

# Explicit ASCII classes everywhere: Python's int()/float() and \d accept
# Arabic-Indic digits, underscores, "inf" and "nan", none of which .NET's
# invariant parsing takes, so nothing reaches int()/float() unchecked.
_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?", re.ASCII)
_HEX = re.compile(r"#([0-9A-Fa-f]+)", re.ASCII)
# WPF's own list syntax (TokenizerHelper): a comma with optional blanks, or blanks alone.
_LIST_SEP = re.compile(r"[ \t\r\n]*,[ \t\r\n]*|[ \t\r\n]+")
_OUTER_WS: Final = " \t\r\n"
_NULLABLE = re.compile(r"System\.Nullable`1\[\[?([A-Za-z0-9_.+]+)(?:,[^\[\]]*)?\]?\]")

_FLOAT32_MAX: Final = 3.4028234663852886e38
# Longer digit strings are out of range for every integral type; skipping
# int() on them keeps a 4096-digit value cheap and clear of int_max_str_digits.
_MAX_INT_DIGITS: Final = 20

R_EMPTY: Final = "the value is empty"
R_CONTROL: Final = "the value contains control characters"
R_NOT_NUMBER: Final = "the value is not a number in invariant format"
R_NOT_INTEGER: Final = "the value is not a whole number"
R_RANGE: Final = "the number is out of range"
R_NEGATIVE: Final = "a number is negative where only non-negative numbers are allowed"
R_NOT_FINITE: Final = "NaN and infinities are not allowed for this property"
R_PART_COUNT: Final = "the value has the wrong number of parts"
R_EMPTY_PART: Final = "the value has an empty part"
R_UNKNOWN_NAME: Final = "the value is not one of the accepted names"
R_AMBIGUOUS_NAME: Final = "the name matches several members that differ only in case"
R_NOT_ONE_CHAR: Final = "the value is not exactly one character"
R_HEX: Final = "the hex color does not have an accepted number of digits"
R_FORBIDDEN: Final = "the value contains a character that is not allowed here"


def _bad_char(ch: str, *, allow_breaks: bool) -> bool:
    # Tab and line breaks are ordinary text content (a multi-line TextBox);
    # other C0/C1 controls and lone surrogates cannot be meant and would be
    # mangled on their way into a .NET string.
    if allow_breaks and ch in "\t\r\n":
        return False
    return unicodedata.category(ch) in ("Cc", "Cs")


def _check_text(text: str, *, allow_breaks: bool) -> None:
    if any(_bad_char(ch, allow_breaks=allow_breaks) for ch in text):
        raise _Fail(R_CONTROL)


def _tokens(text: str, count: tuple[int, ...]) -> list[str]:
    if not text:
        raise _Fail(R_EMPTY)
    parts = _LIST_SEP.split(text)
    if any(p == "" for p in parts):
        raise _Fail(R_EMPTY_PART)
    if len(parts) not in count:
        raise _Fail(R_PART_COUNT)
    return parts


def _integer(token: str, low: int, high: int) -> int:
    if not _INT.fullmatch(token):
        raise _Fail(R_NOT_INTEGER)
    if len(token.lstrip("+-").lstrip("0")) > _MAX_INT_DIGITS:
        raise _Fail(R_RANGE)
    value = int(token)
    if not low <= value <= high:
        raise _Fail(R_RANGE)
    return value


def _number(token: str, *, non_negative: bool = False) -> float:
    if not _FLOAT.fullmatch(token):
        raise _Fail(R_NOT_NUMBER)
    value = float(token)
    if not math.isfinite(value):
        # Only overflow gets here ("1e999"): the regex admits no NaN/Infinity words.
        raise _Fail(R_RANGE)
    if non_negative and value < 0:
        raise _Fail(R_NEGATIVE)
    # -0.0 would print as "-0" in the app and surprise everyone.
    return value + 0.0


def _single(value: float) -> float:
    if abs(value) > _FLOAT32_MAX:
        raise _Fail(R_RANGE)
    # Round now, so parts hold exactly what System.Single will hold.
    rounded: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return rounded


def _fold_case(text: str) -> str:
    # ASCII only: str.lower() maps the Kelvin sign to "k" and would accept
    # "\u212Ahaki" as Khaki; non-ASCII text is left as is, so it only ever
    # matches exactly.
    return text.lower() if text.isascii() else text


def _fold(names: Iterable[str]) -> dict[str, str]:
    return {_fold_case(n): n for n in names}


# --------------------------------------------------------------------------- fixed data

#: WPF Colors and the web half of System.Drawing.KnownColor: the same 141
#: names and ARGB values (checked against wpf-api.tsv and Mono's System.Drawing).
_WEB_COLORS: Final[tuple[tuple[str, int], ...]] = (
    ("Transparent", 0x00FFFFFF), ("AliceBlue", 0xFFF0F8FF), ("AntiqueWhite", 0xFFFAEBD7),
    ("Aqua", 0xFF00FFFF), ("Aquamarine", 0xFF7FFFD4), ("Azure", 0xFFF0FFFF), ("Beige", 0xFFF5F5DC),
    ("Bisque", 0xFFFFE4C4), ("Black", 0xFF000000), ("BlanchedAlmond", 0xFFFFEBCD),
    ("Blue", 0xFF0000FF), ("BlueViolet", 0xFF8A2BE2), ("Brown", 0xFFA52A2A),
    ("BurlyWood", 0xFFDEB887), ("CadetBlue", 0xFF5F9EA0), ("Chartreuse", 0xFF7FFF00),
    ("Chocolate", 0xFFD2691E), ("Coral", 0xFFFF7F50), ("CornflowerBlue", 0xFF6495ED),
    ("Cornsilk", 0xFFFFF8DC), ("Crimson", 0xFFDC143C), ("Cyan", 0xFF00FFFF),
    ("DarkBlue", 0xFF00008B), ("DarkCyan", 0xFF008B8B), ("DarkGoldenrod", 0xFFB8860B),
    ("DarkGray", 0xFFA9A9A9), ("DarkGreen", 0xFF006400), ("DarkKhaki", 0xFFBDB76B),
    ("DarkMagenta", 0xFF8B008B), ("DarkOliveGreen", 0xFF556B2F), ("DarkOrange", 0xFFFF8C00),
    ("DarkOrchid", 0xFF9932CC), ("DarkRed", 0xFF8B0000), ("DarkSalmon", 0xFFE9967A),
    ("DarkSeaGreen", 0xFF8FBC8B), ("DarkSlateBlue", 0xFF483D8B), ("DarkSlateGray", 0xFF2F4F4F),
    ("DarkTurquoise", 0xFF00CED1), ("DarkViolet", 0xFF9400D3), ("DeepPink", 0xFFFF1493),
    ("DeepSkyBlue", 0xFF00BFFF), ("DimGray", 0xFF696969), ("DodgerBlue", 0xFF1E90FF),
    ("Firebrick", 0xFFB22222), ("FloralWhite", 0xFFFFFAF0), ("ForestGreen", 0xFF228B22),
    ("Fuchsia", 0xFFFF00FF), ("Gainsboro", 0xFFDCDCDC), ("GhostWhite", 0xFFF8F8FF),
    ("Gold", 0xFFFFD700), ("Goldenrod", 0xFFDAA520), ("Gray", 0xFF808080), ("Green", 0xFF008000),
    ("GreenYellow", 0xFFADFF2F), ("Honeydew", 0xFFF0FFF0), ("HotPink", 0xFFFF69B4),
    ("IndianRed", 0xFFCD5C5C), ("Indigo", 0xFF4B0082), ("Ivory", 0xFFFFFFF0),
    ("Khaki", 0xFFF0E68C), ("Lavender", 0xFFE6E6FA), ("LavenderBlush", 0xFFFFF0F5),
    ("LawnGreen", 0xFF7CFC00), ("LemonChiffon", 0xFFFFFACD), ("LightBlue", 0xFFADD8E6),
    ("LightCoral", 0xFFF08080), ("LightCyan", 0xFFE0FFFF), ("LightGoldenrodYellow", 0xFFFAFAD2),
    ("LightGray", 0xFFD3D3D3), ("LightGreen", 0xFF90EE90), ("LightPink", 0xFFFFB6C1),
    ("LightSalmon", 0xFFFFA07A), ("LightSeaGreen", 0xFF20B2AA), ("LightSkyBlue", 0xFF87CEFA),
    ("LightSlateGray", 0xFF778899), ("LightSteelBlue", 0xFFB0C4DE), ("LightYellow", 0xFFFFFFE0),
    ("Lime", 0xFF00FF00), ("LimeGreen", 0xFF32CD32), ("Linen", 0xFFFAF0E6),
    ("Magenta", 0xFFFF00FF), ("Maroon", 0xFF800000), ("MediumAquamarine", 0xFF66CDAA),
    ("MediumBlue", 0xFF0000CD), ("MediumOrchid", 0xFFBA55D3), ("MediumPurple", 0xFF9370DB),
    ("MediumSeaGreen", 0xFF3CB371), ("MediumSlateBlue", 0xFF7B68EE),
    ("MediumSpringGreen", 0xFF00FA9A), ("MediumTurquoise", 0xFF48D1CC),
    ("MediumVioletRed", 0xFFC71585), ("MidnightBlue", 0xFF191970), ("MintCream", 0xFFF5FFFA),
    ("MistyRose", 0xFFFFE4E1), ("Moccasin", 0xFFFFE4B5), ("NavajoWhite", 0xFFFFDEAD),
    ("Navy", 0xFF000080), ("OldLace", 0xFFFDF5E6), ("Olive", 0xFF808000),
    ("OliveDrab", 0xFF6B8E23), ("Orange", 0xFFFFA500), ("OrangeRed", 0xFFFF4500),
    ("Orchid", 0xFFDA70D6), ("PaleGoldenrod", 0xFFEEE8AA), ("PaleGreen", 0xFF98FB98),
    ("PaleTurquoise", 0xFFAFEEEE), ("PaleVioletRed", 0xFFDB7093), ("PapayaWhip", 0xFFFFEFD5),
    ("PeachPuff", 0xFFFFDAB9), ("Peru", 0xFFCD853F), ("Pink", 0xFFFFC0CB), ("Plum", 0xFFDDA0DD),
    ("PowderBlue", 0xFFB0E0E6), ("Purple", 0xFF800080), ("Red", 0xFFFF0000),
    ("RosyBrown", 0xFFBC8F8F), ("RoyalBlue", 0xFF4169E1), ("SaddleBrown", 0xFF8B4513),
    ("Salmon", 0xFFFA8072), ("SandyBrown", 0xFFF4A460), ("SeaGreen", 0xFF2E8B57),
    ("SeaShell", 0xFFFFF5EE), ("Sienna", 0xFFA0522D), ("Silver", 0xFFC0C0C0),
    ("SkyBlue", 0xFF87CEEB), ("SlateBlue", 0xFF6A5ACD), ("SlateGray", 0xFF708090),
    ("Snow", 0xFFFFFAFA), ("SpringGreen", 0xFF00FF7F), ("SteelBlue", 0xFF4682B4),
    ("Tan", 0xFFD2B48C), ("Teal", 0xFF008080), ("Thistle", 0xFFD8BFD8), ("Tomato", 0xFFFF6347),
    ("Turquoise", 0xFF40E0D0), ("Violet", 0xFFEE82EE), ("Wheat", 0xFFF5DEB3),
    ("White", 0xFFFFFFFF), ("WhiteSmoke", 0xFFF5F5F5), ("Yellow", 0xFFFFFF00),
    ("YellowGreen", 0xFF9ACD32),
)  # fmt: skip

#: The system half of KnownColor as in .NET Framework 4.x and Mono. Built by
#: name (FromKnownColor) so the color keeps following the desktop theme and
#: BackColor=Control is the real default again. RebeccaPurple (.NET 5+) is
#: left out: it does not exist on the other runtimes.
_SYSTEM_COLORS: Final[tuple[str, ...]] = (
    "ActiveBorder", "ActiveCaption", "ActiveCaptionText", "AppWorkspace", "Control", "ControlDark",
    "ControlDarkDark", "ControlLight", "ControlLightLight", "ControlText", "Desktop", "GrayText",
    "Highlight", "HighlightText", "HotTrack", "InactiveBorder", "InactiveCaption",
    "InactiveCaptionText", "Info", "InfoText", "Menu", "MenuText", "ScrollBar", "Window",
    "WindowFrame", "WindowText", "ButtonFace", "ButtonHighlight", "ButtonShadow",
    "GradientActiveCaption", "GradientInactiveCaption", "MenuBar", "MenuHighlight",
)  # fmt: skip

WPF_COLOR_NAMES: Final[tuple[str, ...]] = tuple(n for n, _ in _WEB_COLORS)
KNOWN_COLOR_NAMES: Final[tuple[str, ...]] = (*_SYSTEM_COLORS, *WPF_COLOR_NAMES)

_WEB_ARGB: Final[dict[str, int]] = {n.lower(): v for n, v in _WEB_COLORS}
_KNOWN_COLORS: Final[dict[str, str]] = _fold(KNOWN_COLOR_NAMES)

#: System.Windows.FontWeights, by OpenType weight (aliases included).
FONT_WEIGHTS: Final[dict[str, int]] = {
    "Thin": 100, "ExtraLight": 200, "UltraLight": 200, "Light": 300, "Normal": 400,
    "Regular": 400, "Medium": 500, "DemiBold": 600, "SemiBold": 600, "Bold": 700,
    "ExtraBold": 800, "UltraBold": 800, "Black": 900, "Heavy": 900, "ExtraBlack": 950,
    "UltraBlack": 950,
}  # fmt: skip
_FONT_WEIGHTS_FOLDED: Final[dict[str, int]] = {k.lower(): v for k, v in FONT_WEIGHTS.items()}

FONT_STYLES: Final[tuple[str, ...]] = ("Normal", "Italic", "Oblique")

#: Enums whose members are part of the table itself, so they convert the same
#: whatever the adapter reports (values from wpf-api.tsv and Mono's WinForms).
FIXED_ENUMS: Final[dict[Toolkit, dict[str, EnumSpec]]] = {
    "wpf": {
        "System.Windows.Visibility": EnumSpec(("Visible", "Hidden", "Collapsed"), (0, 1, 2)),
        "System.Windows.HorizontalAlignment": EnumSpec(("Left", "Center", "Right", "Stretch"), (0, 1, 2, 3)),
        "System.Windows.VerticalAlignment": EnumSpec(("Top", "Center", "Bottom", "Stretch"), (0, 1, 2, 3)),
    },
    "winforms": {
        "System.Windows.Forms.DockStyle": EnumSpec(
            ("None", "Top", "Bottom", "Left", "Right", "Fill"), (0, 1, 2, 3, 4, 5)
        ),
        "System.Windows.Forms.AnchorStyles": EnumSpec(
            ("None", "Top", "Bottom", "Left", "Right"), (0, 1, 2, 4, 8), flags=True
        ),
    },
}

_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "System.Byte": (0, 2**8 - 1),
    "System.SByte": (-(2**7), 2**7 - 1),
    "System.Int16": (-(2**15), 2**15 - 1),
    "System.UInt16": (0, 2**16 - 1),
    "System.Int32": (-(2**31), 2**31 - 1),
    "System.UInt32": (0, 2**32 - 1),
    "System.Int64": (-(2**63), 2**63 - 1),
    "System.UInt64": (0, 2**64 - 1),
}
_INT32: Final = _INT_RANGES["System.Int32"]

#: WPF double properties that XAML's LengthConverter lets be "Auto" (NaN):
#: FrameworkElement.Width/Height, Window.Left/Top and Canvas.Left/Top/Right/Bottom.
_AUTO_DOUBLES: Final = frozenset({"width", "height", "left", "top", "right", "bottom"})
#: WPF double properties whose default is PositiveInfinity, so it must be settable again.
_INFINITE_DOUBLES: Final = frozenset({"maxwidth", "maxheight"})

_DECIMAL_MAX_SCALE: Final = 28
_DECIMAL_MAX_UNSCALED: Final = 2**96 - 1


# --------------------------------------------------------------------------- parsers


def _parse_string(text: str) -> tuple[Part, ...]:
    _check_text(text, allow_breaks=True)
    return (text,)


def _parse_bool(text: str) -> tuple[Part, ...]:
    # Only the words .NET's Boolean.Parse takes: "1"/"yes"/"on" are guesses,
    # and a guess that flips IsEnabled the wrong way is worse than an error.
    lowered = _fold_case(text)
    if lowered == "true":
        return (True,)
    if lowered == "false":
        return (False,)
    raise _Fail("the value is neither true nor false")


def _int_parser(low: int, high: int) -> Callable[[str], tuple[Part, ...]]:
    def parse(text: str) -> tuple[Part, ...]:
        return (_integer(text, low, high),)

    return parse


def _double_parser(*, allow_auto: bool, allow_infinity: bool) -> Callable[[str], tuple[Part, ...]]:
    def parse(text: str) -> tuple[Part, ...]:
        word = _fold_case(text)
        if word in ("auto", "nan"):
            if allow_auto:
                return (math.nan,)
            raise _Fail(R_NOT_FINITE)
        if word in ("infinity", "+infinity", "-infinity"):
            if allow_infinity and word != "-infinity":
                return (math.inf,)
            raise _Fail(R_NOT_FINITE)
        return (_number(text),)

    return parse


def _parse_single(text: str) -> tuple[Part, ...]:
    if _fold_case(text) in ("nan", "infinity", "+infinity", "-infinity", "auto"):
        raise _Fail(R_NOT_FINITE)
    return (_single(_number(text)),)


def _decimal_too_big(digits: str) -> bool:
    # The unscaled integer must fit in 96 bits; the length test keeps int() cheap.
    significant = digits.lstrip("0")
    return len(significant) > 29 or int(significant or "0") > _DECIMAL_MAX_UNSCALED


def _parse_decimal(text: str) -> tuple[Part, ...]:
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match.group(2) or match.group(3)):
        raise _Fail(R_NOT_NUMBER)
    sign, whole, fraction = match.group(1), match.group(2).lstrip("0"), match.group(3) or ""
    # System.Decimal keeps trailing zeros as scale (12.50 stays 12.50), so keep
    # them too, dropping only those that do not fit into 28 places / 96 bits.
    while fraction.endswith("0") and (len(fraction) > _DECIMAL_MAX_SCALE or _decimal_too_big(whole + fraction)):
        fraction = fraction[:-1]
    if len(fraction) > _DECIMAL_MAX_SCALE:
        raise _Fail("the number has more than 28 decimal places")
    if _decimal_too_big(whole + fraction):
        raise _Fail(R_RANGE)
    negative = sign == "-" and any(c != "0" for c in whole + fraction)
    canonical = ("-" if negative else "") + (whole or "0") + ("." + fraction if fraction else "")
    return (canonical,)


def _parse_char(text: str) -> tuple[Part, ...]:
    # One UTF-16 code unit: a character outside the BMP is two Chars in .NET.
    if len(text) != 1 or ord(text) > 0xFFFF:
        raise _Fail(R_NOT_ONE_CHAR)
    _check_text(text, allow_breaks=True)
    return (text,)


def _enum_parser(spec: EnumSpec) -> Callable[[str], tuple[Part, ...]]:
    exact = dict(zip(spec.names, spec.values))
    folded: dict[str, list[str]] = {}
    for name in spec.names:
        folded.setdefault(_fold_case(name), []).append(name)
    mask = 0
    for value in spec.values:
        mask |= value
    defined = frozenset(spec.values)

    def by_name(token: str) -> int:
        if token in exact:
            return exact[token]
        candidates = folded.get(_fold_case(token), [])
        if len(candidates) > 1:
            raise _Fail(R_AMBIGUOUS_NAME)
        if not candidates:
            raise _Fail(R_UNKNOWN_NAME)
        return exact[candidates[0]]

    def parse(text: str) -> tuple[Part, ...]:
        if not text:
            raise _Fail(R_EMPTY)
        if _INT.fullmatch(text):
            # An integer must still mean members: Enum.ToObject would accept
            # anything, and Visibility=7 is a crash waiting in the app's code.
            value = _integer(text, -(2**63), 2**64 - 1)
            if spec.flags:
                if value & ~mask:
                    raise _Fail("the number sets bits that no member of this enum has")
            elif value not in defined:
                raise _Fail("the number is not the value of any member of this enum")
            return (value,)
        if "," in text:
            if not spec.flags:
                raise _Fail("this enum takes a single name, not a list")
            tokens = [t.strip(_OUTER_WS) for t in text.split(",")]
            if any(not t for t in tokens):
                raise _Fail(R_EMPTY_PART)
            combined = 0
            for token in tokens:
                combined |= by_name(token)
            return (combined,)
        return (by_name(text),)

    return parse


def _parse_thickness(text: str) -> tuple[Part, ...]:
    values = _floats(text, (1, 2, 4), None)
    if len(values) == 1:
        return (values[0],) * 4
    if len(values) == 2:
        # WPF's two-value form: horizontal (left and right), then vertical.
        return (values[0], values[1], values[0], values[1])
    return tuple(values)


def _parse_corner_radius(text: str) -> tuple[Part, ...]:
    # Border rejects negative radii, so reject them here with a format message
    # instead of an ArgumentException from the app's UI thread.
    values = _floats(text, (1, 4), 0)
    return tuple(values * 4) if len(values) == 1 else tuple(values)


def _parse_grid_length(text: str) -> tuple[Part, ...]:
    lowered = _fold_case(text)
    if lowered == "auto":
        return (1.0, "Auto")  # GridLength.Auto's own Value
    if text.endswith("*"):
        number = text[:-1]
        return (_number(number, non_negative=True) if number else 1.0, "Star")
    return (_number(text, non_negative=True), "Pixel")


def _floats(text: str, counts: tuple[int, ...], non_negative_from: int | None) -> list[float]:
    # non_negative_from: index of the first part that must not be negative
    # (Rect's width and height come after x and y, which may be).
    return [
        _number(t, non_negative=non_negative_from is not None and i >= non_negative_from)
        for i, t in enumerate(_tokens(text, counts))
    ]


def _ints(text: str, counts: tuple[int, ...], non_negative_from: int | None) -> list[int]:
    values: list[int] = []
    for i, token in enumerate(_tokens(text, counts)):
        value = _integer(token, *_INT32)
        if value < 0 and non_negative_from is not None and i >= non_negative_from:
            raise _Fail(R_NEGATIVE)
        values.append(value)
    return values


def _float_tuple(count: int, non_negative_from: int | None = None) -> Callable[[str], tuple[Part, ...]]:
    def parse(text: str) -> tuple[Part, ...]:
        return tuple(_floats(text, (count,), non_negative_from))

    return parse


def _single_tuple(count: int, non_negative_from: int | None = None) -> Callable[[str], tuple[Part, ...]]:
    def parse(text: str) -> tuple[Part, ...]:
        return tuple(_single(v) for v in _floats(text, (count,), non_negative_from))

    return parse


def _int_tuple(count: int, non_negative_from: int | None = None) -> Callable[[str], tuple[Part, ...]]:
    def parse(text: str) -> tuple[Part, ...]:
        return tuple(_ints(text, (count,), non_negative_from))

    return parse


def _parse_padding(text: str) -> tuple[Part, ...]:
    values = _ints(text, (1, 4), None)
    return tuple(values * 4 if len(values) == 1 else values)


def _hex_argb(text: str, digit_counts: tuple[int, ...]) -> tuple[Part, ...] | None:
    match = _HEX.fullmatch(text)
    if match is None:
        if text.startswith("#"):
            raise _Fail(R_HEX)
        return None
    digits = match.group(1)
    if len(digits) not in digit_counts:
        raise _Fail(R_HEX)
    if len(digits) in (3, 4):
        # WPF's short forms repeat each digit: #F80 is #FF8800.
        digits = "".join(d * 2 for d in digits)
    if len(digits) == 6:
        digits = "FF" + digits
    return tuple(int(digits[i : i + 2], 16) for i in range(0, 8, 2))


def _argb_of(value: int) -> tuple[Part, ...]:
    return ((value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)


def _parse_wpf_color(text: str) -> tuple[Part, ...]:
    if not text:
        raise _Fail(R_EMPTY)
    parsed = _hex_argb(text, (3, 4, 6, 8))
    if parsed is not None:
        return parsed
    named = _WEB_ARGB.get(_fold_case(text))
    if named is None:
        raise _Fail(R_UNKNOWN_NAME)
    return _argb_of(named)


def _parse_drawing_color(text: str) -> _Parsed:
    if not text:
        raise _Fail(R_EMPTY)
    parsed = _hex_argb(text, (6, 8))
    if parsed is not None:
        return "color", parsed
    if text[0].isascii() and (text[0].isdigit() or text[0] in "+-"):
        channels = _ints(text, (3, 4), None)
        if any(not 0 <= c <= 255 for c in channels):
            raise _Fail("a color channel is outside 0..255")
        return "color", tuple([255, *channels] if len(channels) == 3 else channels)
    named = _KNOWN_COLORS.get(_fold_case(text))
    if named is None:
        raise _Fail(R_UNKNOWN_NAME)
    return "knowncolor", (named,)


def _parse_font_weight(text: str) -> tuple[Part, ...]:
    if _INT.fullmatch(text):
        # FontWeight.FromOpenTypeWeight throws outside 1..999.
        return (_integer(text, 1, 999),)
    weight = _FONT_WEIGHTS_FOLDED.get(_fold_case(text))
    if weight is None:
        raise _Fail(R_UNKNOWN_NAME)
    return (weight,)


def _parse_font_style(text: str) -> tuple[Part, ...]:
    for style in FONT_STYLES:
        if _fold_case(style) == _fold_case(text):
            return (style,)
    raise _Fail(R_UNKNOWN_NAME)


def _parse_font_family(text: str) -> tuple[Part, ...]:
    _check_text(text, allow_breaks=False)
    if not text:
        raise _Fail(R_EMPTY)
    if "#" in text:
        # "file:///x.ttf#Name" makes WPF load a font file from a path or URI;
        # only installed family names (and fallback lists of them) are taken.
        raise _Fail(R_FORBIDDEN)
    names = [n.strip(" ") for n in text.split(",")]
    if any(not n for n in names):
        raise _Fail(R_EMPTY_PART)
    return (", ".join(names),)


# --------------------------------------------------------------------------- the table

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
        nonzero = [n for n, v in zip(spec.names, spec.values) if v != 0][:2]
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


# --------------------------------------------------------------------------- public API


def supported_types(toolkit: Toolkit) -> list[str]:
    """Every type name the table converts for ``toolkit`` (enums beyond these need an EnumSpec)."""
    _check_toolkit(toolkit)
    names = {*_COMMON, *_TOOLKIT_TABLES[toolkit], *FIXED_ENUMS[toolkit]}
    return sorted(names)


def expected_format(
    type_name: str,
    *,
    toolkit: Toolkit,
    property_name: str | None = None,
    enum: EnumSpec | None = None,
) -> tuple[str, tuple[str, ...]] | None:
    """The accepted format and examples for a type, or None if the table lacks it."""
    _check_toolkit(toolkit)
    inner, _ = _unwrap_nullable(type_name)
    rule = _rule_for(inner, toolkit, property_name, enum)
    return None if rule is None else (rule.expected, rule.examples)


def conversion_error(
    type_name: str,
    reason: str,
    *,
    toolkit: Toolkit,
    property_name: str | None = None,
    enum: EnumSpec | None = None,
) -> TypeConversionFailedError:
    """The TYPE_CONVERSION_FAILED error for ``type_name``, with its expected format.

    For the adapter too: when the app's own validation rejects a value that
    parsed here (WPF's MinWidth refusing NaN), it reports it the same way.
    ``reason`` must be a fixed phrase, never text derived from the value.
    """
    described = expected_format(type_name, toolkit=toolkit, property_name=property_name, enum=enum)
    expected, examples = described if described is not None else ("a value of this type", ())
    shown = " or ".join(f'"{e}"' for e in examples[:3])
    return TypeConversionFailedError(
        f"The value cannot be converted to {type_name}: {reason}. Expected {expected}.",
        suggestion=(
            f"Call wpf_set_property again with the value written as {expected}" + (f", e.g. {shown}." if shown else ".")
        ),
        detail={
            "typeName": type_name,
            "expectedFormat": expected,
            "examples": list(examples),
            "reason": reason,
        },
    )


def parse_value(
    text: str,
    type_name: str,
    *,
    toolkit: Toolkit,
    property_name: str | None = None,
    enum: EnumSpec | None = None,
) -> Converted:
    """Convert an agent's ``text`` for a property declared as ``type_name``.

    ``type_name`` is the declared type's .NET full name (PropertyDescriptor.type_name);
    ``property_name`` only matters for WPF doubles (Width may be Auto, MaxWidth
    Infinity); ``enum`` describes the members when the declared type is an enum
    the table does not list itself.

    Raises InvalidArgumentError (not a string, or longer than MAX_VALUE_LENGTH),
    UnsupportedPropertyTypeError (type not in the table) or
    TypeConversionFailedError (value not in the type's format). No message or
    detail of any of them contains the value.
    """
    _check_toolkit(toolkit)
    if not isinstance(text, str):
        raise InvalidArgumentError(
            "The value must be a string.",
            suggestion='Pass the value as a JSON string, e.g. "12" or "true".',
            detail={"typeName": type_name},
        )
    inner, nullable = _unwrap_nullable(type_name)
    rule = _rule_for(inner, toolkit, property_name, enum)
    if rule is None:
        raise _unsupported(type_name, toolkit)
    if len(text) > MAX_VALUE_LENGTH:
        raise InvalidArgumentError(
            f"The value is longer than {MAX_VALUE_LENGTH} characters.",
            suggestion=f"Pass a value of at most {MAX_VALUE_LENGTH} characters.",
            detail={"typeName": type_name, "maxLength": MAX_VALUE_LENGTH},
        )
    body = text.strip(_OUTER_WS) if rule.strip else text
    if nullable and _fold_case(body) == "null":
        return Converted("null", type_name, ())
    reason: str
    try:
        if rule.strip:
            # Control characters are never part of a number, name or list;
            # catching them first gives one clear reason for all of them.
            _check_text(body, allow_breaks=True)
            if not body:
                raise _Fail(R_EMPTY)
        kind, parts = rule.parse(body)
    except _Fail as fail:
        reason = fail.reason
    else:
        return Converted(kind, inner, parts)
    # Raised here, outside the except block, so the error has no __context__.
    raise conversion_error(type_name, reason, toolkit=toolkit, property_name=property_name, enum=enum)


# --------------------------------------------------------------------------- helpers


def _check_toolkit(toolkit: str) -> None:
    if toolkit not in _TOOLKIT_TABLES:
        raise ValueError(f"unknown toolkit {toolkit!r}; expected 'wpf' or 'winforms'")


def _unwrap_nullable(type_name: str) -> tuple[str, bool]:
    # Type.FullName of int? is System.Nullable`1[[System.Int32, mscorlib, ...]].
    match = _NULLABLE.fullmatch(type_name)
    return (match.group(1), True) if match else (type_name, False)


def _unsupported(type_name: str, toolkit: Toolkit) -> UnsupportedPropertyTypeError:
    supported = supported_types(toolkit)
    return UnsupportedPropertyTypeError(
        f"Properties of type {type_name} cannot be set: the converter table has no entry for it.",
        suggestion=(
            "Set a property of a supported type instead (see detail.supportedTypes; any enum "
            "and Nullable<T> of a supported T also work), or change the value in the app's code."
        ),
        detail={
            "typeName": type_name,
            "supportedTypes": supported,
            "enumsSupported": True,
        },
    )


def enum_spec(members: Mapping[str, int], *, flags: bool = False) -> EnumSpec:
    """Build an EnumSpec from a name-to-value mapping (the adapter's Enum.GetNames/GetValues)."""
    return EnumSpec(tuple(members), tuple(members.values()), flags)


__all__ = [
    "FIXED_ENUMS",
    "FONT_STYLES",
    "FONT_WEIGHTS",
    "KNOWN_COLOR_NAMES",
    "MAX_VALUE_LENGTH",
    "WPF_COLOR_NAMES",
    "Converted",
    "EnumSpec",
    "Kind",
    "Part",
    "TypeConversionFailedError",
    "UnsupportedPropertyTypeError",
    "conversion_error",
    "enum_spec",
    "expected_format",
    "parse_value",
    "supported_types",
]
