"""A big answer written into its HTTP body as JSON made beforehand, so the app's Python never waits for the SDK's encoding.

A tree of 5,000 nodes is about 1 MB of JSON. Handed to the MCP SDK as a
dict, it is copied and encoded four times before it is sent (the result's
dump, the protocol's shaping of it, the JSON-RPC envelope's dump, then
``json.dumps``), each one native call over the whole tree with the GIL held:
15-30 ms each on this machine, a pythonnet app's own Python handlers waiting
throughout, and together more GIL time than reading the tree took.

So the tool hands the SDK a placeholder instead (``json_placeholder``: a
one-key object; ``text_placeholder``: a string), having encoded the JSON
itself on its worker thread (orjson: under a millisecond for 5,000 nodes),
and ``written_in_pieces`` (around the SDK's ASGI app) writes it into the HTTP
body where the placeholder's JSON is, and fixes the body's length. The
placeholder's token is random, and JSON escapes every quote inside a string,
so no text an app shows can make the splice happen anywhere else. It is done
only where an ASGI app of ours writes the answer (``available()``; over stdio
the answer goes whole). A placeholder whose answer is never written (its
client went away) is dropped after MAX_AGE seconds, and at most MAX_PENDING
are kept.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["available", "json_placeholder", "splice", "text_placeholder", "written_in_pieces"]

log = logging.getLogger("wpfprobe.server")

KEY = "$wpfprobeRaw"
PREFIX = "wpfprobe-raw-"
_PREFIX = PREFIX.encode()
_TOKEN_HEX = 32
#: Seconds a placeholder waits for its answer to be written: the SDK writes it as soon as it has it.
MAX_AGE = 60.0
#: Placeholders kept at once: more than this many big answers waiting to be written is a client
#: calling and leaving; the oldest is dropped (its answer, if ever written, carries the placeholder).
MAX_PENDING = 16

Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class _Pending:
    kind: Literal["object", "string"]
    pieces: list[bytes]
    made: float


_pending: OrderedDict[str, _Pending] = OrderedDict()
_lock = threading.Lock()
_writes_pieces: contextvars.ContextVar[bool] = contextvars.ContextVar("wpfprobe_writes_pieces", default=False)


def available() -> bool:
    """Whether this call's answer is written by ``written_in_pieces`` (the context of an HTTP request
    it serves, or of a session begun in one)."""
    return _writes_pieces.get()


def json_placeholder(data: bytes) -> dict[str, str]:
    """The one-key object to send in place of the JSON value ``data`` (UTF-8)."""
    return {KEY: _hold("object", [data])}


def text_placeholder(text: str) -> str:
    """The string to send in place of ``text``: its JSON string is made here, in one short call."""
    import orjson  # noqa: PLC0415 - only a big answer needs it

    try:
        quoted = orjson.dumps(text)
    except orjson.JSONEncodeError:  # a lone surrogate (half of a pair, which a .NET string may hold)
        quoted = json.dumps(text).encode("ascii")  # escaped, as JSON allows
    return _hold("string", [quoted])


def _hold(kind: Literal["object", "string"], pieces: list[bytes]) -> str:
    token = PREFIX + secrets.token_hex(_TOKEN_HEX // 2)
    now = time.monotonic()
    with _lock:
        while _pending and (len(_pending) >= MAX_PENDING or now - next(iter(_pending.values())).made > MAX_AGE):
            dropped, _ = _pending.popitem(last=False)
            log.debug("a big answer was never written; its pieces are dropped", extra={"token": dropped})
        _pending[token] = _Pending(kind, pieces, now)
    return token


def _take(token: str) -> _Pending | None:
    with _lock:
        return _pending.pop(token, None)


def pending() -> int:
    """How many placeholders wait for their answer to be written."""
    return len(_pending)


def splice(body: bytes) -> list[bytes] | None:
    """``body`` with each held placeholder's JSON replaced by its pieces, as the parts to send in
    order; None when it has none (then it goes as it is)."""
    at = body.find(_PREFIX)
    if at < 0:
        return None
    parts: list[bytes] = []
    done = 0
    while at >= 0:
        end_token = at + len(_PREFIX) + _TOKEN_HEX
        token = body[at:end_token].decode("ascii", "replace")
        held = _pending.get(token)
        span = _span(body, at, end_token, held.kind) if held is not None else None
        if held is None or span is None or _take(token) is None:
            at = body.find(_PREFIX, at + 1)
            continue
        start, end = span
        parts.append(body[done:start])
        parts.extend(held.pieces)
        done = end
        at = body.find(_PREFIX, done)
    if not parts:
        return None
    parts.append(body[done:])
    return parts


_OPENS = re.compile(rb'\{\s*"' + re.escape(KEY.encode()) + rb'"\s*:\s*"\Z')
_CLOSES = re.compile(rb'"\s*\}')


def _span(body: bytes, at: int, end_token: int, kind: Literal["object", "string"]) -> tuple[int, int] | None:
    """Where the placeholder whose token is ``body[at:end_token]`` begins and ends in the JSON: its
    exact JSON, so a token inside some other string (its quotes escaped) is left as that text."""
    if body[at - 1 : at] != b'"' or body[end_token : end_token + 1] != b'"':
        return None
    if body[at - 2 : at - 1] == b"\\":
        return None
    if kind == "string":
        return at - 1, end_token + 1
    start = body.rfind(b"{", max(0, at - 64), at)
    closes = _CLOSES.match(body, end_token)
    if start < 0 or closes is None or _OPENS.match(body[start:at]) is None:
        return None
    return start, closes.end()


def written_in_pieces(app: Any) -> Any:
    """The ASGI ``app``, its answers' placeholders replaced by their pieces as they are written."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        writer = _Writer(send)
        token = _writes_pieces.set(True)
        try:
            await app(scope, receive, writer.send)
            await writer.flush()
        finally:
            _writes_pieces.reset(token)

    return wrapped


