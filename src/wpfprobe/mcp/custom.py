"""Custom tools: an app's own functions served beside the built-in ones.

``@wpfprobe.tool`` registers a function for every probe this process starts
(and adds it to one that already runs); ``@handle.tool`` adds one to a running
probe. The function's typed parameters become the tool's argument model
(camelCase on the wire, like the built-in tools), its docstring the
description, its return annotation the output schema. A custom tool becomes a
ToolSpec like any other, so the server treats it the same way: tier, argument
validation, SPEC section 5 errors, the per-call log record.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from pydantic import BaseModel, Field, ValidationError, create_model
from pydantic.alias_generators import to_camel

from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.engine.engine import Engine, Tier
from wpfprobe.mcp import registry as _registry
from wpfprobe.mcp.registry import register as _register
from wpfprobe.mcp.registry import serve_registrations as serve_registrations
from wpfprobe.mcp.registry import unregister as unregister
from wpfprobe.mcp.tools import ToolOutput, ToolSpec, _Args, check_tier

log = logging.getLogger("wpfprobe.server")

F = TypeVar("F", bound=Callable[..., Any])

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
RESERVED_PREFIX = "wpf_"
BROKER_SEPARATOR = "__"
"""The broker exposes a custom tool as ``<appId>__<name>``: a name must not contain it."""


def check_tool_name(name: Any) -> str:
    """``name`` if it is a valid custom tool name, else InvalidArgumentError saying why."""
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        raise InvalidArgumentError(
            f"Invalid tool name {name!r}: use 1 to 64 letters, digits, '_' or '-'.",
            suggestion="Pass name= with a name matching ^[a-zA-Z0-9_-]{1,64}$.",
        )
    if name.lower().startswith(RESERVED_PREFIX):
        raise InvalidArgumentError(
            f"Invalid tool name {name!r}: names starting with {RESERVED_PREFIX!r} are reserved for wpfprobe's tools.",
            suggestion="Pick a name that says what the tool does in your app, e.g. 'reload_orders'.",
        )
    if BROKER_SEPARATOR in name:
        raise InvalidArgumentError(
            f"Invalid tool name {name!r}: it must not contain {BROKER_SEPARATOR!r}, which the broker "
            "uses between the app id and the tool name.",
            suggestion="Use a single '_' or '-' between words.",
        )
    return name


@dataclass(frozen=True)
class CustomTool:
    """A validated custom tool: the function and the models derived from it."""

    name: str
    fn: Callable[..., Any]
    tier: Tier
    ui_thread: bool
    title: str
    description: str
    args: type[_Args]
    output: type[BaseModel]
    # Parameter names in call order, and how many of them are positional-only.
    params: tuple[str, ...]
    positional_only: int
    wrapped: bool
    """The output model is ``{"result": ...}`` around the function's value (not a model itself)."""

    def spec(self) -> ToolSpec:
        return ToolSpec(
            self.name, self.tier, self.title, self.description, self.args, self.output, self._run,
            read_only=self.tier == "read",
        )  # fmt: skip

    def _run(self, engine: Engine, args: Any) -> ToolOutput:
        values = [getattr(args, p) for p in self.params]
        positional, keywords = (
            values[: self.positional_only],
            dict(zip(self.params[self.positional_only :], values[self.positional_only :], strict=False)),
        )

        def call() -> tuple[bool, Any]:
            # Runs on the UI thread when ui_thread=True: the outcome goes back as data,
            # so nothing the app's function raises reaches the toolkit's message loop.
            try:
                return True, self.fn(*positional, **keywords)
            except BaseException as exc:  # noqa: BLE001 - reported below, on the caller's side
                return False, exc

        if self.ui_thread:
            ok, value = engine.ui.run(call, timeout=engine.settings.ui_timeout)
        else:
            ok, value = call()
        if not ok:
            if isinstance(value, ProbeError):
                raise value
            # The type only: the exception's message may embed argument or property values.
            log.debug("custom tool %s raised %s", self.name, type(value).__name__)
            raise ProbeError(
                f"{self.name} raised {type(value).__name__}.",
                code="INTERNAL",
                suggestion="The app's own tool failed; check its arguments, or the app's state, and retry.",
                detail={"tool": self.name, "exceptionType": type(value).__name__},
            )
        return self._output(value)

    def _output(self, value: Any) -> ToolOutput:
        try:
            if self.wrapped:
                structured = self.output.model_validate({"result": value})
            elif isinstance(value, self.output):
                structured = value
            else:
                structured = self.output.model_validate(value)
        except ValidationError:
            raise ProbeError(
                f"{self.name} returned a {type(value).__name__}, which does not match its return annotation.",
                code="INTERNAL",
                suggestion="Fix the tool's return value or its return annotation.",
                detail={"tool": self.name, "returnedType": type(value).__name__},
            ) from None
        if self.wrapped:
            result = structured.model_dump(mode="json", by_alias=True)["result"]
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        else:
            text = structured.model_dump_json(by_alias=True, exclude_none=True)
        return ToolOutput(structured, text)


