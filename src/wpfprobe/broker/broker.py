"""``wpfprobe mcp``: one stdio MCP server for every running probe of this user.

The broker finds probes through their discovery manifests, keeps one MCP client
session to each, and serves their tools as its own:

- ``wpf_list_apps``: the running apps (appId, name, pid, toolkit, tier, window titles).
- every standard ``wpf_*`` tool, with an optional ``app`` argument naming the app
  (any target form of ``_targets``: appId, name, ``pid:N``, ``process:NAME``,
  ``title:REGEX``, ``script:PATH``); optional with one app running, required with
  several (APP_AMBIGUOUS). The call goes to that app unchanged; its result (structured
  content, text, images, isError) comes back unchanged, tier refusals included.
- each app's custom tools as ``<appId>__<name>``.
- ``wpf_launch_app``: start a python script or a saved profile with the probe attached.

appIds. A probe names itself ``<name-slug>-<pid>``, which changes when the app
restarts. The broker shows the name slug alone (``orders``) when no other live app
has that name, and the probe's own id (``orders-4242``) for apps that share a name.
So a restarted app keeps its id, its custom tools keep their names, and an agent
that remembered ``app="orders"`` reaches it again without being reconfigured.

Tool names must match ``^[a-zA-Z0-9_-]{1,64}$``. A custom tool name longer than 64
characters is cut to 55 and given ``-`` plus the first 8 hex digits of the SHA-256
of the full name: deterministic, so the same app and tool always get the same name.

Liveness. The sessions directory is scanned every second (and before a call whose
app is unknown): stale manifests are removed by ``_manifest.read_all``; a manifest
whose pid does not listen on its url, or whose probe reports another pid, is forged
and ignored (the port check runs before the token is sent anywhere). Apps that come
and go change the tool list (custom tools) and the client is sent
``notifications/tools/list_changed``. A call to an app that dies fails with
APP_NOT_AVAILABLE within a fraction of a second (the pid is watched while the call
runs), and the app is dropped. Each app has its own session: one app failing or
being slow never holds up a call to another.

Launching runs only python scripts and saved profiles, never an arbitrary command:
an agent-facing tool that runs any executable would let whatever the agent reads
(a web page, a file, a tool result) execute code on the user's machine. A script is
still code, but it runs under the probe in the interpreter the user installed
wpfprobe into, and a profile is a command the user saved on purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import hashlib
import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, cast

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from wpfprobe.mcp import manifest as _manifest
from wpfprobe.apps import targets as _targets
from wpfprobe.mcp.client import CALL_TIMEOUT, ProbeClient, gone, process_facts
from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError, ProbeError
from wpfprobe.mcp.manifest import Manifest
from wpfprobe.apps.targets import Candidate

log = logging.getLogger("wpfprobe.broker")

LIST_APPS = "wpf_list_apps"
LAUNCH_APP = "wpf_launch_app"
SEPARATOR = "__"
MAX_TOOL_NAME = 64
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SCAN_INTERVAL = 1.0
CUSTOM_CALL_TIMEOUT = 120.0
"""An app's own tool may do real work; still bounded, so a call never hangs."""
_UNREACHABLE_RETRY = 5.0
"""Seconds before a manifest whose app did not answer is tried again."""

APP_ARGUMENT = {
    "type": "string",
    "maxLength": 1000,
    "description": "Which app: its appId or name from wpf_list_apps, or pid:N, process:NAME, title:REGEX, "
    "script:PATH. Optional when exactly one app is running.",
}

INSTRUCTIONS = (
    "wpfprobe's broker: one entry for every running wpfprobe app (WPF or WinForms under pythonnet). "
    "Call wpf_list_apps first. Every wpf_* tool takes an optional app argument (appId or name from "
    "wpf_list_apps), required when several apps run. An app's own tools are listed as <appId>__<tool>. "
    "wpf_launch_app starts a python script or a saved profile with the probe attached."
)


# -- pure parts ------------------------------------------------------------------------------


