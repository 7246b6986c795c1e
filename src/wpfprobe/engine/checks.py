"""Argument checks shared by the engine's queries: bad input becomes INVALID_ARGUMENT with a suggestion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wpfprobe.core.errors import InvalidArgumentError

MAX_DEPTH = 10
MAX_RESULTS = 100
MAX_INCLUDED_PROPERTIES = 10
TREE_TYPES = ("visual", "logical")


def check_int(label: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(
            f"{label} must be an integer from {low} to {high}, got {value!r}.",
            suggestion=f"Use {label} between {low} and {high}.",
        )


def check_tree_type(tree_type: Any) -> None:
    if tree_type not in TREE_TYPES:
        raise InvalidArgumentError(
            f"treeType must be 'visual' or 'logical', got {tree_type!r}.",
            suggestion="Use treeType 'visual' (default) or 'logical'.",
        )


def check_property_names(names: Sequence[str] | None) -> tuple[str, ...]:
    if not names:
        return ()
    if isinstance(names, str) or len(names) > MAX_INCLUDED_PROPERTIES:
        raise InvalidArgumentError(
            f"includeProperties takes a list of at most {MAX_INCLUDED_PROPERTIES} property names.",
            suggestion="Ask for fewer properties, or use wpf_get_properties on one element.",
        )
    for n in names:
        if not isinstance(n, str) or not n or len(n) > 200:
            raise InvalidArgumentError(f"{n!r} is not a property name.")
    return tuple(names)


def check_name(label: str, value: Any) -> None:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise InvalidArgumentError(
            f"{label} must be a non-empty string of at most 200 characters.",
            suggestion=f"Pass {label} as a name, e.g. one listed by wpf_get_properties.",
        )
