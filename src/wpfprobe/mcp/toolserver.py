"""ToolSpecs made into an MCPServer (the official SDK), with SPEC section 5 errors.

A gate extension sees every tools/call first: it refuses tools outside the
tier (INPUT_DISABLED, MUTATION_DISABLED), answers an unknown name with the
close matches, and validates arguments against the tool's own model, so bad
input becomes a structured INVALID_ARGUMENT error rather than the SDK's plain
text. Tool functions then run on a worker thread (the SDK runs sync tools
there); the engine hops to the UI thread from it.

Three things the SDK's MCPServer does by default are undone here (each one a
small override, pinned by tests/unit/test_toolserver_sdk.py): its constructor
configures the app's root logger; it declares prompts and resources, which this
server does not serve, and tools.listChanged false, though it sends
list_changed; and it json-parses string arguments of any field not annotated
plain ``str`` ("[1]" became a list, "null" became None).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import difflib
import inspect
import json
import logging
import operator
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any

from mcp.server.extension import Extension
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent, ToolAnnotations
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from wpfprobe.core.calls import CallCancelled, CallControl, controlling
from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.base import collection_deferred
from wpfprobe.engine.engine import Engine, Tier
from wpfprobe.mcp import spliced, wirelog
from wpfprobe.mcp.recording import Recorder
from wpfprobe.mcp.text import json_bytes
from wpfprobe.mcp.tools import INTERACT_TOOLS, MUTATE_TOOLS, ToolSpec, all_tools, read_tools, tier_allows

log = logging.getLogger("wpfprobe.server")

INSTRUCTIONS = (
    "wpfprobe inspects the live WPF or WinForms UI of the app it runs in. Start with "
    "wpf_get_session_info and wpf_get_windows, then wpf_get_visual_tree (compact lines: "
    'id Type#name "text" states). Name elements by nodeId from any result, or by locator '
    '(Button#saveButton, text="Save", [IsEnabled=false], Form[0]/Panel[0]/Button[2]). '
    "Errors carry a code and a suggestion for the next call."
)


def error_result(err: ProbeError) -> CallToolResult:
    payload = json.loads(json.dumps(err.to_dict(), default=str))
    text = f"{err.code}: {err.message}"
    if err.suggestion:
        text += f"\nNext: {err.suggestion}"
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=payload, is_error=True)


def invalid_arguments(spec: ToolSpec, exc: ValidationError) -> CallToolResult:
    problems = []
    for e in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in e.get("loc", ())) or "(arguments)"
        problems.append(f"{where}: {e.get('msg', 'invalid')}")
    return error_result(
        ProbeError(
            f"Invalid arguments for {spec.name}: " + "; ".join(problems),
            code="INVALID_ARGUMENT",
            suggestion=f"Check the arguments against {spec.name}'s input schema (tools/list).",
            detail={"problems": problems},
        )
    )


def parse_arguments(spec: ToolSpec, raw: dict[str, Any]) -> Any:
    """The tool's arguments by their wire (camelCase) names only: a Python-side name
    such as max_depth is not in the schema and must not be accepted and then dropped."""
    return spec.args.model_validate(raw, by_alias=True, by_name=False)


class _Gate(Extension):
    identifier = "dev.wpfprobe/gate"

    def __init__(self, specs: dict[str, ToolSpec], tier: Tier, hidden: dict[str, Tier] | None = None) -> None:
        self._specs = specs
        self._tier = tier
        # Custom tools above the tier: not listed, and refused by name like the built-in ones.
        self._hidden = hidden if hidden is not None else {}

    def settings(self) -> dict[str, Any]:
        return {"tier": self._tier}

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        name = params.name
        if name not in self._specs:
            refusal = _tier_refusal(name, self._tier, self._hidden.get(name))
            return error_result(refusal if refusal is not None else unknown_tool(name, self._specs))
        spec = self._specs[name]
        try:
            parse_arguments(spec, params.arguments or {})
        except ValidationError as exc:
            return invalid_arguments(spec, exc)
        return await call_next(ctx)


def _tier_refusal(name: str, tier: Tier, needed: Tier | None = None) -> ProbeError | None:
    if (name in INTERACT_TOOLS or needed == "interact") and not tier_allows(tier, "interact"):
        return ProbeError(
            f"{name} needs the interact tier; this app allows only {tier}.",
            code="INPUT_DISABLED",
            suggestion="Restart the probe with allow='interact' to let agents use input tools.",
            detail={"tool": name, "tier": tier},
        )
    if (name in MUTATE_TOOLS or needed == "mutate") and not tier_allows(tier, "mutate"):
        return ProbeError(
            f"{name} needs the mutate tier; this app allows only {tier}.",
            code="MUTATION_DISABLED",
            suggestion="Restart the probe with allow='mutate' to let agents set properties.",
            detail={"tool": name, "tier": tier},
        )
    return None


def unknown_tool(name: str, known: Iterable[str], *, listing: str = "tools/list") -> ProbeError:
    """INVALID_ARGUMENT for a tool name nobody serves, naming the closest ones (a typo, a
    stray space or NUL, another case). The name is shown cut short: it is the client's input."""
    shown = name if len(name) <= 80 else name[:80] + "..."
    matches = close_matches(name, known)
    hint = f"Did you mean {' or '.join(matches)}? " if matches else ""
    return InvalidArgumentError(
        f"Unknown tool {shown!r}.",
        suggestion=f"{hint}Call {listing} for the tools this server offers.",
        detail={"tool": shown, "closeMatches": matches},
    )


