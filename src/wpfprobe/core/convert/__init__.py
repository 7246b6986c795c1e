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

The modules, lowest first: ``values`` (what a converted value is; the adapter
protocol imports it, so it imports nothing from the protocol), ``lexical``
(number and list syntax, the fixed failure reasons), ``data`` (color, font and
enum tables), ``parsers`` (one per format), ``table`` (type name to rule) and
``parse`` (the functions below). Import from this package. The adapter protocol
names ``values`` directly, for type checking only: importing any module of this
package runs this file, which needs the protocol's ``Toolkit``.
"""

from __future__ import annotations

from wpfprobe.core.convert.data import FIXED_ENUMS, FONT_STYLES, FONT_WEIGHTS, KNOWN_COLOR_NAMES, WPF_COLOR_NAMES
from wpfprobe.core.convert.parse import conversion_error, expected_format, parse_value, supported_types
from wpfprobe.core.convert.values import (
    MAX_VALUE_LENGTH,
    Converted,
    EnumSpec,
    Kind,
    Part,
    TypeConversionFailedError,
    UnsupportedPropertyTypeError,
    enum_spec,
)

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
