"""The HTTP guard as a pure ASGI app in front of a dummy app: Host, Origin, the bearer token, the URL."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from wpfprobe.mcp.server import Guard

PORT = 50123
TOKEN = "t" * 20 + "0123456789abcdefghijklmnopq"  # 47 url-safe characters
HOSTS = [f"127.0.0.1:{PORT}", f"localhost:{PORT}"]
ORIGINS = [f"http://{h}" for h in HOSTS]


class Inner:
    """The app behind the guard: records that it was reached and answers 200."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.calls.append(scope)
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"inner"})


class Answer:
    def __init__(self, messages: list[dict[str, Any]], reached: bool) -> None:
        start = next(m for m in messages if m["type"] == "http.response.start")
        self.status: int = start["status"]
        self.headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in start.get("headers", [])]
        self.body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        self.reached = reached

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k == name), None)

    def shape(self) -> tuple[int, tuple[tuple[str, str], ...], bytes]:
        return self.status, tuple(self.headers), self.body

    def __repr__(self) -> str:
        return f"<{self.status} reached={self.reached} {self.body!r}>"


def call(
    headers: dict[str, str] | list[tuple[str, str]] | None = None,
    *,
    query: str = "",
    host: str | None = HOSTS[0],
    token: str | None = TOKEN,
    require_token: bool = True,
    method: str = "POST",
) -> Answer:
    inner = Inner()
    guard = Guard(inner, token=TOKEN, hosts=HOSTS, origins=ORIGINS, require_token=require_token)
    pairs: list[tuple[str, str]] = []
    if host is not None:
        pairs.append(("host", host))
    if token is not None:
        pairs.append(("authorization", f"Bearer {token}"))
    pairs.extend(headers.items() if isinstance(headers, dict) else headers or [])
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": query.encode("latin-1"),
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in pairs],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", PORT),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(guard(scope, receive, send))
    return Answer(sent, reached=bool(inner.calls))


def assert_refused(answer: Answer, status: int) -> None:
    assert answer.status == status, answer
    assert not answer.reached, "a refused request never reaches the MCP app"
    assert answer.header("content-type") == "application/json"
    body = json.loads(answer.body)
    assert set(body) == {"code", "message"} and body["message"]
    assert TOKEN not in answer.body.decode()
    assert answer.header("content-length") == str(len(answer.body))


# -- the happy path ------------------------------------------------------------------


@pytest.mark.parametrize("host", HOSTS + [h.upper() for h in HOSTS])
def test_loopback_host_with_the_token_reaches_the_app(host: str) -> None:
    answer = call(host=host)
    assert answer.status == 200 and answer.reached and answer.body == b"inner"


@pytest.mark.parametrize("origin", ORIGINS)
def test_loopback_origin_is_allowed(origin: str) -> None:
    assert call({"origin": origin}).reached


def test_a_harmless_query_passes() -> None:
    assert call(query="page=2&x=").reached


def test_non_http_scopes_pass_through() -> None:
    inner = Inner()
    guard = Guard(inner, token=TOKEN, hosts=HOSTS, origins=ORIGINS)

    async def receive() -> dict[str, Any]:
        return {"type": "lifespan.startup"}

    async def send(message: dict[str, Any]) -> None:
        pass

    asyncio.run(guard({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
    assert [s["type"] for s in inner.calls] == ["lifespan"]


# -- Host --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        f"evil.example:{PORT}",
        f"127.0.0.1:{PORT + 1}",
        f"localhost:{PORT + 1}",
        "127.0.0.1",
        "localhost",
        f"127.0.0.2:{PORT}",
        f"[::1]:{PORT}",
        f"0.0.0.0:{PORT}",
        f"127.0.0.1:{PORT}.evil.example",
        f"localhost.evil.example:{PORT}",
        "",
    ],
)
def test_any_other_host_is_misdirected(host: str) -> None:
    assert_refused(call(host=host), 421)


def test_a_missing_host_is_misdirected() -> None:
    assert_refused(call(host=None), 421)


def test_the_host_is_checked_before_the_token() -> None:
    assert_refused(call(host="evil.example", token=None), 421)


# -- Origin ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        f"http://evil.example:{PORT}",
        "null",
        "",
        f"http://127.0.0.1:{PORT + 1}",
        f"http://127.0.0.1:{PORT}.evil.example",
        f"file://127.0.0.1:{PORT}",
    ],
)
def test_a_foreign_origin_is_forbidden_even_with_the_token(origin: str) -> None:
    assert_refused(call({"origin": origin}), 403)


# -- the token -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Bearer wrong",
        f"Bearer {TOKEN[:-1]}",
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN.upper()}",
        f"Basic {TOKEN}",
        TOKEN,
        f"Token {TOKEN}",
        "Bearer \u00e9t\u00e9",
    ],
)
def test_without_the_right_bearer_token_the_answer_is_401(authorization: str | None) -> None:
    headers = [] if authorization is None else [("authorization", authorization)]
    answer = call(headers, token=None)
    assert_refused(answer, 401)
    assert (answer.header("www-authenticate") or "").lower().startswith("bearer")


def test_the_401_is_the_same_whatever_is_wrong_so_it_tells_nothing() -> None:
    answers = [
        call(token=None),
        call([("authorization", "")], token=None),
        call([("authorization", "Bearer x")], token=None),
        call([("authorization", f"Bearer {TOKEN[:-1]}")], token=None),
        call([("authorization", f"Basic {TOKEN}")], token=None),
    ]
    assert len({a.shape() for a in answers}) == 1, answers


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_scheme_is_case_insensitive(scheme: str) -> None:
    assert call([("authorization", f"{scheme} {TOKEN}")], token=None).reached


def test_require_token_off_still_checks_host_and_origin() -> None:
    assert call(token=None, require_token=False).reached
    assert_refused(call(token=None, require_token=False, host="evil.example"), 421)
    assert_refused(call({"origin": "http://evil.example"}, token=None, require_token=False), 403)


# -- the URL -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        f"token={TOKEN}",
        f"access_token={TOKEN}",
        f"ACCESS_TOKEN={TOKEN}",
        "token=anything",
        "api_key=x",
        f"x={TOKEN}",
        f"a=1&token={TOKEN}",
        f"x=prefix{TOKEN}suffix",
    ],
)
def test_credentials_in_the_url_are_refused_even_with_a_valid_header(query: str) -> None:
    assert_refused(call(query=query), 400)


def test_credentials_in_the_url_are_refused_without_a_header_too() -> None:
    answer = call(query=f"token={TOKEN}", token=None)
    assert answer.status in (400, 401) and not answer.reached


# -- CORS ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"token": None},
        {"host": "evil.example"},
        {"headers": {"origin": "http://evil.example"}},
        {"query": f"token={TOKEN}"},
        {
            "method": "OPTIONS",
            "token": None,
            "headers": {"origin": ORIGINS[0], "access-control-request-method": "POST"},
        },
        {"method": "OPTIONS", "headers": {"origin": "http://evil.example", "access-control-request-method": "POST"}},
    ],
    ids=["ok", "no token", "bad host", "bad origin", "token in url", "preflight", "foreign preflight"],
)
def test_the_guard_never_adds_cors_headers(kwargs: dict[str, Any]) -> None:
    answer = call(**kwargs)
    assert not [k for k, _ in answer.headers if k.startswith("access-control-")], answer.headers