def close_matches(name: str, known: Iterable[str], *, n: int = 3) -> list[str]:
    """Up to ``n`` names from ``known`` close to ``name``, closest first (case, whitespace and
    control characters ignored; only the first 200 characters compared, so the cost is bounded)."""
    cleaned = "".join(ch for ch in name[:200] if ch.isprintable()).strip().lower()
    by_lower = {k.lower(): k for k in known}
    if cleaned in by_lower:
        return [by_lower[cleaned]]
    return [by_lower[m] for m in difflib.get_close_matches(cleaned, list(by_lower), n=n, cutoff=0.6)]


def tool_specs(tier: Tier) -> list[ToolSpec]:
    return all_tools(tier=tier)


def build_server(engine: Engine, *, tier: Tier, extra: list[ToolSpec] | None = None) -> MCPServer:
    tools = ToolServer(engine, tier=tier)
    for spec in extra or []:
        tools.add(spec)
    return tools.server


CUSTOM_META_KEY = "dev.wpfprobe/custom"
"""``_meta`` key set on a tool the app registered itself (the broker also treats any
tool not named ``wpf_*`` as custom)."""


class ToolServer:
    """An MCPServer and the tools it lists; a tool may be added while it serves.

    Clients learn about a tool added later through ``notifications/tools/list_changed``:
    on 2026-07-28 connections through ``subscriptions/listen`` streams (the SDK's
    subscription bus), on handshake-era connections through each session's
    notification channel (the standalone SSE stream over HTTP).
    """

    def __init__(
        self,
        engine: Engine | Callable[[], Engine],
        *,
        tier: Tier,
        settings: ProbeSettings | None = None,
        app_id: str | None = None,
    ) -> None:
        """``engine``: the engine, or a call that answers it (``wpfprobe.start`` serves before its
        engine is made: each tool call asks, and waits for it or gets the error that stopped it);
        then ``settings`` and ``app_id`` are the ones it will have."""
        from mcp.server.subscriptions import InMemorySubscriptionBus  # noqa: PLC0415

        from wpfprobe.core.version import __version__  # noqa: PLC0415 - avoids an import cycle

        self._engine = engine
        self._tier = tier
        self._app_id = app_id
        #: Records the agent's actions as replayable steps when the settings ask (``record_dir``).
        # (The broker builds a server with no engine, for the tool schemas alone.)
        if settings is None and engine is not None and not callable(engine):
            settings = engine.settings
        record_dir = settings.record_dir if settings is not None else None
        self.recorder: Recorder | None = Recorder(record_dir) if record_dir is not None else None
        self._specs: dict[str, ToolSpec] = {}
        #: Tools whose answers the SDK does not validate again: a placeholder would fail its schema.
        self._unvalidated: set[str] = set()
        self._hidden: dict[str, Tier] = {}
        self._custom: dict[str, object] = {}
        self._bus = InMemorySubscriptionBus()
        self._sessions = _Sessions()
        # The SDK's and the HTTP layer's own log records, made on the server's threads, are
        # the probe's business: they never reach the app's stderr (wirelog.py says how).
        wirelog.install()
        self.server = _sdk_server(
            "wpfprobe",
            version=__version__,
            instructions=INSTRUCTIONS,
            extensions=[_Gate(self._specs, tier, self._hidden)],
            log_level="WARNING",
            subscriptions=self._bus,
            middleware=[self._sessions],
        )
        _declare_tools_only(self.server)
        for spec in tool_specs(tier):
            self.add(spec)

    @property
    def names(self) -> set[str]:
        """Every tool name taken on this server, listed or above the tier."""
        return set(self._specs) | set(self._hidden)

    def has_custom(self, source: object) -> bool:
        """Whether this custom tool (``add``'s ``source``) is the one served under its name."""
        return self._custom.get(getattr(source, "name", "")) is source

    def add(self, spec: ToolSpec, *, custom: bool = False, source: object = None) -> bool:
        """Serve ``spec``; False when its tier is above the server's (then it is refused by name).
        ``source``: the custom tool it was made from (``has_custom``)."""
        if source is not None:
            self._custom[spec.name] = source
        if not tier_allows(self._tier, spec.tier):
            self._hidden[spec.name] = spec.tier
            return False
        self._specs[spec.name] = spec
        function = tool_function(
            spec, self._engine, recorder=self.recorder, app_id=self._app_id,
            in_pieces=lambda: spec.name in self._unvalidated,
        )  # fmt: skip
        self.server.add_tool(
            controlled(function),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=None if spec.read_only else spec.tier == "mutate",
                open_world_hint=False,
            ),
            meta={CUSTOM_META_KEY: True} if custom else None,
            structured_output=True,
        )
        _take_strings_verbatim(self.server, spec.name)
        if _skip_output_revalidation(self.server, spec.name):
            self._unvalidated.add(spec.name)
        return True

    def tools_changed(self) -> None:
        """Tell connected clients to list the tools again. Safe from any thread; it
        does not wait, and with no client connected yet there is nobody to tell."""
        loop = self._sessions.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server stopped
            asyncio.run_coroutine_threadsafe(self._notify(), loop)

    async def _notify(self) -> None:
        from mcp.server.subscriptions import ToolsListChanged  # noqa: PLC0415

        await self._bus.publish(ToolsListChanged())
        for connection in self._sessions.handshake_connections():
            try:
                await connection.send_tool_list_changed()
            except Exception:
                log.debug("could not notify a client of the tool list change", exc_info=True)


