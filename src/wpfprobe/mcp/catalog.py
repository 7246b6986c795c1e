"""The probe's tools as an MCP catalog: what tools/list sends, and tools/call as a coroutine.

Everything here is about tools, nothing about a transport, and it imports no MCP SDK
(``mcp``, ``mcp_types``), no starlette and no anyio: ``ToolCatalog`` is what any server
serves (wpfprobe's own kernel, protocol.py, over HTTP and stdio). Tool objects and call results
are JSON-ready dicts, shaped as the SDK's MCPServer shaped them (the golden files in
tests/integration/golden pin ``tools/list`` byte for byte).

A call passes a gate first: tools outside the tier are refused (INPUT_DISABLED,
MUTATION_DISABLED), an unknown name is answered with the close matches, and arguments are
validated as sent (strings stay strings) against the tool's own model, so bad input is a
structured INVALID_ARGUMENT error. The tool then runs on a worker thread (the engine hops
to the UI thread from it), reporting progress while it runs, stopped through its
CallControl when the caller cancels the call's task.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextvars
import difflib
import inspect
import json
import logging
import operator
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaWarningKind
from pydantic_core import PydanticUndefined

from wpfprobe.core.calls import CallCancelled, CallControl, controlling
from wpfprobe.core.errors import InvalidArgumentError, ProbeError
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.base import collection_deferred
from wpfprobe.engine.engine import Engine, Tier
from wpfprobe.mcp import listing, spliced
from wpfprobe.mcp.recording import Recorder
from wpfprobe.mcp.text import json_bytes
from wpfprobe.mcp.tools import INTERACT_TOOLS, MUTATE_TOOLS, ToolSpec, all_tools, read_tools, tier_allows

log = logging.getLogger("wpfprobe.server")

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""Reports a running call's progress: progress, total, message."""

INSTRUCTIONS = (
    "wpfprobe inspects the live WPF or WinForms UI of the app it runs in. Start with "
    "wpf_get_session_info and wpf_get_windows, then wpf_get_visual_tree (compact lines: "
    'id Type#name "text" states). Name elements by nodeId from any result, or by locator '
    '(Button#saveButton, text="Save", [IsEnabled=false], Form[0]/Panel[0]/Button[2]). '
    "Errors carry a code and a suggestion for the next call."
)

CUSTOM_META_KEY = "dev.wpfprobe/custom"
"""``_meta`` key set on a tool the app registered itself (the broker also treats any
tool not named ``wpf_*`` as custom)."""

PROGRESS_INTERVAL = 1.0
"""Seconds between progress reports of a running call whose caller asked for them."""
_CANCEL_GRACE = 3.0
"""How long a cancelled call waits for its worker thread to notice (a poll notices within 0.2 s,
or when a hop to a busy UI thread times out). Past it the thread is left to end at its next
check: nobody waits for a cancelled answer, and a server that stops must not hang on one."""
#: Characters of an answer's text above which it is sent as a placeholder written in pieces.
SPLICED_TEXT = 65_536
#: The tools whose whole call runs with Python's collector off: reads, each bounded by
#: ``ui_timeout``. Not the waits, nor an app's own tools: their length is not the probe's to bound.
_DEFERRED_TOOLS = frozenset(spec.name for spec in read_tools(tier="read"))
#: Worker threads for tool calls at most (anyio's default, which ran them before); more calls wait.
MAX_WORKERS = 40
#: Seconds an idle worker thread waits for another call before it ends.
WORKER_IDLE = 10.0


# -- results ------------------------------------------------------------------------------


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def error_result(err: ProbeError) -> dict[str, Any]:
    """The CallToolResult (JSON-ready) of a SPEC section 5 error."""
    payload = json.loads(json.dumps(err.to_dict(), default=str))
    text = f"{err.code}: {err.message}"
    if err.suggestion:
        text += f"\nNext: {err.suggestion}"
    return {"content": [text_block(text)], "structuredContent": payload, "isError": True}


def invalid_arguments(spec: ToolSpec, exc: ValidationError) -> dict[str, Any]:
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


def tier_refusal(name: str, tier: Tier, needed: Tier | None = None) -> ProbeError | None:
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


# -- the catalog ----------------------------------------------------------------------------


#: Builds the tools' argument models and Tool objects, once each, whichever thread asks first.
_BUILDING = threading.RLock()


