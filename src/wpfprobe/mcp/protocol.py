"""The MCP kernel without the SDK: what the endpoint answers each message, on any wire, in both eras.

The app's stdio is served on it (``stdioserve.py``); HTTP still runs on the SDK.
This module is the message-level half of the SDK-free endpoint (docs: the ``sdk-free-endpoint``
note, its section 2); a wire decodes a line or body with :mod:`.jsonrpc`, hands
the message to a :class:`Session`, and writes what the session gives its
:class:`Output`. Every rule here is the SDK's (``mcp`` 2.3 ``server/runner.py``,
``shared/jsonrpc_dispatcher.py``, ``shared/inbound.py``), pinned against it by
tests/unit/test_protocol_*.py (drivers in kernel_twin.py):

* **Era.** HTTP routes by header and says so (``Session(era=...)``); stdio leaves
  it to the first request (``era=None``): one whose ``params._meta`` carries the
  2026 protocol-version key, and is no ``initialize``, opens a 2026 connection,
  anything else a handshake one; the notifications before it (up to 8) are
  replayed after the decision. Afterwards ``initialize`` on a 2026 stdio
  connection is -32022, and an enveloped request on a handshake one -32600.
* **Handshake era.** ``initialize`` runs before the next message is read;
  it negotiates the version (the client's if it is a handshake one, else
  2025-11-25). Every other served method except ``ping`` is refused (-32602,
  data "") until an ``initialize`` was answered. Results drop ``None`` fields and
  the capabilities' ``extensions``.
* **2026 era.** Each request carries its envelope (:func:`envelope_error`, the
  ladder); ``ping``/``initialize`` do not exist; results carry ``resultType``
  and the ``serverInfo`` stamp in ``_meta``; ``tools/list`` and
  ``server/discover`` the cache hints ``ttlMs``/``cacheScope``.
* **Both.** Unknown methods are -32601 with the method as data; surface-invalid
  params -32602 with data ""; a handler exception is code 0 and its text in the
  handshake era, -32603 "Internal server error" in 2026. Requests run
  concurrently, each in its own task in the caller's context; a
  ``notifications/cancelled`` cancels one, which is then never answered.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import contextvars
import logging
import re
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from wpfprobe.mcp import jsonrpc
from wpfprobe.mcp.jsonrpc import RequestId, as_request_id, correlation_key

__all__ = [
    "HANDSHAKE_VERSIONS",
    "LATEST_HANDSHAKE_VERSION",
    "MODERN_VERSION",
    "Catalog",
    "Era",
    "Kernel",
    "Output",
    "Progress",
    "Session",
    "envelope_error",
    "era_of_header",
]

log = logging.getLogger("wpfprobe.wire")

Message = dict[str, Any]
Era = Literal["handshake", "2026-07-28"]
Progress = Callable[[float, float | None, str | None], Awaitable[None]]  # progress, total, message

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION: Final = "2025-11-25"
MODERN_VERSION: Final = "2026-07-28"
PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY: Final = "io.modelcontextprotocol/subscriptionId"
GATE_EXTENSION: Final = "dev.wpfprobe/gate"
#: Frames kept from before a stdio client's first request, for the era it opens (the SDK's 8).
PRE_REQUEST_REPLAY: Final = 8
#: Open listen streams at most, and events buffered on one (the SDK's ListenHandler bounds).
MAX_LISTENERS: Final = 1024
MAX_BUFFERED_EVENTS: Final = 1024


class Catalog(Protocol):
    tier: str

    def list_tools(self) -> list[dict[str, Any]]: ...  # MCP Tool objects, JSON-ready

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, *, progress: Progress | None
    ) -> dict[str, Any]: ...  # a CallToolResult, JSON-ready; cancelled by cancelling its task

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]: ...  # tools changed; the unsubscribe


class Output(Protocol):
    """Where one connection's messages go. stdio writes all three to stdout; streamable HTTP
    puts ``send`` on the session's GET stream and the other two on the POST's own stream."""

    async def send(self, message: Message) -> None:
        """A message on the connection's channel (``notifications/tools/list_changed``)."""

    async def send_to(self, request_id: RequestId, message: Message) -> None:
        """A message on a request's own channel (progress, listen frames), before its answer."""

    async def end(self, request_id: RequestId, answer: Message | None) -> None:
        """A request's last message: its answer, or None when it was cancelled and is never answered
        (handshake-era HTTP then ends the POST's stream with -32800 "Request cancelled"; stdio and
        2026 HTTP write nothing)."""