def _sdk_server(name: str, **options: Any) -> MCPServer:
    """``MCPServer(...)`` without its side effect on the process: its constructor calls
    ``logging.basicConfig``, which gives the root logger of an app that configured no
    logging a stderr handler (every library's warnings then print, and the app's own
    ``basicConfig`` later does nothing). The root logger is put back as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        return MCPServer(name, **options)
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(level)


NOT_SERVED = ("prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read")
"""Methods MCPServer always routes (to empty managers) that this server does not serve."""


def _declare_tools_only(server: MCPServer) -> None:
    """Declare exactly what is served: tools, whose list changes (custom tools are added while
    it serves, and clients are told). The SDK derives the declared capabilities from the
    methods routed, so the prompt and resource methods are unrouted (they answer -32601
    Method not found, instead of empty lists, or error code 0 and two tracebacks for
    prompts/get); and it declares listChanged only when asked to by the NotificationOptions
    passed to ``create_initialization_options``, which neither its stdio runner nor its
    HTTP session manager passes, so the default becomes tools_changed=True. Both reach
    into MCPServer's low-level server, which it does not expose."""
    lowlevel = server._lowlevel_server
    for method in NOT_SERVED:
        lowlevel._request_handlers.pop(method, None)
    make_options = lowlevel.create_initialization_options

    def create_initialization_options(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return make_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions
        )

    lowlevel.create_initialization_options = create_initialization_options  # type: ignore[method-assign]


