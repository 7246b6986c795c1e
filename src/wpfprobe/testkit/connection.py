"""How the test kit talks to an app: MCP tool calls, answered as plain data.

``McpConnection`` drives an app in another process through its probe's MCP
server (the test kit's normal case: the app may crash, and is started fresh
for every minimization candidate). ``InProcessConnection`` runs the same tools
on an engine in this process (a notebook, a test that started the app on a UI
thread of its own, the unit tests' fake toolkit): the same answers, without a
socket. Both answer a call with a ``CallOutcome`` and never raise for what the
app or the probe refused.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError, ProbeError
from wpfprobe.mcp.client import CALL_TIMEOUT, ProbeClient
from wpfprobe.mcp.manifest import Manifest
from wpfprobe.mcp.tools import TIERS, ToolSpec, all_tools

if TYPE_CHECKING:
    from wpfprobe.engine.engine import Engine, Tier


@dataclass
class CallOutcome:
    """One tool call's answer: the structured content, or the error ``{code, message, suggestion, detail}``."""

    ok: bool
    structured: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    error: dict[str, Any] | None = None
    png: bytes | None = None
    duration_ms: int = 0

    @property
    def code(self) -> str | None:
        return str(self.error.get("code")) if self.error else None

    @property
    def message(self) -> str:
        return str(self.error.get("message") or "") if self.error else ""

    @property
    def app_gone(self) -> bool:
        return self.code == "APP_NOT_AVAILABLE"

    @classmethod
    def from_error(cls, err: ProbeError, duration_ms: int = 0) -> CallOutcome:
        return cls(ok=False, error=err.to_dict(), text=f"{err.code}: {err.message}", duration_ms=duration_ms)


class AppConnection(Protocol):
    """What every part of the test kit calls an app through."""

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None) -> CallOutcome: ...

    def close(self) -> None: ...


def outcome_from_result(result: Any, duration_ms: int) -> CallOutcome:
    """A CallOutcome from an MCP CallToolResult."""
    structured = result.structured_content if isinstance(result.structured_content, dict) else {}
    texts: list[str] = []
    png = None
    for block in result.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(str(block.text))
        elif kind == "image" and getattr(block, "mime_type", "") == "image/png":
            png = base64.b64decode(block.data)
    if result.is_error:
        error = dict(structured) if structured.get("code") else {"code": "INTERNAL", "message": "\n".join(texts)}
        return CallOutcome(ok=False, error=error, text="\n".join(texts), duration_ms=duration_ms)
    return CallOutcome(ok=True, structured=dict(structured), text="\n".join(texts), png=png, duration_ms=duration_ms)


class McpConnection:
    """A synchronous MCP session to one app's probe (its event loop runs on a thread of its own)."""

    def __init__(self, manifest: Manifest, *, connect_timeout: float = 10.0) -> None:
        self.manifest = manifest
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="wpfprobe-testkit-mcp", daemon=True)
        self._thread.start()
        self._client = ProbeClient(manifest, connect_timeout=connect_timeout)
        try:
            self._run(self._client.__aenter__(), connect_timeout + 5)
        except BaseException:
            self._stop_loop()
            raise

    def _run(self, coro: Any, timeout: float) -> Any:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise AppNotAvailableError(
                f"The app {self.manifest.app_name} did not answer within {timeout:g} s.",
                suggestion="The app may be hung; see its log.",
            ) from None

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None) -> CallOutcome:
        wait = timeout if timeout is not None else CALL_TIMEOUT
        started = time.perf_counter()
        try:
            result = self._run(self._client.call_tool(tool, dict(arguments), timeout=wait), wait + 5)
        except ProbeError as err:
            return CallOutcome.from_error(err, _ms(started))
        return outcome_from_result(result, _ms(started))

    def close(self) -> None:
        if self._loop.is_closed():
            return
        with contextlib.suppress(BaseException):
            self._run(self._client.__aexit__(None, None, None), 8)
        self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()


class InProcessConnection:
    """The MCP tools run on an engine in this process, answered as an MCP client would see them."""

    def __init__(self, engine: Engine, *, tier: Tier = "interact") -> None:
        if tier not in TIERS:
            raise InvalidArgumentError(f"tier must be one of {', '.join(TIERS)}.")
        self.engine = engine
        self.tier: Tier = tier
        self._specs: dict[str, ToolSpec] = {s.name: s for s in all_tools(tier=tier)}

    @classmethod
    def of(cls, probe_or_engine: Any, *, tier: Tier = "interact") -> InProcessConnection:
        """From a ``wpfprobe.Probe`` (``wpfprobe.attach``) or an engine."""
        engine = getattr(probe_or_engine, "engine", probe_or_engine)
        return cls(engine, tier=tier)

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None) -> CallOutcome:
        started = time.perf_counter()
        spec = self._specs.get(tool)
        if spec is None:
            from wpfprobe.mcp.catalog import tier_refusal as _tier_refusal  # noqa: PLC0415 - the server's own refusal text

            refusal = _tier_refusal(tool, self.tier) or InvalidArgumentError(f"Unknown tool {tool!r}.")
            return CallOutcome.from_error(refusal)
        try:
            args = spec.args.model_validate(dict(arguments), by_alias=True, by_name=False)
            out = spec.run(self.engine, args)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or '(arguments)'}: {e['msg']}"
                for e in exc.errors(include_url=False, include_input=False)
            )
            return CallOutcome.from_error(
                InvalidArgumentError(f"Invalid arguments for {tool}: {problems}"), _ms(started)
            )
        except ProbeError as err:
            return CallOutcome.from_error(err, _ms(started))
        return CallOutcome(
            ok=True, structured=out.structured_json(), text=out.text, png=out.png, duration_ms=_ms(started)
        )

    def close(self) -> None:
        pass


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
