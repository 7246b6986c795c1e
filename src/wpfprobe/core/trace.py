"""The recorded step format: one JSON line per step, whoever made the step.

A scenario, the explorer, a replay and an agent's MCP session (``--record
DIR`` on the co-located server or the broker) all write the same lines, so any
of them can be replayed by ``wpfprobe replay`` and turned into a ticket. A step
is the MCP action that ran (its name without ``wpf_`` and its camelCase
arguments), the element it ran on as locators that find it again after a
restart (the one used first, then fallbacks), what came of it (ok, or the
error code), what changed, and when: the offset from the session's start and
how long it took, so a replay can keep the recorded pace.

Secrets never reach the file: text typed into a password box (or any element
whose name or shown text says it holds a secret), keys sent to one, and the
value of a property whose name is secret are written as ``[REDACTED]`` and
listed in ``redacted``; a replay of such a step types the placeholder.

Plain data only (pydantic and json): the MCP server and the broker import it.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from wpfprobe.core.defer import DEFER_BUILD
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.redaction import REDACTED, Redactor

TRACE_VERSION = 1
STEPS_FILE = "steps.jsonl"

#: The MCP actions a step may run, by their name without ``wpf_``.
ACTIONS: tuple[str, ...] = (
    "click", "type_text", "send_keys", "select", "toggle", "focus", "wait_for", "set_property",
)  # fmt: skip
#: Actions that change the app (``wait_for`` only observes it).
INPUT_ACTIONS = frozenset(ACTIONS) - {"wait_for"}
#: Error codes that mean the probe refused the step before anything happened in the app.
NOT_APPLIED_CODES = frozenset(
    {
        "LOCATOR_NOT_FOUND",
        "LOCATOR_AMBIGUOUS",
        "NODE_NOT_FOUND",
        "ELEMENT_NOT_INTERACTABLE",
        "INVALID_ARGUMENT",
        "PROPERTY_NOT_FOUND",
        "PROPERTY_READ_ONLY",
        "PROPERTY_REDACTED",
        "UNSUPPORTED_PROPERTY_TYPE",
        "TYPE_CONVERSION_FAILED",
        "INPUT_DISABLED",
        "MUTATION_DISABLED",
    }
)

Source = Literal["scenario", "explore", "replay", "agent", "minimize"]


class _Model(BaseModel):
    # Built on first use (core/defer.py): only a recorded or replayed session uses them.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=DEFER_BUILD)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=False)


class StepTarget(_Model):
    """The element a step acted on: locators that find it again, best first."""

    locator: str | None = None
    """The locator to try first (the one the step was given, else the element's own)."""
    fallbacks: list[str] = Field(default_factory=list)
    """Tried in order when ``locator`` finds nothing or several elements."""
    node_id: str | None = None
    """The node id an agent named it by: informative only (ids do not survive a restart)."""
    type: str | None = None
    name: str | None = None
    text: str | None = None
    """What a person reads on it (never a secret): used to write the repro step in words."""
    generated: str | None = None
    """The most stable locator that found exactly this element when the step ran (the probe's ``redo``)."""

    def locators(self) -> list[str]:
        out = [self.locator] if self.locator else []
        return out + [f for f in self.fallbacks if f and f not in out]


class StepError(_Model):
    code: str
    message: str


class StepAppError(_Model):
    type: str
    message: str
    stack: str | None = None


class StepEffect(_Model):
    """Something else the step changed: another element's state, or a window that opened or closed.

    Seen by comparing the element trees before and after the step (when the
    recording keeps them); what ``codegen`` turns into assertions.
    """

    field: str
    """text, checked, selected, expanded, enabled, visible; or window-opened, window-closed."""
    locator: str | None = None
    type: str | None = None
    name: str | None = None
    before: Any = None
    after: Any = None


class TraceStep(_Model):
    """One step as recorded: what ran, on what, with which outcome, and when."""

    v: int = TRACE_VERSION
    seq: int = 0
    action: str
    """An action of ``ACTIONS``, or ``check``: a step that only checks its ``expect``."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The tool's own arguments (camelCase) without nodeId/locator, secrets redacted."""
    target: StepTarget | None = None
    redacted: list[str] = Field(default_factory=list)
    source: Source = "agent"
    at: str = ""
    """When it started (ISO-8601, UTC)."""
    offset_ms: int = 0
    """Milliseconds from the start of the session to the start of this step."""
    duration_ms: int = 0
    outcome: Literal["ok", "error", "not-applied"] = "ok"
    error: StepError | None = None
    changed: list[str] | None = None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    opened_windows: list[str] = Field(default_factory=list)
    closed_windows: list[str] = Field(default_factory=list)
    completed: bool | None = None
    app_error: StepAppError | None = None
    used_locator: str | None = None
    """The locator that found the element on this run (differs from ``target.locator`` after a fallback)."""
    failure: str | None = None
    """The signature of a failure this step set off, if any."""
    expect: list[dict[str, Any]] | None = None
    """Assertions checked after the step (a scenario's ``expect``, in its own form), replayed with it."""
    tree: str | None = None
    """Path, relative to the session folder, of the compact element tree after the step."""
    tree_before: str | None = None
    """The same, of the tree just before the step (what the step started from): kept for every
    step of a traced run, and always for a step that failed (a crash leaves no tree after it)."""
    screenshot: str | None = None
    screenshot_before: str | None = None
    """Kept for a step that failed: the screen just before it (a crash or a hang leaves no screen after it)."""
    effects: list[StepEffect] | None = None
    """Other elements and windows the step changed (when the trees around it were kept)."""
    events: list[dict[str, Any]] | None = None
    """The app's events during the step (exceptions, windows), as wpf_get_app_events gave them."""
    note: str | None = None

    @property
    def applied(self) -> bool:
        return self.outcome != "not-applied"

    def replay_args(self) -> dict[str, Any]:
        """The arguments a replay passes (the locator is added per attempt)."""
        return dict(self.args)


class TraceDocument(_Model):
    """A replayable file (``repro.actions.json``): the steps and what they are expected to do."""

    schema_version: int = TRACE_VERSION
    kind: Literal["wpfprobe-trace"] = "wpfprobe-trace"
    title: str | None = None
    target: dict[str, Any] = Field(default_factory=dict)
    """How to start the app: ``{"profile": NAME}`` or ``{"command": [...], "cwd": ...}``."""
    seed: int | None = None
    expected_failure: dict[str, Any] | None = None
    """The failure a replay should see again: ``{signature, kind, ...}``; None: nothing should fail."""
    steps: list[TraceStep]


# -- building steps from tool calls --------------------------------------------------------

_REDACTOR = Redactor()


def action_of(tool: str) -> str | None:
    """``wpf_click`` -> ``click``; None for a tool that is not a recorded action."""
    name = tool.removeprefix("wpf_")
    return name if tool.startswith("wpf_") and name in ACTIONS else None


def quote(value: str) -> str:
    """A string as a quoted locator value (the grammar's escapes)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return '"' + escaped.replace("\t", "\\t") + '"'


#: Types whose text is what the user typed or picked, not a caption: it names nothing.
_CONTENT_TYPES = frozenset(
    {"textbox", "richtextbox", "maskedtextbox", "passwordbox", "combobox", "numericupdown", "domainupdown",
     "listbox", "checkedlistbox", "listview", "datagridview", "datagrid", "treeview", "datetimepicker"}
)  # fmt: skip


def text_names_it(type_name: str) -> bool:
    """Whether an element's text is a caption that names it (a button's), not content (a text box's)."""
    return type_name.lower() not in _CONTENT_TYPES


def fallback_locators(node: Mapping[str, Any] | None, given: str | None = None) -> tuple[str | None, list[str]]:
    """(first locator, fallbacks) for an element seen in a result.

    The locator a step was given comes first (it is what the author meant);
    then the element's own locator (its unique name, else its path); then its
    type with its text, which survives a change of layout.
    """
    own = str(node.get("locator") or "") if node else ""
    options: list[str] = []
    if given:
        options.append(given)
    if own:
        options.append(own)
    if node:
        text = node.get("text")
        kind = node.get("type")
        if (
            isinstance(text, str) and text and text != REDACTED and len(text) <= 200 and isinstance(kind, str)
            and kind.lower() not in _CONTENT_TYPES
        ):  # fmt: skip
            options.append(f"{kind}[text={quote(text)}]")
    unique = list(dict.fromkeys(o for o in options if o))
    if not unique:
        return None, []
    return unique[0], unique[1:]


def _secret_target(node: Mapping[str, Any] | None, before: Mapping[str, Any] | None) -> bool:
    if before and before.get("text") == REDACTED:
        return True
    if not node:
        return False
    if node.get("text") == REDACTED:
        return True
    return any(_REDACTOR.name_is_secret(str(node.get(k) or "")) for k in ("name", "automationId"))


def redact_args(
    action: str,
    args: Mapping[str, Any],
    *,
    node: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The arguments as they may be written down, and the names of those redacted."""
    out = dict(args)
    hidden: list[str] = []
    secret = _secret_target(node, before)
    if action == "type_text" and secret and "text" in out:
        hidden.append("text")
    if action == "send_keys" and secret and "keys" in out:
        hidden.append("keys")
    if action == "set_property" and _REDACTOR.name_is_secret(str(out.get("propertyName") or "")) and "value" in out:
        hidden.append("value")
    for key in hidden:
        out[key] = REDACTED
    return out, hidden


def _titles(windows: Any) -> list[str]:
    if not isinstance(windows, list):
        return []
    return [str(w.get("title") or w.get("text") or w.get("type") or "") for w in windows if isinstance(w, dict)]


def step_from_call(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    structured: Mapping[str, Any] | None,
    error: Mapping[str, Any] | None,
    started: _dt.datetime,
    offset_ms: int,
    duration_ms: int,
    seq: int = 0,
    source: Source = "agent",
) -> TraceStep | None:
    """The step a tool call makes, or None for a tool that is not an action (reads are not steps)."""
    action = action_of(tool)
    if action is None:
        return None
    args = {k: v for k, v in arguments.items() if k not in ("nodeId", "locator", "app")}
    result = dict(structured or {}) if not error else {}
    node = result.get("node") if isinstance(result.get("node"), dict) else None
    before = result.get("before") if isinstance(result.get("before"), dict) else None
    given = arguments.get("locator") if isinstance(arguments.get("locator"), str) else None
    redo = result.get("redo")
    generated = redo.get("locator") if isinstance(redo, dict) and isinstance(redo.get("locator"), str) else None
    # The locator found stable when the step ran comes right after the one the step was given.
    locator, fallbacks = fallback_locators(node, given or generated)
    if given and generated and generated != locator and generated not in fallbacks:
        fallbacks.insert(0, generated)
    target = None
    if locator or arguments.get("nodeId"):
        text = node.get("text") if node else None
        target = StepTarget(
            locator=locator,
            fallbacks=fallbacks,
            node_id=str(arguments["nodeId"]) if arguments.get("nodeId") else None,
            type=str(node.get("type")) if node and node.get("type") else None,
            name=str(node.get("name")) if node and node.get("name") else None,
            text=text if isinstance(text, str) and text != REDACTED else None,
            generated=generated,
        )
    safe_args, hidden = redact_args(action, args, node=node, before=before)
    outcome: Literal["ok", "error", "not-applied"] = "ok"
    step_error = None
    if error:
        code = str(error.get("code") or "INTERNAL")
        outcome = "not-applied" if code in NOT_APPLIED_CODES else "error"
        step_error = StepError(code=code, message=str(error.get("message") or "")[:500])
    app_error = result.get("appError")
    after = result.get("after") if isinstance(result.get("after"), dict) else None
    return TraceStep(
        seq=seq,
        action=action,
        args=safe_args,
        target=target,
        redacted=hidden,
        source=source,
        at=started.astimezone(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        offset_ms=offset_ms,
        duration_ms=duration_ms,
        outcome=outcome,
        error=step_error,
        changed=list(result["changed"]) if isinstance(result.get("changed"), list) else None,
        before=_redacted_state(before),
        after=_redacted_state(after),
        opened_windows=_titles(result.get("openedWindows")),
        closed_windows=_titles(result.get("closedWindows")),
        completed=result.get("completed") if isinstance(result.get("completed"), bool) else None,
        app_error=StepAppError.model_validate(app_error) if isinstance(app_error, dict) else None,
        used_locator=given or locator,
    )


def _redacted_state(state: Mapping[str, Any] | None) -> dict[str, Any] | None:
    # The probe already redacts a secret element's text; the state is copied as it came.
    return dict(state) if state is not None else None


# -- files -----------------------------------------------------------------------------------


class TraceWriter:
    """Appends steps to a ``steps.jsonl``, one line each, flushed at once (a crash loses nothing).

    Safe from several threads; ``seq`` is given out here when a step has none.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._seq = 0
        self._file = path.open("a", encoding="utf-8")

    def write(self, step: TraceStep) -> TraceStep:
        with self._lock:
            self._seq += 1
            if not step.seq:
                step = step.model_copy(update={"seq": self._seq})
            self._file.write(json.dumps(step.to_json_dict(), ensure_ascii=False) + "\n")
            self._file.flush()
            return step

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.close()


def load_trace(path: Path) -> TraceDocument:
    """A replayable file: a ``repro.actions.json`` document, a JSON list of steps, or a ``steps.jsonl``.

    InvalidArgumentError names the file (and the line of a JSON-lines file) when it is not one.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgumentError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    stripped = text.lstrip()
    try:
        if stripped.startswith("{") and path.suffix != ".jsonl":
            data = json.loads(text)
            if isinstance(data, dict) and "steps" in data:
                return TraceDocument.model_validate(data)
            raise ValueError('expected {"steps": [...]} (a repro.actions.json)')
        if stripped.startswith("["):
            return TraceDocument(steps=[TraceStep.model_validate(s) for s in json.loads(text)])
    except (ValueError, ValidationError) as exc:
        raise InvalidArgumentError(
            f"{path} is not a wpfprobe trace: {_short(exc)}",
            suggestion="Replay a ticket's repro.actions.json or a session's steps.jsonl.",
        ) from None
    steps = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            steps.append(TraceStep.model_validate_json(line))
        except ValidationError as exc:
            raise InvalidArgumentError(
                f"{path}:{number}: not a recorded step: {_short(exc)}",
                suggestion="Each line of a steps.jsonl is one step as wpfprobe writes it.",
            ) from None
    return TraceDocument(steps=steps)


def write_document(path: Path, document: TraceDocument) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document.to_json_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def applied_steps(steps: Iterable[TraceStep]) -> list[TraceStep]:
    """The steps that reached the app (refused steps changed nothing, so a repro leaves them out)."""
    return [s for s in steps if s.applied]


def renumber(steps: Sequence[TraceStep]) -> list[TraceStep]:
    return [s.model_copy(update={"seq": i}) for i, s in enumerate(steps, start=1)]


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


__all__ = [
    "ACTIONS",
    "INPUT_ACTIONS",
    "NOT_APPLIED_CODES",
    "STEPS_FILE",
    "StepAppError",
    "StepEffect",
    "StepError",
    "StepTarget",
    "TraceDocument",
    "TraceStep",
    "TraceWriter",
    "action_of",
    "applied_steps",
    "fallback_locators",
    "load_trace",
    "quote",
    "redact_args",
    "renumber",
    "step_from_call",
    "text_names_it",
    "write_document",
]
