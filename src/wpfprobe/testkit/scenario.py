"""Scenario files: the schema (pydantic models, published as JSON Schema) and loading YAML or JSON.

A step is an MCP action by its name without ``wpf_`` with the tool's own
camelCase arguments; its fields are built from the tool's argument model, so a
scenario accepts exactly what the tool does. ``expect`` lists assertions
checked after the step, each retried until its ``timeoutMs`` (the step's
``expectTimeoutMs``, else the scenario's, else 10 s). A step with ``expect``
and no ``action`` only checks.

Errors name the file and the line: the YAML is composed with its marks, and a
validation error's location is walked back to the node it came from.
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, create_model, model_validator
from pydantic.alias_generators import to_camel

from wpfprobe.core.patterns import PatternError, compile_pattern
from wpfprobe.core.trace import ACTIONS
from wpfprobe.mcp.tools import interact_tools, mutate_tools
from wpfprobe.testkit.launcher import AppTarget

DEFAULT_EXPECT_TIMEOUT_MS = 10_000
SCHEMA_ID = "https://wpfprobe.dev/schemas/scenario.schema.json"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"


class ScenarioError(Exception):
    """A scenario file that cannot be used: ``str()`` is ``file:line: message``, one line per problem
    (``line`` and ``message`` are the first one's)."""

    def __init__(
        self, path: str, line: int | None, message: str, *, more: Sequence[tuple[int | None, str]] = ()
    ) -> None:
        self.path = path
        self.line = line
        self.message = message
        self.problems = [(line, message), *more]
        super().__init__("\n".join(f"{path}:{at}: {what}" if at else f"{path}: {what}" for at, what in self.problems))


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


# -- assertions ----------------------------------------------------------------------------


class _Assertion(_Model):
    locator: str = Field(min_length=1, max_length=2000, description="The element the assertion is about.")
    timeout_ms: int | None = Field(
        default=None, ge=0, le=600_000, description="Retry until this many ms have passed (default: the step's)."
    )


class StateAssertion(_Assertion):
    """exists, gone, visible, hidden, enabled, disabled."""

    assert_: Literal["exists", "gone", "visible", "hidden", "enabled", "disabled"] = Field(alias="assert")


class FlagAssertion(_Assertion):
    """selected, checked: the element's state is ``value`` (true unless given)."""

    assert_: Literal["selected", "checked"] = Field(alias="assert")
    value: bool = True


class TextAssertion(_Assertion):
    """text_equals (exact), text_contains (substring), regex (an RE2 regular expression, searched: docs/locators.md)."""

    assert_: Literal["text_equals", "text_contains", "regex"] = Field(alias="assert")
    value: str = Field(max_length=10_000)

    @model_validator(mode="after")
    def _pattern(self) -> TextAssertion:
        if self.assert_ == "regex":
            try:
                compile_pattern(self.value)
            except PatternError as exc:
                raise ValueError(f"value is not a valid regular expression: {exc.reason}") from None
        return self


class PropertyAssertion(_Assertion):
    """property_equals: the property's value, as text, equals ``value`` (booleans and numbers by value)."""

    assert_: Literal["property_equals"] = Field(alias="assert")
    property: str = Field(min_length=1, max_length=200)
    value: str | int | float | bool | None


class CountAssertion(_Assertion):
    """count: how many elements the locator finds, at least ``min`` and at most ``max``."""

    assert_: Literal["count"] = Field(alias="assert")
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> CountAssertion:
        if self.min is None and self.max is None:
            raise ValueError("count needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("min is greater than max")
        return self


class Mask(_Model):
    """A region left out of a screenshot comparison: an element's bounds, or a rectangle in the image's pixels."""

    locator: str | None = None
    x: int | None = Field(default=None, ge=0)
    y: int | None = Field(default=None, ge=0)
    width: int | None = Field(default=None, ge=1)
    height: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _one_form(self) -> Mask:
        rect = [self.x, self.y, self.width, self.height]
        if self.locator is None and any(v is None for v in rect):
            raise ValueError("a mask is {locator} or {x, y, width, height}")
        if self.locator is not None and any(v is not None for v in rect):
            raise ValueError("a mask is either a locator or a rectangle, not both")
        return self


class ScreenshotAssertion(_Model):
    """screenshot_diff: the element (default: the main window) looks like the baseline image."""

    assert_: Literal["screenshot_diff"] = Field(alias="assert")
    locator: str | None = Field(default=None, max_length=2000)
    baseline: str = Field(
        min_length=1,
        description="PNG path, relative to the scenario file. <name>.<platform>.png next to it wins "
        "(platform: linux, windows, darwin), so each platform keeps its own baseline.",
    )
    threshold: float = Field(default=0.001, ge=0, le=1, description="Fraction of pixels that may differ.")
    pixel_tolerance: int = Field(default=16, ge=0, le=255, description="Per-channel difference a pixel may have.")
    masks: list[Mask] = Field(default_factory=list)
    timeout_ms: int | None = Field(default=None, ge=0, le=600_000)


class TreeAssertion(_Assertion):
    """tree_matches: the element's subtree matches a YAML template (testkit/snapshots.py), partial unless strict."""

    assert_: Literal["tree_matches"] = Field(alias="assert")
    template: dict[str, Any] | None = Field(
        default=None,
        description="The subtree: type, name, automationId, text, visible, enabled, focused, checked, selected, "
        "expanded, children (a list of such nodes). Only what is given is compared; /regex/flags searches.",
    )
    snapshot: str | None = Field(
        default=None,
        min_length=1,
        max_length=1000,
        description="A YAML file holding the template, relative to the scenario file; written from the live app "
        "when missing or with --update-snapshots.",
    )
    strict: bool = Field(default=False, description="Every children list must be exact: no others, same order.")
    depth: int | None = Field(
        default=None, ge=0, le=10, description="Levels a snapshot file is written with (default 3)."
    )

    @model_validator(mode="after")
    def _one_template(self) -> TreeAssertion:
        from wpfprobe.testkit.snapshots import TemplateError, validate  # noqa: PLC0415 - the matcher's own rules

        if (self.template is None) == (self.snapshot is None):
            raise ValueError("tree_matches needs template (inline) or snapshot (a file), not both")
        if self.template is not None:
            try:
                validate(self.template)
            except TemplateError as exc:
                raise ValueError(str(exc)) from None
        return self


Assertion = Annotated[
    StateAssertion
    | FlagAssertion
    | TextAssertion
    | PropertyAssertion
    | CountAssertion
    | ScreenshotAssertion
    | TreeAssertion,
    Field(discriminator="assert_"),
]


# -- steps -----------------------------------------------------------------------------------


class _StepBase(_Model):
    action: str
    name: str | None = Field(default=None, max_length=200, description="What the step does, in words.")
    fallbacks: list[str] = Field(
        default_factory=list, max_length=10, description="More locators for the element, tried when locator fails."
    )
    expect: list[Assertion] = Field(default_factory=list, description="Checked after the step, each retried.")
    expect_timeout_ms: int | None = Field(
        default=None, ge=0, le=600_000, description="Default timeout of this step's assertions."
    )
    allow_destructive: bool = Field(
        default=False, description="Take this step even if the safety policy calls it destructive (close, delete...)."
    )


class CheckStep(_StepBase):
    """A step that only checks (``expect`` with no action)."""

    action: Literal["check"] = "check"

    @model_validator(mode="after")
    def _has_expect(self) -> CheckStep:
        if not self.expect:
            raise ValueError("a step needs an action, or expect (assertions) to check")
        return self


def _step_model(tool: str, args_model: type[BaseModel]) -> type[_StepBase]:
    action = tool.removeprefix("wpf_")
    fields: dict[str, Any] = {"action": (Literal[action], Field(description=f"Runs {tool}."))}
    for field_name, info in args_model.model_fields.items():
        if field_name == "node_id":
            continue  # node ids do not survive a restart: scenarios name elements by locator
        fields[field_name] = (info.annotation, info)
    model: type[_StepBase] = create_model(
        f"{''.join(p.title() for p in action.split('_'))}Step", __base__=_StepBase, **fields
    )
    return model


_STEP_MODELS: dict[str, type[_StepBase]] = {
    spec.name.removeprefix("wpf_"): _step_model(spec.name, spec.args) for spec in [*interact_tools(), *mutate_tools()]
}
assert set(_STEP_MODELS) == set(ACTIONS), "every recorded action is a scenario action"


def _step_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        action = value.get("action", "check")
        return action if isinstance(action, str) else None
    return getattr(value, "action", None)


if TYPE_CHECKING:
    Step = _StepBase
else:
    # A | B | C of the step models, built at run time: one per MCP action, told apart by ``action``
    # (a step with only ``expect`` is a check).
    Step = Annotated[
        functools.reduce(
            operator.or_, [Annotated[m, Tag(a)] for a, m in [*_STEP_MODELS.items(), ("check", CheckStep)]]
        ),
        Discriminator(_step_tag),
    ]


def step_arguments(step: BaseModel) -> dict[str, Any]:
    """The tool arguments of a step (camelCase), as the MCP tool takes them."""
    base = set(_StepBase.model_fields) | {"action"}
    out: dict[str, Any] = {}
    for name, info in type(step).model_fields.items():
        value = getattr(step, name)
        if name in base or value is None:
            continue
        out[info.alias or name] = value
    return out


# -- the scenario ----------------------------------------------------------------------------


class Scenario(_Model):
    """A scenario file: steps an app is driven through, with what must hold after them."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True,
        json_schema_extra={"$id": SCHEMA_ID, "title": "wpfprobe scenario"},
    )  # fmt: skip

    id: str = Field(pattern=ID_PATTERN, description="A short id: names the scenario's test and its ticket.")
    title: str | None = Field(default=None, max_length=300)
    tags: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]] = Field(default_factory=list)
    target: AppTarget | None = Field(default=None, description="The app: {profile} or {command}; or --profile.")
    expect_timeout_ms: int = Field(default=DEFAULT_EXPECT_TIMEOUT_MS, ge=0, le=600_000)
    retries: int = Field(
        default=0, ge=0, le=5, description="Run again this many times after a failure; a later pass is labelled flaky."
    )
    setup: list[Step] = Field(
        default_factory=list, description="Run first; a failure here is an error, not a test failure."
    )
    steps: list[Step] = Field(min_length=1)
    teardown: list[Step] = Field(default_factory=list, description="Run last, also after a failure.")

    source_path: str | None = Field(default=None, exclude=True, description="(set when loaded from a file)")

    def actions(self) -> list[str]:
        return [s.action for s in [*self.setup, *self.steps, *self.teardown]]

    @classmethod
    def from_yaml(cls, text: str, *, path: str = "<string>") -> Scenario:
        return parse_scenario(text, path=path)


def json_schema() -> dict[str, Any]:
    """The published JSON Schema of a scenario file (``wpfprobe scenario schema``)."""
    import warnings  # noqa: PLC0415

    from pydantic.json_schema import PydanticJsonSchemaWarning  # noqa: PLC0415

    with warnings.catch_warnings():
        # pydantic cannot add OpenAPI's "discriminator" mapping for the assertions (their tag field
        # has an alias); the oneOf it writes, each with its const tag, validates the same.
        warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
        schema = Scenario.model_json_schema(by_alias=True, mode="validation")
    schema.setdefault("$schema", "https://json-schema.org/draft/2020-12/schema")
    schema.get("properties", {}).pop("sourcePath", None)
    return schema


# -- loading, with lines -----------------------------------------------------------------------


def load_scenario(path: str | Path) -> Scenario:
    """A scenario from a YAML or JSON file; ScenarioError (file:line: message) when it is not valid."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(str(file), None, f"cannot read it: {exc.strerror or exc}") from None
    return parse_scenario(text, path=str(file))


def parse_scenario(text: str, *, path: str = "<string>") -> Scenario:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(path, mark.line + 1 if mark else None, f"not valid YAML/JSON: {problem}") from None
    if node is None:
        raise ScenarioError(path, 1, "the file is empty")
    data, lines = _to_python(node)
    if not isinstance(data, dict):
        raise ScenarioError(path, node.start_mark.line + 1, "a scenario is a mapping (id, steps, ...)")
    try:
        scenario = Scenario.model_validate({**data, "sourcePath": path})
    except ValidationError as exc:
        # Every problem, each with its line: a person fixes them in one go, not one per run.
        problems = [_problem(error, lines) for error in exc.errors(include_url=False)]
        (line, message), *more = problems
        raise ScenarioError(path, line, message, more=more) from None
    return scenario


def _problem(error: Any, lines: dict[tuple[Any, ...], int]) -> tuple[int | None, str]:
    loc = tuple(error.get("loc", ()))
    where = ".".join(str(p) for p in loc if not _is_tag(p))
    message = error.get("msg", "invalid")
    if error.get("type") == "union_tag_invalid":
        message = _tag_message(error, loc)
    return _line_of(lines, loc), f"{where or 'scenario'}: {message}"


def _tag_message(error: Any, loc: tuple[Any, ...]) -> str:
    tag = (error.get("ctx") or {}).get("tag")
    if "expect" in loc or "when" in loc:
        return f"unknown assertion {tag!r}; expected one of {', '.join(ASSERTIONS)}"
    return f"unknown action {tag!r}; expected one of {', '.join([*_STEP_MODELS, 'check'])}"


ASSERTIONS: tuple[str, ...] = (
    "exists", "gone", "visible", "hidden", "enabled", "disabled", "selected", "checked", "text_equals",
    "text_contains", "regex", "property_equals", "count", "screenshot_diff", "tree_matches",
)  # fmt: skip
_TAGS = frozenset([*_STEP_MODELS, "check", *ASSERTIONS])


def _is_tag(part: Any) -> bool:
    """Whether a part of a validation error's location is a union's tag pydantic added (not in the file)."""
    return isinstance(part, str) and part in _TAGS


def _to_python(node: yaml.Node, path: tuple[Any, ...] = ()) -> tuple[Any, dict[tuple[Any, ...], int]]:
    """The node as Python data, and the line (1-based) of every path in it."""
    lines: dict[tuple[Any, ...], int] = {path: node.start_mark.line + 1}
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = (
                yaml.safe_load(yaml.serialize(key_node))
                if not isinstance(key_node, yaml.ScalarNode)
                else key_node.value
            )
            key_path = (*path, key)
            value, sub = _to_python(value_node, key_path)
            sub[key_path] = key_node.start_mark.line + 1
            out[key] = value
            lines.update(sub)
        return out, lines
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            value, sub = _to_python(item, (*path, index))
            items.append(value)
            lines.update(sub)
        return items, lines
    return yaml.safe_load(yaml.serialize(node)), lines


def _line_of(lines: dict[tuple[Any, ...], int], loc: tuple[Any, ...]) -> int | None:
    """The line of the deepest part of ``loc`` that is in the file (tags pydantic adds are skipped)."""
    real = tuple(p for p in loc if not _is_tag(p))
    for end in range(len(real), -1, -1):
        key = real[:end]
        if key in lines:
            return lines[key]
    return None


def dump_schema(path: Path) -> None:
    path.write_text(json.dumps(json_schema(), indent=2) + "\n", encoding="utf-8")


__all__ = [
    "DEFAULT_EXPECT_TIMEOUT_MS",
    "Assertion",
    "CheckStep",
    "Scenario",
    "ScenarioError",
    "ScreenshotAssertion",
    "Step",
    "TreeAssertion",
    "json_schema",
    "load_scenario",
    "parse_scenario",
    "step_arguments",
]
