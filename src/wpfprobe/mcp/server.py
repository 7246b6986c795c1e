"""``wpfprobe.start``: the co-located MCP server, on a thread and event loop of its own.

HTTP binds 127.0.0.1 only and every request passes the guard: Host and
Origin must be loopback with the server's port (DNS rebinding), the token is
accepted only as ``Authorization: Bearer`` and refused in the URL, and no CORS
header is ever sent. The UI thread pays nothing while the server is idle: the
server never posts to it unless a tool is called.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import datetime as _dt
import hmac
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload
from urllib.parse import parse_qsl

from wpfprobe.api.probe import Probe, attach
from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Tier
from wpfprobe.mcp import httpwire
from wpfprobe.mcp.tools import check_tier
from wpfprobe.mcp.wirelog import SERVER_THREAD_PREFIX

if TYPE_CHECKING:
    from wpfprobe.mcp.custom import CustomTool
    from wpfprobe.mcp.toolserver import ToolServer

log = logging.getLogger("wpfprobe.server")
F = TypeVar("F", bound=Callable[..., Any])

Transport = Literal["http", "stdio"]
LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"
CLOSE_PATH = "/wpfprobe/close"
"""POST here, with the bearer token always (``require_token`` aside), asks the app to close as its
user would (``wpfprobe stop``): not an MCP tool, so no agent's tier grants it."""
# Query parameters that look like a credential: a token in a URL ends up in logs and history.
_CREDENTIAL_PARAMS = frozenset(
    {"token", "access_token", "accesstoken", "auth", "authorization", "apikey", "api_key", "key", "bearer"}
)

_active_lock = threading.Lock()
_active: ProbeHandle | None = None


class AlreadyStartedError(ProbeError):
    code = "INVALID_ARGUMENT"


class ProbeHandle:
    """A running probe server. ``stop()`` (or the app's exit) ends it."""

    def __init__(
        self,
        *,
        probe: Probe,
        transport: Transport,
        tier: Tier,
        url: str | None,
        token: str | None,
        runner: _Runner,
    ) -> None:
        self.probe = probe
        self.transport = transport
        self.tier = tier
        self.url = url
        self.token = token
        self.app_id = probe.engine.app_id
        self._runner = runner
        self._stop_lock = threading.Lock()
        self._stopped = threading.Event()
        self.manifest_path: Path | None = None
        self._tools: ToolServer | None = None
        self._routes: _Routes | None = None
        # Started by `wpfprobe run` on the app's behalf: the app's own start() replaces it.
        self._replaceable = False

    @property
    def running(self) -> bool:
        """False once stop() has finished: the port is closed and the manifest gone."""
        return not self._stopped.is_set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server and remove the manifest. Safe from any thread, any number of times;
        a second caller waits for the first to finish."""
        global _active
        with self._stop_lock:
            if self._stopped.is_set():
                return
            if self.manifest_path is not None:
                from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

                # First, so that nobody discovers a server that is going away.
                _manifest.remove(self.manifest_path)
            self._runner.stop(timeout)
            self.probe.engine.driver.close()
            _release_ui_poster()
            if self._tools is not None and self._tools.recorder is not None:
                self._tools.recorder.close()
            with _active_lock:
                if _active is self:
                    _active = None
                    from wpfprobe.mcp.custom import serve_registrations  # noqa: PLC0415

                    serve_registrations(None)
            self._stopped.set()
        from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415

        # Outside the lock: the ending thread may be waiting for it (the UI ended as the app
        # exited), and unwatch waits for that thread to end.
        ENDING.unwatch(self)

    def add_route(self, path: str, app: Any) -> None:
        """Serve the ASGI ``app`` at ``path`` beside the MCP endpoint, behind the same guard
        (loopback Host and Origin, the bearer token). ``wpfprobe attach`` serves its detach here."""
        if self._routes is None:
            raise InvalidArgumentError("Only an HTTP probe serves routes of its own.")
        self._routes.routes[path] = app

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server stops (stdio: when the client disconnects)."""
        self._runner.done.wait(timeout)
        return self._runner.done.is_set()

    @overload
    def tool(self, fn: F, /) -> F: ...
    @overload
    def tool(self, /, *, name: str | None = None, ui_thread: bool = False, tier: Tier = "read") -> Callable[[F], F]: ...
    def tool(
        self, fn: F | None = None, /, *, name: str | None = None, ui_thread: bool = False, tier: Tier = "read"
    ) -> F | Callable[[F], F]:
        """Add a function as a tool of this running probe, as ``@wpfprobe.tool`` does
        (same options); connected clients are told the tool list changed."""
        from wpfprobe.mcp.custom import decorator  # noqa: PLC0415

        return decorator(fn, name=name, ui_thread=ui_thread, tier=tier, add=self.add_custom_tool)  # type: ignore[no-any-return]

    def add_custom_tool(self, custom: CustomTool) -> None:
        if self._tools is None or not self.running:
            raise InvalidArgumentError(
                "This probe is not running, so it takes no new tools.",
                suggestion="Register the tool with @wpfprobe.tool before wpfprobe.start().",
            )
        if custom.name in self._tools.names:
            raise InvalidArgumentError(
                f"This probe already has a tool named {custom.name!r}.", suggestion="Pick another name=."
            )
        self._tools.add(custom.spec(), custom=True)
        self._tools.tools_changed()

    def __enter__(self) -> ProbeHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<wpfprobe.ProbeHandle {self.app_id} {self.transport} {self.url or ''} tier={self.tier}>"


