"""Words for a person: a recorded step as a repro step, and a root-cause hypothesis from the evidence.

"Click the button 'Refresh'" is what a developer follows, so each step is
written with the element's kind (by its type) and what the user reads on it
(its text, else its name), with the locator for the exact element. The
hypothesis is what the evidence points at, not a verdict: the exception and
the app's own frame it came from, the element's state before and after the
step, what changed in the tree around it, the binding errors, the app's last
log lines.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.trace import TraceStep
from wpfprobe.testkit.oracles import Failure

_KINDS = {
    "button": "button", "toolstripbutton": "toolbar button", "toolstripmenuitem": "menu item", "menuitem": "menu item",
    "checkbox": "check box", "radiobutton": "radio button", "togglebutton": "toggle button", "textbox": "text box",
    "richtextbox": "text box", "maskedtextbox": "text box", "passwordbox": "password box", "combobox": "combo box",
    "listbox": "list", "checkedlistbox": "list", "listview": "list", "treeview": "tree", "tabcontrol": "tab control",
    "tabpage": "tab", "tabitem": "tab", "label": "label", "linklabel": "link", "hyperlink": "link",
    "numericupdown": "number box", "datagridview": "grid", "datagrid": "grid", "form": "window", "window": "window",
    "slider": "slider", "trackbar": "slider",
}  # fmt: skip


_INPUTS = frozenset(
    {"text box", "password box", "combo box", "list", "tree", "grid", "number box", "slider", "tab control"}
)


def element_phrase(step: TraceStep) -> str:
    """``the button 'Save'``: the element's kind and what a user reads on it."""
    target = step.target
    if target is None:
        return "the focused element"
    kind = _KINDS.get((target.type or "").lower(), (target.type or "element").lower())
    # What a user reads names a button or a menu item; an input's text is its content, not its name.
    by_text = kind not in _INPUTS and bool(target.text) and target.text != REDACTED
    label = target.text if by_text else (target.name or (target.text if target.text != REDACTED else None))
    if not label and target.locator:
        match = re.search(r"#([\w.-]+)", target.locator)
        label = match.group(1) if match else None
    named = f"the {kind} '{label}'" if label else f"the {kind}"
    return f"{named} ({target.locator})" if target.locator else named


def describe_step(step: TraceStep) -> str:
    args = step.args
    what = element_phrase(step)
    action = step.action
    if action == "click":
        clicks = int(args.get("clickCount") or 1)
        verb = {1: "Click", 2: "Double-click", 3: "Triple-click"}.get(clicks, "Click")
        button = args.get("button")
        return f"{'Right-click' if button == 'right' else verb} {what}"
    if action == "type_text":
        text = args.get("text")
        shown = "a secret value (not recorded)" if text == REDACTED else _show(text)
        verb = "Type" if args.get("replace", True) is False else "Replace the text of"
        if verb == "Type":
            return f"Type {shown} at the end of {what}"
        return f"Replace the text of {what} with {shown}"
    if action == "send_keys":
        keys = args.get("keys")
        shown = "keys (not recorded)" if keys == REDACTED else str(keys)
        return f"Press {shown}" + (f" in {what}" if step.target else "")
    if action == "select":
        if args.get("item") is not None:
            return f"Select {_show(args['item'])} in {what}"
        return f"Select item {int(args.get('index') or 0) + 1} in {what}"
    if action == "toggle":
        state = args.get("state")
        verb = "Toggle" if state is None else ("Check" if state else "Uncheck")
        return f"{verb} {what}"
    if action == "focus":
        return f"Put the keyboard focus on {what}"
    if action == "wait_for":
        condition = args.get("condition", "exists")
        extra = ""
        if condition == "propertyEquals":
            extra = f" ({args.get('property')} = {_show(args.get('value'))})"
        elif condition == "textMatches":
            extra = f" (text matching /{args.get('value')}/)"
        return f"Wait until {what} is {condition}{extra}"
    if action == "set_property":
        value = "a secret value" if args.get("value") == REDACTED else _show(args.get("value"))
        return f"Set {args.get('propertyName')} of {what} to {value}"
    if action == "check":
        return f"Check: {step.note}" if step.note else "Check the expectations"
    return f"{action} {what}"