class _Tool:
    """One served tool: its spec, the Tool object tools/list sends, and how a call runs.

    The argument model and the Tool object (its JSON schemas, which build the pydantic models they
    name) are made when first needed, not when the catalog is: the arguments at the tool's first
    call (or listing, for an app's own tool), the Tool object at the first listing
    (``ToolCatalog.build_listing``), a built-in tool's read from the shipped file (``listing.py``).
    They were most of what making the catalog cost, on the way to the first answer."""

    def __init__(
        self, spec: ToolSpec, function: Callable[..., dict[str, Any]], *, custom: bool, builtin: bool = False
    ) -> None:
        self.spec = spec
        self.function = function
        self._custom = custom
        self._builtin = builtin
        self._arguments: type[BaseModel] | None = None
        self._listed: dict[str, Any] | None = None

    @property
    def arguments(self) -> type[BaseModel]:
        """The model of the tool's wire-named arguments (``arguments_model``)."""
        if self._arguments is None:
            with _BUILDING:
                if self._arguments is None:
                    self._arguments = arguments_model(self.spec)
        return self._arguments

    @property
    def listed(self) -> dict[str, Any]:
        """The Tool object tools/list sends (``tool_object``)."""
        if self._listed is None:
            with _BUILDING:
                if self._listed is None:
                    # A built-in tool's was made at development time (listing.py says why).
                    made = listing.shipped().get(self.spec.name) if self._builtin else None
                    self._listed = (
                        made if made is not None else tool_object(self.spec, self.arguments, custom=self._custom)
                    )
        return self._listed

    @property
    def built(self) -> bool:
        """Whether the Tool object has been made (what the start-up tests observe)."""
        return self._listed is not None


class ToolCatalog:
    """The tools one probe serves at its tier; a tool may be added while they are served.

    ``on_change`` callbacks hear of each tool added after the first listing could be made
    (``tools_changed``): servers tell their clients to list the tools again.
    """

    def __init__(
        self,
        engine: Engine | Callable[[], Engine] | None,
        *,
        tier: Tier,
        settings: ProbeSettings | None = None,
        app_id: str | None = None,
    ) -> None:
        """``engine``: the engine, or a call that answers it (``wpfprobe.start`` serves before its
        engine is made: each tool call asks, and waits for it or gets the error that stopped it);
        then ``settings`` and ``app_id`` are the ones it will have. None: for the schemas alone
        (the broker's)."""
        self.tier: str = tier
        self._tier = tier
        self._engine = engine
        self._app_id = app_id
        if settings is None and engine is not None and not callable(engine):
            settings = engine.settings
        record_dir = settings.record_dir if settings is not None else None
        #: Records the agent's actions as replayable steps when the settings ask (``record_dir``).
        self.recorder: Recorder | None = Recorder(record_dir) if record_dir is not None else None
        self._tools: dict[str, _Tool] = {}
        # Custom tools above the tier: not listed, and refused by name like the built-in ones.
        self._hidden: dict[str, Tier] = {}
        self._custom: dict[str, object] = {}
        self._listeners: list[Callable[[], None]] = []
        for spec in tool_specs(tier):
            self.add(spec, builtin=True)

    @property
    def names(self) -> set[str]:
        """Every tool name taken here, listed or above the tier."""
        return set(self._tools) | set(self._hidden)

    def spec(self, name: str) -> ToolSpec | None:
        tool = self._tools.get(name)
        return tool.spec if tool is not None else None

    def has_custom(self, source: object) -> bool:
        """Whether this custom tool (``add``'s ``source``) is the one served under its name."""
        return self._custom.get(getattr(source, "name", "")) is source

    def add(self, spec: ToolSpec, *, custom: bool = False, source: object = None, builtin: bool = False) -> bool:
        """Serve ``spec``; False when its tier is above the catalog's (then it is refused by name).
        ``source``: the custom tool it was made from (``has_custom``). ``builtin``: one of
        ``tools.all_tools()``, whose Tool object is the shipped one (``listing.py``). Callers that
        add while serving call ``tools_changed`` after."""
        if source is not None:
            self._custom[spec.name] = source
        if not tier_allows(self._tier, spec.tier):
            self._hidden[spec.name] = spec.tier
            return False
        # Answers are never validated again after the tool made them, so a big one may go
        # as placeholders written in pieces (spliced.py) wherever the writer is there.
        function = tool_function(
            spec, self._engine, recorder=self.recorder, app_id=self._app_id, in_pieces=lambda: True
        )
        tool = _Tool(spec, function, custom=custom, builtin=builtin and not custom)
        if custom:
            # An app's own tool is made at once, as before: what cannot be listed fails here, in
            # the app's call, not in a client's tools/list; and clients list again after it.
            _ = tool.listed
        self._tools[spec.name] = tool
        return True

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (on the thread that adds) whenever the tools change; returns the unsubscribe."""
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def tools_changed(self) -> None:
        """Tell whoever listens that the tools changed. Safe from any thread."""
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:
                log.debug("a tools-changed listener failed", exc_info=True)

    def list_tools(self) -> list[dict[str, Any]]:
        """The Tool objects tools/list sends, in the order added. A new list of the same dicts each
        time, made once per tool (copying them cost 3 ms a listing): read them, never change them.
        The first listing makes them (``build_listing``) unless that was done before."""
        return [tool.listed for tool in list(self._tools.values())]

    def build_listing(self) -> None:
        """Make every tool's Tool object now, if not made yet: ``wpfprobe.start`` does it on the
        walk's compile thread once the start-up is over, so that a client's first tools/list,
        usually right after its first call, finds it made (``server._started_or_stopping``)."""
        for tool in list(self._tools.values()):
            _ = tool.listed

    @property
    def listing_built(self) -> bool:
        """Whether every tool's Tool object has been made."""
        return all(tool.built for tool in list(self._tools.values()))

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """One listed tool's inputSchema (read-only, as ``list_tools``'), None for a name not listed."""
        tool = self._tools.get(name)
        return tool.listed["inputSchema"] if tool is not None else None

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, *, progress: Progress | None = None
    ) -> dict[str, Any]:
        """The CallToolResult of one call, JSON-ready; cancelled by cancelling its task (the
        tool's CallControl is cancelled and its thread given ``_CANCEL_GRACE`` to stop)."""
        tool = self._tools.get(name)
        if tool is None:
            refusal = tier_refusal(name, self._tier, self._hidden.get(name))
            return error_result(refusal if refusal is not None else unknown_tool(name, self._tools))
        raw = arguments or {}
        try:
            parse_arguments(tool.spec, raw)
            # The arguments as a function of the tool's signature takes them (defaults filled
            # in): what the recorder records and the tool validates again.
            kwargs = _one_level(tool.arguments.model_validate(raw))
        except ValidationError as exc:
            return invalid_arguments(tool.spec, exc)
        if name not in _DEFERRED_TOOLS:
            return await run_controlled(name, lambda: tool.function(**kwargs), progress)
        with _collections_deferred():
            return await run_controlled(name, lambda: tool.function(**kwargs), progress)


