"""The broker's side of attaching: the running pythonnet apps without a probe, which
``wpf_list_apps`` shows as attachable, and ``wpf_attach_app``, which enters one.

Entering a process is more than reading it, so ``wpf_attach_app`` is served only by a
broker started with ``--allow interact`` or ``mutate`` (``wpfprobe mcp --allow``), and it
attaches at most at the broker's own tier: an agent whose broker only reads cannot start a
probe that clicks. The attach itself (``apps.attach``) runs on a worker thread, so the
broker keeps answering other calls while a process is entered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from wpfprobe.broker.wire import AppSummary, LaunchArgs, _invalid, apps_text, result
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.engine.engine import Tier

AttachCall = Callable[[Any, dict[str, Any]], Awaitable[types.CallToolResult]]
"""(the broker, the arguments) -> the result, as ``broker.BrokerTool.call``."""

ATTACH_APP = "wpf_attach_app"
_TIERS: tuple[Tier, ...] = ("read", "interact", "mutate")


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class Attachable(_Model):
    """A running pythonnet app with no probe inside, as ``wpfprobe ps`` lists it."""

    pid: int
    name: str = Field(description="Its script's name, else its process name.")
    python: str
    runtime: str
    windows: list[str] = Field(default_factory=list)
    cmdline: list[str] = Field(default_factory=list)


class AttachArgs(_Model):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, alias_generator=to_camel)

    pid: int = Field(gt=0, description="The process, from wpf_list_apps' attachable list.")
    allow: Literal["read", "interact", "mutate"] = Field(
        default="read", description="The probe's tier (at most the broker's own): read, interact or mutate."
    )
    name: str | None = Field(default=None, min_length=1, max_length=200, description="The app's name (its appId).")


def attachable_processes(probed: Iterable[int]) -> list[Attachable]:
    """This user's pythonnet apps whose pid is not in ``probed`` (the apps the broker serves)."""
    from wpfprobe.apps.attach.attacher import default_name  # noqa: PLC0415
    from wpfprobe.apps.attach.processes import list_processes  # noqa: PLC0415

    skip = set(probed)
    return [
        Attachable(
            pid=r.pid,
            name=default_name(r),
            python=r.python,
            runtime=r.runtime,
            windows=list(r.titles),
            cmdline=list(r.cmdline),
        )
        for r in list_processes(titles=True)
        if r.pid not in skip and r.app_id is None and r.state == "running"
    ]


def attachable_text(rows: list[Attachable]) -> str:
    if not rows:
        return ""
    lines = ["attachable (no probe yet; wpf_attach_app {pid}):"]
    for r in rows:
        titles = ", ".join(f'"{t}"' for t in r.windows) or "(no windows read)"
        lines.append(f"  pid {r.pid}  {r.name}  Python {r.python}  {r.runtime}  {titles}")
    return "\n".join(lines)


def attach_tool(tier: Tier) -> tuple[types.Tool, AttachCall] | None:
    """``wpf_attach_app`` for a broker of ``tier`` (None for a read-only broker), as the tool and
    its call; the command line hands them to the broker as a ``BrokerTool``."""
    if tier not in _TIERS:
        raise InvalidArgumentError(f"The broker's tier must be one of {', '.join(_TIERS)}, got {tier!r}.")
    if tier == "read":
        return None
    tool = types.Tool(
        name=ATTACH_APP,
        title="Attach to a running app",
        description="Start the probe inside a pythonnet app that is already running (a pid from "
        "wpf_list_apps' attachable list), without restarting it, and return the app as wpf_list_apps "
        f"describes it. allow: read (default) up to {tier}, this broker's tier. Idempotent.",
        input_schema=AttachArgs.model_json_schema(by_alias=True),
        output_schema=AppSummary.model_json_schema(by_alias=True),
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )

    async def call(broker: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await _attach(broker, args, ceiling=tier)

    return tool, call


async def _attach(broker: Any, args: dict[str, Any], *, ceiling: Tier) -> types.CallToolResult:
    from wpfprobe.apps.attach import attacher  # noqa: PLC0415

    try:
        parsed = AttachArgs.model_validate(args, by_alias=True, by_name=False)
    except ValidationError as exc:
        raise _invalid(ATTACH_APP, exc) from None
    if _TIERS.index(parsed.allow) > _TIERS.index(ceiling):
        raise InvalidArgumentError(
            f"This broker may attach at most at the {ceiling} tier, not {parsed.allow}.",
            suggestion=f'Pass allow="{ceiling}" or lower; the user starts the broker with '
            f"`wpfprobe mcp --allow {parsed.allow}` to allow more.",
            detail={"allow": parsed.allow, "brokerTier": ceiling},
        )
    done = await asyncio.to_thread(attacher.attach, parsed.pid, allow=parsed.allow, name=parsed.name)
    return await _listed(broker, done.pid, done.app_id)


async def attach_profile(broker: Any, parsed: LaunchArgs) -> types.CallToolResult | None:
    """``wpf_launch_app {profile}`` of a profile that names a running app: attach to it (None for
    a profile that launches). The user saved that profile, as they saved a command to launch."""
    from wpfprobe.apps.attach.attacher import attach_running  # noqa: PLC0415
    from wpfprobe.apps.profiles import get_profile  # noqa: PLC0415

    if parsed.profile is None:
        return None
    profile = get_profile(parsed.profile)
    if profile.attach is None:
        return None
    done = await asyncio.to_thread(
        lambda: attach_running(
            name=profile.attach.name if profile.attach else None, title=profile.attach.title if profile.attach else None,
            allow=parsed.allow or profile.allow, app_name=parsed.name or profile.name, timeout=parsed.timeout_seconds,
        )
    )  # fmt: skip
    return await _listed(broker, done.pid, done.app_id)


async def _listed(broker: Any, pid: int, app_id: str) -> types.CallToolResult:
    """The attached app as wpf_list_apps shows it, once the broker has admitted it."""
    from wpfprobe.apps.attach import attacher  # noqa: PLC0415
    from wpfprobe.mcp.client import gone  # noqa: PLC0415

    await broker.registry.refresh(titles=True)
    rec = broker.registry.apps.get(app_id)
    if rec is None:
        manifest = attacher.probe_in(pid)
        if manifest is None:
            raise InvalidArgumentError(f"The probe in process {pid} started but its manifest is not found.")
        raise gone(manifest, "it was attached but does not answer the broker")
    summary = rec.summary()
    return result(summary, apps_text([summary]))
