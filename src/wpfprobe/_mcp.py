"""ToolSpecs made into an MCPServer (the official SDK), with SPEC section 5 errors.

A gate extension sees every tools/call first: it refuses tools outside the
tier (INPUT_DISABLED, MUTATION_DISABLED) and validates arguments against the
tool's own model, so bad input becomes a structured INVALID_ARGUMENT error
rather than the SDK's plain text. Tool functions then run on a worker thread
(the SDK runs sync tools there); the engine hops to the UI thread from it.
"""

from __future__ import annotations

import inspect
import json
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.extension import Extension
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from ._engine import Engine, Tier
from ._errors import ProbeError
from ._tools import INTERACT_TOOLS, MUTATE_TOOLS, ToolSpec, all_tools, tier_allows

log = logging.getLogger("wpfprobe.server")

INSTRUCTIONS = (
    "wpfprobe inspects the live WPF or WinForms UI of the app it runs in. Start with "
    "wpf_get_session_info and wpf_get_windows, then wpf_get_visual_tree (compact lines: "
    "id Type#name \"text\" states). Name elements by nodeId from any result, or by locator "
    "(Button#saveButton, text=\"Save\", [IsEnabled=false], Form[0]/Panel[0]/Button[2]). "
    "Errors carry a code and a suggestion for the next call."
)


def error_result(err: ProbeError) -> CallToolResult:
    payload = json.loads(json.dumps(err.to_dict(), default=str))
    text = f"{err.code}: {err.message}"
    if err.suggestion:
        text += f"\nNext: {err.suggestion}"
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=payload, is_error=True)


def invalid_arguments(spec: ToolSpec, exc: ValidationError) -> CallToolResult:
    problems = []
    for e in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in e.get("loc", ())) or "(arguments)"
        problems.append(f"{where}: {e.get('msg', 'invalid')}")
    return error_result(
        ProbeError(
            f"Invalid arguments for {spec.name}: " + "; ".join(problems),
            code="INVALID_ARGUMENT",
            suggestion=f"Check the arguments against {spec.name}'s input schema (tools/list).",
            detail={"problems": problems},
        )
    )


def parse_arguments(spec: ToolSpec, raw: dict[str, Any]) -> Any:
    """The tool's arguments by their wire (camelCase) names only: a Python-side name
    such as max_depth is not in the schema and must not be accepted and then dropped."""
    return spec.args.model_validate(raw, by_alias=True, by_name=False)


class _Gate(Extension):
    identifier = "dev.wpfprobe/gate"

    def __init__(self, specs: dict[str, ToolSpec], tier: Tier) -> None:
        self._specs = specs
        self._tier = tier

    def settings(self) -> dict[str, Any]:
        return {"tier": self._tier}

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        name = params.name
        if name not in self._specs:
            refusal = _tier_refusal(name, self._tier)
            if refusal is not None:
                return error_result(refusal)
            return await call_next(ctx)
        spec = self._specs[name]
        try:
            parse_arguments(spec, params.arguments or {})
        except ValidationError as exc:
            return invalid_arguments(spec, exc)
        return await call_next(ctx)


def _tier_refusal(name: str, tier: Tier) -> ProbeError | None:
    if name in INTERACT_TOOLS and not tier_allows(tier, "interact"):
        return ProbeError(
            f"{name} needs the interact tier; this app allows only {tier}.",
            code="INPUT_DISABLED",
            suggestion="Restart the probe with allow='interact' to let agents use input tools.",
            detail={"tool": name, "tier": tier},
        )
    if name in MUTATE_TOOLS and not tier_allows(tier, "mutate"):
        return ProbeError(
            f"{name} needs the mutate tier; this app allows only {tier}.",
            code="MUTATION_DISABLED",
            suggestion="Restart the probe with allow='mutate' to let agents set properties.",
            detail={"tool": name, "tier": tier},
        )
    return None


def tool_specs(tier: Tier) -> list[ToolSpec]:
    return all_tools(tier=tier)


def build_server(engine: Engine, *, tier: Tier, extra: list[ToolSpec] | None = None) -> MCPServer:
    from . import __version__  # noqa: PLC0415 - avoids an import cycle

    specs = [*tool_specs(tier), *(extra or [])]
    server = MCPServer(
        "wpfprobe",
        version=__version__,
        instructions=INSTRUCTIONS,
        extensions=[_Gate({s.name: s for s in specs}, tier)],
        log_level="WARNING",
    )
    for spec in specs:
        server.add_tool(
            tool_function(spec, engine),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=None if spec.read_only else spec.tier == "mutate",
                open_world_hint=False,
            ),
            structured_output=True,
        )
    return server


def tool_function(spec: ToolSpec, engine: Engine) -> Callable[..., CallToolResult]:
    """A function whose signature is the tool's argument model, as the SDK expects."""

    def call(**kwargs: Any) -> CallToolResult:
        started = time.perf_counter()
        outcome = "ok"
        try:
            args = parse_arguments(spec, kwargs)
            out = spec.run(engine, args)
            content: list[TextContent | ImageContent] = [TextContent(type="text", text=out.text)]
            png = out.png_base64()
            if png is not None:
                content.insert(0, ImageContent(type="image", data=png, mime_type="image/png"))
            return CallToolResult(content=content, structured_content=out.structured_json())
        except ValidationError as exc:
            outcome = "INVALID_ARGUMENT"
            return invalid_arguments(spec, exc)
        except ProbeError as err:
            outcome = err.code
            return error_result(err)
        except Exception as exc:  # noqa: BLE001 - nothing may escape into the server
            outcome = "INTERNAL"
            log.exception("tool %s failed", spec.name)
            return error_result(
                ProbeError(
                    f"{spec.name} failed unexpectedly ({type(exc).__name__}).",
                    code="INTERNAL",
                    suggestion="Retry; if it persists, report it with the app's stderr log.",
                )
            )
        finally:
            # Tool name, duration and outcome only: never arguments or values.
            log.info("tool=%s outcome=%s ms=%.1f", spec.name, outcome, (time.perf_counter() - started) * 1000)

    params = []
    annotations: dict[str, Any] = {}
    for field_name, field in spec.args.model_fields.items():
        wire_name = field.alias or field_name
        annotation = Annotated[(field.annotation, *field.metadata, _describe(field))]  # type: ignore[valid-type]
        default = field.default
        if default is PydanticUndefined:
            default = field.default_factory() if field.default_factory is not None else inspect.Parameter.empty  # type: ignore[call-arg]
        params.append(inspect.Parameter(wire_name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        annotations[wire_name] = annotation
    returns = Annotated[CallToolResult, spec.output]
    annotations["return"] = returns
    call.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
    call.__annotations__ = annotations
    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


def _describe(field: Any) -> Any:
    from pydantic import Field  # noqa: PLC0415

    return Field(description=field.description) if field.description else Field()
