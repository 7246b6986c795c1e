"""What was done becomes a test: a recording turned into a scenario file or a pytest module.

``wpfprobe codegen RECORDING`` reads an agent's recorded session (``wpfprobe
mcp --record DIR``), a run's ``steps.jsonl``, or a ticket's
``repro.actions.json``, and writes what a person would have written:

- each step that reached the app, with the locator worth keeping (the one the
  probe generated when the step ran: name, automation id, text in a named
  container, path last), and only the arguments that differ from the tool's
  defaults; steps the probe refused are left out (the app never saw them);
- the recording's waits (``wait_for`` steps) where it waited;
- after each step, assertions inferred from what it changed, as the recording
  saw it: a label's text, a check box's state, an element enabled or shown, a
  window that opened. They are written to be read and edited: a value that
  changes from run to run (a time, a count) is the person's to loosen.

The scenario (YAML) runs with ``wpfprobe scenario run``; the pytest module
uses the plugin's ``wpfprobe_app`` fixture. Both start the app the recording
names (``session.json``'s target, or ``--profile``).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.trace import STEPS_FILE, TraceDocument, TraceStep, load_trace, text_names_it
from wpfprobe.engine.redo import python_value, yaml_value
from wpfprobe.testkit.scenario import ID_PATTERN

Format = Literal["yaml", "pytest"]
FORMATS: tuple[Format, ...] = ("yaml", "pytest")
#: Assertions inferred per step at most: a step that refilled a list would otherwise list every item.
MAX_ASSERTIONS = 4
#: Arguments left out when they hold the tool's default.
_DEFAULTS: dict[str, Any] = {"mode": "auto", "button": "left", "clickCount": 1, "replace": True}
#: Fields whose change becomes an assertion, and how.
_FLAGS = {"checked": "checked", "enabled": ("enabled", "disabled"), "visible": ("visible", "hidden")}


@dataclass
class Recording:
    """The steps of a recording, how to start its app, and a name for the test."""

    steps: list[TraceStep]
    source: str
    name: str
    target: dict[str, Any] = field(default_factory=dict)


def load_recording(path: Path) -> Recording:
    """A ``steps.jsonl`` / ``repro.actions.json`` file, a session folder, a ``--record`` folder with one session, or a ticket."""
    path = Path(path)
    folder: Path | None = None
    if path.is_dir():
        folder = path
        for candidate in (path / STEPS_FILE, path / "repro.actions.json"):
            if candidate.is_file():
                path = candidate
                break
        else:
            inner = sorted(path.glob(f"*/{STEPS_FILE}"))
            if len(inner) != 1:
                raise InvalidArgumentError(
                    f"{path} holds {'no' if not inner else len(inner)} recorded sessions: name one.",
                    suggestion="Give DIR/<session>/steps.jsonl of a --record DIR, a session folder or a ticket.",
                )
            path, folder = inner[0], inner[0].parent
    document: TraceDocument = load_trace(path)
    folder = folder or path.parent
    about = _about(folder)
    target = dict(document.target or about.get("target") or {})
    name = str(about.get("sessionId") or document.title or folder.name or path.stem)
    return Recording(steps=list(document.steps), source=str(path), name=name, target=target)


def _about(folder: Path) -> dict[str, Any]:
    import json  # noqa: PLC0415

    try:
        data = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# -- what a step becomes ---------------------------------------------------------------------------


@dataclass
class Planned:
    """One step as it will be written: the action, its locator and arguments, and what to check after it."""

    action: str
    locator: str | None
    args: dict[str, Any]
    expect: list[dict[str, Any]]
    note: str | None = None
    secret: bool = False


def plan(steps: Sequence[TraceStep]) -> list[Planned]:
    """The steps worth writing, in order, each with its inferred assertions."""
    out: list[Planned] = []
    for step in steps:
        if step.action == "check":
            if step.expect:
                out.append(Planned("check", None, {}, [_clean(a) for a in step.expect], note=step.note))
            continue
        if step.outcome != "ok":
            continue  # refused (the app never saw it) or failed: not part of what was done
        args = {k: v for k, v in step.args.items() if _DEFAULTS.get(k, object()) != v}
        locator = _locator(step)
        expect = [_clean(a) for a in step.expect or []] or infer(step, locator)
        out.append(Planned(step.action, locator, args, expect, note=step.note, secret=bool(step.redacted)))
    return out


def _locator(step: TraceStep) -> str | None:
    target = step.target
    if target is None:
        return None
    return target.generated or target.locator


def _clean(assertion: dict[str, Any]) -> dict[str, Any]:
    # A recorded scenario's assertion carries the timeout it ran with; the default is the reader's to set.
    return {k: v for k, v in assertion.items() if k != "timeoutMs"}


def infer(step: TraceStep, locator: str | None) -> list[dict[str, Any]]:
    """Assertions from what the step changed: the target's own check state and caption, other elements, windows."""
    found: list[dict[str, Any]] = []
    after = step.after or {}
    changed = step.changed or []
    if locator is not None and "checked" in changed and isinstance(after.get("checked"), bool):
        found.append({"assert": "checked", "locator": locator, "value": after["checked"]})
    if (
        locator is not None and "text" in changed and step.action not in ("type_text", "send_keys", "select")
        and isinstance(after.get("text"), str) and after["text"] != REDACTED
        and text_names_it(step.target.type or "" if step.target else "")
    ):  # fmt: skip
        found.append({"assert": "text_equals", "locator": locator, "value": after["text"]})
    texts: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for effect in step.effects or []:
        if not effect.locator:
            continue
        if effect.field == "window-opened":
            others.insert(0, {"assert": "visible", "locator": effect.locator})
        elif effect.field == "text" and isinstance(effect.after, str) and effect.after != REDACTED:
            texts.append({"assert": "text_equals", "locator": effect.locator, "value": effect.after})
        elif effect.field == "checked" and isinstance(effect.after, bool):
            others.append({"assert": "checked", "locator": effect.locator, "value": effect.after})
        elif effect.field in ("enabled", "visible") and isinstance(effect.after, bool):
            yes, no = _FLAGS[effect.field]
            others.append({"assert": yes if effect.after else no, "locator": effect.locator})
    # Named elements first: a path to an unnamed label is the first thing to break.
    texts.sort(key=lambda a: "#" not in a["locator"])
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for assertion in [*found, *texts, *others]:
        key = (assertion["assert"], assertion["locator"])
        if key not in seen and len(out) < MAX_ASSERTIONS:
            seen.add(key)
            out.append(assertion)
    return out