def era_of_header(value: str | None) -> Era:
    """The era a streamable-HTTP request is served in, by its ``MCP-Protocol-Version`` header (the
    first, if given twice): absent or a handshake version routes to the handshake; anything else,
    an empty or garbage value too, to 2026."""
    return "handshake" if value is None or value in HANDSHAKE_VERSIONS else MODERN_VERSION


class _Refusal(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code, self.message, self.data = code, message, data


# --- the 2026 envelope ladder (inbound.py:390-494) ---------------------------------------------------

_ROUTING_HEADERS: Final = ("mcp-protocol-version", "mcp-method", "mcp-name")
_B64_SENTINEL: Final = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")


def _decode_header_value(value: str | None) -> str | None:
    if value is None or (m := _B64_SENTINEL.fullmatch(value)) is None:
        return value
    payload = m.group("payload")
    try:
        raw = base64.b64decode(payload, validate=True)
        # Only canonical base64 (what encoders emit) matches a body value; so says the SDK.
        return raw.decode("utf-8") if base64.b64encode(raw).decode("ascii") == payload else None
    except (binascii.Error, UnicodeDecodeError):
        return None


def envelope_error(request: Message, *, headers: Iterable[tuple[str, str]] | None = None) -> Message | None:
    """The error a 2026 request's envelope earns, first failure wins, or None: ``_meta`` lacks the
    version or capabilities key (-32602); a routing header given twice or disagreeing with the body
    (-32020, HTTP only: ``headers`` are the raw pairs); the version no string (-32602) or not
    served (-32022 naming the supported ones)."""
    folded: dict[str, str] | None = None
    if headers is not None:
        folded = {}
        for name, value in headers:
            key = name.lower()
            if key in _ROUTING_HEADERS and key in folded:
                return _error(request, jsonrpc.HEADER_MISMATCH, f"{key} header appears more than once")
            folded[key] = value
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return _error(
            request,
            jsonrpc.INVALID_PARAMS,
            f"params._meta must be an object carrying the required {PROTOCOL_VERSION_KEY!r} "
            f"and {CLIENT_CAPABILITIES_KEY!r} envelope keys",
        )
    if missing := [key for key in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY) if key not in meta]:
        return _error(
            request,
            jsonrpc.INVALID_PARAMS,
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
        )
    version = meta[PROTOCOL_VERSION_KEY]
    if folded is not None:
        if folded.get("mcp-protocol-version") is None or folded["mcp-protocol-version"] != version:
            return _error(
                request,
                jsonrpc.HEADER_MISMATCH,
                "mcp-protocol-version header does not match the request envelope's protocol version",
            )
        if folded.get("mcp-method") != request.get("method"):
            return _error(
                request, jsonrpc.HEADER_MISMATCH, "mcp-method header does not match the request body's method"
            )
        name_key = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(request["method"])
        named = params.get(name_key) if name_key is not None and isinstance(params, dict) else None
        if named is not None and _decode_header_value(folded.get("mcp-name")) != named:
            return _error(
                request,
                jsonrpc.HEADER_MISMATCH,
                f"mcp-name header does not match the request body's {name_key!r} parameter",
            )
    if not isinstance(version, str):
        return _error(request, jsonrpc.INVALID_PARAMS, "the protocol-version envelope value must be a string")
    if version != MODERN_VERSION:
        data = {"supported": [MODERN_VERSION], "requested": version}
        return _error(request, jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data)
    return None


