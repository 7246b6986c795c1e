"""JSON-RPC 2.0 framing for the MCP endpoint, without the SDK: decode a line or a body, encode a message.

The rules are the SDK's (``mcp_types.jsonrpc``, validated through its message
union), so a client sees the same verdicts it saw when the SDK decoded for us:

* text that is no JSON is a parse error (-32700);
* JSON that is no single message object is an invalid request (-32600): a batch,
  ``[]``, a bare string or number, ``jsonrpc`` other than ``"2.0"``, no string
  ``method`` and no ``result``/``error`` either;
* a request's id is a string or an integer, never a bool nor a float; params an
  object or absent/null. The SDK's union reads an object whose id is malformed
  but whose method is good as a *notification* (the stdio and handshake-HTTP
  wires drop it without an answer); the 2026 HTTP entry instead refuses any
  object that has an ``id`` key and is no request (``strict_id``).

A decoded message stays the plain dict the client sent: no model, no copy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson

__all__ = [
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "REQUEST_CANCELLED",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "Decoded",
    "Invalid",
    "Kind",
    "RequestId",
    "as_request_id",
    "correlation_key",
    "decode",
    "encode",
    "error",
    "notification",
    "response",
    "sse_event",
]

RequestId = str | int
Message = dict[str, Any]
Kind = Literal["request", "notification", "response", "error"]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
#: The MCP codes of the 2026-07-28 envelope ladder.
HEADER_MISMATCH: Final = -32020
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
#: What handshake-era streamable HTTP answers a cancelled request with, so its stream ends.
REQUEST_CANCELLED: Final = -32800


@dataclass(frozen=True, slots=True)
class Decoded:
    """One JSON-RPC message and what kind it is."""

    kind: Kind
    message: Message


@dataclass(frozen=True, slots=True)
class Invalid:
    """Why a line or body is no JSON-RPC message: the error the wire answers with ``id: null``."""

    code: int
    message: str


def as_request_id(value: object) -> RequestId | None:
    """A wire value as a request id, or None: a string or an int, never a bool (True would alias 1)."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        return value
    return None


def correlation_key(request_id: RequestId) -> RequestId:
    """The key requests are tracked by: ``"7"`` and ``7`` are one request, as in the SDK (and the TS SDK)."""
    if isinstance(request_id, str):
        try:
            return int(request_id)
        except ValueError:
            pass
    return request_id


def _parse(data: bytes | str) -> Any:
    # The standard parser, as the SDK's 2026 entry uses: orjson reads an integer past 64 bits as
    # a float (so such an id would stop being one) and refuses NaN and lone surrogates. A
    # client's message is small; the answers, large, are what orjson writes.
    return json.loads(data)


def _params_ok(message: Message) -> bool:
    params = message.get("params")
    return params is None or isinstance(params, dict)


def decode(data: bytes | str, *, strict_id: bool = False) -> Decoded | Invalid:
    """One line (stdio) or one body (HTTP) as a message, by the SDK's rules (module docstring)."""
    try:
        value = _parse(data)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return Invalid(PARSE_ERROR, "Parse error")
    return classify(value, strict_id=strict_id)


def classify(value: Any, *, strict_id: bool = False) -> Decoded | Invalid:
    """A parsed JSON value as a message (see :func:`decode`)."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return Invalid(INVALID_REQUEST, "Invalid request")
    has_method = isinstance(value.get("method"), str)
    request_id = as_request_id(value.get("id"))
    if has_method and request_id is not None and _params_ok(value):
        return Decoded("request", value)
    if strict_id and "id" in value:
        return Invalid(INVALID_REQUEST, "Invalid request")
    if has_method and _params_ok(value):
        return Decoded("notification", value)
    if request_id is not None and isinstance(value.get("result"), dict):
        return Decoded("response", value)
    if "id" in value and (request_id is not None or value["id"] is None) and _error_ok(value.get("error")):
        return Decoded("error", value)
    return Invalid(INVALID_REQUEST, "Invalid request")


def _error_ok(value: object) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("message"), str):
        return False
    code = value.get("code")
    if isinstance(code, str):  # pydantic's lax int, reading JSON: "1" is 1
        try:
            int(code.strip())
        except ValueError:
            return False
        return True
    return (isinstance(code, int) and not isinstance(code, bool)) or (isinstance(code, float) and code.is_integer())


def response(request_id: RequestId, result: Message) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


_NO_DATA: Final = object()


def error(request_id: RequestId | None, code: int, message: str, data: Any = _NO_DATA) -> Message:
    """An error response; ``data`` is left out unless given (the SDK writes ``exclude_unset``)."""
    body: Message = {"code": code, "message": message}
    if data is not _NO_DATA and data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def notification(method: str, params: Message | None = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def encode(message: Message) -> bytes:
    """A message as compact UTF-8 JSON (no newline: stdio adds it, SSE frames it)."""
    try:
        return orjson.dumps(message)
    except orjson.JSONEncodeError:
        # What orjson refuses and a client can send (the standard parser reads it): an integer
        # past 64 bits (an id, an argument echoed back), a lone surrogate in a string.
        return json.dumps(message, separators=(",", ":")).encode("ascii")


def sse_event(message: Message) -> bytes:
    """A message as one SSE ``message`` event, framed as the SDK frames it (``\\r\\n``)."""
    return b"event: message\r\ndata: " + encode(message) + b"\r\n\r\n"
