"""The broker's MCP handlers: its tool list, and each call routed to the right app.

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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from wpfprobe.apps import targets as _targets
from wpfprobe.broker.launch import launch_plan
from wpfprobe.broker.naming import SEPARATOR, exposed_name
from wpfprobe.broker.progress import Progress, ProgressSend
from wpfprobe.broker.registry import BUSY_NOTE, CHECK_WAIT, SCAN_INTERVAL, AppRecord, AppRegistry
from wpfprobe.broker.wire import (
    LAUNCH_APP,
    LIST_APPS,
    AppList,
    AppSummary,
    LaunchArgs,
    ListAppsArgs,
    _invalid,
    apps_text,
    error_result,
    result,
    standard_tool_names,
    with_app_argument,
)
from wpfprobe.core.calls import CallControl
from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError, ProbeError
from wpfprobe.mcp import looks
from wpfprobe.mcp.client import CALL_TIMEOUT, gone
from wpfprobe.mcp.manifest import Manifest
from wpfprobe.mcp.recording import Recorder, new_session_id

log = logging.getLogger("wpfprobe.broker")


@dataclass(frozen=True)
class BrokerTool:
    """A tool the broker serves itself, added by a layer above it (the broker cannot import that layer)."""

    tool: types.Tool
    call: Callable[[Broker, dict[str, Any]], Awaitable[types.CallToolResult]]


CUSTOM_CALL_TIMEOUT = 120.0
"""An app's own tool may do real work; still bounded, so a call never hangs."""


def call_timeout(tool: str, arguments: dict[str, Any], *, custom: bool = False) -> float:
    """How long the broker waits for an app's answer: long enough for the tool's own wait."""
    if custom:
        return CUSTOM_CALL_TIMEOUT
    if tool == "wpf_wait_for":
        waited = arguments.get("timeoutMs")
        if isinstance(waited, (int, float)) and not isinstance(waited, bool) and 0 <= waited <= 3_600_000:
            return max(CALL_TIMEOUT, waited / 1000 + 15)
    return CALL_TIMEOUT


