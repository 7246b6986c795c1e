"""JSON-RPC framing without the SDK (wpfprobe/mcp/jsonrpc.py): each line or body gets the verdict the
SDK's decoding gives it (its message union for stdio and handshake HTTP, its 2026 entry's rules for
a 2026 body), and messages are framed as its wires frame them."""

from __future__ import annotations

import json

import pytest
from mcp_types.jsonrpc import JSONRPCRequest, jsonrpc_message_adapter
from pydantic import ValidationError

from wpfprobe.mcp import jsonrpc

# --- decoding ---------------------------------------------------------------------------------------------

LINES = [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":"a","method":"ping","params":null}',
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}',
    b'{"jsonrpc":"2.0","id":1,"method":5}',
    b'{"jsonrpc":"1.0","id":1,"method":"ping"}',
    b'{"id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1,"result":{}}',
    b'{"jsonrpc":"2.0","id":1,"result":[]}',
    b'{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}',
    b'{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}',
    b'{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}',
    b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    b"[]",
    b'"x"',
    b"5",
    b"{",
    b"",
    b"\xff",
    b'{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}',
]


def sdk_kind(line: bytes) -> str:
    try:
        json.loads(line)
    except ValueError:
        return "parse"
    try:
        message = jsonrpc_message_adapter.validate_json(line)
    except ValidationError:
        return "invalid"
    return {"JSONRPCRequest": "request", "JSONRPCNotification": "notification", "JSONRPCResponse": "response"}.get(
        type(message).__name__, "error"
    )


@pytest.mark.parametrize("line", LINES)
def test_decoding_a_line_as_the_sdk_does(line: bytes) -> None:
    decoded = jsonrpc.decode(line)
    ours = decoded.kind if isinstance(decoded, jsonrpc.Decoded) else {-32700: "parse", -32600: "invalid"}[decoded.code]
    assert ours == sdk_kind(line)


@pytest.mark.parametrize("line", LINES)
def test_decoding_a_2026_body_as_the_sdk_does(line: bytes) -> None:
    # _streamable_http_modern.handle_modern_request: an object without "id" is a notification,
    # one with it must be a request.
    try:
        value = json.loads(line)
    except ValueError:
        expected = "parse"
    else:
        if isinstance(value, dict) and "id" not in value:
            expected = "notification" if sdk_kind(line) == "notification" else "invalid"
        else:
            try:
                JSONRPCRequest.model_validate(value)
                expected = "request"
            except ValidationError:
                expected = "invalid"
    decoded = jsonrpc.decode(line, strict_id=True)
    ours = decoded.kind if isinstance(decoded, jsonrpc.Decoded) else {-32700: "parse", -32600: "invalid"}[decoded.code]
    assert ours == expected


def test_encoding_frames_as_the_wires_do() -> None:
    message = jsonrpc.response(1, {"a": "é"})
    assert json.loads(jsonrpc.encode(message)) == message
    assert (
        jsonrpc.sse_event(message)
        == b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{"a":"\xc3\xa9"}}\r\n\r\n'
    )
    assert jsonrpc.error(None, -32700, "Parse error") == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }


@pytest.mark.parametrize("value", [2**70, -(2**64), "\ud800"])
def test_what_a_client_can_send_and_orjson_refuses_is_still_encoded(value: object) -> None:
    """The decoder reads an id past 64 bits and a lone surrogate (the SDK's parser does too); an
    answer that echoes them back must be writable, or the request goes unanswered."""
    message = jsonrpc.response(value, {"echo": value})  # type: ignore[arg-type]
    assert json.loads(jsonrpc.encode(message)) == message
    assert jsonrpc.decode(jsonrpc.encode(message)) == jsonrpc.Decoded("response", message)
