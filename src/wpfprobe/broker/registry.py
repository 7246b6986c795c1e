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

Faults. Nothing that waits on one app runs under the scan lock: the lock covers
reading the manifests, and each new app is admitted by a task of its own. An app
that does not answer (its process stopped, its UI thread busy, a check that timed
out) is kept with what was known and marked ``responding=False``; it is dropped
only when its process exits, its manifest goes or its session ends. Apps that are
not responding are checked again in the background every scan, so one that is
continued (SIGCONT) or unblocked answers again without a call from anyone.
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
from wpfprobe.mcp.client import ProbeClient, process_facts, process_state
from wpfprobe.mcp.manifest import Manifest

log = logging.getLogger("wpfprobe.broker")

SCAN_INTERVAL = 1.0
_UNREACHABLE_RETRY = 5.0
"""Seconds before a manifest whose app did not answer is tried again."""
ADMIT_WAIT = 5.0
"""How long a refresh that needs new apps (a call naming an unknown app) waits for their admission."""
CHECK_WAIT = 1.5
"""How long wpf_list_apps waits for the fresh window titles of an app that answered last time;
past it the app is listed with what was known, as not responding, and its check goes on."""
CHECK_TIMEOUT = 10.0
"""A check's own bound (wpf_get_windows), in the background once CHECK_WAIT has passed."""


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
    #: False while the app does not answer; ``note`` says why (kept, listed, checked again).
    responding: bool = True
    note: str | None = None
    check: asyncio.Task[None] | None = None

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
            responding=self.responding,
            note=None if self.responding else self.note,
        )

    def mark(self, *, responding: bool, note: str | None = None) -> None:
        self.responding = responding
        self.note = None if responding else note


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
        self._admitting: dict[tuple[str, int, float, str], asyncio.Task[None]] = {}
        self._scan_lock = asyncio.Lock()
        self._background: set[asyncio.Task[Any]] = set()
        self._closed = False
        #: Set after the first scan: the first tools/list waits for it.
        self.scanned = asyncio.Event()

    async def refresh(self, *, titles: bool = False, wait: float = ADMIT_WAIT) -> None:
        """Re-read the manifests: drop gone apps and start admitting new ones, waiting up to
        ``wait`` seconds for them; with ``titles``, check every app's windows (``check_all``).

        The scan lock covers the manifests alone: admitting an app and checking one run in
        tasks of their own, so an app that does not answer holds up no other refresh or call.
        """
        async with self._scan_lock:
            manifests = await asyncio.to_thread(_manifest.read_all, self._directory)
            live = {m.app_id: m for m in manifests}
            for key, rec in list(self.apps.items()):
                current = live.get(key)
                if current is None or _manifest_key(current) != _manifest_key(rec.manifest):
                    self.drop(rec, "its manifest is gone")
            now = time.monotonic()
            pending: list[asyncio.Task[None]] = []
            for m in manifests:
                mkey = _manifest_key(m)
                if m.app_id in self.apps or mkey in self._forged or self._unreachable.get(mkey, 0.0) > now:
                    continue
                task = self._admitting.get(mkey)
                if task is None:
                    if process_state(m.pid) == "stopped":
                        continue  # it could not answer the handshake: tried again once it runs
                    task = self._spawn(self._admit_and_add(m))
                    self._admitting[mkey] = task
                pending.append(task)
        if pending and wait > 0:
            await asyncio.wait(pending, timeout=wait)
        if titles:
            await self.check_all(wait=CHECK_WAIT)
        self.scanned.set()
        await self._on_change()

    async def admitted(self, manifest: Manifest, *, timeout: float) -> AppRecord | None:
        """The record of the app behind ``manifest`` once admitted (None if it cannot be, or
        not within ``timeout``): for wpf_launch_app, which waits for its own app alone."""
        await self.refresh(wait=0)
        task = self._admitting.get(_manifest_key(manifest))
        if task is not None:
            await asyncio.wait({task}, timeout=timeout)
        rec = self.apps.get(manifest.app_id)
        return rec if rec is not None and _manifest_key(rec.manifest) == _manifest_key(manifest) else None

    async def _admit_and_add(self, manifest: Manifest) -> None:
        key = _manifest_key(manifest)
        try:
            rec = await self._admit(manifest)
        finally:
            self._admitting.pop(key, None)
        if rec is None:
            return
        if self._closed or manifest.app_id in self.apps:
            await rec.client.__aexit__(None, None, None)
            return
        self.apps[rec.key] = rec
        rec.watcher = self._spawn(self._watch(rec))
        self._assign_ids()
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
            try:
                await self._read_titles(rec)
            except AppNotAvailableError as err:
                # Admitted all the same: it answered the handshake; its windows come with a later check.
                rec.mark(responding=False, note=_why(err))
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
        """The app's window titles, and whether it answers (AppNotAvailableError if it does not)."""
        answer = await rec.client.call_tool("wpf_get_windows", {}, timeout=CHECK_TIMEOUT)
        content = answer.structured_content if isinstance(answer.structured_content, dict) else {}
        if not answer.is_error:
            rec.titles = tuple(str(w.get("title") or "") for w in content.get("windows", []) if isinstance(w, dict))
            rec.mark(responding=True)
        elif content.get("code") == "DISPATCHER_BUSY":
            rec.mark(responding=False, note=BUSY_NOTE)
        else:
            rec.mark(responding=True)

    # -- checks: is each app answering? -----------------------------------------------------

    async def check_all(self, *, wait: float) -> None:
        """Check every app at once (window titles); wait up to ``wait`` for the apps that
        answered last time. An app that does not answer by then is marked not responding
        and its check goes on in the background; one already known not to answer, or whose
        process is stopped, is not waited for at all."""
        waiting: list[asyncio.Task[None]] = []
        for rec in list(self.apps.values()):
            task = self._check_soon(rec)
            if task is not None and rec.responding:
                waiting.append(task)
        if waiting:
            await asyncio.wait(waiting, timeout=wait)
        for rec in self.apps.values():
            if rec.responding and rec.check is not None and not rec.check.done():
                # Stopped meanwhile (a SIGSTOP lands a moment after it is sent): say so.
                stopped = process_state(rec.manifest.pid) == "stopped"
                rec.mark(responding=False, note=STOPPED_NOTE if stopped else f"it did not answer within {wait:g} s")

    def recheck_unresponsive(self) -> None:
        """Start a check of every app that is not responding (a scan does, every second), so
        an app that was stopped or busy is seen answering again without anyone calling it."""
        for rec in list(self.apps.values()):
            if not rec.responding:
                self._check_soon(rec)

    def _check_soon(self, rec: AppRecord) -> asyncio.Task[None] | None:
        """The app's running check, or a new one; None (and marked) while its process is stopped."""
        if rec.dropped:
            return None
        if process_state(rec.manifest.pid) == "stopped":
            rec.mark(responding=False, note=STOPPED_NOTE)
            return None
        if rec.check is None or rec.check.done():
            rec.check = self._spawn(self._check(rec))
        return rec.check

    async def _check(self, rec: AppRecord) -> None:
        try:
            await self._read_titles(rec)
        except AppNotAvailableError as err:
            await self.failed(rec, err)

    async def failed(self, rec: AppRecord, err: AppNotAvailableError) -> None:
        """A call to the app failed: drop it if its process exited or its session ended, else
        keep it, marked not responding (stopped, or too slow), for the background checks."""
        if not rec.client.connected or not await asyncio.to_thread(_manifest.is_live, rec.manifest):
            self.drop(rec, "its process exited or its session ended")
        else:
            rec.mark(responding=False, note=_why(err))

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
        for task in (rec.watcher, rec.check):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
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
        first = True
        while True:
            try:
                # The first scan waits for the apps already running, so the first tools/list has them.
                await self.refresh(wait=ADMIT_WAIT if first else 0)
                self.recheck_unresponsive()
            except Exception:  # one bad scan must not end discovery
                log.warning("scan failed", exc_info=True)
            first = False
            await asyncio.sleep(self._scan_interval)

    async def close(self) -> None:
        """Close every app's session and stop the background tasks."""
        self._closed = True
        for rec in list(self.apps.values()):
            rec.dropped = True
            for task in (rec.watcher, rec.check):
                if task is not None:
                    task.cancel()
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


BUSY_NOTE = "its UI thread is busy (DISPATCHER_BUSY): a handler runs long or hangs"
STOPPED_NOTE = "its process is stopped (SIGSTOP, or paused in a debugger); it answers again once continued"


def _why(err: AppNotAvailableError) -> str:
    """A short reason for ``note`` from a failed call's error."""
    if err.detail.get("state") == "stopped":
        return STOPPED_NOTE
    reason = str(err.detail.get("reason") or "")
    return reason or "it did not answer"