# -- schemas, as the SDK's MCPServer made them ----------------------------------------------------


class _ArgModelBase(BaseModel):
    """A model representing the arguments to a function."""

    model_config = ConfigDict(arbitrary_types_allowed=True)


class _StrictJsonSchema(GenerateJsonSchema):
    """Raises where pydantic would warn (a type with no JSON schema), as the SDK's generator did."""

    def emit_warning(self, kind: JsonSchemaWarningKind, detail: str) -> None:
        raise ValueError(f"JSON schema warning: {kind} - {detail}")


def arguments_model(spec: ToolSpec) -> type[BaseModel]:
    """The model of the tool's synthesized signature, by wire names (``<tool>Arguments``, field
    titles from the wire names, e.g. "Maxdepth"): its JSON schema is the tool's inputSchema."""
    fields: dict[str, Any] = {}
    for field_name, field in spec.args.model_fields.items():
        wire_name = field.alias or field_name
        annotation = operator.getitem(Annotated, (field.annotation, *field.metadata, _describe(field)))
        kwargs: dict[str, Any] = {}
        name = wire_name
        # A wire name that shadows a BaseModel method is kept as the alias of a prefixed field.
        if hasattr(BaseModel, name) and callable(getattr(BaseModel, name)):
            kwargs["alias"] = name
            name = f"field_{name}"
        typed = operator.getitem(Annotated, (annotation, Field(**kwargs)))
        default = field.default
        if default is PydanticUndefined:
            default = field.default_factory() if field.default_factory is not None else inspect.Parameter.empty  # type: ignore[call-arg]
        fields[name] = typed if default is inspect.Parameter.empty else (typed, default)
    model: type[BaseModel] = create_model(f"{spec.name}Arguments", __base__=_ArgModelBase, **fields)
    return model


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    """The tool's outputSchema: its output model's, with an object root (a self-referential
    model's root is a bare ``$ref``; the definition is copied onto the root, ``$defs`` kept)."""
    schema: dict[str, Any] = TypeAdapter(spec.output).json_schema(schema_generator=_StrictJsonSchema)
    ref = schema.get("$ref")
    prefix = "#/$defs/"
    if not isinstance(ref, str) or not ref.startswith(prefix):
        return schema
    definition: dict[str, Any] = schema["$defs"][ref.removeprefix(prefix)]
    return {**definition, **{k: v for k, v in schema.items() if k != "$ref"}}