@functools.cache
def standard_tool_names() -> tuple[str, ...]:
    """The ``wpf_*`` tools the broker forwards: every tool of the highest tier."""
    from wpfprobe.mcp.tools import all_tools  # noqa: PLC0415

    return tuple(spec.name for spec in all_tools(tier="mutate"))


def with_app_argument(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a tool's input schema with the optional ``app`` string added."""
    out = copy.deepcopy(schema) if schema else {"type": "object"}
    out.setdefault("type", "object")
    props = dict(out.get("properties") or {})
    props["app"] = dict(APP_ARGUMENT)
    out["properties"] = props
    if "required" in out:
        out["required"] = [r for r in out["required"] if r != "app"]
    return out


def exposed_name(app_id: str, tool: str) -> str:
    """``<appId>__<tool>``, valid as an MCP tool name and at most 64 characters.

    Characters outside ``[a-zA-Z0-9_-]`` become ``-``; a name that is still too long is
    cut to 55 characters plus ``-`` and 8 hex digits of the SHA-256 of the uncut name.
    """
    name = f"{_clean(app_id)}{SEPARATOR}{_clean(tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}-{digest}"


def _clean(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "-", text) or "x"


def broker_ids(manifests: Sequence[Manifest]) -> dict[str, str]:
    """The id the broker shows for each live app, keyed by the probe's own appId.

    The name slug when no other live app has the same slug (stable across restarts),
    else the probe's appId (``<slug>-<pid>``, unique).
    """
    slugs: dict[str, int] = {}
    for m in manifests:
        s = _targets.slug(m.app_name)
        slugs[s] = slugs.get(s, 0) + 1
    probe_ids = {m.app_id for m in manifests}
    out: dict[str, str] = {}
    for m in manifests:
        s = _targets.slug(m.app_name)
        # A slug that is some other app's probe id would make that id name two apps.
        unique = slugs[s] == 1 and (s == m.app_id or s not in probe_ids)
        out[m.app_id] = s if unique else m.app_id
    return out


def call_timeout(tool: str, arguments: dict[str, Any], *, custom: bool = False) -> float:
    """How long the broker waits for an app's answer: long enough for the tool's own wait."""
    if custom:
        return CUSTOM_CALL_TIMEOUT
    if tool == "wpf_wait_for":
        waited = arguments.get("timeoutMs")
        if isinstance(waited, (int, float)) and not isinstance(waited, bool) and 0 <= waited <= 3_600_000:
            return max(CALL_TIMEOUT, waited / 1000 + 15)
    return CALL_TIMEOUT


def result(structured: BaseModel, text: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json", by_alias=True, exclude_none=True),
    )


def error_result(err: ProbeError) -> types.CallToolResult:
    from wpfprobe.mcp.toolserver import error_result as probe_error_result  # noqa: PLC0415

    return probe_error_result(err)


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


class AppList(_Model):
    apps: list[AppSummary]


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


# -- the broker ----------------------------------------------------------------------------------


@dataclass
class AppRecord:
    """One live app the broker talks to."""

    manifest: Manifest
    client: ProbeClient
    info: dict[str, Any]
    titles: tuple[str, ...] = ()
    cmdline: tuple[str, ...] = ()
    cwd: str | None = None
    process_name: str = ""
    exe: str = ""
    tools: list[types.Tool] = field(default_factory=list)
    broker_id: str = ""
    watcher: asyncio.Task[None] | None = None
    dropped: bool = False

    @property
    def key(self) -> str:
        return self.manifest.app_id

    def candidate(self) -> Candidate:
        return Candidate(
            manifest=self.manifest,
            app_id=self.broker_id,
            titles=self.titles,
            cmdline=self.cmdline,
            cwd=self.cwd,
            process_name=self.process_name,
            exe=self.exe,
        )

    def custom_tools(self) -> list[types.Tool]:
        standard = set(standard_tool_names())
        return [t for t in self.tools if t.name not in standard and not t.name.startswith("wpf_")]

    def summary(self) -> AppSummary:
        m = self.manifest
        return AppSummary(
            app_id=self.broker_id or m.app_id,
            probe_app_id=m.app_id,
            name=m.app_name,
            pid=m.pid,
            toolkit=str(self.info.get("toolkit") or m.toolkit),
            tier=cast(Any, self.info.get("tier") or m.tier),
            runtime=m.runtime,
            windows=list(self.titles),
            url=m.url,
            started_at=m.started_at,
            custom_tools=[exposed_name(self.broker_id or m.app_id, t.name) for t in self.custom_tools()],
        )


def _manifest_key(m: Manifest) -> tuple[str, int, float, str]:
    return (m.app_id, m.pid, m.process_start_time, m.url)


class Broker:
    """The broker's state and its MCP handlers (low-level server: the tool list changes at runtime)."""

    def __init__(self, *, directory: Path | None = None, scan_interval: float = SCAN_INTERVAL) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus  # noqa: PLC0415

        self._directory = directory
        self._scan_interval = scan_interval
        self._apps: dict[str, AppRecord] = {}
        self._forged: set[tuple[str, int, float, str]] = set()
        self._unreachable: dict[tuple[str, int, float, str], float] = {}
        self._scan_lock = asyncio.Lock()
        self._bus = InMemorySubscriptionBus()
        self._session: Any = None
        self._announced: frozenset[str] | None = None
        self._standard = standard_tool_names()
        self._standard_tools: list[types.Tool] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._scanned = asyncio.Event()

    # -- discovery --------------------------------------------------------------------------

    async def refresh(self, *, titles: bool = False) -> None:
        """Re-read the manifests: admit new apps, drop gone ones; optionally re-read window titles."""
        async with self._scan_lock:
            manifests = await asyncio.to_thread(_manifest.read_all, self._directory)
            live = {m.app_id: m for m in manifests}
            for key, rec in list(self._apps.items()):
                current = live.get(key)
                if current is None or _manifest_key(current) != _manifest_key(rec.manifest):
                    self._drop(rec, "its manifest is gone")
            now = time.monotonic()
            fresh = [
                m
                for m in manifests
                if m.app_id not in self._apps
                and _manifest_key(m) not in self._forged
                and self._unreachable.get(_manifest_key(m), 0.0) <= now
            ]
            if fresh:
                admitted = await asyncio.gather(*(self._admit(m) for m in fresh))
                for rec in admitted:
                    if rec is not None:
                        self._apps[rec.key] = rec
                        rec.watcher = self._spawn(self._watch(rec))
            if titles:
                await asyncio.gather(*(self._read_titles(rec) for rec in list(self._apps.values())))
            self._assign_ids()
        self._scanned.set()
        await self._announce_if_changed()

    async def _admit(self, manifest: Manifest) -> AppRecord | None:
        key = _manifest_key(manifest)
        client = ProbeClient(manifest)
        try:
            await client.__aenter__()
        except AppNotAvailableError as err:
            if "does not serve the url" in err.message:
                self._forged.add(key)
                log.warning("ignoring a manifest whose pid does not serve its url", extra={"app": manifest.app_id})
            else:
                self._unreachable[key] = time.monotonic() + _UNREACHABLE_RETRY
                log.info("app not reachable", extra={"app": manifest.app_id, "outcome": "APP_NOT_AVAILABLE"})
            return None
        try:
            info_result = await client.call_tool("wpf_get_session_info", {}, timeout=10)
            info = info_result.structured_content if isinstance(info_result.structured_content, dict) else {}
            if info_result.is_error or info.get("pid") != manifest.pid or info.get("appId") != manifest.app_id:
                # Someone else answers at that url: a forged manifest (or a reused port).
                self._forged.add(key)
                log.warning("ignoring a manifest whose server is not that app's probe", extra={"app": manifest.app_id})
                await client.__aexit__(None, None, None)
                return None
            tools = await client.list_tools()
            rec = AppRecord(manifest=manifest, client=client, info=info, tools=tools)
            await self._read_titles(rec)
            rec.cmdline, rec.cwd, rec.process_name, rec.exe = await asyncio.to_thread(process_facts, manifest.pid)
            log.info("app admitted", extra={"app": manifest.app_id})
            return rec
        except AppNotAvailableError:
            self._unreachable[key] = time.monotonic() + _UNREACHABLE_RETRY
            await client.__aexit__(None, None, None)
            return None
        except Exception:  # noqa: BLE001 - a misbehaving app is skipped, never fatal
            log.warning("app skipped: unexpected answer", extra={"app": manifest.app_id}, exc_info=True)
            self._unreachable[key] = time.monotonic() + _UNREACHABLE_RETRY
            await client.__aexit__(None, None, None)
            return None

    async def _read_titles(self, rec: AppRecord) -> None:
        try:
            answer = await rec.client.call_tool("wpf_get_windows", {}, timeout=10)
        except AppNotAvailableError:
            self._drop(rec, "it did not answer")
            return
        content = answer.structured_content if isinstance(answer.structured_content, dict) else {}
        if not answer.is_error:
            rec.titles = tuple(str(w.get("title") or "") for w in content.get("windows", []) if isinstance(w, dict))

    def _assign_ids(self) -> None:
        ids = broker_ids([rec.manifest for rec in self._apps.values()])
        for key, rec in self._apps.items():
            rec.broker_id = ids.get(key, key)

    def _drop(self, rec: AppRecord, reason: str) -> None:
        if rec.dropped:
            return
        rec.dropped = True
        if self._apps.get(rec.key) is rec:
            del self._apps[rec.key]
        log.info("app dropped: %s", reason, extra={"app": rec.key})
        if rec.watcher is not None and rec.watcher is not asyncio.current_task():
            rec.watcher.cancel()
        self._spawn(rec.client.__aexit__(None, None, None))
        self._spawn(self._after_drop())

    async def _after_drop(self) -> None:
        self._assign_ids()
        await self._announce_if_changed()

    async def _watch(self, rec: AppRecord) -> None:
        """Follow the app's own tools/list_changed, and notice when its session ends."""
        from mcp.client.subscriptions import ListenNotSupportedError  # noqa: PLC0415

        while not rec.dropped:
            try:
                async with rec.client.session.listen(tools_list_changed=True) as events:
                    async for _event in events:
                        rec.tools = await rec.client.list_tools()
                        self._assign_ids()
                        await self._announce_if_changed()
            except ListenNotSupportedError:
                # An app without change streams: its tools are read when it is admitted.
                await rec.client.wait_lost()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the stream broke: find out whether the app is gone
                log.debug("change stream of %s ended", rec.key, exc_info=True)
            if rec.dropped:
                return
            if not rec.client.connected or not await asyncio.to_thread(_manifest.is_live, rec.manifest):
                self._drop(rec, "its process exited")
                return
            await asyncio.sleep(2)

    async def scan_forever(self) -> None:
        while True:
            try:
                await self.refresh()
            except Exception:  # noqa: BLE001 - one bad scan must not end discovery
                log.warning("scan failed", exc_info=True)
            await asyncio.sleep(self._scan_interval)

    async def close(self) -> None:
        for rec in list(self._apps.values()):
            rec.dropped = True
            if rec.watcher is not None:
                rec.watcher.cancel()
        await asyncio.gather(*(rec.client.__aexit__(None, None, None) for rec in self._apps.values()), return_exceptions=True)
        self._apps.clear()
        for task in list(self._background):
            task.cancel()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # -- the tool list ------------------------------------------------------------------------

    async def _standard_listing(self) -> list[types.Tool]:
        if self._standard_tools is None:
            from wpfprobe.engine.engine import Engine  # noqa: PLC0415
            from wpfprobe.mcp.toolserver import build_server  # noqa: PLC0415

            # The probe's own server builds the schemas, so they match what apps list; the
            # tool functions are never called here, so no engine is needed.
            local = build_server(cast(Engine, None), tier="mutate")
            tools = []
            for tool in await local.list_tools():
                if tool.name in self._standard:
                    tools.append(tool.model_copy(update={"input_schema": with_app_argument(tool.input_schema)}))
            self._standard_tools = tools
        return self._standard_tools

    def _broker_tools(self) -> list[types.Tool]:
        read_only = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
        return [
            types.Tool(
                name=LIST_APPS,
                title="List apps",
                description="The running wpfprobe apps: appId (pass it as app), name, pid, toolkit, tier "
                "(what the app allows), window titles and the app's own tools. Call first.",
                input_schema=ListAppsArgs.model_json_schema(by_alias=True),
                output_schema=AppList.model_json_schema(by_alias=True),
                annotations=read_only,
            ),
            types.Tool(
                name=LAUNCH_APP,
                title="Launch app",
                description="Start a python script (with args) or a saved profile with the probe attached, and "
                "return the app as wpf_list_apps describes it once its UI is up. Only python scripts and "
                "saved profiles: no other executables.",
                input_schema=LaunchArgs.model_json_schema(by_alias=True),
                output_schema=AppSummary.model_json_schema(by_alias=True),
                annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
            ),
        ]

    def _custom_listing(self) -> dict[str, tuple[AppRecord, types.Tool]]:
        out: dict[str, tuple[AppRecord, types.Tool]] = {}
        for rec in sorted(self._apps.values(), key=lambda r: r.broker_id):
            for tool in rec.custom_tools():
                name = exposed_name(rec.broker_id or rec.key, tool.name)
                description = f"[{rec.broker_id} · {rec.manifest.app_name}] {tool.description or tool.name}"
                out[name] = (rec, tool.model_copy(update={"name": name, "description": description}))
        return out

    async def list_tools(self) -> list[types.Tool]:
        # The first listing waits for the first scan, so an agent that connects while apps
        # run sees their tools at once (bounded: a slow app is listed when it answers).
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._scanned.wait(), 8)
        custom = [tool for _, tool in self._custom_listing().values()]
        tools = [*self._broker_tools(), *await self._standard_listing(), *custom]
        self._announced = frozenset(t.name for t in tools)
        return tools

    def _names(self) -> frozenset[str]:
        return frozenset([LIST_APPS, LAUNCH_APP, *self._standard, *self._custom_listing()])

    async def _announce_if_changed(self) -> None:
        names = self._names()
        if self._announced is None:
            self._announced = names
            return
        if names == self._announced:
            return
        self._announced = names
        await self.notify_tools_changed()

    async def notify_tools_changed(self) -> None:
        from mcp.shared.subscriptions import ToolsListChanged  # noqa: PLC0415
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: PLC0415

        # 2026-07-28 clients hear it on their subscriptions/listen stream; handshake-era
        # clients (Claude Code and most others today) as a plain notification.
        await self._bus.publish(ToolsListChanged())
        session = self._session
        if session is not None and session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            with contextlib.suppress(Exception):
                await session.send_tool_list_changed()
        log.info("tool list changed")

    # -- calls ----------------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        started = time.perf_counter()
        outcome = "ok"
        app = ""
        try:
            args = dict(arguments or {})
            if name == LIST_APPS:
                out = await self._list_apps(args)
            elif name == LAUNCH_APP:
                out = await self._launch(args)
            elif name in self._standard:
                target = args.pop("app", None)
                if target is not None and not isinstance(target, str):
                    raise InvalidArgumentError(
                        "app must be a string: an appId or name from wpf_list_apps.",
                        suggestion="Call wpf_list_apps and pass one of its appIds as app.",
                        detail={"problems": ["app: must be a string"]},
                    )
                rec = await self._select(target)
                app = rec.key
                out = await self._forward(rec, name, args, timeout=call_timeout(name, args))
            else:
                rec, tool = await self._custom_target(name)
                app = rec.key
                out = await self._forward(rec, tool, args, timeout=call_timeout(tool, args, custom=True))
        except ProbeError as err:
            out = error_result(err)
        except Exception as exc:  # noqa: BLE001 - nothing may escape into the server
            log.warning("broker call failed", extra={"tool": name}, exc_info=True)
            out = error_result(
                ProbeError(
                    f"{name} failed in the broker ({type(exc).__name__}).",
                    code="INTERNAL",
                    suggestion="Retry; if it persists, run wpfprobe mcp --log-level DEBUG and report the log.",
                )
            )
        if out.is_error:
            code = out.structured_content.get("code") if isinstance(out.structured_content, dict) else None
            outcome = str(code or "error")
        # Tool, app, duration and outcome only: never arguments, values or the token.
        log.info(
            "call",
            extra={"tool": name, "app": app or None, "durationMs": round((time.perf_counter() - started) * 1000, 1), "outcome": outcome},
        )
        return out

    async def _forward(self, rec: AppRecord, tool: str, args: dict[str, Any], *, timeout: float) -> types.CallToolResult:
        try:
            answer = await rec.client.call_tool(tool, args, timeout=timeout)
        except AppNotAvailableError as err:
            self._drop(rec, "a call failed")
            return error_result(err)
        if not isinstance(answer, types.CallToolResult):
            raise ProbeError(f"{tool}: the app answered with something that is not a tool result.", code="INTERNAL")
        return answer

    async def _select(self, target: str | None) -> AppRecord:
        text = (target or "").strip()
        if text.lower().startswith("title:"):
            await self.refresh(titles=True)
        try:
            return self._resolve(text)
        except ProbeError as err:
            if err.code != "APP_NOT_AVAILABLE":
                raise
        # Unknown: maybe it started (or restarted) since the last scan.
        await self.refresh()
        return self._resolve(text)

    def _resolve(self, text: str) -> AppRecord:
        records = {rec.key: rec for rec in self._apps.values() if not rec.dropped}
        chosen = _targets.resolve(text or None, [rec.candidate() for rec in records.values()])
        return records[chosen.manifest.app_id]

    async def _custom_target(self, name: str) -> tuple[AppRecord, str]:
        listing = self._custom_listing()
        if name not in listing:
            await self.refresh()
            listing = self._custom_listing()
        if name in listing:
            rec, _ = listing[name]
            original = next(t.name for t in rec.custom_tools() if exposed_name(rec.broker_id or rec.key, t.name) == name)
            return rec, original
        if SEPARATOR in name:
            prefix = name.split(SEPARATOR, 1)[0]
            raise AppNotAvailableError(
                f"No running app offers the tool {name!r} (app {prefix!r} is not running, or no longer has it).",
                suggestion="Call wpf_list_apps to see the running apps and their tools, then tools/list again.",
                detail={"tool": name, "apps": [rec.candidate().summary() for rec in self._apps.values()]},
            )
        raise InvalidArgumentError(
            f"Unknown tool {name!r}.",
            suggestion="Call tools/list for the tools this broker offers; start with wpf_list_apps.",
            detail={"tool": name},
        )

    async def _list_apps(self, args: dict[str, Any]) -> types.CallToolResult:
        try:
            ListAppsArgs.model_validate(args, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(LIST_APPS, exc) from None
        await self.refresh(titles=True)
        apps = [rec.summary() for rec in sorted(self._apps.values(), key=lambda r: (r.manifest.app_name.lower(), r.manifest.pid))]
        listing = AppList(apps=apps)
        return result(listing, apps_text(apps))

    async def _launch(self, args: dict[str, Any]) -> types.CallToolResult:
        try:
            parsed = LaunchArgs.model_validate(args, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(LAUNCH_APP, exc) from None
        command, options = launch_plan(parsed)
        from wpfprobe.apps import launch as _launch  # noqa: PLC0415

        # The launcher blocks until the app's UI is up: a worker thread keeps the broker serving.
        launched = await asyncio.to_thread(lambda: _launch.launch(command, **options))
        manifest: Manifest = launched.manifest
        # The app is the broker's child: reap it when it exits, or its zombie would look alive.
        threading.Thread(target=launched.process.wait, name="wpfprobe-reap", daemon=True).start()
        await self.refresh(titles=True)
        rec = self._apps.get(manifest.app_id)
        if rec is None:
            raise gone(manifest, "it started but does not answer the broker")
        summary = rec.summary()
        return result(summary, apps_text([summary]))


def launch_plan(args: LaunchArgs) -> tuple[list[str], dict[str, Any]]:
    """The command and keyword options for ``_launch.launch`` from the tool's arguments."""
    if args.profile is not None:
        from wpfprobe.apps import profiles as _profiles  # noqa: PLC0415

        profile = _profiles.get_profile(args.profile)
        return list(profile.command), {
            "allow": args.allow or profile.allow or "read",
            "name": args.name,
            "cwd": args.cwd or profile.cwd,
            "env": dict(profile.env) if profile.env else None,
            "timeout": args.timeout_seconds,
        }
    assert args.script is not None
    base = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if args.cwd and not base.is_dir():
        raise InvalidArgumentError(f"cwd {args.cwd!r} is not a directory.", suggestion="Pass an existing directory as cwd.")
    script = Path(args.script).expanduser()
    if not script.is_absolute():
        script = base / script
    if script.suffix.lower() not in (".py", ".pyw"):
        raise InvalidArgumentError(
            f"{args.script!r} is not a python script: wpf_launch_app runs .py scripts and saved profiles only.",
            suggestion="Pass the .py file that starts the app, or a profile the user saved.",
            detail={"script": args.script},
        )
    if not script.is_file():
        raise InvalidArgumentError(
            f"No such script: {script}.", suggestion="Check the path (relative paths are taken from cwd).",
            detail={"script": str(script)},
        )
    return [str(script.resolve()), *args.args], {
        "allow": args.allow or "read",
        "name": args.name,
        "cwd": str(base.resolve()) if args.cwd else None,
        "env": None,
        "timeout": args.timeout_seconds,
    }


def apps_text(apps: Sequence[AppSummary]) -> str:
    if not apps:
        return "(no wpfprobe apps are running; start one with `wpfprobe run SCRIPT` or wpf_launch_app)"
    lines = []
    for a in apps:
        titles = ", ".join(f'"{t}"' for t in a.windows) or "(no windows)"
        line = f"{a.app_id}  {a.name}  pid {a.pid}  {a.toolkit}  {a.tier}  {titles}"
        if a.custom_tools:
            line += "  tools: " + ", ".join(a.custom_tools)
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


# -- serving over stdio -------------------------------------------------------------------------


def build_server(broker: Broker) -> Any:
    """The low-level MCP server whose tools/list and tools/call are the broker's."""
    from mcp.server.lowlevel.server import Server  # noqa: PLC0415
    from mcp.server.subscriptions import ListenHandler  # noqa: PLC0415

    from wpfprobe.core.version import __version__  # noqa: PLC0415

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await broker.list_tools())

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await broker.call_tool(params.name, params.arguments)

    async def remember_session(ctx: Any, call_next: Any) -> Any:
        # stdio has one client: its session is where list_changed notifications go.
        broker._session = ctx.session  # noqa: SLF001
        return await call_next(ctx)

    server: Any = Server(
        "wpfprobe-broker",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_subscriptions_listen=ListenHandler(broker._bus),  # noqa: SLF001
    )
    server.middleware.append(remember_session)
    return server


async def serve_stdio(*, directory: Path | None = None, scan_interval: float = SCAN_INTERVAL) -> None:
    """Serve the broker on stdin/stdout until the client closes stdin."""
    from mcp.server.lowlevel.server import NotificationOptions  # noqa: PLC0415
    from mcp.server.stdio import stdio_server  # noqa: PLC0415

    broker = Broker(directory=directory, scan_interval=scan_interval)
    server = build_server(broker)
    scanner = asyncio.ensure_future(broker.scan_forever())
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(
                read_stream,
                write_stream,
                server.create_initialization_options(NotificationOptions(tools_changed=True)),
            )
    finally:
        scanner.cancel()
        with contextlib.suppress(BaseException):
            await scanner
        await broker.close()


def main(*, log_level: str | None = None, log_file: str | None = None) -> int:
    """``wpfprobe mcp``: returns when the client disconnects."""
    from wpfprobe.core import logs as _logging  # noqa: PLC0415

    _logging.configure(level=log_level, file=log_file)
    # Nothing but MCP frames may reach stdout; the SDK's own loggers go to stderr (or the file).
    try:
        asyncio.run(serve_stdio())
    except KeyboardInterrupt:
        return 0
    return 0