class Broker:
    """The broker's state and its MCP handlers (low-level server: the tool list changes at runtime)."""

    def __init__(
        self,
        *,
        directory: Path | None = None,
        scan_interval: float = SCAN_INTERVAL,
        record_dir: Path | None = None,
        extra_tools: Sequence[BrokerTool] = (),
    ) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus  # noqa: PLC0415

        self.registry = AppRegistry(
            directory=directory, scan_interval=scan_interval, on_change=self._announce_if_changed
        )
        #: Where tools/list_changed goes: the subscription streams of 2026-07-28 clients, and
        #: the one stdio client's session (the server sets it) for handshake-era clients.
        self.bus = InMemorySubscriptionBus()
        self.session: Any = None
        self._announced: frozenset[str] | None = None
        self._standard = standard_tool_names()
        self._standard_tools: list[types.Tool] | None = None
        #: Where an agent's actions are recorded as replayable steps (``--record DIR``); None: only
        #: the last steps of each app are kept in memory, for wpf_file_ticket.
        self.record_dir = record_dir
        self._recorders: dict[str, Recorder] = {}
        #: How each app this broker launched can be started again (a recorded session's session.json).
        self._launched: dict[str, dict[str, Any]] = {}
        #: Tools a layer above serves through the broker (the test kit's wpf_run_scenario, wpf_file_ticket).
        self._extra = {t.tool.name: t for t in extra_tools}

    # -- the tool list ------------------------------------------------------------------------

    async def _standard_listing(self) -> list[types.Tool]:
        if self._standard_tools is None:
            from wpfprobe.mcp.catalog import ToolCatalog  # noqa: PLC0415

            # The probe's own catalog builds the schemas, so they match what apps list; the
            # tool functions are never called here, so no engine is needed.
            tools = []
            for listed in ToolCatalog(None, tier="mutate").list_tools():
                tool = types.Tool.model_validate(listed)
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
            *(t.tool for t in self._extra.values()),
        ]

    def _custom_listing(self) -> dict[str, tuple[AppRecord, types.Tool]]:
        out: dict[str, tuple[AppRecord, types.Tool]] = {}
        for rec in sorted(self.registry.apps.values(), key=lambda r: r.broker_id):
            for tool in rec.custom_tools():
                name = exposed_name(rec.broker_id or rec.key, tool.name)
                description = f"[{rec.broker_id} · {rec.manifest.app_name}] {tool.description or tool.name}"
                out[name] = (rec, tool.model_copy(update={"name": name, "description": description}))
        return out

    async def list_tools(self) -> list[types.Tool]:
        # The first listing waits for the first scan, so an agent that connects while apps
        # run sees their tools at once (bounded: a slow app is listed when it answers).
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.registry.scanned.wait(), 8)
        custom = [tool for _, tool in self._custom_listing().values()]
        tools = [*self._broker_tools(), *await self._standard_listing(), *custom]
        self._announced = frozenset(t.name for t in tools)
        return tools

    def _names(self) -> frozenset[str]:
        return frozenset([LIST_APPS, LAUNCH_APP, *self._extra, *self._standard, *self._custom_listing()])

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
        await self.bus.publish(ToolsListChanged())
        session = self.session
        if session is not None and session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            with contextlib.suppress(Exception):
                await session.send_tool_list_changed()
        log.info("tool list changed")

    # -- calls ----------------------------------------------------------------------------------

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, *, progress: ProgressSend | None = None
    ) -> types.CallToolResult:
        """Serve one tools/call. ``progress`` (the client sent a progressToken) gets a notification
        at least every second while the call runs; cancelling the caller cancels the work, an
        app's call included."""
        started = time.perf_counter()
        outcome = "ok"
        app = ""
        reporter = Progress(progress, what=name)
        out: types.CallToolResult | None = None
        try:
            args = dict(arguments or {})
            out, app = await reporter.run(self._dispatch(name, args, reporter))
        except ProbeError as err:
            out = error_result(err)
        except Exception as exc:  # nothing may escape into the server
            log.warning("broker call failed", extra={"tool": name}, exc_info=True)
            out = error_result(
                ProbeError(
                    f"{name} failed in the broker ({type(exc).__name__}).",
                    code="INTERNAL",
                    suggestion="Retry; if it persists, run wpfprobe mcp --log-level DEBUG and report the log.",
                )
            )
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            if outcome == "ok" and out is not None and out.is_error:
                code = out.structured_content.get("code") if isinstance(out.structured_content, dict) else None
                outcome = str(code or "error")
            # Tool, app, duration and outcome only: never arguments, values or the token.
            log.info(
                "call",
                extra={
                    "tool": name,
                    "app": app or None,
                    "durationMs": round((time.perf_counter() - started) * 1000, 1),
                    "outcome": outcome,
                },
            )
        assert out is not None
        return out

    async def _dispatch(self, name: str, args: dict[str, Any], reporter: Progress) -> tuple[types.CallToolResult, str]:
        """The call's result and the app it went to (empty for the broker's own tools)."""
        app = ""
        if name == LIST_APPS:
            out = await self._list_apps(args)
        elif name == LAUNCH_APP:
            out = await self._launch(args, reporter)
        elif name in self._extra:
            out = await self._extra[name].call(self, args)
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
            recorder = self.recorder_for(rec)
            began = recorder.begin()
            await looks.before(recorder, self._looker(rec), name)
            out = await self._forward(rec, name, args, timeout=call_timeout(name, args), reporter=reporter)
            content = out.structured_content if isinstance(out.structured_content, dict) else None
            recorder.record(
                name, args, structured=None if out.is_error else content,
                error=content if out.is_error else None, began=began,
                look=await looks.after(recorder, self._looker(rec), name),
            )  # fmt: skip
        else:
            rec, tool = await self._custom_target(name)
            app = rec.key
            out = await self._forward(rec, tool, args, timeout=call_timeout(tool, args, custom=True), reporter=reporter)
        return out, app

    async def _forward(
        self, rec: AppRecord, tool: str, args: dict[str, Any], *, timeout: float, reporter: Progress | None = None
    ) -> types.CallToolResult:
        relay = reporter.relay if reporter is not None and reporter.wanted else None
        try:
            answer = await rec.client.call_tool(tool, args, timeout=timeout, progress=relay)
        except AppNotAvailableError as err:
            # A stopped or slow app is kept (marked not responding); a dead one is dropped.
            await self.registry.failed(rec, err)
            return error_result(err)
        if not isinstance(answer, types.CallToolResult):
            raise ProbeError(f"{tool}: the app answered with something that is not a tool result.", code="INTERNAL")
        content = answer.structured_content if isinstance(answer.structured_content, dict) else {}
        if answer.is_error and content.get("code") == "DISPATCHER_BUSY":
            # Listed as not responding until a background check finds its UI thread free again.
            rec.mark(responding=False, note=BUSY_NOTE)
        return answer

    def recorder_for(self, rec: AppRecord) -> Recorder:
        """The recorder of one app's steps (a session per app; kept while the broker runs)."""
        recorder = self._recorders.get(rec.key)
        if recorder is None:
            session = new_session_id(f"agent-{_targets.slug(rec.manifest.app_name)}")
            about: dict[str, Any] = {"app": rec.manifest.app_name, "toolkit": rec.manifest.toolkit}
            if rec.manifest.app_id in self._launched:
                about["target"] = self._launched[rec.manifest.app_id]
            recorder = Recorder(self.record_dir, session_id=session, about=about)
            self._recorders[rec.key] = recorder
        return recorder

    def _looker(self, rec: AppRecord) -> looks.Call:
        """The calls a recorded session's looks make (looks.py), through the broker's session to the app."""
        return lambda tool, args: rec.client.call_tool(tool, args, timeout=looks.LOOK_TIMEOUT)

    async def select_app(self, target: str | None) -> AppRecord:
        """The live app ``target`` names (any target form; None: the only one), as tools/call resolves it."""
        return await self._select(target)

    def close_recorders(self) -> None:
        for recorder in self._recorders.values():
            recorder.close()

    async def _select(self, target: str | None) -> AppRecord:
        text = (target or "").strip()
        if text.lower().startswith("title:"):
            await self.registry.refresh(titles=True)
        try:
            return self._resolve(text)
        except ProbeError as err:
            if err.code != "APP_NOT_AVAILABLE":
                raise
        # Unknown: maybe it started (or restarted) since the last scan.
        await self.registry.refresh()
        return self._resolve(text)

    def _resolve(self, text: str) -> AppRecord:
        records = {rec.key: rec for rec in self.registry.apps.values() if not rec.dropped}
        chosen = _targets.resolve(text or None, [rec.candidate() for rec in records.values()])
        return records[chosen.manifest.app_id]

    async def _custom_target(self, name: str) -> tuple[AppRecord, str]:
        listing = self._custom_listing()
        if name not in listing:
            await self.registry.refresh()
            listing = self._custom_listing()
        if name in listing:
            rec, _ = listing[name]
            original = next(
                t.name for t in rec.custom_tools() if exposed_name(rec.broker_id or rec.key, t.name) == name
            )
            return rec, original
        if SEPARATOR in name:
            prefix = name.split(SEPARATOR, 1)[0]
            raise AppNotAvailableError(
                f"No running app offers the tool {name!r} (app {prefix!r} is not running, or no longer has it).",
                suggestion="Call wpf_list_apps to see the running apps and their tools, then tools/list again.",
                detail={"tool": name, "apps": [rec.candidate().summary() for rec in self.registry.apps.values()]},
            )
        from wpfprobe.mcp.catalog import unknown_tool  # noqa: PLC0415

        raise unknown_tool(name, self._names(), listing="wpf_list_apps, then tools/list,")

    async def _list_apps(self, args: dict[str, Any]) -> types.CallToolResult:
        try:
            ListAppsArgs.model_validate(args, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(LIST_APPS, exc) from None
        # What is known, with fresh window titles from every app that answers in time.
        await self.registry.refresh(titles=True, wait=CHECK_WAIT)
        apps = [
            rec.summary()
            for rec in sorted(self.registry.apps.values(), key=lambda r: (r.manifest.app_name.lower(), r.manifest.pid))
        ]
        attachable = await self._attachable({a.pid for a in apps})
        listing = AppList(apps=apps, attachable=[a.model_dump(mode="json", by_alias=True) for a in attachable])
        from wpfprobe.broker.attach import attachable_text  # noqa: PLC0415

        return result(listing, "\n".join(t for t in (apps_text(apps), attachable_text(attachable)) if t))

    async def _attachable(self, probed: set[int]) -> list[Any]:
        """The running pythonnet apps with no probe (read from outside: nothing is entered)."""
        from wpfprobe.broker.attach import attachable_processes  # noqa: PLC0415

        try:
            return await asyncio.to_thread(attachable_processes, probed)
        except Exception:  # a listing never fails for want of the attachable ones
            log.warning("attachable processes unreadable", exc_info=True)
            return []

    async def _launch(self, args: dict[str, Any], reporter: Progress) -> types.CallToolResult:
        try:
            parsed = LaunchArgs.model_validate(args, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise _invalid(LAUNCH_APP, exc) from None
        from wpfprobe.broker.attach import attach_profile  # noqa: PLC0415

        attached = await attach_profile(self, parsed)
        if attached is not None:
            return attached  # a profile that names a running app: attached to, not launched
        command, options = launch_plan(parsed)
        from wpfprobe.apps import launch as _launch  # noqa: PLC0415

        reporter.note(f"starting {Path(command[0]).name}; waiting for its UI and probe")
        # The launcher blocks until the app's UI is up: a worker thread keeps the broker serving.
        # Cancelled, the launcher stops the app at its next poll; nothing is left running.
        control = CallControl()
        try:
            launched = await asyncio.to_thread(lambda: _launch.launch(command, **options, control=control))
        except asyncio.CancelledError:
            control.cancel()
            raise
        manifest: Manifest = launched.manifest
        self._launched[manifest.app_id] = _launch_target(parsed, command, options)
        # The app is the broker's child: reap it when it exits, or its zombie would look alive.
        threading.Thread(target=launched.process.wait, name="wpfprobe-reap", daemon=True).start()
        reporter.note(f"{manifest.app_name} is up; connecting to its probe")
        try:
            # Only this app is waited for: another app that does not answer holds nothing up.
            rec = await self.registry.admitted(manifest, timeout=parsed.timeout_seconds)
        except asyncio.CancelledError:
            threading.Thread(target=_launch.terminate, args=(launched.process,), daemon=True).start()
            raise
        if rec is None:
            raise gone(manifest, "it started but does not answer the broker")
        summary = rec.summary()
        return result(summary, apps_text([summary]))


def _launch_target(args: LaunchArgs, command: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """A launched app as a test kit target: its profile, else its command (``wpfprobe codegen`` writes it)."""
    if args.profile is not None:
        return {"profile": args.profile}
    target: dict[str, Any] = {"command": [sys.executable, *command]}
    if options.get("cwd"):
        target["cwd"] = options["cwd"]
    return target
