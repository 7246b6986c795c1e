"""``wpfprobe.start``: the co-located MCP server, on a thread and event loop of its own.

HTTP binds 127.0.0.1 only and every request passes the guard: Host and
Origin must be loopback with the server's port (DNS rebinding), the token is
accepted only as ``Authorization: Bearer`` and refused in the URL, and no CORS
header is ever sent. The UI thread pays nothing while the server is idle: the
server never posts to it unless a tool is called.

``start()`` returns as soon as a client could connect: the socket bound and
listening, the token made. Importing uvicorn, making the tools'
catalog (their schemas come later: ``_started_or_stopping``), connecting to the CLR, compiling the .NET walk and writing the
discovery manifest happen after, on threads of their own (``mcp/starting.py``), so the
app's first window is not delayed and its UI thread is never held for long.

stdio serves one connection on wpfprobe's own MCP kernel (``protocol.py``,
``stdioserve.py``), HTTP on the same kernel (``httpserve.py``, ``handshake.py``): the app
imports no MCP SDK.
"""

from __future__ import annotations

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

from wpfprobe.core.calls import current as current_call
from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.engine.target import Tier, check_tier
from wpfprobe.mcp import httpwire, wirelog
from wpfprobe.mcp.registry import serve_registrations
from wpfprobe.mcp.starting import Startup
from wpfprobe.mcp.wirelog import SERVER_THREAD_PREFIX

if TYPE_CHECKING:
    from wpfprobe.api.probe import Probe
    from wpfprobe.core.settings import ProbeSettings
    from wpfprobe.mcp.catalog import ToolCatalog
    from wpfprobe.mcp.custom import CustomTool
    from wpfprobe.mcp.protocol import Kernel

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
#: How long a tool added right after start() waits for the server's tools to be made.
TOOLS_WAIT = 60.0
#: How long the walk's compile waits for the server's tools before it compiles anyway.
COMPILE_WAIT = 10.0
#: How long ``ProbeHandle.manifest_path`` waits for the start-up that writes it.
MANIFEST_WAIT = 60.0


class AlreadyStartedError(ProbeError):
    code = "INVALID_ARGUMENT"