# -- writing it --------------------------------------------------------------------------------------


def scenario_id(name: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-._")[:100] or "recorded"
    return clean if re.match(ID_PATTERN, clean) else f"s-{clean}"[:100]


def _target_yaml(target: dict[str, Any]) -> str | None:
    if target.get("profile"):
        return "{profile: " + yaml_value(target["profile"]) + "}"
    if target.get("command"):
        parts = "[" + ", ".join(yaml_value(c) for c in target["command"]) + "]"
        cwd = f", cwd: {yaml_value(target['cwd'])}" if target.get("cwd") else ""
        return "{command: " + parts + cwd + "}"
    return None


def _flow(mapping: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {yaml_value(v)}" for k, v in mapping.items()) + "}"


def to_yaml(recording: Recording, *, scenario: str | None = None) -> str:
    planned = plan(recording.steps)
    lines = [
        f"# Written by wpfprobe codegen from {recording.source} ({len(planned)} steps).",
        "# The expectations are what the recording saw change after each step: edit them freely.",
        f"id: {yaml_value(scenario or scenario_id(recording.name))}",
        f"title: {yaml_value('Recorded: ' + recording.name)}",
    ]
    target = _target_yaml(recording.target)
    lines.append(f"target: {target}" if target else "# target: {profile: NAME}   (or run it with --profile NAME)")
    lines.append("steps:")
    if not planned:
        lines.append(
            '  - {expect: [{assert: exists, locator: "*"}]}   # the recording had no step that reached the app'
        )
    for step in planned:
        if step.secret:
            lines.append("  # a secret was typed here and recorded as [REDACTED]: put the real value in")
        if step.action == "check":
            lines.append(f"  - name: {yaml_value(step.note or 'check')}")
        else:
            lines.append(f"  - action: {step.action}")
            if step.locator is not None:
                lines.append(f"    locator: {yaml_value(step.locator)}")
            lines.extend(f"    {key}: {yaml_value(value)}" for key, value in step.args.items())
        if step.expect:
            lines.append("    expect:")
            lines.extend(f"      - {_flow(a)}" for a in step.expect)
    return "\n".join(lines) + "\n"


def _identifier(name: str) -> str:
    clean = re.sub(r"\W+", "_", name).strip("_").lower()[:80] or "recorded"
    clean = f"test_{clean}"
    return clean if not keyword.iskeyword(clean) else clean + "_"


def _call(step: Planned) -> str:
    loc = python_value(step.locator) if step.locator is not None else None
    args = dict(step.args)
    if step.action == "click" and loc:
        head = f"app.click({loc}"
    elif step.action == "type_text" and loc and "text" in args:
        head = f"app.type_text({loc}, {python_value(args.pop('text'))}"
    elif step.action == "select" and loc and "item" in args:
        head = f"app.select({loc}, {python_value(args.pop('item'))}"
    elif step.action == "toggle" and loc:
        head = f"app.toggle({loc}"
    elif step.action == "send_keys" and "keys" in args:
        head = f"app.send_keys({python_value(args.pop('keys'))}" + (f", {loc}" if loc else "")
    else:
        head = f"app.step({python_value(step.action)}" + (f", {loc}" if loc else "")
    rest = "".join(f", {k}={python_value(v)}" for k, v in args.items())
    return head + rest + ")"


def _expect_call(assertion: dict[str, Any]) -> str:
    fields = {k: v for k, v in assertion.items() if k not in ("assert", "locator")}
    rest = "".join(f", {k}={python_value(v)}" for k, v in fields.items())
    return f"app.expect({python_value(assertion['assert'])}, {python_value(assertion.get('locator', '*'))}{rest})"


def to_pytest(recording: Recording, *, name: str | None = None) -> str:
    planned = plan(recording.steps)
    marker: list[str] = []
    if recording.target.get("profile"):
        marker.append(f"profile={python_value(recording.target['profile'])}")
    elif recording.target.get("command"):
        marker.append("command=[" + ", ".join(python_value(c) for c in recording.target["command"]) + "]")
    if any(s.action == "set_property" for s in planned):
        marker.append('tier="mutate"')
    lines = [
        f'"""Written by wpfprobe codegen from {recording.source} ({len(planned)} steps).',
        "",
        "The checks are what the recording saw change after each step: edit them freely.",
        "Run with pytest; the app starts fresh for the test (wpfprobe's pytest plugin).",
        '"""',
        "",
        "import pytest",
        "",
        "",
    ]
    if recording.target.get("cwd"):
        lines.insert(-2, f"# The recording ran the app in {recording.target['cwd']}: run pytest from there.")
    lines.append(f"@pytest.mark.wpfprobe({', '.join(marker)})")
    lines.append(f"def {_identifier(name or recording.name)}(wpfprobe_app):")
    lines.append("    app = wpfprobe_app")
    if not planned:
        lines.append("    pass  # the recording had no step that reached the app")
    for step in planned:
        if step.secret:
            lines.append("    # a secret was typed here and recorded as [REDACTED]: put the real value in")
        if step.action != "check":
            lines.append("    " + _call(step))
        lines.extend("    " + _expect_call(a) for a in step.expect)
    return "\n".join(lines) + "\n"


def generate(recording: Recording, *, format: Format = "yaml", name: str | None = None) -> str:  # noqa: A002
    if format == "pytest":
        return to_pytest(recording, name=name)
    return to_yaml(recording, scenario=name)


__all__ = ["FORMATS", "Format", "Recording", "generate", "infer", "load_recording", "plan", "to_pytest", "to_yaml"]
