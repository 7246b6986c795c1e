"""The broker's tools as a client sees them: names, argument and result models, formatting.

Every standard ``wpf_*`` tool is forwarded with an optional ``app`` argument
added to its own schema; ``wpf_list_apps`` and ``wpf_launch_app`` are the
broker's own, with the models below as their schemas.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from wpfprobe.core.errors import InvalidArgumentError, ProbeError

LIST_APPS = "wpf_list_apps"
LAUNCH_APP = "wpf_launch_app"

APP_ARGUMENT = {
    "type": "string",
    "maxLength": 1000,
    "description": "Which app: its appId or name from wpf_list_apps, or pid:N, process:NAME, title:REGEX, "
    "script:PATH. Optional when exactly one app is running.",
}


@functools.cache
def standard_tool_names() -> tuple[str, ...]:
    """The ``wpf_*`` tools the broker forwards: every tool of the highest tier."""
    from wpfprobe.mcp.tools import all_tools  # noqa: PLC0415

    return tuple(spec.name for spec in all_tools(tier="mutate"))


def with_app_argument(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a tool's input schema with the optional ``app`` string added."""
    out: dict[str, Any] = copy.deepcopy(schema) if schema else {"type": "object"}
    out.setdefault("type", "object")
    props = dict(out.get("properties") or {})
    props["app"] = dict(APP_ARGUMENT)
    out["properties"] = props
    if "required" in out:
        out["required"] = [r for r in out["required"] if r != "app"]
    return out


def result(structured: BaseModel, text: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json", by_alias=True, exclude_none=True),
    )


def error_result(err: ProbeError) -> types.CallToolResult:
    from wpfprobe.mcp.catalog import error_result as probe_error_result  # noqa: PLC0415

    return types.CallToolResult.model_validate(probe_error_result(err))


# -- wire models -------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class AppSummary(_Model):
    app_id: str = Field(description="The id to pass as app (stable across restarts unless two apps share a name).")
    probe_app_id: str = Field(description="The probe's own id, <name>-<pid>.")
    name: str
    pid: int
    toolkit: str
    tier: Literal["read", "interact", "mutate"]
    runtime: str
    windows: list[str] = Field(description="Titles of the app's top-level windows, main first.")
    url: str = Field(description="Where the app's own MCP server listens (the token is not shown).")
    started_at: str
    custom_tools: list[str] = Field(default_factory=list, description="This app's own tools, as the broker names them.")
    responding: bool = Field(
        default=True,
        description="False while the app does not answer (its process stopped, its UI thread busy, or too slow): "
        "it stays listed with what was last known, calls to it fail with APP_NOT_AVAILABLE or DISPATCHER_BUSY, "
        "and it answers again by itself once it runs. note says why.",
    )
    note: str | None = Field(default=None, description="Why the app is not responding.")


class AppList(_Model):
    apps: list[AppSummary]
    attachable: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Running pythonnet apps with no probe yet: pid, name, python, runtime, windows, cmdline "
        "(wpf_attach_app {pid} enters one, where the broker allows it).",
    )


class ListAppsArgs(_Model):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, alias_generator=to_camel)


class LaunchArgs(_Model):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, alias_generator=to_camel)

    profile: str | None = Field(default=None, min_length=1, max_length=200, description="A saved profile's name.")
    script: str | None = Field(
        default=None, min_length=1, max_length=4096, description="Path of a python script (.py) to run with the probe."
    )
    args: list[Annotated[str, Field(max_length=4096)]] = Field(
        default_factory=list, max_length=100, description="Arguments for the script."
    )
    cwd: str | None = Field(default=None, max_length=4096, description="Working directory (default: the broker's).")
    allow: Literal["read", "interact", "mutate"] | None = Field(
        default=None, description="The probe's tier: read (default), interact or mutate."
    )
    name: str | None = Field(default=None, min_length=1, max_length=200, description="The app's name (its appId).")
    timeout_seconds: float = Field(
        default=60.0, gt=0, le=600, description="How long to wait for the app's UI and probe to come up."
    )

    @model_validator(mode="after")
    def _one_source(self) -> LaunchArgs:
        if (self.profile is None) == (self.script is None):
            raise ValueError("give exactly one of profile or script")
        if self.profile is not None and self.args:
            raise ValueError("args go with script; a profile has its own command")
        return self


def apps_text(apps: Sequence[AppSummary]) -> str:
    if not apps:
        return "(no wpfprobe apps are running; start one with `wpfprobe run SCRIPT` or wpf_launch_app)"
    lines = []
    for a in apps:
        titles = ", ".join(f'"{t}"' for t in a.windows) or "(no windows)"
        line = f"{a.app_id}  {a.name}  pid {a.pid}  {a.toolkit}  {a.tier}  {titles}"
        if a.custom_tools:
            line += "  tools: " + ", ".join(a.custom_tools)
        if not a.responding:
            line += f"  NOT RESPONDING: {a.note or 'it does not answer'}"
        lines.append(line)
    return "\n".join(lines)


def _invalid(tool: str, exc: ValidationError) -> InvalidArgumentError:
    problems = []
    for e in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in e.get("loc", ())) or "(arguments)"
        problems.append(f"{where}: {e.get('msg', 'invalid')}")
    return InvalidArgumentError(
        f"Invalid arguments for {tool}: " + "; ".join(problems),
        suggestion=f"Check the arguments against {tool}'s input schema (tools/list).",
        detail={"problems": problems},
    )
