"""An action written down to be done again: a scenario step (one line of YAML) and a Python API line.

Both name the element by the locator worth keeping (``generating.py``) and
carry only the arguments that differ from the tool's defaults, so they read
as a person would write them: ``{action: type_text, locator: "#nameBox",
text: "Ada"}`` and ``probe.locator("#nameBox").type_text("Ada")``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from wpfprobe.core.models import Redo

#: Per action: the MCP arguments passed positionally in Python (in order), then keyword renames.
_POSITIONAL: dict[str, tuple[str, ...]] = {
    "type_text": ("text",),
    "send_keys": ("keys",),
    "select": ("item",),
    "toggle": ("state",),
    "wait_for": ("condition",),
    "set_property": ("propertyName", "value"),
}
_KEYWORDS = {"clickCount": "click_count", "timeoutMs": "timeout"}


#: A word YAML reads as itself in a flow mapping (not a number, a boolean or null of YAML 1.1).
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_YAML_SPECIAL = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def _is_plain(text: str) -> bool:
    return text.isprintable() and "\\" not in text


def yaml_value(value: Any) -> str:
    """A value as YAML flow scalar: a plain word as it is, other strings quoted, booleans lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if _WORD.match(text) and text.lower() not in _YAML_SPECIAL:
        return text
    if '"' in text and _is_plain(text):
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def python_value(value: Any) -> str:
    if isinstance(value, str):
        if '"' in value and "'" not in value and _is_plain(value):
            return "'" + value + "'"
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def step_line(action: str, locator: str | None, args: Mapping[str, Any]) -> str:
    """``{action: click, locator: "Button#saveButton"}``: the step a scenario file lists."""
    parts = [f"action: {action}"]
    if locator is not None:
        parts.append(f"locator: {yaml_value(locator)}")
    parts.extend(f"{key}: {yaml_value(value)}" for key, value in args.items())
    return "{" + ", ".join(parts) + "}"


def python_line(action: str, locator: str | None, args: Mapping[str, Any], *, receiver: str = "probe") -> str:
    """``probe.locator("Button#saveButton").click()``: the same through the Python API."""
    positional = _POSITIONAL.get(action, ())
    parts: list[str] = []
    for key in positional:
        if key in args:
            parts.append(python_value(args[key]))
        else:
            break  # a later positional argument cannot follow a missing one
    used = set(positional[: len(parts)])
    for key, value in args.items():
        if key in used:
            continue
        if key == "timeoutMs" and isinstance(value, (int, float)):
            parts.append(f"timeout={value / 1000:g}")
            continue
        parts.append(f"{_KEYWORDS.get(key, key)}={python_value(value)}")
    target = f"{receiver}.locator({python_value(locator)})" if locator is not None else receiver
    return f"{target}.{action}({', '.join(parts)})"


def redo(action: str, locator: str | None, args: Mapping[str, Any]) -> Redo:
    return Redo(locator=locator, step=step_line(action, locator, args), python=python_line(action, locator, args))


__all__ = ["python_line", "python_value", "redo", "step_line", "yaml_value"]