def _error(request: Message, code: int, message: str, data: Any = None) -> Message:
    return jsonrpc.error(request.get("id"), code, message, data)


# --- surface validation of params (mcp_types.methods, pydantic's lax mode) ---------------------------
# A schema is a type name ("str", "int", "bool", "obj", "any"), a tuple of allowed constants, a
# list of alternatives, or a dict of fields; a "?" after a type name admits null, one after a
# field name makes the field optional.

_TRUE_WORDS: Final = frozenset({"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"})


def _lax(kind: str, value: Any) -> bool:
    if kind == "any":
        return True
    if kind == "str":
        return isinstance(value, str)
    if kind == "obj":
        return isinstance(value, dict)
    if kind == "obj[str]":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if kind == "list[str]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "int":
        if isinstance(value, str):
            try:
                int(value.strip())
            except ValueError:
                return False
            return True
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "bool":
        if isinstance(value, str):
            return value.strip().lower() in _TRUE_WORDS
        return isinstance(value, bool) or (isinstance(value, int | float) and value in (0, 1))
    if kind == "str|int":
        return _lax("str", value) or _lax("int", value)
    raise ValueError(kind)


def _fits(schema: Any, value: Any) -> bool:
    if isinstance(schema, str):
        if schema.endswith("?"):
            return value is None or _lax(schema[:-1], value)
        return _lax(schema, value)
    if isinstance(schema, tuple):
        return isinstance(value, str) and value in schema
    if isinstance(schema, list):
        return any(_fits(alternative, value) for alternative in schema)
    if not isinstance(value, dict):
        return False
    for field, inner in schema.items():
        optional = field.endswith("?")
        name = field[:-1] if optional else field
        if name not in value:
            if not optional:
                return False
        elif not (value[name] is None and optional and _nullable(inner)) and not _fits(inner, value[name]):
            return False
    return True


def _nullable(schema: Any) -> bool:
    return (isinstance(schema, str) and schema.endswith("?")) or isinstance(schema, dict | tuple)


_ICON: Final = {"src": "str", "mimeType?": "str?", "sizes?": "list[str]?", "theme?": ("light", "dark")}
_IMPLEMENTATION: Final = {
    "name": "str",
    "version": "str",
    "title?": "str?",
    "description?": "str?",
    "websiteUrl?": "str?",
    "icons?": "any",  # checked by _icons_ok: a list of icons
}
_OBJ_FIELDS: Final = {"form?": "obj?", "url?": "obj?"}
_SAMPLING: Final = {"context?": "obj?", "tools?": "obj?"}
_CAPS_2025: Final = {
    "elicitation?": _OBJ_FIELDS,
    "experimental?": "any",  # an object of objects: _caps_ok
    "roots?": {"listChanged?": "bool?"},
    "sampling?": _SAMPLING,
    "tasks?": {
        "cancel?": "obj?",
        "list?": "obj?",
        "requests?": {"elicitation?": {"create?": "obj?"}, "sampling?": {"createMessage?": "obj?"}},
    },
}
_CAPS_2026: Final = {
    "elicitation?": _OBJ_FIELDS,
    "experimental?": "any",
    "extensions?": "any",
    "roots?": "obj?",
    "sampling?": _SAMPLING,
}
_LOG_LEVELS: Final = ("alert", "critical", "debug", "emergency", "error", "info", "notice", "warning")
_META_2025: Final = {"progressToken?": "str|int?"}
_META_2026: Final = {
    PROTOCOL_VERSION_KEY: "str",
    CLIENT_CAPABILITIES_KEY: _CAPS_2026,
    "io.modelcontextprotocol/clientInfo?": _IMPLEMENTATION,
    "io.modelcontextprotocol/logLevel?": _LOG_LEVELS,
    "progressToken?": "str|int?",
}
_REFERENCE: Final = [{"type": ("ref/prompt",), "name": "str"}, {"type": ("ref/resource",), "uri": "str"}]
_COMPLETE: Final = {
    "ref": _REFERENCE,
    "argument": {"name": "str", "value": "str"},
    "context?": {"arguments?": "obj[str]?"},
}


