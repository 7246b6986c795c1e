"""A big answer's placeholders replaced by their pieces as the HTTP body is written (mcp/spliced.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, MutableMapping
from typing import Any

import pytest
from mcp_types import CallToolResult, JSONRPCResponse, TextContent

from wpfprobe.mcp import spliced
from wpfprobe.mcp.text import json_bytes, json_text

TREE = {
    "root": {
        "nodeId": "a1",
        "type": "Form",
        "text": 'quotes " and \\ and\nlines, ünïcödé, 😀',
        "children": [{"nodeId": f"a{i}", "type": "Button", "text": "x" * i, "children": []} for i in range(2, 400)],
    },
    "treeType": "visual",
    "truncated": False,
    "returnedNodeCount": 399,
}


@pytest.fixture(autouse=True)
def nothing_pending() -> Iterator[None]:
    spliced._pending.clear()
    yield
    spliced._pending.clear()


def envelope(structured: Any, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def wire_forms(result: CallToolResult) -> list[bytes]:
    """The body as the SDK writes it: json.dumps of the envelope's dump, and pydantic's own JSON."""
    response = JSONRPCResponse(jsonrpc="2.0", id=3, result=result.model_dump(by_alias=True, exclude_none=True))
    dumped = response.model_dump(mode="json", by_alias=True, exclude_none=True)
    return [
        json.dumps(dumped, separators=(",", ":")).encode(),
        json.dumps(dumped).encode(),
        response.model_dump_json(by_alias=True, exclude_none=True).encode(),
    ]


@pytest.mark.parametrize("form", [0, 1, 2])
def test_a_tree_sent_as_placeholders_arrives_as_the_tree_and_its_text(form: int) -> None:
    text = json.dumps(TREE, ensure_ascii=False) * 3
    structured = spliced.json_placeholder(json_bytes(TREE))
    body = wire_forms(envelope(structured, spliced.text_placeholder(text)))[form]
    parts = spliced.splice(body)
    assert parts is not None and len(parts) > 3
    answer = json.loads(b"".join(parts))
    assert answer["result"]["structuredContent"] == TREE
    assert answer["result"]["content"][0]["text"] == text
    assert spliced.pending() == 0


def test_a_trees_json_is_compact_and_keeps_its_text() -> None:
    assert json_text(TREE) == json.dumps(TREE, ensure_ascii=False, separators=(",", ":"))
    assert json_bytes(TREE) == json_text(TREE).encode()


@pytest.mark.parametrize("odd", ["half \ud83d of it", 2**70])
def test_what_orjson_refuses_is_encoded_by_the_standard_library(odd: Any) -> None:
    """A lone surrogate (a .NET string may hold one) and an integer beyond 64 bits: orjson refuses
    both; the tree is still sent, as valid JSON."""
    tree = {"root": {"nodeId": "a1", "text": odd, "children": []}}
    assert json.loads(json_bytes(tree)) == tree
    assert json.loads(json_text(tree)) == tree


def test_a_body_with_no_placeholder_is_left_as_it_is() -> None:
    spliced.json_placeholder(b'{"a":1}')
    assert spliced.splice(b'{"jsonrpc":"2.0","id":1,"result":{}}') is None
    assert spliced.pending() == 1


def test_text_that_shows_a_token_is_not_spliced() -> None:
    """A control's text may contain anything, a placeholder's exact JSON included: inside a JSON
    string its quotes are escaped, so it can never be taken for the placeholder itself."""
    structured = spliced.json_placeholder(b'{"a":1}')
    token = structured[spliced.KEY]
    shown = json.dumps(structured)  # what an app could show, had it guessed the token
    body = wire_forms(envelope({"text": shown, "also": token[:-1] + "0", "exact": token}, shown))[0]
    assert spliced.splice(body) is None
    assert spliced.pending() == 1  # still waiting for its own answer


def test_a_token_that_is_not_held_is_skipped_and_the_next_one_spliced() -> None:
    real = spliced.json_placeholder(b'{"a":1}')
    fake = {spliced.KEY: spliced.PREFIX + "0" * 32}
    body = json.dumps({"x": fake, "y": real}, separators=(",", ":")).encode()
    parts = spliced.splice(body)
    assert parts is not None
    assert json.loads(b"".join(parts)) == {"x": fake, "y": {"a": 1}}


def test_placeholders_never_written_are_dropped_oldest_first() -> None:
    tokens = [spliced.json_placeholder(str(i).encode())[spliced.KEY] for i in range(spliced.MAX_PENDING + 3)]
    assert spliced.pending() == spliced.MAX_PENDING
    assert tokens[0] not in spliced._pending and tokens[-1] in spliced._pending


def test_placeholders_older_than_the_limit_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    old = spliced.json_placeholder(b"1")[spliced.KEY]
    now = spliced.time.monotonic()
    monkeypatch.setattr(spliced.time, "monotonic", lambda: now + spliced.MAX_AGE + 1)
    spliced.json_placeholder(b"2")
    assert old not in spliced._pending and spliced.pending() == 1


# -- the ASGI writer ----------------------------------------------------------------------------


def serve(app: Any) -> list[MutableMapping[str, Any]]:
    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    asyncio.run(spliced.written_in_pieces(app)({"type": "http"}, receive, send))
    return sent


def body_of(sent: list[MutableMapping[str, Any]]) -> bytes:
    assert sent[0]["type"] == "http.response.start"
    assert all(m["type"] == "http.response.body" for m in sent[1:])
    assert not sent[-1].get("more_body", False)
    return b"".join(m.get("body", b"") for m in sent[1:])


def start(length: int | None) -> dict[str, Any]:
    headers = [(b"content-type", b"application/json")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {"type": "http.response.start", "status": 200, "headers": headers}


def test_a_sized_answer_gets_the_length_of_what_is_written() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert spliced.available()
        body = json.dumps({"result": spliced.json_placeholder(json_bytes(TREE))}).encode()
        await send(start(len(body)))
        await send({"type": "http.response.body", "body": body[:10], "more_body": True})
        await send({"type": "http.response.body", "body": body[10:]})

    sent = serve(app)
    body = body_of(sent)
    assert json.loads(body) == {"result": TREE}
    assert dict(sent[0]["headers"])[b"content-length"] == str(len(body)).encode()


def test_a_streamed_answer_is_spliced_event_by_event() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send(start(None))  # an event stream: sent before the call is answered
        await send({"type": "http.response.body", "body": b"event: message\r\n", "more_body": True})
        event = json.dumps({"result": spliced.json_placeholder(json_bytes(TREE))}).encode()
        await send({"type": "http.response.body", "body": b"data: " + event + b"\r\n\r\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    sent = serve(app)
    assert sent[0] == start(None)
    data = body_of(sent).split(b"data: ", 1)[1]
    assert json.loads(data) == {"result": TREE}


def test_an_answer_with_nothing_held_goes_untouched() -> None:
    messages = [start(2), {"type": "http.response.body", "body": b"{}"}]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        for message in messages:
            await send(message)

    assert serve(app) == messages


def test_an_event_streams_start_is_not_held_while_an_answer_is_pending() -> None:
    """Regression: while another call's placeholder waited (for up to a minute if its client left),
    every response's start was held until its first body, and a standalone event stream, which may
    carry nothing for minutes, kept its client waiting for its headers."""
    spliced.json_placeholder(b"1")
    sent: list[MutableMapping[str, Any]] = []
    started = asyncio.Event()

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)
        started.set()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send(start(None))
        await asyncio.Event().wait()  # an idle stream: open until its client goes

    async def main() -> None:
        serving = asyncio.ensure_future(spliced.written_in_pieces(app)({"type": "http"}, None, send))
        await asyncio.wait_for(started.wait(), 5)
        serving.cancel()

    asyncio.run(main())
    assert sent == [start(None)]


def test_a_start_held_for_a_body_that_never_comes_is_still_sent() -> None:
    spliced.json_placeholder(b"1")  # another call's answer is pending, so starts are held

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send(start(0))

    assert serve(app) == [start(0)]


def test_outside_a_request_the_answer_goes_whole() -> None:
    assert not spliced.available()


def test_a_lone_surrogate_in_a_controls_text_is_sent_escaped() -> None:
    """Regression: a .NET string may hold half a surrogate pair (a text box cut mid-emoji); UTF-8
    cannot encode it, and the pieces' encoding failed the whole call. JSON escapes it instead."""
    tree = {"root": {"nodeId": "a1", "type": "TextBox", "text": "half \ud83d of it", "children": []}}
    text = json_text(tree)
    body = wire_forms(envelope(spliced.json_placeholder(json_bytes(tree)), spliced.text_placeholder(text)))[0]
    parts = spliced.splice(body)
    assert parts is not None
    answer = json.loads(b"".join(parts))
    assert answer["result"]["structuredContent"] == tree
    assert answer["result"]["content"][0]["text"] == text