class _VerbatimArguments(FuncMetadata):
    """The SDK's argument handling without ``pre_parse_json``, which json-parses a string
    argument whenever its field is not annotated plain ``str`` (for clients that send lists
    as JSON text): an optional string "[1]" became a list and failed validation with the
    SDK's text, "null" silently became None. The gate has already validated the arguments
    as sent against the tool's own model; a string stays the string the client sent."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)


def _take_strings_verbatim(server: MCPServer, name: str) -> None:
    tool = server._tool_manager.get_tool(name)
    if tool is None or isinstance(tool.fn_metadata, _VerbatimArguments):
        return
    meta = tool.fn_metadata
    tool.fn_metadata = _VerbatimArguments(
        arg_model=meta.arg_model,
        output_schema=meta.output_schema,
        output_model=meta.output_model,
        wrap_output=meta.wrap_output,
    )


class _Sessions:
    """Server middleware that remembers the event loop and the handshake-era connections,
    the only ones that take a list_changed notification outside a listen stream.

    The SDK hands middleware a per-request ServerSession; the connection behind it
    (which outlives the request) is only reachable through its private ``_connection``.
    Without it (another SDK version), handshake-era clients are not notified.
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        self.loop = asyncio.get_running_loop()
        connection = getattr(ctx.session, "_connection", None)
        # From initialize on (only the handshake era initializes), so a client that connects
        # and lists nothing yet still hears of a tool added meanwhile.
        handshake = ctx.method == "initialize" or ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        if handshake and hasattr(connection, "send_tool_list_changed"):
            with contextlib.suppress(TypeError):  # a type that takes no weak reference
                self._connections.add(connection)
        if ctx.method == "tools/call" and _deferred_tool(ctx.params):
            return await _with_collections_deferred(call_next, ctx)
        return await call_next(ctx)

    def handshake_connections(self) -> list[Any]:
        return list(self._connections)


def _skip_output_revalidation(server: MCPServer, name: str) -> bool:
    """Keep the tool's published output schema, without the SDK validating each result against it again.

    The SDK validates a tool's structured result against its output model on
    the event loop, in one native call over the whole answer: 16 ms for a
    5,000-node tree, holding the GIL, so the app's own Python handlers wait
    that long. Ours are made from those models (or, for a tree, as their JSON
    by ``Engine.tree_json``, pinned equal to the models' by the tests). Where
    the SDK keeps its tools elsewhere, it validates as before.
    """
    manager = getattr(server, "_tool_manager", None)
    tool = manager.get_tool(name) if manager is not None else None
    metadata = getattr(tool, "fn_metadata", None)
    if metadata is not None and getattr(metadata, "output_schema", None) is not None:
        metadata.output_model = None
        return True
    return False


#: The tools whose whole call runs with Python's collector off (``_Sessions``): reads, each bounded by
#: ``ui_timeout``. Not the waits, nor an app's own tools: their length is not the probe's to bound.
#: Characters of an answer's text above which it is sent as a placeholder written in pieces.
SPLICED_TEXT = 65_536

_DEFERRED_TOOLS = frozenset(spec.name for spec in read_tools(tier="read"))


def _deferred_tool(params: Any) -> bool:
    name = params.get("name") if isinstance(params, dict) else getattr(params, "name", None)
    return name in _DEFERRED_TOOLS


class _Held:
    """The collector deferrals begun while one HTTP request is served, ended when its answer is written."""

    def __init__(self) -> None:
        self.open = True
        self.deferrals: list[Any] = []


_held: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("wpfprobe_collections_held", default=None)