def _params_schemas(meta: dict[str, Any], meta_field: str) -> dict[str, dict[str, Any]]:
    """Each spec method's params at an era; methods absent here do not exist at that era."""
    schemas: dict[str, dict[str, Any]] = {
        "tools/list": {meta_field: meta, "cursor?": "str?"},
        "tools/call": {meta_field: meta, "name": "str", "arguments?": "obj?"},
        "prompts/list": {meta_field: meta, "cursor?": "str?"},
        "prompts/get": {meta_field: meta, "name": "str", "arguments?": "obj[str]?"},
        "resources/list": {meta_field: meta, "cursor?": "str?"},
        "resources/templates/list": {meta_field: meta, "cursor?": "str?"},
        "resources/read": {meta_field: meta, "uri": "str"},
        "completion/complete": {meta_field: meta, **_COMPLETE},
    }
    return schemas


_HANDSHAKE_PARAMS: Final = {
    **_params_schemas(_META_2025, "_meta?"),
    "ping": {"_meta?": _META_2025},
    "initialize": {
        "_meta?": _META_2025,
        "protocolVersion": "str",
        "capabilities": _CAPS_2025,
        "clientInfo": _IMPLEMENTATION,
    },
    "logging/setLevel": {"_meta?": _META_2025, "level": _LOG_LEVELS},
    "resources/subscribe": {"_meta?": _META_2025, "uri": "str"},
    "resources/unsubscribe": {"_meta?": _META_2025, "uri": "str"},
}
_HANDSHAKE_PARAMS["tools/call"]["task?"] = {"ttl?": "int?"}
_MODERN_PARAMS: Final = {
    **_params_schemas(_META_2026, "_meta"),
    "server/discover": {"_meta": _META_2026},
    "subscriptions/listen": {
        "_meta": _META_2026,
        "notifications": {
            "toolsListChanged?": "bool?",
            "promptsListChanged?": "bool?",
            "resourcesListChanged?": "bool?",
            "resourceSubscriptions?": "list[str]?",
        },
    },
}
for _method in ("tools/call", "prompts/get", "resources/read"):
    _MODERN_PARAMS[_method].update({"requestState?": "str?", "inputResponses?": "obj?"})
#: Spec methods with params that may be absent at the handshake era (every 2026 request has params).
_PARAMS_OPTIONAL: Final = frozenset(
    {"ping", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}
)
SPEC_METHODS: Final = frozenset(_HANDSHAKE_PARAMS) | frozenset(_MODERN_PARAMS)


def _deep_ok(params: dict[str, Any]) -> bool:
    """What the table cannot say: icons are a list of icons; experimental/extensions objects of objects."""
    meta = params.get("_meta")
    infos = [params.get("clientInfo")]
    caps = [params.get("capabilities")]
    if isinstance(meta, dict):
        infos.append(meta.get("io.modelcontextprotocol/clientInfo"))
        caps.append(meta.get(CLIENT_CAPABILITIES_KEY))
    for info in infos:
        icons = info.get("icons") if isinstance(info, dict) else None
        if icons is not None and not (isinstance(icons, list) and all(_fits(_ICON, icon) for icon in icons)):
            return False
    for cap in caps:
        for key in ("experimental", "extensions"):
            value = cap.get(key) if isinstance(cap, dict) else None
            if value is not None and not (isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())):
                return False
    return True


def _surface_ok(method: str, era: Era, params: Any) -> bool:
    schemas = _HANDSHAKE_PARAMS if era == "handshake" else _MODERN_PARAMS
    if params is None:
        return era == "handshake" and method in _PARAMS_OPTIONAL
    return isinstance(params, dict) and _fits(schemas[method], params) and _deep_ok(params)


# --- the kernel ----------------------------------------------------------------------------------------


@dataclass(eq=False)
class _InFlight:
    """A request being served: its task, whether its client cancelled it, whether its handler runs."""

    task: asyncio.Task[None] | None = None
    cancelled: bool = False
    open: bool = True


