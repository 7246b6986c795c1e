"""The fixed data the table is built from: color names, font weights and styles, enums, ranges.

Spelled out here rather than read from the running framework, so that a
value converts the same on every runtime and machine (see the package
docstring); where the numbers come from is noted at each table.
"""

from __future__ import annotations

from typing import Final

from wpfprobe.core.convert.lexical import _fold
from wpfprobe.core.convert.values import EnumSpec
from wpfprobe.core.protocol import Toolkit

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
