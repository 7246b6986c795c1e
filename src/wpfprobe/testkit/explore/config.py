"""The exploration config file (``wpfprobe explore --config FILE``, YAML or JSON).

```yaml
weights: {click: 5, type_text: 3, select: 2, toggle: 2, send_keys: 1, scroll: 1}
texts: ["ORD-1001", "2024-02-29"]       # typed beside the built-in edge cases
keys: ["Enter", "Escape", "Tab"]        # chords send_keys picks from
include: ["#ordersPanel Button"]        # only elements these locators find (default: all)
exclude: ["#helpButton"]                # never these
preconditions:                          # act on an element only while its condition holds
  - {locator: "#submitButton", when: {assert: enabled, locator: "#submitButton"}}
invariants:                             # checked after every step; a violation is a failure
  - {name: status-shown, assert: regex, locator: "#statusLabel", value: ".+"}
policy:
  allow: ["#deleteDraftButton"]         # destructive, allowed only with the confirmation below
  confirmDestructive: true
  deny: ["text:(?i)format"]
oracles: {bindingErrors: true, errorDialog: "(?i)error|failed"}
restartEvery: 0                         # also restart the app every N steps (0: only after a failure)
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from wpfprobe.core.patterns import PatternError, compile_pattern
from wpfprobe.testkit.scenario import Assertion, ScenarioError, _line_of, _to_python

DEFAULT_WEIGHTS = {"click": 5.0, "type_text": 3.0, "select": 2.0, "toggle": 2.0, "send_keys": 1.0, "scroll": 1.0}
DEFAULT_KEYS = ("Enter", "Escape", "Tab", "Down", "Up", "Space", "Home", "End", "Ctrl+A", "Delete", "Backspace", "F5")


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class Precondition(_Model):
    locator: str = Field(description="The element the condition guards (a locator compared with the element's own).")
    when: Assertion


class Invariant(_Model):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    assertion: Assertion

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> Invariant:
        body = {k: v for k, v in raw.items() if k != "name"}
        body.setdefault("timeoutMs", 0)
        return cls(name=raw.get("name", ""), assertion=body)  # type: ignore[arg-type]


class PolicyConfig(_Model):
    allow: list[str] = Field(default_factory=list)
    confirm_destructive: bool = False
    deny: list[str] = Field(default_factory=list)


class OracleConfig(_Model):
    binding_errors: bool = True
    error_dialog: str | None = Field(default=None, description="A regex for the titles of error dialogs.")
    hang_seconds: float = Field(default=10.0, gt=0, le=600)

    @field_validator("error_dialog")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                compile_pattern(value)
            except PatternError as exc:
                raise ValueError(f"not a valid regular expression: {exc.reason}") from None
        return value


class ExploreConfig(_Model):
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    texts: list[str] = Field(default_factory=list)
    keys: list[str] = Field(default_factory=lambda: list(DEFAULT_KEYS))
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    preconditions: list[Precondition] = Field(default_factory=list)
    invariants: list[dict[str, Any]] = Field(default_factory=list)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    oracles: OracleConfig = Field(default_factory=OracleConfig)
    restart_every: int = Field(default=0, ge=0)
    screenshots: bool = False

    @field_validator("weights")
    @classmethod
    def _known(cls, weights: dict[str, float]) -> dict[str, float]:
        unknown = set(weights) - set(DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown actions {sorted(unknown)}; weights are for {sorted(DEFAULT_WEIGHTS)}")
        if any(w < 0 for w in weights.values()):
            raise ValueError("weights must be >= 0")
        return {**DEFAULT_WEIGHTS, **weights}

    def parsed_invariants(self) -> list[Invariant]:
        return [Invariant.from_raw(raw) for raw in self.invariants]


def load_config(path: str | Path) -> ExploreConfig:
    """The config in a YAML or JSON file; ScenarioError (file:line: message) when it is not valid."""
    import yaml  # noqa: PLC0415

    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except OSError as exc:
        raise ScenarioError(str(file), None, f"cannot read it: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError(str(file), mark.line + 1 if mark else None, f"not valid YAML/JSON: {exc}") from None
    if node is None:
        return ExploreConfig()
    data, lines = _to_python(node)
    try:
        config = ExploreConfig.model_validate(data)
        for raw in config.invariants:
            Invariant.from_raw(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = tuple(first.get("loc", ()))
        where = ".".join(str(p) for p in loc)
        raise ScenarioError(str(file), _line_of(lines, loc), f"{where or 'config'}: {first.get('msg')}") from None
    return config