@dataclass(eq=False)  # kept in a set by identity
class _Listener:
    queue: asyncio.Queue[bool]  # True: an event; False: end the stream gracefully
    tools: bool


class Kernel:
    """The server side of MCP for one catalog: its identity, its tools, and every connection's
    sessions (for the list_changed fan-out). Make sessions with :meth:`connect`."""

    def __init__(self, catalog: Catalog, *, version: str, instructions: str | None, name: str = "wpfprobe") -> None:
        self.catalog = catalog
        self.server_info = {"name": name, "version": version}
        self.instructions = instructions
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sessions: weakref.WeakSet[Session] = weakref.WeakSet()
        self._listeners: set[_Listener] = set()
        self._closers: list[Callable[[], None]] = []
        self._unsubscribe = catalog.on_change(self.tools_changed)

    def when_closed(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the serving loop at :meth:`close` (a wire ends its streams)."""
        self._closers.append(callback)

    def connect(self, output: Output, *, era: Era | None = None) -> Session:
        """A session for one connection; ``era`` None lets its first request decide (stdio)."""
        session = Session(self, output, era=era)
        self._sessions.add(session)
        return session

    def tools_changed(self) -> None:
        """Tell every handshake client that initialized and every 2026 listener; from any thread."""
        self._on_loop(self._fan_out)

    def close(self) -> None:
        """Stop hearing the catalog, and end every listen stream gracefully (its result is sent);
        from any thread."""
        self._unsubscribe()
        self._on_loop(self._end_listeners)

    def _on_loop(self, work: Callable[[], None]) -> None:
        """Run ``work`` on the serving loop: now if this is it, else as soon as it can. Before the
        first message (no loop yet) or after the loop closed there is nobody to tell."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            work()
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server stopped
            loop.call_soon_threadsafe(work)

    def _end_listeners(self) -> None:
        for listener in list(self._listeners):
            _offer(listener, False)
        for callback in self._closers:
            callback()

    def _fan_out(self) -> None:
        changed = jsonrpc.notification("notifications/tools/list_changed")
        for session in list(self._sessions):
            if session.era == "handshake" and session.initialize_accepted:
                session.spawn_send(changed)
        for listener in list(self._listeners):
            if listener.tools and not _offer(listener, True):
                self._listeners.discard(listener)

    # The handlers: each returns the result dict before the era's shaping.

    def _initialize(self, params: dict[str, Any]) -> tuple[Message, str]:
        requested = params.get("protocolVersion")
        version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
        result: Message = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": dict(self.server_info),
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result, version

    def _discover(self) -> Message:
        result: Message = {
            "supportedVersions": [MODERN_VERSION],
            "capabilities": {
                "tools": {"listChanged": True},
                "extensions": {GATE_EXTENSION: {"tier": self.catalog.tier}},
            },
        }
        if self.instructions is not None:
            result["instructions"] = self.instructions
        return result


def _offer(listener: _Listener, event: bool) -> bool:
    """Queue an event (True) or the end (False) on a listen stream; False when it ends. A client
    that stopped reading is ended at the backlog cap, after what is buffered (as the SDK does:
    it re-listens, and there is no replay to lose)."""
    if event and listener.queue.qsize() >= MAX_BUFFERED_EVENTS:
        log.debug("a listen stream's backlog is full; ending it")
        event = False
    listener.queue.put_nowait(event)
    return event


_CACHE_HINTS: Final = {"ttlMs": 0, "cacheScope": "private"}
#: The top-level fields of each result at each era's schema (mcp_types.methods.SERVER_RESULTS);
#: ``ping``'s result admits any, and no capabilities ``extensions`` before 2026 (initialize drops them).
_HANDSHAKE_RESULT_FIELDS: Final = {
    "initialize": frozenset({"_meta", "capabilities", "instructions", "protocolVersion", "serverInfo"}),
    "tools/list": frozenset({"_meta", "nextCursor", "tools"}),
    "tools/call": frozenset({"_meta", "content", "isError", "structuredContent"}),
}
_MODERN_RESULT_FIELDS: Final = {
    "tools/list": frozenset({"_meta", "cacheScope", "nextCursor", "resultType", "tools", "ttlMs"}),
    "tools/call": frozenset({"_meta", "content", "isError", "structuredContent", "resultType"}),
    "server/discover": frozenset(
        {"_meta", "cacheScope", "capabilities", "instructions", "resultType", "supportedVersions", "ttlMs"}
    ),
    "subscriptions/listen": frozenset({"_meta", "resultType"}),
}


class Session:
    """One connection's state: its era, its handshake, its requests in flight."""

    def __init__(self, kernel: Kernel, output: Output, *, era: Era | None) -> None:
        self.kernel = kernel
        self.output = output
        self.era: Era | None = era
        #: The era was decided by the first request (stdio), so the other era's claims are refused.
        self._locked = era is None
        self.protocol_version = LATEST_HANDSHAKE_VERSION if era == "handshake" else MODERN_VERSION
        self.initialize_accepted = False
        self.initialized = False
        self._early: list[Message] = []
        self._in_flight: dict[RequestId, _InFlight] = {}
        self._sends: set[asyncio.Task[None]] = set()

    async def receive(
        self, kind: jsonrpc.Kind, message: Message, *, context: contextvars.Context | None = None
    ) -> None:
        """Take one decoded message. A request starts its own task (in ``context``, else the
        caller's) and returns; ``initialize`` is answered before this returns."""
        self.kernel.loop = asyncio.get_running_loop()
        if kind == "notification":
            if self.era is None:
                if len(self._early) < PRE_REQUEST_REPLAY:
                    self._early.append(message)
                return
            self._notify(message)
            return
        if kind != "request":
            return  # we send no requests, so a response answers nothing of ours
        if self.era is None:
            opens_modern = message["method"] != "initialize" and _enveloped(message.get("params"))
            self.era = MODERN_VERSION if opens_modern else "handshake"
            self.protocol_version = LATEST_HANDSHAKE_VERSION if self.era == "handshake" else MODERN_VERSION
            for early in self._early:
                self._notify(early)
            self._early.clear()
        request_id = message["id"]
        record = _InFlight()
        coro = self._serve(request_id, message, record)
        record.task = context.run(asyncio.create_task, coro) if context is not None else asyncio.create_task(coro)
        # A duplicate id overwrites the earlier entry (its request runs on, uncancellable), as in the SDK.
        self._in_flight[correlation_key(request_id)] = record
        if message["method"] == "initialize":
            await asyncio.wait({record.task})  # the next message waits for the handshake's outcome

    def cancel(self, request_id: RequestId) -> None:
        """Cancel a request in flight; it is then never answered (``notifications/cancelled``, or a
        2026 client's hang-up). A request whose answer is being written is past cancelling."""
        record = self._in_flight.pop(correlation_key(request_id), None)
        if record is not None and record.task is not None:
            record.cancelled = True
            record.task.cancel()

    async def close(self) -> None:
        """The connection ended: cancel what is in flight, answering it -32000 (where the wire still
        takes it), as the SDK's dispatcher does when its read stream ends."""
        tasks = [record.task for record in self._in_flight.values() if record.task is not None]
        self._in_flight.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, *self._sends, return_exceptions=True)

    def spawn_send(self, message: Message) -> None:
        task = asyncio.get_running_loop().create_task(self._send(message))
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)

    async def _send(self, message: Message) -> None:
        try:
            await self.output.send(message)
        except Exception:
            log.debug("a notification for a connection that is gone was dropped", exc_info=True)

    def _notify(self, message: Message) -> None:
        method, params = message["method"], message.get("params")
        if method == "notifications/cancelled":
            request_id = as_request_id((params or {}).get("requestId"))
            if request_id is not None:
                self.cancel(request_id)
        elif method == "notifications/initialized" and self.era == "handshake":
            self.initialized = True
        # notifications/progress and the rest: nothing for a server to do.

    async def _serve(self, request_id: RequestId, request: Message, record: _InFlight) -> None:
        key = correlation_key(request_id)
        try:
            try:
                result = await self._dispatch(request_id, request, record)
                answer = jsonrpc.response(request_id, result)
            except _Refusal as refusal:
                answer = jsonrpc.error(request_id, refusal.code, refusal.message, refusal.data)
            except Exception as exc:
                if self.era == "handshake":
                    log.debug("the handler of %r raised", request["method"], exc_info=True)
                    answer = jsonrpc.error(request_id, 0, str(exc))
                else:
                    log.debug("the 2026 handler of %r raised", request["method"], exc_info=True)
                    answer = jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "Internal server error")
        except asyncio.CancelledError:
            record.open = False
            closed = jsonrpc.error(request_id, -32000, "Connection closed")
            await self._end(request_id, None if record.cancelled else closed)
            raise
        record.open = False  # progress after the handler is dropped, as the SDK drops it
        if self._in_flight.get(key) is record:
            del self._in_flight[key]  # from here on a cancel finds nothing: the answer is on its way
        # A cancel that came after the handler returned, before this line, still silences the answer.
        await self._end(request_id, None if record.cancelled else answer)

    async def _end(self, request_id: RequestId, answer: Message | None) -> None:
        try:
            await asyncio.shield(self.output.end(request_id, answer))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.debug("the answer to %r could not be written", request_id, exc_info=True)

    async def _dispatch(self, request_id: RequestId, request: Message, record: _InFlight) -> Message:
        method: str = request["method"]
        params = request.get("params")
        if self.era == "handshake":
            return self._shape_handshake(method, await self._handshake(request_id, record, method, params))
        return self._shape_modern(method, await self._modern(request_id, record, request, method, params))

    async def _handshake(self, request_id: RequestId, record: _InFlight, method: str, params: Any) -> Message:
        if self._locked and method != "initialize" and _enveloped(params):
            raise _Refusal(
                jsonrpc.INVALID_REQUEST,
                "this connection serves the handshake protocol era; "
                "requests carrying the 2026-07-28 envelope are not accepted on it",
            )
        if method in SPEC_METHODS:
            if method not in _HANDSHAKE_PARAMS:
                raise _Refusal(jsonrpc.METHOD_NOT_FOUND, "Method not found", method)
            self._check(method, "handshake", params)
        if method == "initialize":
            result, version = self.kernel._initialize(params)
            self.protocol_version = version
            self.initialize_accepted = True
            return result
        if method not in ("ping", "tools/list", "tools/call"):
            raise _Refusal(jsonrpc.METHOD_NOT_FOUND, "Method not found", method)
        if not self.initialize_accepted and method != "ping":
            raise _Refusal(jsonrpc.INVALID_PARAMS, "Invalid request parameters", "")
        return await self._common(request_id, record, method, params or {})

    async def _modern(
        self, request_id: RequestId, record: _InFlight, request: Message, method: str, params: Any
    ) -> Message:
        if self._locked and method == "initialize":
            requested = (params or {}).get("protocolVersion") if isinstance(params, dict) else None
            data: Message = {"supported": [MODERN_VERSION]}
            if isinstance(requested, str):
                data["requested"] = requested
            raise _Refusal(
                jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
                data,
            )
        rejection = envelope_error(request)
        if rejection is not None:
            error = rejection["error"]
            raise _Refusal(error["code"], error["message"], error.get("data"))
        if method in SPEC_METHODS:
            if method not in _MODERN_PARAMS:
                raise _Refusal(jsonrpc.METHOD_NOT_FOUND, "Method not found", method)
            self._check(method, MODERN_VERSION, params)
        if method == "server/discover":
            return self.kernel._discover()
        if method == "subscriptions/listen":
            return await self._listen(request_id, params["notifications"])
        if method not in ("tools/list", "tools/call"):
            raise _Refusal(jsonrpc.METHOD_NOT_FOUND, "Method not found", method)
        return await self._common(request_id, record, method, params)

    @staticmethod
    def _check(method: str, era: Era, params: Any) -> None:
        if not _surface_ok(method, era, params):
            raise _Refusal(jsonrpc.INVALID_PARAMS, "Invalid request parameters", "")

    async def _common(self, request_id: RequestId, record: _InFlight, method: str, params: dict[str, Any]) -> Message:
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": self.kernel.catalog.list_tools()}
        token = _progress_token(params)
        progress = self._emitter(request_id, record, token) if token is not None else None
        return await self.kernel.catalog.call_tool(params["name"], params.get("arguments"), progress=progress)

    def _emitter(self, request_id: RequestId, record: _InFlight, token: RequestId) -> Progress:
        async def progress(value: float, total: float | None = None, message: str | None = None) -> None:
            if not record.open:
                log.debug("progress for %r after its handler ended was dropped", request_id)
                return
            params: Message = {"progressToken": token, "progress": value}
            if total is not None:
                params["total"] = total
            if message is not None:
                params["message"] = message
            await self.output.send_to(request_id, jsonrpc.notification("notifications/progress", params))

        return progress

    async def _listen(self, request_id: RequestId, requested: dict[str, Any]) -> Message:
        kernel = self.kernel
        if len(kernel._listeners) >= MAX_LISTENERS:
            raise _Refusal(jsonrpc.INTERNAL_ERROR, "Subscription limit reached")
        honored: Message = {}
        for flag in ("toolsListChanged", "promptsListChanged", "resourcesListChanged"):
            if requested.get(flag):
                honored[flag] = True
        if requested.get("resourceSubscriptions"):
            honored["resourceSubscriptions"] = list(requested["resourceSubscriptions"])
        meta = {SUBSCRIPTION_ID_KEY: request_id}
        listener = _Listener(asyncio.Queue(), tools=bool(honored.get("toolsListChanged")))
        kernel._listeners.add(listener)  # before the ack, so an event meanwhile waits rather than is lost
        try:
            ack = {"notifications": honored, "_meta": dict(meta)}
            await self.output.send_to(request_id, jsonrpc.notification("notifications/subscriptions/acknowledged", ack))
            while await listener.queue.get():
                changed = jsonrpc.notification("notifications/tools/list_changed", {"_meta": dict(meta)})
                await self.output.send_to(request_id, changed)
        finally:
            kernel._listeners.discard(listener)
        return {"_meta": dict(meta)}

    @staticmethod
    def _shape_handshake(method: str, result: Message) -> Message:
        # The 2025-11-25 sieve, on the top level: fields its schema lacks go, None fields go. It
        # validated the whole result too; here the Catalog contract (JSON-ready results) stands in.
        fields = _HANDSHAKE_RESULT_FIELDS.get(method)
        return {k: v for k, v in result.items() if v is not None and (fields is None or k in fields)}

    def _shape_modern(self, method: str, result: Message) -> Message:
        fields = _MODERN_RESULT_FIELDS.get(method)
        result = {k: v for k, v in result.items() if v is not None and (fields is None or k in fields)}
        if method in ("tools/list", "server/discover"):
            result = {**_CACHE_HINTS, **result}
        if result.get("resultType") is None:
            result["resultType"] = "complete"
        meta = result.get("_meta")
        if meta is None:
            result["_meta"] = {SERVER_INFO_KEY: dict(self.kernel.server_info)}
        elif isinstance(meta, dict) and meta.get(SERVER_INFO_KEY) is None:
            result["_meta"] = {**meta, SERVER_INFO_KEY: dict(self.kernel.server_info)}
        return result


def _enveloped(params: Any) -> bool:
    """Whether params carry the 2026 version key (a bare ``_meta`` with a progress token does not)."""
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_KEY in meta


def _progress_token(params: Mapping[str, Any]) -> RequestId | None:
    meta = params.get("_meta")
    return as_request_id(meta.get("progressToken")) if isinstance(meta, Mapping) else None
