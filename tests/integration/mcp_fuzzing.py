"""Property-based fuzzing of every MCP tool, over the SDK's client and HTTP, against a live app.

Used by test_fuzz_mcp.py (a few thousand calls in ``./run test``) and
benchmarks/fuzz_mcp.py (tens of thousands). Arguments come from each tool's
input schema as tools/list gives it (hypothesis-jsonschema), valid-shaped and
hostile alike: wrong types, huge and unicode strings (NUL, lone surrogates,
RTL marks), locator and regex bombs, garbage and replayed cursors, extreme
numbers, node ids from earlier results and made-up ones, unknown keys.

What every call must keep (``Fuzzer.check``):
- no JSON-RPC error, and no INTERNAL: a tool's failure is a tool error;
- every tool error carries structured ``{code, message, ...}`` with a SPEC code;
- it answers within its bound: BOUND seconds, plus a wait's own timeout;
- the app's secret is in no answer (structured content or text).
After every batch (``Fuzzer.health``): the app's UI thread answers (a repaint and
a read), nothing reached its message loop, no secret getter ran, the app printed
nothing. Failures are collected, one per kind, so one run shows them all.

Strings the SDK would parse as JSON before the tool sees them ("[1]", "{}",
"null") are kept out of the main run and tried on their own
(``json_looking_calls``): that defect is the wire's (issue 18), and mixed in, it
would hide everything else.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning
from hypothesis_jsonschema import from_schema

# The pools of hostile values are large, and so is the repr Hypothesis makes of a strategy over them.
warnings.filterwarnings("ignore", message="Generating overly large repr", category=HypothesisWarning)

SPEC_CODES = frozenset(
    {
        "NODE_NOT_FOUND", "LOCATOR_NOT_FOUND", "LOCATOR_AMBIGUOUS", "INVALID_ARGUMENT", "DISPATCHER_BUSY",
        "OPERATION_TIMED_OUT", "PROPERTY_NOT_FOUND", "PROPERTY_REDACTED", "PROPERTY_READ_ONLY",
        "UNSUPPORTED_PROPERTY_TYPE", "TYPE_CONVERSION_FAILED", "MUTATION_DISABLED", "INPUT_DISABLED",
        "ELEMENT_NOT_INTERACTABLE", "ELEMENT_NOT_RENDERABLE", "APP_NOT_AVAILABLE", "APP_AMBIGUOUS", "INTERNAL",
    }
)  # fmt: skip
BOUND = 30.0
"""Seconds any call may take, plus a wait's own timeout: generous (a loaded 2-core machine), and still
far below what a hang is (a backtracking regex held the app for minutes)."""

ENV_SEED = "WPFPROBE_FUZZ_SEED"

BOMB_PATTERNS = [r"^(a+)+$", r"(.+)+!$x", r"^(a|aa)+$", r"(a*)*b", r"(x+x+)+y", r"(a|b)*a(a|b){400}c"]
HOSTILE_STRINGS = [
    "", " ", "\x00", "a\x00b", "\ud800", "\udfff", "x\ud83d", "\u202e\u200fevil", "\u2066\u2069", "\ufeff",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "日本語", "é" * 300, "\n\r\t\x0b\x0c", "x" * 5000, "W" * 4096, "y" * 70_000,
    "../../etc/passwd", "%s%n%x", "${jndi:ldap://x}", "<script>alert(1)</script>", "'; DROP TABLE x;--",
    "NaN", "Infinity", "-0", "1e309", "0x7fffffff", "9" * 400, "-" + "9" * 400, "true", "False", "\\", "\\u0000",
    "a{99999999999}", "(" * 600 + ")" * 600, "(" * 1000, r"(a)\1", "(?=x)", "*", "[", "]", "{", "}",
    *BOMB_PATTERNS,
]  # fmt: skip
LOCATOR_BOMBS = [
    *("text=/" + p + "/" for p in BOMB_PATTERNS),
    *('[Text~="' + p.replace("\\", "\\\\") + '"]' for p in BOMB_PATTERNS),
    "text=/a{99999999999}/", "text=/" + "(" * 600 + ")" * 600 + "/", "[Text~=" + "(" * 900 + "]",
    "[" * 1999, ":nth(" + "9" * 1990 + ")", "Form[" + "9" * 1990 + "]", " > ".join(["*"] * 600)[:2000],
    " ".join(["*"] * 999), "/".join(["Form"] * 399), "menu:" + "_" * 1990, "menu:" + "/".join(["&&&"] * 400),
    "logical:" * 249, "text=" + "\u202e" * 1990, 'text="\\u0000"', "#\"\\ud800\"", "*:visible:nth(-1)",
]  # fmt: skip
GOOD_LOCATORS = [
    "#saveButton", "Button", "#nameBox", "#passwordBox", "#bombBox", "#bombLabel", "#itemsList", "#sizeCombo",
    "#subscribeCheck", "#statusLabel", "#vaultPanel", "#itemsList > ListBoxItem:nth(1)", 'text="Save"',
    "text=/^(a+)+!$/", "menu:File/Save As", "menu:File/Quick Save", "#loadButton", "#disabledButton", "*",
    "Form[0]/Panel[0]", "#mainWindow", "#fileNameBox", "#cancelButton", "#okButton", "logical:#sizeCombo",
]  # fmt: skip
HOSTILE_INTS = [-1, 0, 1, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63, -(2**63), 10**30, 60_001, 1001]
HOSTILE_OTHER: list[Any] = [None, True, False, 1.5, -0.0, 1e308, [], {}, [1], {"a": 1}, [[[[[]]]]], ["x"] * 50]
# Calls that would end the app (File > Exit, Alt+F4) are left out of a run that must keep its app.
ENDS_THE_APP = ("exit", "f4", "close")


def sdk_would_reparse(value: Any) -> bool:
    """The SDK parses a string argument that is JSON for a list, an object or null before the tool sees it."""
    if not isinstance(value, str):
        return False
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):  # "[" * 1999 is too deep for json before it is found not JSON
        return False
    return parsed is None or isinstance(parsed, (list, dict))


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@dataclass
class Pools:
    """What earlier answers gave: node ids, cursors, locators (a fuzzer replays them, changed or not)."""

    node_ids: list[str] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    locators: list[str] = field(default_factory=lambda: list(GOOD_LOCATORS))

    def learn(self, answer: Any) -> None:
        stack = [answer]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, value in item.items():
                    if isinstance(value, str):
                        pool = {"nodeId": self.node_ids, "nextCursor": self.cursors, "locator": self.locators}.get(key)
                        if pool is not None and value not in pool:
                            pool.append(value)
                            del pool[:-300]
                    else:
                        stack.append(value)
            elif isinstance(item, list):
                stack.extend(item)


@dataclass
class Failure:
    kind: str
    tool: str
    arguments: dict[str, Any]
    detail: str

    def line(self) -> str:
        shown = json.dumps(self.arguments, ensure_ascii=True)
        return f"{self.kind} in {self.tool} {shown[:400]}: {self.detail[:600]}"


@dataclass
class Stats:
    calls: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    slowest: tuple[float, str] = (0.0, "")
    by_tool: dict[str, int] = field(default_factory=dict)
    batches: int = 0
    restarts: int = 0


class LoopThread:
    """An event loop on a thread of its own, so Hypothesis' synchronous examples can call the async client."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Any, timeout: float | None = None) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class Session:
    """One SDK client session over HTTP to the app, opened and closed on the loop thread."""

    def __init__(self, loop: LoopThread, url: str, token: str) -> None:
        self.loop = loop
        self._stack: Any = None
        self.client: Any = None
        self.loop.run(self._open(url, token), 120)

    async def _open(self, url: str, token: str) -> None:
        from contextlib import AsyncExitStack

        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        self.url = url
        self.headers: dict[str, str] = {}

        self.meta: dict[str, Any] = {}

        async def remember(request: Any) -> None:
            # What the SDK sends with a tool call (its mcp-* headers, the params' _meta envelope),
            # sent again on raw calls.
            for name, value in request.headers.items():
                if name.lower().startswith("mcp-"):
                    self.headers[name] = value
            try:
                sent = json.loads(request.content or b"null")
            except ValueError:
                return
            if isinstance(sent, dict) and sent.get("method") == "tools/call":
                self.meta = sent.get("params", {}).get("_meta") or {}

        self._stack = AsyncExitStack()
        self.http = await self._stack.enter_async_context(
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=BOUND + 120, event_hooks={"request": [remember]}
            )
        )
        self.client = await self._stack.enter_async_context(Client(streamable_http_client(url, http_client=self.http)))
        self._ids = 10_000

    def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        if any(_lone_surrogate(s) for s in _strings(arguments)) or any(_lone_surrogate(k) for k in arguments):
            # The SDK's client cannot encode a lone surrogate (its session ends); JSON carries it as an escape.
            return self.loop.run(self._raw_call(tool, arguments), timeout)
        return self.loop.run(self.client.call_tool(tool, arguments), timeout)

    async def _raw_call(self, tool: str, arguments: dict[str, Any]) -> Any:
        from types import SimpleNamespace

        self._ids += 1
        request = {
            "jsonrpc": "2.0",
            "id": self._ids,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, **({"_meta": self.meta} if self.meta else {})},
        }
        headers = {**self.headers, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        headers = {k: v for k, v in headers.items() if k.lower() != "mcp-name"} | {"Mcp-Name": tool}
        response = await self.http.post(self.url, content=json.dumps(request).encode("ascii"), headers=headers)
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code}: {response.text[:300]}")
        message = None
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for line in response.text.splitlines():
                if line.startswith("data:"):
                    parsed = json.loads(line[5:])
                    if isinstance(parsed, dict) and parsed.get("id") == self._ids:
                        message = parsed
        else:
            message = response.json()
        if not isinstance(message, dict) or "error" in message or "result" not in message:
            raise RuntimeError(f"JSON-RPC answer {str(message)[:300]}")
        result = message["result"]
        content = [SimpleNamespace(type=c.get("type"), text=c.get("text", "")) for c in result.get("content", [])]
        return SimpleNamespace(
            is_error=bool(result.get("isError")), structured_content=result.get("structuredContent"), content=content
        )

    def list_tools(self) -> list[Any]:
        return list(self.loop.run(self.client.list_tools(), 120).tools)

    def close(self) -> None:
        if self._stack is not None:
            try:
                self.loop.run(self._stack.aclose(), 60)
            except Exception:
                pass