def define(
    fn: Callable[..., Any], *, name: str | None = None, ui_thread: bool = False, tier: Tier = "read"
) -> CustomTool:
    """Check ``fn`` and derive its models; InvalidArgumentError says what is wrong."""
    if not callable(fn):
        raise InvalidArgumentError(f"A tool must be a function, got {type(fn).__name__}.")
    tool_name = check_tool_name(name if name is not None else getattr(fn, "__name__", ""))
    tier = check_tier(tier)
    if not isinstance(ui_thread, bool):
        raise InvalidArgumentError(f"ui_thread must be True or False, got {ui_thread!r}.")
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # noqa: BLE001 - an unresolvable annotation, reported with its cause
        raise InvalidArgumentError(
            f"Tool {tool_name}: its annotations cannot be resolved ({type(exc).__name__}: {exc}).",
            suggestion="Annotate with types importable where the function is defined.",
        ) from None
    fields: dict[str, Any] = {}
    params: list[str] = []
    positional_only = 0
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise InvalidArgumentError(
                f"Tool {tool_name}: *{param.name} and **{param.name} parameters cannot be described as a schema.",
                suggestion="Give the tool one named, typed parameter per argument.",
            )
        if param.name not in hints:
            raise InvalidArgumentError(
                f"Tool {tool_name}: parameter {param.name!r} has no type annotation.",
                suggestion=f"Annotate it, e.g. {param.name}: str.",
            )
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints[param.name], Field(default, alias=to_camel(param.name)))
        params.append(param.name)
        if param.kind is param.POSITIONAL_ONLY:
            positional_only += 1
    model_name = "".join(part.capitalize() for part in re.split(r"[_-]", tool_name) if part) or "Tool"
    returns = hints.get("return", Any)
    wrapped = not (typing.get_origin(returns) is None and inspect.isclass(returns) and issubclass(returns, BaseModel))
    try:
        args = create_model(f"{model_name}Args", __base__=_Args, **fields)
        output: type[BaseModel] = (
            create_model(f"{model_name}Result", result=(returns, Field(default=None))) if wrapped else returns
        )
        output.model_json_schema()
        args.model_json_schema()
    except Exception as exc:  # noqa: BLE001 - pydantic's reason is the useful part
        raise InvalidArgumentError(
            f"Tool {tool_name}: its parameters or return type cannot be made into a JSON schema "
            f"({type(exc).__name__}: {exc}).",
            suggestion="Use JSON-friendly types: str, int, float, bool, lists, dicts, pydantic models.",
        ) from None
    doc = inspect.cleandoc(fn.__doc__ or "").strip()
    title = doc.splitlines()[0].rstrip(".") if doc else tool_name
    return CustomTool(
        name=tool_name, fn=fn, tier=tier, ui_thread=ui_thread, title=title, description=doc or tool_name,
        args=args, output=output, params=tuple(params), positional_only=positional_only, wrapped=wrapped,
    )  # fmt: skip


def registered() -> list[CustomTool]:
    """The tools ``@wpfprobe.tool`` registered, in registration order (kept in ``registry``)."""
    return [t for t in _registry.registered() if isinstance(t, CustomTool)]


def decorator(
    fn: F | None,
    *,
    name: str | None,
    ui_thread: bool,
    tier: Tier,
    add: Callable[[CustomTool], None],
) -> Any:
    """``@x`` and ``@x(...)`` for a function that defines a tool and hands it to ``add``."""

    def apply(f: F) -> F:
        add(define(f, name=name, ui_thread=ui_thread, tier=tier))
        return f

    return apply if fn is None else apply(fn)


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(*, name: str | None = None, ui_thread: bool = False, tier: Tier = "read") -> Callable[[F], F]: ...
def tool(
    fn: F | None = None, /, *, name: str | None = None, ui_thread: bool = False, tier: Tier = "read"
) -> F | Callable[[F], F]:
    """Serve a function of the app as an MCP tool of every probe this process starts.

    ``@wpfprobe.tool`` or ``@wpfprobe.tool(name=..., ui_thread=True, tier="interact")``.
    The function's typed parameters are the arguments (camelCase on the wire),
    its docstring the description, and its return value (JSON-able, or a pydantic
    model) the result. ``ui_thread=True`` runs it on the app's UI thread, needed
    to touch UI objects; otherwise it runs on the server's worker thread. A tool
    above the probe's ``allow`` tier is not listed. Names match
    ``^[a-zA-Z0-9_-]{1,64}$``, must not start with ``wpf_`` nor contain ``__``.
    The function is returned unchanged. Registered while a probe runs, the tool
    is added to it and connected clients are told the tool list changed.
    """
    return decorator(fn, name=name, ui_thread=ui_thread, tier=tier, add=_register)  # type: ignore[no-any-return]