def start(
    app: Any = None,
    *,
    transport: Transport = "http",
    allow: Tier = "read",
    name: str | None = None,
    port: int = 0,
    token: str | None = None,
    timeout: float = 5.0,
    settings: ProbeSettings | None = None,
) -> ProbeHandle:
    """Serve the app's live UI over MCP, in this process.

    ``transport="http"``: streamable HTTP on 127.0.0.1 (``port=0`` picks a free
    port); the handle's ``url`` and ``token`` are what a client needs, and a
    discovery manifest is written. ``transport="stdio"``: for a client that
    launched the app; stdout then carries only MCP frames. A second ``start``
    in the same process raises until the first is stopped.
    """
    global _active
    from wpfprobe.core import logs as _logging  # noqa: PLC0415

    tier = check_tier(allow)
    # Asked for through the environment only: a library installs no handler on its own.
    _logging.configure_from_env()
    if transport not in ("http", "stdio"):
        raise InvalidArgumentError(f"transport must be 'http' or 'stdio', got {transport!r}.")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise InvalidArgumentError(f"port must be an integer from 0 to 65535, got {port!r}.")
    if token is not None and (not isinstance(token, str) or len(token) < 32):
        raise InvalidArgumentError(
            "A token of your own must be a string of at least 32 characters.",
            suggestion="Leave token=None to get a fresh 256-bit random token.",
        )
    with _active_lock:
        replaced = _active if _active is not None and _active.running and _active._replaceable else None
    if replaced is not None:
        # The app's own start() wins over the probe `wpfprobe run` started for it.
        replaced.stop()
    with _active_lock:
        if _active is not None and _active.running:
            raise AlreadyStartedError(
                "wpfprobe.start() was already called in this process.",
                suggestion="Use the first handle, or call its stop() before starting again.",
                detail={"appId": _active.app_id, "url": _active.url},
            )
        settings = (settings or ProbeSettings.from_env()).model_copy(update={"ui_timeout": float(timeout)})
        probe = attach(app, name=name, settings=settings)
        from wpfprobe.mcp.custom import registered, serve_registrations  # noqa: PLC0415
        from wpfprobe.mcp.toolserver import ToolServer  # noqa: PLC0415 - the SDK loads only for a server

        tools = ToolServer(probe.engine, tier=tier)
        for custom in registered():
            tools.add(custom.spec(), custom=True)
        server = tools.server
        if transport == "http":
            handle = _start_http(probe, server, tier=tier, port=port, token=token or secrets.token_urlsafe(32))
        else:
            handle = _start_stdio(probe, server, tier=tier)
        handle._tools = tools
        _active = handle
        serve_registrations(handle.add_custom_tool)
    atexit.register(handle.stop)
    _stop_with_ui(handle)
    if handle.url is not None and handle.token is not None:
        # Last: an app found through its manifest ends cleanly from the first moment (mcp.ending);
        # under the stop lock, so a UI that ended meanwhile leaves none behind.
        with handle._stop_lock:
            if handle.running:
                handle.manifest_path = _write_manifest(probe, url=handle.url, token=handle.token, tier=tier)
    return handle


def _release_ui_poster() -> None:
    """End the thread that posts to the UI thread: a stopped probe leaves no thread in the
    app (``wpfprobe detach``); a later start makes a new one."""
    from wpfprobe_clr._ui_thread import release_poster  # noqa: PLC0415

    release_poster()


def active_handle() -> ProbeHandle | None:
    """The probe started in this process, while it runs."""
    with _active_lock:
        return _active if _active is not None and _active.running else None