class Fuzzer:
    """Drives one app (restarted when it ends) through ``calls`` tool calls in batches, checking each."""

    def __init__(self, start_app: Callable[[], Any], *, seed_value: int, max_wait_ms: int = 300) -> None:
        self.start_app = start_app
        self.seed = seed_value
        # A wait's valid timeouts are drawn up to this (the schema allows 60 s): a few thousand calls
        # take a minute or two. Out-of-range ones are still sent, and refused.
        self.max_wait_ms = max_wait_ms
        self.failures: dict[str, Failure] = {}
        self.stats = Stats()
        self.pools = Pools()
        self.loop = LoopThread()
        self.app: Any = None
        self.session: Session | None = None
        self.tools: dict[str, Any] = {}
        self._connect()

    # -- the app -------------------------------------------------------------------------------
    def _connect(self) -> None:
        self.app = self.start_app()
        self._printed_seen = 0
        self.session = Session(self.loop, self.app.url, self.app.token)
        self.tools = {t.name: t for t in self.session.list_tools()}

    def _restart(self, why: str) -> None:
        self.stats.restarts += 1
        if self.session is not None:
            self.session.close()
        facts = self.app.close()
        if not (facts and facts.get("ended") == "form"):
            self.fail("app-ended", "-", {}, f"{why}; facts {facts}; printed:\n{self.app.output()[-3000:]}")
        self._connect()

    def close(self) -> dict[str, Any] | None:
        if self.session is not None:
            self.session.close()
        facts = self.app.close()
        self.loop.close()
        return facts

    # -- recording -----------------------------------------------------------------------------
    def fail(self, kind: str, tool: str, arguments: dict[str, Any], detail: str) -> None:
        key = f"{kind}|{tool}|{detail[:60]}"
        if key not in self.failures and len(self.failures) < 50:
            self.failures[key] = Failure(kind, tool, arguments, detail)

    def bound(self, tool: str, arguments: dict[str, Any]) -> float:
        timeout = arguments.get("timeoutMs") if tool == "wpf_wait_for" else None
        extra = (
            timeout / 1000
            if isinstance(timeout, int) and not isinstance(timeout, bool) and 0 <= timeout <= 60_000
            else 0
        )
        return BOUND + extra  # fmt: skip

    # -- one call ------------------------------------------------------------------------------
    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        assert self.session is not None
        self.stats.calls += 1
        self.stats.by_tool[tool] = self.stats.by_tool.get(tool, 0) + 1
        bound = self.bound(tool, arguments)
        started = time.monotonic()
        try:
            result = self.session.call(tool, arguments, timeout=bound + 120)
        except Exception as exc:  # a JSON-RPC error, a dropped connection: all findings
            self.fail("jsonrpc-error", tool, arguments, f"{type(exc).__name__}: {exc}")
            if not self.app.alive():
                self._restart(f"the app ended during {tool}")
            elif "Connection closed" in str(exc):
                self.session.close()  # the client's session ended: a new one, so the run goes on
                self.session = Session(self.loop, self.app.url, self.app.token)
            return None
        elapsed = time.monotonic() - started
        if elapsed > self.stats.slowest[0]:
            self.stats.slowest = (elapsed, tool)
        self.check(tool, arguments, result, elapsed, bound)
        printed = len(self.app.printed)
        if printed > self._printed_seen:
            # Read on a thread of its own: the line may belong to this call or the one before.
            self.fail("app-printed", tool, arguments, "\n".join(self.app.printed[self._printed_seen : printed])[-1500:])
            self._printed_seen = printed
        return result

    def check(self, tool: str, arguments: dict[str, Any], result: Any, elapsed: float, bound: float) -> None:
        if elapsed > bound:
            self.fail("over-bound", tool, arguments, f"{elapsed:.1f} s > {bound:.1f} s")
        structured = result.structured_content
        texts = [getattr(b, "text", "") or "" for b in result.content]
        if result.is_error:
            code = structured.get("code") if isinstance(structured, dict) else None
            self.stats.errors[str(code)] = self.stats.errors.get(str(code), 0) + 1
            if not isinstance(structured, dict) or not isinstance(structured.get("message"), str) or code is None:
                self.fail("unstructured-error", tool, arguments, " | ".join(texts)[:300])
            elif code not in SPEC_CODES:
                self.fail("unknown-code", tool, arguments, str(structured))
            elif code == "INTERNAL":
                self.fail("internal", tool, arguments, str(structured))
        else:
            self.pools.learn(structured)
        secret = self.app.secret
        if any(secret in text for text in texts) or secret in json.dumps(structured, ensure_ascii=False):
            self.fail("secret-leak", tool, arguments, "the secret is in the answer")

    # -- between batches -----------------------------------------------------------------------
    def health(self) -> None:
        self.stats.batches += 1
        if not self.app.alive():
            self._restart("the app ended")
            return
        assert self.session is not None
        try:
            facts = self.session.call("fuzz_facts", {}, timeout=BOUND + 60)
            windows = self.session.call("wpf_get_windows", {}, timeout=BOUND + 60)
        except Exception as exc:
            self.fail("ui-silent", "fuzz_facts", {}, f"{type(exc).__name__}: {exc}")
            self._restart("the app stopped answering")
            return
        if facts.is_error or windows.is_error:
            detail = str(facts.structured_content) + str(windows.structured_content)
            if "APP_NOT_AVAILABLE" in detail and not self.app.alive():
                self._restart("the app ended")
                return
            self.fail("ui-silent", "fuzz_facts", {}, detail)
            return
        seen = facts.structured_content["result"]
        if seen["threadExceptions"]:
            self.fail("thread-exception", "-", {}, "; ".join(seen["threadExceptions"])[:600])
        if seen["secretReads"]:
            self.fail("secret-getter-ran", "-", {}, f"{seen['secretReads']} reads")
        self._printed_seen = len(self.app.printed)
        printed = self.app.output()
        if printed:
            self.fail("app-printed", "-", {}, printed[-1500:])
        if not self.app.alive():
            self._restart("the app ended")

    # -- generation ----------------------------------------------------------------------------
    def strategy(self, tool: Any) -> st.SearchStrategy[dict[str, Any]]:
        schema = json.loads(json.dumps(tool.input_schema))
        props = schema.get("properties", {})
        if "timeoutMs" in props:
            props["timeoutMs"]["maximum"] = min(self.max_wait_ms, props["timeoutMs"].get("maximum", self.max_wait_ms))
        valid = valid_arguments(schema).map(_defused)
        names = list(props) or ["x"]
        return st.one_of(valid, self._hostile(valid, names), self._targeted(valid, names))

    def _hostile(self, valid: st.SearchStrategy[dict[str, Any]], names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
        value = st.one_of(
            st.sampled_from(HOSTILE_STRINGS), st.sampled_from(HOSTILE_INTS), st.sampled_from(HOSTILE_OTHER),
            st.sampled_from(LOCATOR_BOMBS), st.text(max_size=50), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
        )  # fmt: skip
        changes = st.dictionaries(st.sampled_from([*names, "unknownKey", "node_id", ""]), value, min_size=1, max_size=3)
        return st.builds(lambda base, extra: _defused({**base, **extra}), valid, changes)

    def _targeted(
        self, valid: st.SearchStrategy[dict[str, Any]], names: list[str]
    ) -> st.SearchStrategy[dict[str, Any]]:
        """Valid-shaped, with the values that reach deep: live node ids and cursors, locators that find things."""

        def fill(base: dict[str, Any], seed_value: int) -> dict[str, Any]:
            # A Random of its own: what it picks from depends on earlier answers, and Hypothesis needs
            # its own draws to be the same whatever the app answered.
            rnd = random.Random(seed_value)
            out = dict(base)
            for name in names:
                if name in ("nodeId", "rootNodeId") and rnd.random() < 0.6:
                    out[name] = (
                        rnd.choice(self.pools.node_ids or ["zz9"])
                        if rnd.random() < 0.8
                        else _mangled(rnd, self.pools.node_ids)
                    )
                elif name == "cursor" and rnd.random() < 0.7:
                    out[name] = (
                        rnd.choice(self.pools.cursors)
                        if self.pools.cursors and rnd.random() < 0.5
                        else _mangled(rnd, self.pools.cursors)
                    )
                elif name == "locator" and rnd.random() < 0.8:
                    out[name] = rnd.choice(self.pools.locators if rnd.random() < 0.7 else LOCATOR_BOMBS)
                    out.pop("nodeId", None)
            return out

        return st.builds(fill, valid, st.integers(0, 2**64))

    def allowed(self, tool: str, arguments: dict[str, Any]) -> bool:
        if tool == "fuzz_facts":
            return False
        shown = json.dumps(arguments).lower()
        if any(word in shown for word in ENDS_THE_APP):
            return False
        node = arguments.get("nodeId")
        return not (isinstance(node, str) and node in self._exit_ids())

    def _exit_ids(self) -> set[str]:
        return getattr(self, "_exits", set())

    def learn_exit_ids(self) -> None:
        """Node ids of what ends the app (File > Exit), so a replayed id does not click it."""
        assert self.session is not None
        found = self.session.call("wpf_find_elements", {"locator": "logical:#exitMenuItem"}, timeout=BOUND + 60)
        ids = {r["node"]["nodeId"] for r in (found.structured_content or {}).get("results", [])}
        self._exits = ids

    # -- the run -------------------------------------------------------------------------------
    def run(self, *, calls: int, batch: int = 50) -> None:
        self.learn_exit_ids()
        names = sorted(n for n in self.tools if n != "fuzz_facts")
        strategies = {n: self.strategy(self.tools[n]) for n in names}
        batches = max(1, calls // batch)

        @settings(
            max_examples=batches, phases=[Phase.generate], database=None, deadline=None,
            suppress_health_check=list(HealthCheck),
        )  # fmt: skip
        @seed(self.seed)
        @given(st.data())
        def one_batch(data: st.DataObject) -> None:
            # Hypothesis leans to the first of sampled_from's choices; a seeded Random spreads the tools evenly.
            rnd = random.Random(data.draw(st.integers(0, 2**64), label="tools"))
            tool, arguments = "-", {}
            try:
                for _ in range(batch):
                    tool = rnd.choice(names)
                    arguments = data.draw(strategies[tool], label=tool)
                    if self.allowed(tool, arguments):
                        self.call(tool, arguments)
                self.health()
            except Exception:  # a finding, with its traceback
                # Not raised into Hypothesis: it would run the batch again to report it, but the run
                # is stateful (the pools, the app), so the rerun draws other values and Hypothesis
                # reports FlakyStrategyDefinition instead of this error.
                self.fail("fuzzer-error", tool, arguments, traceback.format_exc()[-1500:])

        one_batch()

    def report(self) -> str:
        s = self.stats
        lines = [
            f"seed {self.seed} ({ENV_SEED}={self.seed} to repeat): {s.calls} calls in {s.batches} batches, "
            f"{s.restarts} restarts, slowest {s.slowest[0]:.2f} s ({s.slowest[1]})",
            f"error codes: {dict(sorted(s.errors.items()))}",
            f"calls per tool: {dict(sorted(s.by_tool.items()))}",
        ]
        if self.app is not None and self.app.startup_output:
            lines.append(f"printed while the app started, before it served: {self.app.startup_output[:5]}")
        lines += [f"FAILURE {f.line()}" for f in self.failures.values()]
        return "\n".join(lines)


def _defused(arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with each string the SDK would parse as JSON made plain (the wire's defect; see above)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return "x" + value if sdk_would_reparse(value) else value

    return {k: plain(v) for k, v in arguments.items()}


def valid_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments as the input schema describes them: each property from hypothesis-jsonschema, the
    required ones always, the others or not. (The whole object through from_schema took about 50 ms a
    draw here, a property at a time 10: the difference between one and five minutes in ./run test.)"""
    defs = schema.get("$defs")
    props = {k: from_schema({**v, "$defs": defs} if defs else v) for k, v in schema.get("properties", {}).items()}
    required = set(schema.get("required", []))
    return st.fixed_dictionaries(
        {k: v for k, v in props.items() if k in required},
        optional={k: v for k, v in props.items() if k not in required},
    )


def _mangled(rnd: random.Random, pool: list[str]) -> str:
    base = rnd.choice(pool) if pool else "eyJ4IjoxfQ"
    how = rnd.randrange(5)
    if how == 0:
        return base[:-1] + chr(rnd.randrange(32, 0x2FF))
    if how == 1:
        return base[: rnd.randrange(len(base) + 1)]
    if how == 2:
        return base + base
    if how == 3:
        return "".join(rnd.choice("ABCDEFGHabcdefgh0123456789+/=_-.") for _ in range(rnd.randrange(1, 64)))
    return base.upper()


def seed_from_env() -> int:
    raw = os.environ.get(ENV_SEED)
    return int(raw) if raw else random.SystemRandom().randrange(2**32)


def json_looking_calls() -> list[tuple[str, dict[str, Any]]]:
    """String arguments the SDK re-parses (issue 18, the wire's): each must reach the tool as the string it is."""
    return [
        ("wpf_find_elements", {"name": "[]"}),
        ("wpf_find_elements", {"text": "{}"}),
        ("wpf_find_elements", {"name": "null"}),
        ("wpf_wait_for", {"locator": "#statusLabel", "condition": "propertyEquals", "property": "Text", "value": "[1]", "timeoutMs": 0}),
        ("wpf_select", {"locator": "#itemsList", "item": "[1]"}),
        ("wpf_get_resources", {"resourceKey": "{}"}),
        ("wpf_get_properties", {"locator": "#nameBox", "filter": "null"}),
    ]  # fmt: skip
