"""The lexical pieces every parser is made of: strict ASCII number syntax, lists, case folding.

Also the internal failure (``_Fail``) and its fixed, value-free reasons: a
parser raises ``_Fail`` with one of these phrases and ``parse_value`` turns
it into TYPE_CONVERSION_FAILED, so no message is ever built from the value.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from collections.abc import Iterable
from typing import Final

from wpfprobe.core.convert.values import Kind, Part

# --------------------------------------------------------------------------- internal failure


class _Fail(Exception):
    """A parse failure with a fixed, value-free reason; never leaves this package."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_Parsed = tuple[Kind, tuple[Part, ...]]


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