class _Writer:
    """One response's ``send``: a sized answer's start held while a placeholder may be in its body
    (whose length then changes), its body spliced. An event stream's start (no length: the
    standalone stream may carry nothing for minutes) goes at once, its events spliced."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._start: MutableMapping[str, Any] | None = None
        self._body: list[bytes] = []

    async def send(self, message: MutableMapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "http.response.start":
            if _pending and _length(message) is not None:
                self._start = message
                return
            await self._send(message)
            return
        if kind != "http.response.body" or (self._start is None and not _pending):
            await self._send(message)
            return
        more = bool(message.get("more_body", False))
        if self._start is not None and more:
            self._body.append(bytes(message.get("body", b"")))  # a sized body is spliced whole
            return
        body = b"".join([*self._body, bytes(message.get("body", b""))])
        self._body.clear()
        parts = splice(body)
        if self._start is not None:
            start, self._start = self._start, None
            if parts is not None and _length(start) is not None:
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                length = str(sum(len(part) for part in parts)).encode()
                start = {**start, "headers": [*headers, (b"content-length", length)]}
            await self._send(start)
        if parts is None:
            await self._send({**message, "body": body})
            return
        for part in parts[:-1]:
            await self._send({"type": "http.response.body", "body": part, "more_body": True})
        await self._send({"type": "http.response.body", "body": parts[-1], "more_body": more})

    async def flush(self) -> None:
        """What is still held when the app is done (it ended a response early): sent as it was.
        Not after the app raised: the server then answers 500 itself, as no start reached it."""
        if self._start is not None:
            start, self._start = self._start, None
            await self._send(start)
        if self._body:
            body = b"".join(self._body)
            self._body.clear()
            await self._send({"type": "http.response.body", "body": body, "more_body": False})


def _length(start: MutableMapping[str, Any]) -> int | None:
    for key, value in start.get("headers", []):
        if key.lower() == b"content-length":
            return int(value)
    return None
