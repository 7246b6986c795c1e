"""An MCP client to one running probe, from its discovery manifest.

Used by the broker (async, one long-lived session per app) and by the people CLI
(``call``, synchronous, one session per command). The bearer token goes into the
HTTP client's headers and nowhere else: never into a URL, a message, an error or a
log line. Every wait is bounded: connecting, each call, and a dead app is noticed
from its pid, not from a socket that may never answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from typing import Any

import psutil

from wpfprobe.core.errors import AppNotAvailableError, ProbeError
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.manifest import Manifest

log = logging.getLogger("wpfprobe.client")

CONNECT_TIMEOUT = 5.0
"""Seconds to open a session (TCP connect plus the protocol handshake)."""
CALL_TIMEOUT = 60.0
"""Seconds a tool call may take unless the tool says it waits longer (wpf_wait_for)."""
_SSE_IDLE = 3600.0
"""httpx read timeout: a change-notification stream may be idle for a long time; calls have their own deadline."""
PID_POLL = 0.2
"""How often an in-flight call checks that the app's process is still the one in its manifest."""
STOPPED_GRACE = 3.0
"""Seconds an in-flight call waits on an app whose process is stopped (SIGSTOP, a debugger)
before it fails: a stopped process answers nothing, and the caller should hear why."""


def describe(manifest: Manifest) -> str:
    return f"{manifest.app_name} ({manifest.app_id}, pid {manifest.pid})"


def gone(manifest: Manifest, reason: str = "") -> AppNotAvailableError:
    """The app behind ``manifest`` is not reachable: the error every face reports."""
    why = f": {reason}" if reason else ""
    return AppNotAvailableError(
        f"The app {describe(manifest)} is not available{why}.",
        suggestion="Call wpf_list_apps to see the apps that are running now (or `wpfprobe ls`); "
        "restart the app if it should be running.",
        detail={
            "appId": manifest.app_id,
            "name": manifest.app_name,
            "pid": manifest.pid,
            **({"reason": reason} if reason else {}),
        },
    )


def stopped(manifest: Manifest) -> AppNotAvailableError:
    """The app's process is stopped: it answers nothing until it is continued."""
    err = gone(manifest, "its process is stopped (SIGSTOP, or paused in a debugger)")
    err.suggestion = (
        "Continue the process (kill -CONT PID, or resume it in the debugger) and call again; "
        "a call sent while it was stopped may still run when it continues."
    )
    err.detail["state"] = "stopped"
    return err


def process_state(pid: int) -> str:
    """``stopped`` for a process stopped by a signal or a debugger, ``gone``, else ``running``."""
    try:
        status = psutil.Process(pid).status()
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return "gone"
    except (psutil.Error, OSError):
        return "running"
    return "stopped" if status in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP) else "running"


def owns_port(manifest: Manifest) -> bool | None:
    """Whether the manifest's pid listens on the manifest url's port (None: cannot tell).

    Checked before the token is sent anywhere: a manifest naming a live process that
    does not serve its url is forged (or stale in a way the start time did not catch).
    """
    from urllib.parse import urlsplit  # noqa: PLC0415

    try:
        parts = urlsplit(manifest.url)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost") or port is None:
        # The probe only ever serves plain HTTP on loopback; anything else is not one.
        return False
    try:
        conns = psutil.Process(manifest.pid).net_connections(kind="tcp")
    except psutil.AccessDenied:
        return None
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return False
    except OSError:
        return None
    return any(c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port for c in conns)


