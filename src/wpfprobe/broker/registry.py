"""The live apps the broker talks to: discovery through manifests, admission, watching, dropping.

Liveness. The sessions directory is scanned every second (and before a call whose
app is unknown): stale manifests are removed by ``_manifest.read_all``; a manifest
whose pid does not listen on its url, or whose probe reports another pid, is forged
and ignored (the port check runs before the token is sent anywhere). Apps that come
and go change the tool list (custom tools) and the client is sent
``notifications/tools/list_changed``. A call to an app that dies fails with
APP_NOT_AVAILABLE within a fraction of a second (the pid is watched while the call
runs), and the app is dropped. Each app has its own session: one app failing or
being slow never holds up a call to another.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import mcp_types as types

from wpfprobe.apps.targets import Candidate
from wpfprobe.broker.naming import broker_ids, exposed_name
from wpfprobe.broker.wire import AppSummary, standard_tool_names
from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.client import ProbeClient, process_facts
from wpfprobe.mcp.manifest import Manifest

log = logging.getLogger("wpfprobe.broker")

SCAN_INTERVAL = 1.0
_UNREACHABLE_RETRY = 5.0
"""Seconds before a manifest whose app did not answer is tried again."""


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


class AppRegistry:
    """The apps found so far, keyed by the probe's own appId; ``on_change`` runs whenever
    the set of apps or one app's tools may have changed (the broker re-announces its tool list)."""

    def __init__(
        self,
        *,
        directory: Path | None = None,
        scan_interval: float = SCAN_INTERVAL,
        on_change: Callable[[], Awaitable[None]],
    ) -> None:
        self._directory = directory
        self._scan_interval = scan_interval
        self._on_change = on_change
        self.apps: dict[str, AppRecord] = {}
        self._forged: set[tuple[str, int, float, str]] = set()
        self._unreachable: dict[tuple[str, int, float, str], float] = {}
        self._scan_lock = asyncio.Lock()
        self._background: set[asyncio.Task[Any]] = set()
        #: Set after the first scan: the first tools/list waits for it.
        self.scanned = asyncio.Event()

    async def refresh(self, *, titles: bool = False) -> None:
        """Re-read the manifests: admit new apps, drop gone ones; optionally re-read window titles."""
        async with self._scan_lock:
            manifests = await asyncio.to_thread(_manifest.read_all, self._directory)
            live = {m.app_id: m for m in manifests}
            for key, rec in list(self.apps.items()):
                current = live.get(key)
                if current is None or _manifest_key(current) != _manifest_key(rec.manifest):
                    self.drop(rec, "its manifest is gone")
            now = time.monotonic()
            fresh = [
                m
                for m in manifests
                if m.app_id not in self.apps
                and _manifest_key(m) not in self._forged
                and self._unreachable.get(_manifest_key(m), 0.0) <= now
            ]
            if fresh:
                admitted = await asyncio.gather(*(self._admit(m) for m in fresh))
                for new in admitted:
                    if new is not None:
                        self.apps[new.key] = new
                        new.watcher = self._spawn(self._watch(new))
            if titles:
                await asyncio.gather(*(self._read_titles(rec) for rec in list(self.apps.values())))
            self._assign_ids()
        self.scanned.set()
        await self._on_change()

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
        except Exception:  # a misbehaving app is skipped, never fatal
            log.warning("app skipped: unexpected answer", extra={"app": manifest.app_id}, exc_info=True)
            self._unreachable[key] = time.monotonic() + _UNREACHABLE_RETRY
            await client.__aexit__(None, None, None)
            return None

    async def _read_titles(self, rec: AppRecord) -> None:
        try:
            answer = await rec.client.call_tool("wpf_get_windows", {}, timeout=10)
        except AppNotAvailableError:
            self.drop(rec, "it did not answer")
            return
        content = answer.structured_content if isinstance(answer.structured_content, dict) else {}
        if not answer.is_error:
            rec.titles = tuple(str(w.get("title") or "") for w in content.get("windows", []) if isinstance(w, dict))

    def _assign_ids(self) -> None:
        ids = broker_ids([rec.manifest for rec in self.apps.values()])
        for key, rec in self.apps.items():
            rec.broker_id = ids.get(key, key)

    def drop(self, rec: AppRecord, reason: str) -> None:
        """Forget an app (gone, or its session failed) and close its client in the background."""
        if rec.dropped:
            return
        rec.dropped = True
        if self.apps.get(rec.key) is rec:
            del self.apps[rec.key]
        log.info("app dropped: %s", reason, extra={"app": rec.key})
        if rec.watcher is not None and rec.watcher is not asyncio.current_task():
            rec.watcher.cancel()
        self._spawn(rec.client.__aexit__(None, None, None))
        self._spawn(self._after_drop())

    async def _after_drop(self) -> None:
        self._assign_ids()
        await self._on_change()

    async def _watch(self, rec: AppRecord) -> None:
        """Follow the app's own tools/list_changed, and notice when its session ends."""
        from mcp.client.subscriptions import ListenNotSupportedError  # noqa: PLC0415

        while not rec.dropped:
            try:
                async with rec.client.session.listen(tools_list_changed=True) as events:
                    async for _event in events:
                        rec.tools = await rec.client.list_tools()
                        self._assign_ids()
                        await self._on_change()
            except ListenNotSupportedError:
                # An app without change streams: its tools are read when it is admitted.
                await rec.client.wait_lost()
            except asyncio.CancelledError:
                raise
            except Exception:  # the stream broke: find out whether the app is gone
                log.debug("change stream of %s ended", rec.key, exc_info=True)
            if rec.dropped:
                return
            if not rec.client.connected or not await asyncio.to_thread(_manifest.is_live, rec.manifest):
                self.drop(rec, "its process exited")
                return
            await asyncio.sleep(2)

    async def scan_forever(self) -> None:
        while True:
            try:
                await self.refresh()
            except Exception:  # one bad scan must not end discovery
                log.warning("scan failed", exc_info=True)
            await asyncio.sleep(self._scan_interval)

    async def close(self) -> None:
        """Close every app's session and stop the background tasks."""
        for rec in list(self.apps.values()):
            rec.dropped = True
            if rec.watcher is not None:
                rec.watcher.cancel()
        await asyncio.gather(
            *(rec.client.__aexit__(None, None, None) for rec in self.apps.values()), return_exceptions=True
        )
        self.apps.clear()
        for task in list(self._background):
            task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task