def _stop_with_ui(handle: ProbeHandle) -> None:
    """Stop the server once the app's UI thread ends, and end with the app on Ctrl+C and
    SIGTERM (``mcp.ending``), without ever blocking the UI thread."""
    from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415

    ENDING.take_signals()
    ui_ended = ENDING.watch(handle)
    on_exit = getattr(handle.probe.engine.adapter, "on_ui_exit", None)
    if on_exit is None:
        return

    def hook() -> None:  # on the UI thread
        on_exit(ui_ended)
        ENDING.hook_ui_thread()

    with contextlib.suppress(Exception):
        handle.probe.engine.ui.run(hook)


# -- HTTP ---------------------------------------------------------------------


def _start_http(probe: Probe, server: Any, *, tier: Tier, port: int, token: str) -> ProbeHandle:
    from mcp.server.transport_security import TransportSecuritySettings  # noqa: PLC0415

    # proto must say TCP: asyncio sets TCP_NODELAY on accepted connections only then, and
    # without it every request after the first on a connection waits ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((LOOPBACK, port))
    except OSError as exc:
        sock.close()
        raise InvalidArgumentError(
            f"Cannot listen on {LOOPBACK}:{port}: {exc.strerror or exc}.",
            suggestion="Use port=0 to pick a free port.",
        ) from None
    sock.listen(128)
    bound = sock.getsockname()[1]
    hosts = [f"{LOOPBACK}:{bound}", f"localhost:{bound}"]
    origins = [f"http://{h}" for h in hosts]
    mcp_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
        session_idle_timeout=httpwire.SESSION_IDLE_TIMEOUT,
        max_sessions=httpwire.SDK_MAX_SESSIONS,
    )
    settings = probe.engine.settings
    # The attach helper's own paths first (exact matches), then the MCP endpoint's wire rules.
    routes = _Routes(httpwire.HttpWire(mcp_app, path=MCP_PATH))
    guarded = Guard(routes, token=token, hosts=hosts, origins=origins, require_token=settings.require_token)
    runner = _Runner(guarded, sock)
    runner.start()
    url = f"http://{LOOPBACK}:{bound}{MCP_PATH}"
    handle = ProbeHandle(probe=probe, transport="http", tier=tier, url=url, token=token, runner=runner)
    handle._routes = routes
    guarded.close_app = lambda: _request_close(handle)
    return handle


def _request_close(handle: ProbeHandle) -> bool:
    from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415

    return ENDING.request_close(handle)


def _write_manifest(probe: Probe, *, url: str, token: str, tier: Tier) -> Path:
    from wpfprobe.core.version import __version__  # noqa: PLC0415
    from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

    engine = probe.engine
    runtime = engine.runtime
    started = _manifest.process_start_time(os.getpid())
    manifest = _manifest.Manifest(
        app_id=engine.app_id,
        app_name=engine.app_name,
        pid=os.getpid(),
        process_start_time=started if started is not None else 0.0,
        exe=sys.executable,
        toolkit=str(engine.adapter.toolkit),
        runtime=f"{runtime.kind} {runtime.version}" if runtime else "unknown",
        url=url,
        token=token,
        tier=tier,
        started_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        version=__version__,
    )
    return _manifest.write(manifest)