async def _with_collections_deferred(call_next: Any, ctx: Any) -> Any:
    """``call_next(ctx)`` with Python's collector off, until the HTTP answer is written where that can be told.

    A read's answer is copied by the SDK three times before it is sent (its
    dump, the protocol's shaping, the JSON-RPC envelope's dump): tens of
    thousands of containers for a big tree, alive together. Each counts
    towards the collector's next run, and a run started then (a full one:
    30 ms with 5,000 controls shown, far more on a loaded machine) holds the
    GIL throughout, so the app's own Python waits. With the collector off
    until the answer is written and freed, the count goes down again as they
    are freed and nothing runs. ``collections_after_response`` (around the
    HTTP app) ends the deferral then; where the handler runs outside that
    request's context (a handshake-era session's task, stdio) it ends here,
    when the answer has been shaped.
    """
    deferral = collection_deferred()
    deferral.__enter__()
    held = _held.get()
    if held is not None and held.open:
        held.deferrals.append(deferral)
        return await call_next(ctx)
    try:
        return await call_next(ctx)
    finally:
        deferral.__exit__(None, None, None)


def collections_after_response(app: Any) -> Any:
    """The ASGI ``app``, ending the collector deferrals its requests began once each has been answered."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        held = _Held()
        token = _held.set(held)
        try:
            await app(scope, receive, send)
        finally:
            held.open = False
            _held.reset(token)
            for deferral in held.deferrals:
                deferral.__exit__(None, None, None)

    return wrapped


def tool_function(
    spec: ToolSpec,
    engine: Engine | Callable[[], Engine],
    *,
    recorder: Recorder | None = None,
    app_id: str | None = None,
    in_pieces: Callable[[], bool] = lambda: False,
) -> Callable[..., CallToolResult]:
    """A function whose signature is the tool's argument model, as the SDK expects.

    ``engine`` may be a call that answers the engine (``ToolServer``); what it raises is the call's
    error, as any engine error is. ``in_pieces()``: whether the SDK leaves its answer unvalidated, so
    that a big one may be sent as placeholders written in pieces (``spliced``)."""

    def call(**kwargs: Any) -> CallToolResult:
        started = time.perf_counter()
        outcome = "ok"
        began = recorder.begin() if recorder is not None else None
        app = app_id if callable(engine) else getattr(engine, "app_id", app_id)
        try:
            args = parse_arguments(spec, kwargs)
            out = spec.run(engine() if callable(engine) else engine, args)
            structured = out.structured_json()
            if recorder is not None and began is not None:
                recorder.record(spec.name, kwargs, structured=structured, error=None, began=began)
            text, sent = out.text, structured
            if in_pieces() and spliced.available():
                # A tree's JSON and a long text go in pieces (spliced.py says why).
                if isinstance(out.structured, dict):
                    raw = text.encode() if out.text_is_json else json_bytes(out.structured)
                    sent = spliced.json_placeholder(raw)
                if len(text) > SPLICED_TEXT:
                    text = spliced.text_placeholder(text)
            content: list[ContentBlock] = [TextContent(type="text", text=text)]
            png = out.png_base64()
            if png is not None:
                content.insert(0, ImageContent(type="image", data=png, mime_type="image/png"))
            return CallToolResult(content=content, structured_content=sent)
        except ValidationError as exc:
            outcome = "INVALID_ARGUMENT"
            return invalid_arguments(spec, exc)
        except CallCancelled:
            # Nobody will read an answer; nothing is recorded for a call the client withdrew.
            outcome = "cancelled"
            raise
        except ProbeError as err:
            outcome = err.code
            if recorder is not None and began is not None:
                recorder.record(spec.name, kwargs, structured=None, error=err.to_dict(), began=began)
            return error_result(err)
        except Exception as exc:
            outcome = "INTERNAL"
            log.exception("tool %s failed", spec.name)
            return error_result(
                ProbeError(
                    f"{spec.name} failed unexpectedly ({type(exc).__name__}).",
                    code="INTERNAL",
                    suggestion="Retry; if it persists, report it with the app's stderr log.",
                )
            )
        finally:
            # Tool name, duration and outcome only: never arguments or values.
            log.info(
                "tool call",
                extra={
                    "app": app,
                    "tool": spec.name,
                    "durationMs": round((time.perf_counter() - started) * 1000, 1),
                    "outcome": outcome,
                },
            )

    params = []
    annotations: dict[str, Any] = {}
    for field_name, field in spec.args.model_fields.items():
        wire_name = field.alias or field_name
        annotation = operator.getitem(Annotated, (field.annotation, *field.metadata, _describe(field)))
        default = field.default
        if default is PydanticUndefined:
            default = field.default_factory() if field.default_factory is not None else inspect.Parameter.empty  # type: ignore[call-arg]
        params.append(
            inspect.Parameter(wire_name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
        annotations[wire_name] = annotation
    returns = Annotated[CallToolResult, spec.output]
    annotations["return"] = returns
    call.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
    call.__annotations__ = annotations
    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


def controlled(fn: Callable[..., CallToolResult]) -> Callable[..., Awaitable[CallToolResult]]:
    """``fn`` (a ``tool_function``) as the coroutine the server calls: the same arguments, run on a
    worker thread under a CallControl (``_controlled``), so a long call reports progress and a
    cancelled one stops."""

    async def call(ctx: Context, **kwargs: Any) -> CallToolResult:
        return await _controlled(ctx, fn.__name__, lambda: fn(**kwargs))

    signature = inspect.signature(fn)
    # The SDK hands the request's Context to the parameter annotated with it; it is not in the schema.
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    call.__signature__ = signature.replace(parameters=[context, *signature.parameters.values()])  # type: ignore[attr-defined]
    call.__annotations__ = {"ctx": Context, **fn.__annotations__}
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


PROGRESS_INTERVAL = 1.0
"""Seconds between progress notifications of a running call whose client asked for them."""
_CANCEL_GRACE = 3.0
"""How long a cancelled call waits for its worker thread to notice (a poll notices within 0.2 s,
or when a hop to a busy UI thread times out). Past it the thread is left to end at its next
check: nobody waits for a cancelled answer, and a server that stops must not hang on one."""


async def _controlled(ctx: Context, tool: str, work: Callable[[], CallToolResult]) -> CallToolResult:
    """Run ``work`` on a worker thread with a CallControl: progress every PROGRESS_INTERVAL while it
    runs, if the client sent a progressToken, and the control cancelled when the client cancels.

    The SDK cancels the request's scope on ``notifications/cancelled`` (or when the HTTP client
    closes the request's stream); a plain worker thread cannot be interrupted, so the wait for it
    is abandoned, the control told, and the thread given a bounded time to stop at its next check
    before the cancellation goes on. No answer is sent for a cancelled request.
    """
    import anyio  # noqa: PLC0415
    import anyio.to_thread  # noqa: PLC0415
    from mcp.shared.jsonrpc_dispatcher import progress_token_from_params  # noqa: PLC0415

    control = CallControl()
    finished = threading.Event()

    def in_thread() -> CallToolResult:
        try:
            with controlling(control):
                return work()
        finally:
            finished.set()

    async def heartbeat() -> None:
        started = time.monotonic()
        while True:
            await anyio.sleep(PROGRESS_INTERVAL)
            elapsed = round(time.monotonic() - started, 3)
            try:
                await ctx.report_progress(elapsed, None, control.last_note or f"{tool} running ({elapsed:.0f} s)")
            except Exception:  # a client that went away: the call's own answer will fail too
                log.debug("could not send progress", exc_info=True)
                return

    wants_progress = progress_token_from_params(ctx.request_context.params) is not None
    try:
        async with anyio.create_task_group() as group:
            if wants_progress:
                group.start_soon(heartbeat)
            try:
                answer = await anyio.to_thread.run_sync(in_thread, abandon_on_cancel=True)
            finally:
                group.cancel_scope.cancel()
        return answer
    except anyio.get_cancelled_exc_class():
        control.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_GRACE):
            while not finished.is_set():
                await anyio.sleep(0.02)
        raise


def _describe(field: Any) -> Any:
    from pydantic import Field  # noqa: PLC0415

    return Field(description=field.description) if field.description else Field()
