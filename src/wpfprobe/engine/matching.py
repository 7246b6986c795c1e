"""How a locator's attribute tests judge plain values, and find's arguments as a locator compound."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.models import PropertyCondition
from wpfprobe.core.patterns import compile_pattern
from wpfprobe.core.protocol import PlainValue
from wpfprobe.engine.locators import AttrTest, Compound


class Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()

STATE_ALIASES = {
    "isenabled": "enabled",
    "enabled": "enabled",
    "isvisible": "visible",
    "visible": "visible",
    "focused": "focused",
    "isfocused": "focused",
    "iskeyboardfocused": "focused",
    "iskeyboardfocuswithin": "focused",
}


def format_value(value: PlainValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def value_matches(actual: PlainValue | Missing, test: AttrTest) -> bool:
    if isinstance(actual, Missing):
        return False
    if test.op == "exists":
        return actual is not None
    if actual is None and test.op != "equals":
        return False  # no text is not the text "null"
    expected = test.value or ""
    text = format_value(actual)
    if test.op == "equals":
        if isinstance(actual, bool) or actual is None:
            return text == expected.lower()
        if isinstance(actual, (int, float)):
            try:
                return float(expected) == float(actual)
            except ValueError:
                return text == expected
        return text == expected
    if test.op == "contains":
        return expected.lower() in text.lower() if test.ignore_case else expected in text
    assert test.pattern is not None
    return test.pattern.search(text)


def tests_text(compound: Compound) -> bool:
    return any(a.name.lower() == "text" for a in compound.attrs)


def pick_nth(found: list[Any], compound: Compound) -> list[Any]:
    if compound.nth is None:
        return found
    try:
        return [found[compound.nth]]
    except IndexError:
        return []


def criteria_compound(
    type_name: str | None,
    name: str | None,
    automation_id: str | None,
    text: str | None,
    conditions: Sequence[PropertyCondition | dict[str, Any]],
) -> Compound | None:
    for label, value in (("typeName", type_name), ("name", name), ("automationId", automation_id), ("text", text)):
        if value is not None and (not isinstance(value, str) or not value or len(value) > 500):
            raise InvalidArgumentError(
                f"{label} must be a non-empty string of at most 500 characters.",
                suggestion=f"Leave {label} out to match any, or give a value; see wpf_find_elements' input schema.",
            )
    attrs: list[AttrTest] = []
    if name is not None:
        attrs.append(AttrTest("name", "equals", name))
    if automation_id is not None:
        attrs.append(AttrTest("automationId", "equals", automation_id))
    if text is not None:
        attrs.append(AttrTest("text", "contains", text, ignore_case=True))
    if len(conditions) > 20:
        raise InvalidArgumentError(
            "At most 20 property conditions are allowed.",
            suggestion="Keep the most selective conditions, or narrow the search with rootNodeId.",
        )
    for raw in conditions:
        try:
            cond = raw if isinstance(raw, PropertyCondition) else PropertyCondition.model_validate(raw)
        except Exception as exc:  # noqa: BLE001 - any malformed condition is the caller's bad input
            raise InvalidArgumentError(
                f"Bad property condition {raw!r}: {exc}",
                suggestion='Conditions look like {"property": "IsEnabled", "operator": "Equals", "value": "false"}.',
            ) from None
        op = {"Equals": "equals", "Contains": "contains", "Regex": "regex"}[cond.operator]
        pattern = None
        if op == "regex":
            pattern = compile_pattern(cond.value)
        attrs.append(AttrTest(cond.property, op, cond.value, pattern, ignore_case=op == "contains"))  # type: ignore[arg-type]
    if type_name is None and not attrs:
        return None
    return Compound(type_name=type_name, attrs=tuple(attrs))