class _Routes:
    """The MCP app, plus the exact paths added with ``ProbeHandle.add_route`` (behind the guard)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.routes: dict[str, Any] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        route = self.routes.get(scope.get("path", "")) if scope["type"] == "http" else None
        await (route or self.app)(scope, receive, send)


class Guard:
    """ASGI middleware in front of the MCP app: loopback Host/Origin and the bearer token."""

    def __init__(
        self, app: Any, *, token: str, hosts: list[str], origins: list[str], require_token: bool = True
    ) -> None:
        self.app = app
        self._token = token.encode()
        self._hosts = {h.lower() for h in hosts}
        self._origins = {o.lower() for o in origins}
        self._require_token = require_token
        #: Set once the server's handle exists: asks the app to close (CLOSE_PATH); False if it cannot.
        self.close_app: Callable[[], bool] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "").lower()
        if host not in self._hosts:
            await _refuse(send, 421, "MISDIRECTED", "Host must be this server's loopback address and port.")
            return
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self._origins:
            await _refuse(send, 403, "FORBIDDEN_ORIGIN", "Requests from other origins are refused.")
            return
        query = scope.get("query_string", b"").decode("latin-1")
        if query and (
            any(k.lower() in _CREDENTIAL_PARAMS for k, _ in parse_qsl(query, keep_blank_values=True))
            or self._token.decode() in query
        ):
            # uvicorn's access log (if anyone turns it on) prints the query string.
            scope["query_string"] = b""
            await _refuse(
                send, 400, "TOKEN_IN_URL", "Credentials in the URL are refused; send Authorization: Bearer <token>."
            )
            return
        closing = scope.get("path") == CLOSE_PATH
        if (self._require_token or closing) and not self._authorized(headers.get("authorization", "")):
            await _refuse(
                send, 401, "UNAUTHORIZED", "Missing or wrong bearer token.", extra=[(b"www-authenticate", b"Bearer")]
            )
            return
        if closing:
            await self._close(scope, send)
            return
        await self.app(scope, receive, send)

    async def _close(self, scope: dict[str, Any], send: Any) -> None:
        if scope.get("method") != "POST":
            await _refuse(send, 405, "METHOD_NOT_ALLOWED", "POST asks the app to close.", extra=[(b"allow", b"POST")])
            return
        if self.close_app is None or not self.close_app():
            await _refuse(send, 409, "APP_NOT_AVAILABLE", "This probe is stopping: the app is closing already.")
            return
        await _refuse(send, 202, "CLOSING", "The app was asked to close, as its user closing it would.")

    def _authorized(self, header: str) -> bool:
        scheme, _, value = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self._token)


async def _refuse(
    send: Any, status: int, code: str, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    await httpwire.json_response(send, status, code, message, extra)


class _Runner:
    """uvicorn on its own thread and event loop, serving an already-bound socket."""

    def __init__(self, app: Any, sock: socket.socket) -> None:
        import uvicorn  # noqa: PLC0415

        # No log_level, access_log=True and no log_config: anything else makes uvicorn reconfigure
        # its loggers process-wide (levels, and the access logger's handlers), which are the app's
        # if it runs uvicorn itself. What uvicorn logs on this server's thread goes to wpfprobe's
        # own log at DEBUG, never to the app's stderr (wirelog.py).
        config = uvicorn.Config(
            app, log_level=None, access_log=True, lifespan="on", timeout_graceful_shutdown=2, log_config=None
        )
        self._server = uvicorn.Server(config)
        self._sock = sock
        # The name tells wirelog which log records are this server's.
        self._thread = threading.Thread(target=self._run, name=f"{SERVER_THREAD_PREFIX}-http", daemon=True)
        self.done = threading.Event()
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            asyncio.run(self._server.serve(sockets=[self._sock]))
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self._error = exc
        finally:
            self.done.set()

    def start(self, timeout: float = 15.0) -> None:
        self._thread.start()
        deadline = threading.Event()
        while not self._server.started and not self.done.is_set():
            if deadline.wait(0.005) or not self._thread.is_alive():
                break
        if not self._server.started:
            raise ProbeError(f"The MCP server did not start: {self._error!r}", code="INTERNAL")

    def stop(self, timeout: float) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)
        with contextlib.suppress(OSError):
            self._sock.close()


# -- stdio --------------------------------------------------------------------


class _StdioRunner:
    def __init__(self, server: Any) -> None:
        self._server = server
        self._thread = threading.Thread(target=self._run, name="wpfprobe-mcp-stdio", daemon=True)
        self.done = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            await self._server.run_stdio_async()

        try:
            asyncio.run(main())
        except (asyncio.CancelledError, Exception):
            log.debug("stdio server ended", exc_info=True)
        finally:
            self.done.set()

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
        self._thread.join(timeout)


def _start_stdio(probe: Probe, server: Any, *, tier: Tier) -> ProbeHandle:
    # Anything already printed must leave before the wire belongs to MCP.
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    separate = not _same_file(1, 2)
    runner = _StdioRunner(server)
    runner.start()
    # The SDK points fd 1 at stderr once its server thread runs; until then an app's
    # print would land on the wire, so start() returns only after the switch.
    deadline = time.monotonic() + 10
    while separate and not _same_file(1, 2) and not runner.done.is_set():
        if time.monotonic() > deadline:
            runner.stop(2)
            raise ProbeError("The stdio MCP server did not take over stdout.", code="INTERNAL")
        time.sleep(0.001)
    return ProbeHandle(probe=probe, transport="stdio", tier=tier, url=None, token=None, runner=runner)  # type: ignore[arg-type]


def _same_file(a: int, b: int) -> bool:
    try:
        return os.path.samestat(os.fstat(a), os.fstat(b))
    except OSError:
        return False
