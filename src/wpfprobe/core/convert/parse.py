"""The table's public functions: parse a value, describe a type's format, build its errors.

Errors never contain the value: the property may be one a user would not want
echoed (the caller refuses redacted properties first, but an error message is
the easiest place for a value to leak into logs anyway). Messages are built
from fixed phrases, the type name and the expected format only, and are
raised outside any ``except`` block so no chained exception carries the text.
"""

from __future__ import annotations

from wpfprobe.core.convert.data import FIXED_ENUMS
from wpfprobe.core.convert.lexical import _NULLABLE, _OUTER_WS, R_EMPTY, _check_text, _Fail, _fold_case
from wpfprobe.core.convert.table import _COMMON, _TOOLKIT_TABLES, _rule_for
from wpfprobe.core.convert.values import (
    MAX_VALUE_LENGTH,
    Converted,
    EnumSpec,
    TypeConversionFailedError,
    UnsupportedPropertyTypeError,
)
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.protocol import Toolkit

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