def _show(value: Any) -> str:
    text = str(value)
    return '"' + (text if len(text) <= 80 else text[:79] + "…") + '"'


def numbered(steps: Sequence[TraceStep]) -> list[str]:
    return [describe_step(s) for s in steps]


def app_frame(stack: str | None) -> str | None:
    """The innermost frame of the app's own code in a Python traceback (``file.py:12 in on_click``)."""
    if not stack:
        return None
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', stack)
    own = [f for f in frames if "site-packages" not in f[0] and "/wpfprobe/" not in f[0].replace("\\", "/")]
    chosen = (own or frames or [None])[-1]
    if chosen is None:
        net = re.findall(r"at ([\w.`<>]+) \(", stack)
        return net[0] if net else None
    path, line, func = chosen
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line} in {func}"


def tree_diff(before: str, after: str, *, around: str | None = None, limit: int = 30) -> list[str]:
    """Lines of the element tree that changed with the step (node ids left out: they are not content)."""
    strip = re.compile(r"^(\s*)\S+ ")

    def clean(text: str) -> list[str]:
        return [strip.sub(r"\1", line) for line in text.splitlines() if line.strip() and not line.startswith("(")]

    diff = [
        line
        for line in difflib.unified_diff(clean(before), clean(after), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    if around:
        name = around.lstrip("#").split("#")[-1]
        near = [line for line in diff if name and name in line]
        diff = near + [line for line in diff if line not in near]
    return diff[:limit]


def _state(state: dict[str, Any] | None) -> str:
    if not state:
        return "(gone)"
    parts = []
    for key in ("text", "visible", "enabled", "focused", "checked", "selectedItem", "selectedIndex", "expanded"):
        if key in state and state[key] is not None:
            value = state[key]
            parts.append(f"{key}={value!r}" if isinstance(value, str) else f"{key}={value}")
    return ", ".join(parts)


def hypothesis(
    failure: Failure,
    last: TraceStep | None,
    *,
    tree_before: str = "",
    tree_after: str = "",
    log_tail: str = "",
) -> list[str]:
    """Bullet points: what the evidence suggests about the cause."""
    out: list[str] = []
    step_text = describe_step(last) if last is not None else "the last step"
    if failure.kind in ("exception", "crash") and failure.exception_type:
        frame = app_frame(failure.stack)
        where = f" in {frame}" if frame else ""
        verb = "was raised" if failure.kind == "exception" else "ended the process"
        out.append(
            f"{failure.exception_type} ({_clip(failure.exception_message or '')}) {verb}{where}, "
            f"in code that ran for: {step_text}."
        )
        if failure.kind == "exception":
            out.append("The handler did not catch it; the app's state after it may be half-updated.")
    elif failure.kind == "crash":
        out.append(f"The app's process ended right after: {step_text} ({failure.message})")
        if log_tail.strip():
            out.append("Its log ends with: " + _clip(" | ".join(log_tail.strip().splitlines()[-3:]), 300))
    elif failure.kind == "error-dialog":
        out.append(
            f"The app reported an error itself (a dialog) after: {step_text}. Its handler caught a failure and showed it."
        )
    elif failure.kind == "hang":
        out.append(
            f"The UI thread stopped answering after: {step_text}: a handler is blocking it (a long call, a wait, a deadlock)."
        )
    elif failure.kind == "binding-error":
        out.append(f"A data binding broke after: {step_text}: {failure.actual}.")
    elif failure.kind in ("expectation", "invariant"):
        out.append(f"After: {step_text}, expected {failure.expected}, but {failure.actual}.")
    elif failure.kind == "missing-element":
        out.append(
            f"The element {failure.element} was not there when the step needed it: it was renamed, moved, or not shown yet."
        )
    else:
        out.append(failure.message)
    if last is not None and (last.before or last.after):
        changed = ", ".join(last.changed or []) or "nothing"
        out.append(
            f"The element before the step: {_state(last.before)}; after: {_state(last.after)} (changed: {changed})."
        )
    if last is not None and last.opened_windows:
        out.append("Windows it opened: " + ", ".join(repr(t) for t in last.opened_windows) + ".")
    diff = tree_diff(tree_before, tree_after, around=failure.element) if tree_before and tree_after else []
    if diff:
        out.append("The tree around the failure changed: " + "; ".join(d.strip() for d in diff[:8]))
    return out


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
