"""One parser per value format: text in, the ``parts`` of a ``Converted`` out, or ``_Fail``.

Each parser gets the text already stripped of outer whitespace (except
strings and chars) and checked for control characters; it raises ``_Fail``
with a fixed reason and never echoes the text.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from wpfprobe.core.convert.data import (
    _DECIMAL_MAX_SCALE,
    _DECIMAL_MAX_UNSCALED,
    _FONT_WEIGHTS_FOLDED,
    _INT32,
    _KNOWN_COLORS,
    _WEB_ARGB,
    FONT_STYLES,
)
from wpfprobe.core.convert.lexical import (
    _DECIMAL,
    _HEX,
    _INT,
    _OUTER_WS,
    R_AMBIGUOUS_NAME,
    R_EMPTY,
    R_EMPTY_PART,
    R_FORBIDDEN,
    R_HEX,
    R_NEGATIVE,
    R_NOT_FINITE,
    R_NOT_NUMBER,
    R_NOT_ONE_CHAR,
    R_RANGE,
    R_UNKNOWN_NAME,
    _check_text,
    _Fail,
    _fold_case,
    _integer,
    _number,
    _Parsed,
    _single,
    _tokens,
)
from wpfprobe.core.convert.values import EnumSpec, Part


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
    exact = dict(zip(spec.names, spec.values, strict=True))
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