def tool_object(spec: ToolSpec, arguments: type[BaseModel], *, custom: bool) -> dict[str, Any]:
    """The Tool object of ``spec`` as tools/list sends it (None fields left out)."""
    tool: dict[str, Any] = {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description or "",
        "inputSchema": arguments.model_json_schema(by_alias=True),
        "outputSchema": output_schema(spec),
        "annotations": {
            "readOnlyHint": spec.read_only,
            "destructiveHint": None if spec.read_only else spec.tier == "mutate",
            "openWorldHint": False,
        },
    }
    if custom:
        tool["_meta"] = {CUSTOM_META_KEY: True}
    # None fields of the Tool and its annotations go; the schemas are sent as they are.
    tool["annotations"] = {k: v for k, v in tool["annotations"].items() if v is not None}
    return {k: v for k, v in tool.items() if v is not None}


def _describe(field: Any) -> Any:
    return Field(description=field.description) if field.description else Field()


def _one_level(model: BaseModel) -> dict[str, Any]:
    return {(info.alias or name): getattr(model, name) for name, info in type(model).model_fields.items()}


# -- running a call ------------------------------------------------------------------------------


class _Workers:
    """Daemon threads that run tool calls, reused while calls keep coming, at most MAX_WORKERS.

    Not a ThreadPoolExecutor: Python joins its threads at exit, and a cancelled call's thread
    is abandoned, possibly stuck in a hop to a UI thread that will never answer; the app's
    exit must not wait for it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[_Job | None]] = []
        self._threads: dict[queue.SimpleQueue[_Job | None], threading.Thread] = {}
        # Raised by each release: a thread made before it ends after its call instead of idling.
        self._generation = 0
        self._waiting: collections.deque[_Job] = collections.deque()
        self._live = 0

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        job = (fn, future)
        with self._lock:
            if self._idle:
                self._idle.pop().put(job)
                return future
            if self._live >= MAX_WORKERS:
                self._waiting.append(job)
                return future
            self._live += 1
        inbox: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        inbox.put(job)
        with self._lock:
            generation = self._generation
            thread = threading.Thread(target=self._work, args=(inbox, generation), name="wpfprobe-tool", daemon=True)
            self._threads[inbox] = thread
        thread.start()
        return future

    def release_idle(self, timeout: float = 1.0) -> None:
        """End the threads that wait for a call now, not WORKER_IDLE later: a stopped probe leaves
        no thread of its own in the app. A thread still running a call (one abandoned when it was
        cancelled) ends after it, as before."""
        with self._lock:
            self._generation += 1
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            threads = [self._threads.pop(inbox) for inbox in idle if inbox in self._threads]
        for inbox in idle:
            inbox.put(None)
        end = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, end - time.monotonic()))

    def _work(self, inbox: queue.SimpleQueue[_Job | None], generation: int) -> None:
        while True:
            try:
                job = inbox.get(timeout=WORKER_IDLE)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:
                        self._idle.remove(inbox)
                        self._threads.pop(inbox, None)
                        self._live -= 1
                        return
                continue  # taken from the idle list meanwhile: its call is on the way
            if job is None:  # released (release_idle counted it out)
                return
            fn, future = job
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn())
                except BaseException as exc:  # noqa: BLE001 - the caller's to see, through the future
                    future.set_exception(exc)
            with self._lock:
                if self._waiting:
                    inbox.put(self._waiting.popleft())
                elif generation != self._generation:  # released while it ran its call
                    self._threads.pop(inbox, None)
                    self._live -= 1
                    return
                else:
                    self._idle.append(inbox)


_Job = tuple[Callable[[], Any], "concurrent.futures.Future[Any]"]
_WORKERS = _Workers()


def release_workers() -> None:
    """End the tool-call threads that are idle (``ProbeHandle.stop``: the probe leaves no thread)."""
    _WORKERS.release_idle()


def tool_function(
    spec: ToolSpec,
    engine: Engine | Callable[[], Engine] | None,
    *,
    recorder: Recorder | None = None,
    app_id: str | None = None,
    in_pieces: Callable[[], bool] = lambda: False,
) -> Callable[..., dict[str, Any]]:
    """The tool as a plain function of its wire-named arguments, answering a CallToolResult dict.

    ``engine`` may be a call that answers the engine; what it raises is the call's error, as any
    engine error is. ``in_pieces()``: whether a big answer may be sent as placeholders written in
    pieces (``spliced``: only where nothing validates the answer again)."""

    def call(**kwargs: Any) -> dict[str, Any]:
        started = time.perf_counter()
        outcome = "ok"
        began = recorder.begin() if recorder is not None else None
        app = app_id if callable(engine) else getattr(engine, "app_id", app_id)
        try:
            args = parse_arguments(spec, kwargs)
            out = spec.run(engine() if callable(engine) else engine, args)  # type: ignore[arg-type]
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
            content: list[dict[str, Any]] = [text_block(text)]
            png = out.png_base64()
            if png is not None:
                content.insert(0, {"type": "image", "data": png, "mimeType": "image/png"})
            return {"content": content, "structuredContent": sent, "isError": False}
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

    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


async def run_controlled(tool: str, work: Callable[[], dict[str, Any]], progress: Progress | None) -> dict[str, Any]:
    """Run ``work`` on a worker thread with a CallControl: progress every PROGRESS_INTERVAL while it
    runs (elapsed seconds, no total, the tool's last note) when ``progress`` is given, and the
    control cancelled when this task is.

    A plain worker thread cannot be interrupted, so on cancellation the wait for it is abandoned,
    the control told, and the thread given a bounded time to stop at its next check before the
    cancellation goes on. Nothing is answered for a cancelled call.
    """
    control = CallControl()
    finished = threading.Event()

    def in_thread() -> dict[str, Any]:
        try:
            with controlling(control):
                return work()
        finally:
            finished.set()

    async def heartbeat(report: Progress) -> None:
        started = time.monotonic()
        while True:
            await asyncio.sleep(PROGRESS_INTERVAL)
            elapsed = round(time.monotonic() - started, 3)
            try:
                await report(elapsed, None, control.last_note or f"{tool} running ({elapsed:.0f} s)")
            except asyncio.CancelledError:
                raise
            except Exception:  # a client that went away: the call's own answer will fail too
                log.debug("could not send progress", exc_info=True)
                return

    # The thread sees this task's context (spliced.available(), the call's logging context).
    context = contextvars.copy_context()
    submitted = _WORKERS.submit(lambda: context.run(in_thread))
    beat = asyncio.ensure_future(heartbeat(progress)) if progress is not None else None
    try:
        return await asyncio.wrap_future(submitted)
    except asyncio.CancelledError:
        if submitted.cancel():  # it never started
            finished.set()
        control.cancel()
        await _grace(finished)
        raise
    finally:
        if beat is not None:
            beat.cancel()


async def _grace(finished: threading.Event) -> None:
    """Wait up to _CANCEL_GRACE for ``finished``, through the further cancellations a cancelled
    scope delivers meanwhile (anyio's, under the SDK, repeats them)."""

    async def wait() -> None:
        deadline = time.monotonic() + _CANCEL_GRACE
        while not finished.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    waiting = asyncio.ensure_future(wait())
    while not waiting.done():
        try:
            await asyncio.shield(waiting)
        except asyncio.CancelledError:
            continue


class _Held:
    """The collector deferrals begun while one HTTP request is served, ended when its answer is written."""

    def __init__(self) -> None:
        self.open = True
        self.deferrals: list[Any] = []


_held: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("wpfprobe_collections_held", default=None)


class _collections_deferred:
    """Python's collector off for a read's call, until the HTTP answer is written where that can be told.

    A read's answer is copied several times before it is sent (its dump, the protocol's shaping,
    the JSON-RPC envelope's dump): tens of thousands of containers for a big tree, alive together.
    Each counts towards the collector's next run, and a run started then (a full one: 30 ms with
    5,000 controls shown, far more on a loaded machine) holds the GIL throughout, so the app's own
    Python waits. With the collector off until the answer is written and freed, the count goes
    down again as they are freed and nothing runs. ``collections_after_response`` (around the HTTP
    app) ends the deferral then; where the call runs outside that request's context (a
    handshake-era session's task, stdio) it ends here, when the answer has been made.
    """

    def __enter__(self) -> None:
        self._deferral = collection_deferred()
        self._deferral.__enter__()
        held = _held.get()
        self._handed = held is not None and held.open
        if held is not None and held.open:
            held.deferrals.append(self._deferral)

    def __exit__(self, *exc: object) -> None:
        if not self._handed:
            self._deferral.__exit__(None, None, None)


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