def process_facts(pid: int) -> tuple[tuple[str, ...], str | None, str, str]:
    """Command line, working directory, process name and executable of ``pid``: what
    ``_targets`` matches ``script:`` and ``process:`` against. Empty when unreadable."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            cmdline = tuple(proc.cmdline())
            name = proc.name()
            try:
                exe = proc.exe()
            except (psutil.AccessDenied, OSError):
                exe = ""
            try:
                cwd: str | None = proc.cwd()
            except (psutil.AccessDenied, OSError):
                cwd = None
        return cmdline, cwd, name, exe
    except (psutil.Error, OSError):
        return (), None, "", ""


class ProbeClient:
    """One MCP session to one probe (streamable HTTP, bearer token from the manifest).

    ``async with ProbeClient(m) as c: await c.call_tool(...)``. Calls may run
    concurrently on one session; each is bounded by its timeout and by the app's
    pid (a dead app fails the call within ``PID_POLL`` seconds).
    """

    def __init__(self, manifest: Manifest, *, connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.manifest = manifest
        self._connect_timeout = connect_timeout
        self._client: Any = None
        self._host: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._ended = asyncio.Event()
        self._error: BaseException | None = None

    @property
    def session(self) -> Any:
        """The SDK ``Client`` (for listen streams)."""
        if self._client is None:
            raise gone(self.manifest, "the connection to it was lost")
        return self._client

    @property
    def connected(self) -> bool:
        return self._ready.is_set() and not self._ended.is_set()

    async def wait_lost(self) -> None:
        """Return once the session has ended (the app went away, or close)."""
        await self._ended.wait()

    async def __aenter__(self) -> ProbeClient:
        if not _manifest.is_live(self.manifest):
            raise gone(self.manifest, "its process has exited")
        if owns_port(self.manifest) is False:
            raise gone(self.manifest, "its process does not serve the url in its manifest")
        # The SDK session lives in a task of its own: its task groups cancel the task that
        # entered them when the connection breaks, and that must not be a caller's task.
        self._host = asyncio.ensure_future(self._hold_session())
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait(
                {ready, self._host}, timeout=self._connect_timeout + 1, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            ready.cancel()
        if not self._ready.is_set() or self._ended.is_set():
            error = self._error
            await self._stop_host()
            raise gone(self.manifest, f"cannot connect ({_reason(error) if error else 'timed out'})")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stop_host()

    async def _stop_host(self) -> None:
        self._closing.set()
        host = self._host
        if host is None:
            return
        # Closing a dead app's session must not hold anyone up.
        done, _ = await asyncio.wait({host}, timeout=3)
        if not done:
            host.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait({host}, timeout=2)

    async def _hold_session(self) -> None:
        import httpx2  # noqa: PLC0415
        from mcp import Client  # noqa: PLC0415
        from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415

        try:
            timeout = httpx2.Timeout(self._connect_timeout, read=_SSE_IDLE)
            async with httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {self.manifest.token}"}, timeout=timeout
            ) as http:
                # The handshake is bounded by the session's read timeout; each call passes its own.
                client = Client(
                    streamable_http_client(self.manifest.url, http_client=http),
                    read_timeout_seconds=self._connect_timeout,
                    cache=None,
                )
                async with client:
                    self._client = client
                    self._ready.set()
                    await self._closing.wait()
        except BaseException as exc:  # noqa: BLE001 - recorded; the callers see APP_NOT_AVAILABLE
            self._error = exc
            log.debug("session to %s ended: %s", self.manifest.app_id, _reason(exc))
        finally:
            self._client = None
            self._ended.set()

    async def list_tools(self, *, timeout: float = 10.0) -> list[Any]:
        result = await self._bounded(lambda: self.session.list_tools(), timeout, "tools/list")
        return list(result.tools)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], *, timeout: float = CALL_TIMEOUT, progress: Any = None
    ) -> Any:
        """The app's CallToolResult, unchanged; AppNotAvailableError if it dies, stays stopped
        or does not answer. ``progress(progress, total, message)``, if given, asks the app for
        progress notifications and hears them. Cancelling the caller cancels the app's call."""
        return await self._bounded(
            lambda: self.session.call_tool(name, arguments, read_timeout_seconds=timeout, progress_callback=progress),
            timeout,
            name,
        )

    async def _bounded(self, make: Any, timeout: float, what: str) -> Any:
        """Run one request, racing it against the app's death and a deadline."""
        call = asyncio.ensure_future(make())
        watch = asyncio.ensure_future(self._watch_pid())
        lost = asyncio.ensure_future(self._ended.wait())
        try:
            done, _ = await asyncio.wait({call, watch, lost}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
            lost.cancel()
            if not call.done():
                call.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait({call}, timeout=1)
        if call in done:
            try:
                return call.result()
            except ProbeError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever the transport raised, the app is not answering
                if not _manifest.is_live(self.manifest):
                    raise gone(self.manifest, "its process exited during the call") from None
                raise gone(self.manifest, f"{what} failed ({_reason(exc)})") from None
        if watch in done and watch.result() == "stopped":
            raise stopped(self.manifest)
        if watch in done or not _manifest.is_live(self.manifest):
            raise gone(self.manifest, "its process exited during the call")
        if lost in done:
            raise gone(self.manifest, "the connection to it was lost")
        raise gone(self.manifest, f"{what} did not answer within {timeout:g} s")

    async def _watch_pid(self) -> str:
        """Return ``exited`` when the app's process ends, ``stopped`` once it has been stopped
        for STOPPED_GRACE seconds."""
        stopped_since: float | None = None
        loop = asyncio.get_running_loop()
        while _manifest.is_live(self.manifest):
            if process_state(self.manifest.pid) == "stopped":
                stopped_since = stopped_since if stopped_since is not None else loop.time()
                if loop.time() - stopped_since >= STOPPED_GRACE:
                    return "stopped"
            else:
                stopped_since = None
            await asyncio.sleep(PID_POLL)
        return "exited"


if sys.version_info >= (3, 11):
    _BaseExceptionGroup = BaseExceptionGroup  # noqa: F821 - a builtin from Python 3.11 on
else:  # anyio depends on the backport there
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup


def _reason(exc: BaseException) -> str:
    """A short, token-free description of a transport failure."""
    if isinstance(exc, _BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _reason(inner)
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


@contextlib.asynccontextmanager
async def connect(manifest: Manifest, *, connect_timeout: float = CONNECT_TIMEOUT) -> AsyncIterator[ProbeClient]:
    async with ProbeClient(manifest, connect_timeout=connect_timeout) as client:
        yield client


def call(
    manifest: Manifest, tool: str, arguments: dict[str, Any] | None = None, *, timeout: float = CALL_TIMEOUT
) -> Any:
    """Call one tool on one app and return its CallToolResult (synchronous, for the CLI).

    Raises AppNotAvailableError when the app cannot be reached or dies.
    """

    async def once() -> Any:
        async with connect(manifest) as client:
            return await client.call_tool(tool, dict(arguments or {}), timeout=timeout)

    return asyncio.run(once())


def call_many(
    manifest: Manifest, calls: list[tuple[str, dict[str, Any]]], *, timeout: float = CALL_TIMEOUT
) -> list[Any]:
    """Several calls on one session, in order (synchronous, for the CLI)."""

    async def run() -> list[Any]:
        async with connect(manifest) as client:
            return [await client.call_tool(name, dict(args), timeout=timeout) for name, args in calls]

    return asyncio.run(run())