class ProbeHandle:
    """A running probe server. ``stop()`` (or the app's exit) ends it.

    ``url``, ``token`` and ``app_id`` are there when ``start()`` returns; the probe attaches to the
    app's UI a moment later (``wait_ready()``), and ``probe`` waits for that.
    """

    def __init__(
        self,
        *,
        startup: Startup,
        transport: Transport,
        tier: Tier,
        url: str | None,
        token: str | None,
        runner: _Runner | _StdioRunner,
    ) -> None:
        self.transport = transport
        self.tier = tier
        self.url = url
        self.token = token
        self.app_id = startup.app_id
        self._startup = startup
        self._runner = runner
        self._stop_lock = threading.Lock()
        self._stopped = threading.Event()
        self._manifest_path: Path | None = None
        self._published = threading.Event()  # the manifest written, or never to be
        self._tools: ToolCatalog | None = None
        #: HTTP: the SDK-free kernel serving both eras (its streams end at stop).
        self._kernel: Kernel | None = None
        self._tools_made = threading.Event()
        #: HTTP: makes the server, on the start-up's thread (``Startup.begin``'s ``serve``).
        self._serve: Callable[[], None] | None = None
        # HTTP: made now, so that routes can be added before the server's thread has made the
        # MCP app they sit beside (``_http_app`` puts it in).
        self._routes: _Routes | None = _Routes(None) if transport == "http" else None
        # Started by `wpfprobe run` on the app's behalf: the app's own start() replaces it.
        self._replaceable = False
        self._stdio_separate = False  # stdio: stdout and stderr were different files at start()

    @property
    def probe(self) -> Probe:
        """The attached probe (the Python API over the same engine), once ``start()``'s thread has
        made it: waits for that, and raises what stopped it (see ``wait_ready``)."""
        return self._startup.probe()

    def ready_probe(self, timeout: float | None = 0.0) -> Probe | None:
        """The attached probe, waiting up to ``timeout`` seconds for it; None if it is not attached
        (yet, or its start failed). Never raises."""
        return self._startup.ready_probe(timeout)

    def wait_ready(self, timeout: float | None = None) -> ProbeHandle:
        """Wait until the probe has attached to the app's UI (``start()`` returns before it does).

        Raises the ProbeError that stopped it (the app's UI thread did not answer, the UI ended...),
        or DISPATCHER_BUSY if it is still attaching after ``timeout`` seconds (None: no limit; the
        attach itself is bounded by the ``timeout`` given to ``start()``, per call to the UI thread).
        Tool calls wait for this by themselves; this is for code that wants to know.
        """
        self._startup.probe(timeout)
        return self

    @property
    def manifest_path(self) -> Path | None:
        """The discovery manifest (HTTP only), written once the probe has attached to the UI (or
        failed to: then its tools answer why), so that a client that finds it finds a probe that
        is all there, and an app found through it ends cleanly (``mcp.ending``). Waits for that
        (up to MANIFEST_WAIT); None if it is not written."""
        if self.transport == "http" and self._startup.wait(MANIFEST_WAIT):
            self._published.wait(MANIFEST_WAIT)
        return self._manifest_path

    @manifest_path.setter
    def manifest_path(self, path: Path | None) -> None:
        self._manifest_path = path

    @property
    def running(self) -> bool:
        """False once stop() has finished: the port is closed and the manifest gone."""
        return not self._stopped.is_set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server and remove the manifest. Safe from any thread, any number of times;
        a second caller waits for the first to finish. Called by a tool of this probe (a custom
        tool, on its call's thread), it returns at once and the probe stops once the call is
        answered: the server's shutdown waits for that call, which would be waiting here."""
        global _active
        if current_call() is not None:
            threading.Thread(target=self.stop, args=(timeout,), name="wpfprobe-stop", daemon=True).start()
            return
        # Before the lock: a start-up about to write the manifest (under the lock) gives up.
        self._startup.request_stop()
        with self._stop_lock:
            if self._stopped.is_set():
                return
            if self._manifest_path is not None:
                from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

                # First, so that nobody discovers a server that is going away.
                _manifest.remove(self._manifest_path)
            self._published.set()  # none will be written now
            attached = self._startup.ready_probe(0.0)
            if attached is not None:
                attached.engine.stopping()  # a stop on the UI thread: the server's calls waiting there fail now
            if self._kernel is not None:
                self._kernel.close()  # open listen streams end with their result, not at the cut-off
            self._runner.stop(timeout)
            # A start still under way ends after its current step (each is bounded by ui_timeout).
            self._startup.stop(timeout)
            if self._startup.done and self._startup.error is None and self._startup.owns_probe:
                # Before the poster goes: the probe's handlers come off the app on its UI thread.
                self._startup.probe().engine.close()
            _release_ui_poster()
            # Only if it was loaded (a tool could have run): a stop is no reason to import it.
            catalog = sys.modules.get("wpfprobe.mcp.catalog")
            if catalog is not None:
                catalog.release_workers()
            if self._tools is not None and self._tools.recorder is not None:
                self._tools.recorder.close()
            with _active_lock:
                if _active is self:
                    _active = None
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
        # The tools are made on the start-up's thread after start() returned (stdio: the server's):
        # a tool added in the meantime waits for them (the tools' schemas: a fraction of a second).
        self._tools_made.wait(TOOLS_WAIT)
        if self._tools is None or not self.running:
            raise InvalidArgumentError(
                "This probe is not running, so it takes no new tools.",
                suggestion="Register the tool with @wpfprobe.tool before wpfprobe.start().",
            )
        if self._tools.has_custom(custom):
            return  # registered before the tools were made, and served since
        if custom.name in self._tools.names:
            raise InvalidArgumentError(
                f"This probe already has a tool named {custom.name!r}.", suggestion="Pick another name=."
            )
        self._tools.add(custom.spec(), custom=True, source=custom)
        self._tools.tools_changed()

    def _make_catalog(self) -> ToolCatalog:
        """On the server's (or the start-up's) thread: every tool, the ones registered so far too.
        No SDK: HTTP and stdio serve it with wpfprobe's own kernel."""
        from wpfprobe.mcp.catalog import ToolCatalog  # noqa: PLC0415
        from wpfprobe.mcp.custom import registered  # noqa: PLC0415

        startup = self._startup
        tools = ToolCatalog(startup.engine, tier=self.tier, settings=startup.settings(), app_id=self.app_id)
        for custom in registered():
            tools.add(custom.spec(), custom=True, source=custom)
        self._tools = tools
        self._tools_made.set()
        return tools

    def _make_kernel(self) -> Kernel:
        """On the stdio server's thread: wpfprobe's own MCP kernel over every tool, the ones
        registered so far too; no MCP SDK is imported (issue 22)."""
        from wpfprobe.core.version import __version__  # noqa: PLC0415
        from wpfprobe.mcp.catalog import INSTRUCTIONS  # noqa: PLC0415
        from wpfprobe.mcp.protocol import Kernel  # noqa: PLC0415

        return Kernel(self._make_catalog(), version=__version__, instructions=INSTRUCTIONS)

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

    Returns at once (HTTP: once the socket listens; the manifest follows the attach;
    stdio: once stdout is the wire's), and attaches to the app's UI on a thread
    of its own: what can be checked at once raises here (arguments, a second
    start, no UI found, an object that is no UI); what fails later is logged,
    answered by every tool call, and raised by ``handle.wait_ready()``.
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
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidArgumentError(f"timeout must be a number of seconds above 0, got {timeout!r}.")
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
        from wpfprobe_clr import locate  # noqa: PLC0415 - the CLR side's light part: no adapter yet

        # On this thread: the checks that can fail at once, and what must be made on the UI
        # thread when this is it (the app calls start() before its message loop runs).
        located = locate(app, load=False)
        startup = Startup(located, name=name, settings=settings, timeout=float(timeout))
        if transport == "http":
            handle = _start_http_soon(startup, tier=tier, port=port, token=token or secrets.token_urlsafe(32))
        else:
            handle = _start_stdio(startup, tier=tier)
        _active = handle
        serve_registrations(handle.add_custom_tool)
    atexit.register(handle.stop)
    # On this thread (the main thread, where the signal module allows it): Ctrl+C and SIGTERM
    # end the app cleanly from here on (mcp.ending); the UI's end is hooked once attached.
    ui_ended = _watch_ending(handle)

    def over(probe: Probe | None) -> None:
        if probe is not None and not _walk_compiled(startup):
            return
        _publish(handle, tier)

    startup.begin(
        after=lambda probe: _stop_with_ui(probe, ui_ended),
        on_failure=lambda err: _failed(handle, err),
        then=over,
        compile_after=lambda: _started_or_stopping(handle),
        serve=handle._serve,
    )
    if transport == "stdio":
        _await_stdio_takeover(handle)
    return handle


def _started_or_stopping(handle: ProbeHandle) -> None:
    """On the walk's compile thread, before it compiles: wait until the start-up is over and
    the server's tools are made (or either failed, or the probe stops, or the interpreter
    exits: exit joins the compile; at most COMPILE_WAIT). Building the walk's expression is
    mostly Python: run beside the start-up's imports it competed for the GIL, which put the
    first answer later and made the app's Python handlers on its UI thread wait longer
    (``starting.py``). No tool call needs the compile (snapshots are read the engine's way
    until it is ready).

    Then, before the compile, the tools' listing is made (``ToolCatalog.build_listing``: the
    built-in tools' shipped Tool objects read, ``listing.py``; an app's own were made when
    added): left out of the start-up, so the server serves and the engine is made without it,
    and made here, after them and before the compile, so that it competes with neither and a
    client's first tools/list (the SDK's client sends one right after its first call) usually
    finds it made. A client that lists sooner makes it on the server's thread, once."""
    deadline = time.monotonic() + COMPILE_WAIT
    startup = handle._startup
    while not (startup.done and handle._tools_made.wait(0.05)):
        exiting = not threading.main_thread().is_alive()
        if exiting or startup.stopping or time.monotonic() > deadline:
            return
        if not startup.done:
            startup.wait(0.05)
    tools = handle._tools
    if tools is not None and not startup.stopping:
        try:
            tools.build_listing()
        except Exception:  # the first tools/list meets it again and answers it
            log.warning("the tools' listing could not be made", exc_info=True, extra={"app": handle.app_id})


def _walk_compiled(startup: Startup) -> bool:
    """Wait for the walk's compile (on the start-up thread, after tool calls are answered): an
    app that exits while it runs ends worse (Ctrl+C's exit status was lost, and pythonnet's
    shutdown has crashed on it), so the manifest, which is what lets a client or `wpfprobe
    stop` end the app, comes after it. False if the probe stopped meanwhile."""
    from wpfprobe_clr._compiling import wait  # noqa: PLC0415

    while not wait(0.1):
        if startup.stopping:
            return False
    return True


def _publish(handle: ProbeHandle, tier: Tier) -> None:
    """Write the discovery manifest (HTTP), on the start-up thread once it is over: last, as the
    probe's "all there" (an app found through it ends cleanly from the first moment, mcp.ending).
    Under the stop lock, so a probe stopped meanwhile (its UI ended) leaves none behind; a
    stop() under way has asked the start-up to stop first, so this gives up rather than wait."""
    try:
        if handle.url is None or handle.token is None:
            return
        startup = handle._startup
        while not handle._stop_lock.acquire(timeout=0.05):
            if startup.stopping:
                return
        try:
            if handle.running and not startup.stopping:
                handle._manifest_path = _write_manifest(startup, url=handle.url, token=handle.token, tier=tier)
        except OSError:
            log.warning("the discovery manifest could not be written", exc_info=True, extra={"app": handle.app_id})
        finally:
            handle._stop_lock.release()
    finally:
        handle._published.set()


def _failed(handle: ProbeHandle, err: ProbeError) -> None:
    """The start-up could not attach: with the UI gone there is nothing to serve, so the probe
    stops as it would have at the UI's end; otherwise every tool call answers ``err``, and the
    manifest is written (``over``) so that a client finds the probe and hears why."""
    if err.code == "APP_NOT_AVAILABLE":
        threading.Thread(target=handle.stop, name="wpfprobe-stop", daemon=True).start()


def _release_ui_poster() -> None:
    """End the thread that posts to the UI thread, once a compile of the walk under way is
    done: a stopped probe leaves no thread in the app (``wpfprobe detach``); a later start
    makes a new one."""
    from wpfprobe_clr._compiling import wait as compiled  # noqa: PLC0415
    from wpfprobe_clr._ui_thread import release_poster  # noqa: PLC0415

    compiled(10.0)
    release_poster()


def active_handle() -> ProbeHandle | None:
    """The probe started in this process, while it runs."""
    with _active_lock:
        return _active if _active is not None and _active.running else None


def _watch_ending(handle: ProbeHandle) -> Callable[[], None]:
    """End with the app on Ctrl+C and SIGTERM (``mcp.ending``; on start()'s thread, the main
    thread for the signals); returns what the UI's exit event calls once it is hooked."""
    from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415

    ENDING.take_signals()
    return ENDING.watch(handle)


def _stop_with_ui(probe: Probe, ui_ended: Callable[[], None]) -> None:
    """Stop the server once the app's UI thread ends, without ever blocking it (on start()'s
    thread, once the probe is attached)."""
    from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415

    on_exit = getattr(probe.engine.adapter, "on_ui_exit", None)
    if on_exit is None:
        return

    def hook() -> None:  # on the UI thread
        on_exit(ui_ended)
        ENDING.hook_ui_thread()

    with contextlib.suppress(Exception):
        probe.engine.ui.run(hook)


# -- HTTP ---------------------------------------------------------------------


def _listening_socket(port: int) -> socket.socket:
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
    # From here a client's connection is queued by the kernel (up to the backlog) until the
    # server's thread accepts it.
    sock.listen(128)
    return sock


def _start_http_soon(startup: Startup, *, tier: Tier, port: int, token: str) -> ProbeHandle:
    """The handle, with the socket listening; the server is made on the start-up's thread (its
    ``serve`` step, ``starting.py`` says why there) and served on a thread of its own."""
    sock = _listening_socket(port)
    bound = sock.getsockname()[1]
    handle: ProbeHandle
    made = _Made(startup)

    def build() -> Any:
        # On the start-up's thread: the tools' catalog, the ASGI app behind the guard,
        # uvicorn; the server's thread gets the app, or what went wrong, and runs it.
        try:
            app = _http_app(handle, port=bound, token=token, catalog=handle._make_catalog())
            import uvicorn  # noqa: F401, PLC0415
        except Exception as exc:  # noqa: BLE001 - raised on the server's thread, which reports it
            made.give(None, exc)
        else:
            made.give(app, None)

    runner = _Runner(made.take, sock, on_failure=lambda: _server_failed(handle))
    url = f"http://{LOOPBACK}:{bound}{MCP_PATH}"
    handle = ProbeHandle(startup=startup, transport="http", tier=tier, url=url, token=token, runner=runner)
    handle._serve = build
    runner.start()
    return handle


class _Made:
    """The ASGI app the start-up's thread made, handed to the server's thread."""

    def __init__(self, startup: Startup) -> None:
        self._startup = startup
        self._given = threading.Event()
        self._app: Any = None
        self._error: BaseException | None = None

    def give(self, app: Any, error: BaseException | None) -> None:
        self._app, self._error = app, error
        self._given.set()

    def take(self) -> Any:
        """The app, once made (raises what stopped it); None if the probe stops first."""
        while not self._given.wait(0.05):
            if self._startup.stopping:
                return None
        if self._error is not None:
            raise self._error
        return self._app


def _server_failed(handle: ProbeHandle) -> None:
    """The server could not be made (a broken install of uvicorn): nothing serves the socket, so
    the probe stops (its manifest and socket go) rather than leave clients queued for nothing."""
    handle._tools_made.set()
    threading.Thread(target=handle.stop, name="wpfprobe-stop", daemon=True).start()


def _http_app(handle: ProbeHandle, *, port: int, token: str, catalog: ToolCatalog) -> Any:
    """The guarded ASGI app: ``catalog`` served by the SDK-free kernel in both eras, the 2026-07-28
    era's requests (routed by header, as the SDK routed them) by httpserve.py, the handshake era's
    by handshake.py. The app imports neither mcp nor mcp_types for it."""
    from wpfprobe.core.version import __version__  # noqa: PLC0415
    from wpfprobe.mcp.catalog import INSTRUCTIONS, collections_after_response  # noqa: PLC0415
    from wpfprobe.mcp.handshake import HandshakeEndpoint  # noqa: PLC0415
    from wpfprobe.mcp.httpserve import MAX_BODY, EraRouter, ModernEndpoint  # noqa: PLC0415
    from wpfprobe.mcp.protocol import Kernel  # noqa: PLC0415
    from wpfprobe.mcp.spliced import written_in_pieces  # noqa: PLC0415

    # uvicorn's log records, made on the server's threads, are the probe's business.
    wirelog.install()
    hosts = [f"{LOOPBACK}:{port}", f"localhost:{port}"]
    origins = [f"http://{h}" for h in hosts]
    kernel = Kernel(catalog, version=__version__, instructions=INSTRUCTIONS)
    handle._kernel = kernel
    handshake = HandshakeEndpoint(kernel, hosts=hosts, origins=origins, max_body=MAX_BODY)
    mcp_app: Any = EraRouter(ModernEndpoint(kernel, hosts=hosts, origins=origins), handshake)
    settings = handle._startup.settings()
    # Python's collector stays off while a read's answer is copied and written (catalog).
    mcp_app = collections_after_response(mcp_app)
    # A big answer's JSON goes into the body in pieces, never encoded whole (spliced.py).
    mcp_app = written_in_pieces(mcp_app)
    # The attach helper's own paths first (exact matches), then the MCP endpoint's wire rules.
    routes = handle._routes if handle._routes is not None else _Routes(None)
    handle._routes = routes
    routes.app = httpwire.HttpWire(mcp_app, path=MCP_PATH)
    guard = Guard(routes, token=token, hosts=hosts, origins=origins, require_token=settings.require_token)
    guard.close_app = lambda: _request_close(handle)
    return guard


def _start_http(probe: Probe, catalog: ToolCatalog, *, tier: Tier, port: int, token: str) -> ProbeHandle:
    """A server for a probe already attached, serving ``catalog`` as ``start()`` serves its own (the
    benchmarks add tools of their own); returns once it accepts. Not ``start()``: no manifest, and
    it is not the process's active probe."""
    startup = Startup.attached(probe)
    sock = _listening_socket(port)
    bound = sock.getsockname()[1]
    handle: ProbeHandle

    def build() -> Any:
        handle._tools_made.set()
        return _http_app(handle, port=bound, token=token, catalog=catalog)

    runner = _Runner(build, sock)
    url = f"http://{LOOPBACK}:{bound}{MCP_PATH}"
    handle = ProbeHandle(startup=startup, transport="http", tier=tier, url=url, token=token, runner=runner)
    runner.start()
    runner.wait_started()
    return handle


def _request_close(handle: ProbeHandle) -> bool:
    from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415

    return ENDING.request_close(handle)


def _write_manifest(startup: Startup, *, url: str, token: str, tier: Tier) -> Path:
    from wpfprobe.core.version import __version__  # noqa: PLC0415
    from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

    runtime = startup.runtime
    started = _manifest.process_start_time(os.getpid())
    manifest = _manifest.Manifest(
        app_id=startup.app_id,
        app_name=startup.app_name,
        pid=os.getpid(),
        process_start_time=started if started is not None else 0.0,
        exe=sys.executable,
        toolkit=startup.toolkit,
        runtime=f"{runtime.kind} {runtime.version}",
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
    """uvicorn on its own thread and event loop, serving an already-bound socket.

    ``build`` answers the ASGI app on that thread first (importing uvicorn and making the tools'
    schemas take longer than ``start()`` may: ``start()``'s is made on the start-up's thread and
    handed over, ``_Made``; None if the probe stopped first), then the accept loop begins.
    """

    def __init__(
        self, build: Callable[[], Any], sock: socket.socket, on_failure: Callable[[], None] | None = None
    ) -> None:
        self._build = build
        self._sock = sock
        self._on_failure = on_failure
        self._server: Any = None
        self._lock = threading.Lock()
        self._stopping = False
        # The name tells wirelog which log records are this server's.
        self._thread = threading.Thread(target=self._run, name=f"{SERVER_THREAD_PREFIX}-http", daemon=True)
        self.done = threading.Event()
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            app = self._build()
            if app is None:  # the probe stopped before its server was made
                return
            import uvicorn  # noqa: PLC0415

            # No log_level, access_log=True and no log_config: anything else makes uvicorn reconfigure
            # its loggers process-wide (levels, and the access logger's handlers), which are the app's
            # if it runs uvicorn itself. What uvicorn logs on this server's thread goes to wpfprobe's
            # own log at DEBUG, never to the app's stderr (wirelog.py).
            # ws="none": no WebSocket here, and uvicorn's "auto" tries to import websockets and
            # wsproto; an import that fails asks pythonnet's finder, a call into the CLR that makes
            # this thread one Mono's exit waits for (wpfprobe_clr/_ui_thread.py).
            config = uvicorn.Config(
                app,
                http=httpwire.protocol_class(),
                ws="none",
                timeout_keep_alive=int(httpwire.KEEP_ALIVE),
                log_level=None,
                access_log=True,
                lifespan="on",
                timeout_graceful_shutdown=2,
                log_config=None,
            )
            server = uvicorn.Server(config)
            with self._lock:
                if self._stopping:
                    return
                self._server = server
            import asyncio  # noqa: PLC0415 - on this thread: start() does not wait for its import

            async def serve() -> None:
                asyncio.get_running_loop().set_exception_handler(wirelog.loop_exception)
                await server.serve(sockets=[self._sock])

            asyncio.run(serve())
        except BaseException as exc:
            self._error = exc
            log.warning("the MCP server could not run", exc_info=True)
            with self._lock:
                stopping = self._stopping
            if not stopping and self._on_failure is not None:
                self._on_failure()
        finally:
            self.done.set()

    def start(self) -> None:
        self._thread.start()

    def wait_started(self, timeout: float = 30.0) -> None:
        """Wait until the accept loop runs (the benchmarks' servers); raises if it could not."""
        deadline = time.monotonic() + timeout
        while not self.done.is_set() and time.monotonic() < deadline:
            with self._lock:
                if self._server is not None and self._server.started:
                    return
            self.done.wait(0.005)
        raise ProbeError(f"The MCP server did not start: {self._error!r}", code="INTERNAL")

    def stop(self, timeout: float) -> None:
        with self._lock:
            self._stopping = True
            server = self._server
        if server is not None:
            server.should_exit = True
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
            if self._thread.is_alive() and server is not None:
                server.force_exit = True
                self._thread.join(timeout)
        with contextlib.suppress(OSError):
            self._sock.close()


# -- stdio --------------------------------------------------------------------


class _StdioRunner:
    """The stdio server on its own thread: ``build`` makes its kernel there first (the tools'
    schemas), then one connection is served on stdin and stdout (``stdioserve``) until the client
    closes stdin or the probe stops."""

    def __init__(self, build: Callable[[], Kernel]) -> None:
        self._build = build
        self._thread = threading.Thread(target=self._run, name="wpfprobe-mcp-stdio", daemon=True)
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._stopping = False
        self._loop: Any = None  # the asyncio loop and task, once it runs
        self._task: Any = None

    def _run(self) -> None:
        import asyncio  # noqa: PLC0415 - on this thread: start() does not wait for its import

        from wpfprobe.mcp import stdioserve  # noqa: PLC0415

        async def main() -> None:
            with self._lock:
                if self._stopping:
                    return
                self._loop = asyncio.get_running_loop()
                self._task = asyncio.current_task()
            self._loop.set_exception_handler(wirelog.loop_exception)
            try:
                await stdioserve.serve(kernel)
            finally:
                kernel.close()

        try:
            kernel = self._build()
            asyncio.run(main())
        except (asyncio.CancelledError, Exception):
            log.debug("stdio server ended", exc_info=True)
        finally:
            self.done.set()

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float) -> None:
        with self._lock:
            self._stopping = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)


#: How long start() waits for the stdio server to take stdout over (the tools' schemas come first).
STDIO_TAKEOVER_SECONDS = 60.0


def _start_stdio(startup: Startup, *, tier: Tier) -> ProbeHandle:
    # Anything already printed must leave before the wire belongs to MCP.
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    separate = not _same_file(1, 2)
    handle: ProbeHandle
    runner = _StdioRunner(lambda: handle._make_kernel())
    handle = ProbeHandle(startup=startup, transport="stdio", tier=tier, url=None, token=None, runner=runner)
    handle._stdio_separate = separate
    runner.start()
    return handle


def _await_stdio_takeover(handle: ProbeHandle) -> None:
    """The stdio server points fd 1 at stderr once its thread runs (``stdioserve``); until then an
    app's print would land on the wire, so stdio's start() returns only after the switch (the
    tools are made first: stdio's start() takes that long, HTTP's does not wait for it). After
    the start-up has begun: the server's tools wait for its settings."""
    runner = handle._runner
    deadline = time.monotonic() + STDIO_TAKEOVER_SECONDS
    while handle._stdio_separate and not _same_file(1, 2) and not runner.done.is_set():
        if time.monotonic() > deadline:
            handle.stop(2)
            raise ProbeError("The stdio MCP server did not take over stdout.", code="INTERNAL")
        time.sleep(0.001)


def _same_file(a: int, b: int) -> bool:
    try:
        return os.path.samestat(os.fstat(a), os.fstat(b))
    except OSError:
        return False
