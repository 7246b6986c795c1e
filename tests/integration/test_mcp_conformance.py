"""The official MCP conformance suite (``@modelcontextprotocol/conformance``, pinned in
tests/node/package.json with the Node 22 it runs on) against the in-app server.

The app is scripts/wire_app.py in a process of its own: the example app with the probe
at the interact tier, serving the fixture tools the scenarios call as custom tools
(``test_simple_text``, ``test_error_handling``). The suite's ``server`` command takes
``--url`` only, so a small loopback proxy in this module stands in front of the server:
it adds the bearer token, and says the server's port where a request says the proxy's
(so a valid loopback Host or Origin stays valid and a foreign one reaches the server as
sent: the DNS rebinding scenario tests the server's own refusal).

Every applicable scenario must pass, each of its checks SUCCESS. Those that do not apply,
and why:

- logging-set-level, tools-call-with-logging: the server declares no logging capability
  (deprecated as of 2026-07-28; wpfprobe writes its own log, never to the client).
- completion-complete: nothing to complete (no prompts, no resource templates).
- resources-* (list, read-text, read-binary, templates-read, subscribe, unsubscribe),
  prompts-* (list, get-simple, get-with-args, get-embedded-resource, get-with-image):
  the server serves neither resources nor prompts, and declares neither.
- tools-call-image, -audio, -embedded-resource, -mixed-content: a custom tool returns a
  JSON value, served as structured content and its text; it cannot return image, audio
  or resource blocks (the built-in wpf_capture_screenshot returns an image, under its own
  name, with arguments the fixture does not have).
- tools-call-with-progress: a custom tool has no way to report progress.
- tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults,
  elicitation-sep1330-enums: the probe never asks the client anything.
- json-schema-2020-12: a custom tool's input schema is derived from its signature; it
  carries no ``$schema`` keyword and names its definitions after the model classes.
- server-sse-polling (SEP-1699): needs resumable streams (an event store, event ids,
  closing a stream mid-call); the server keeps no event store, sends no event ids, and
  ignores ``Last-Event-ID``.

Besides the suite, the capabilities declared are checked against what is served.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wire_harness import WireApp

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
SUITE = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance"
NODE = NODE_DIR / "node_modules" / ".bin" / "node"
INSTALL_HINT = "run the README's test command (./run test), which installs Node.js packages with `npm ci` in tests/node"

APPLICABLE = (
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)
NOT_APPLICABLE = {
    "logging-set-level": "no logging capability",
    "tools-call-with-logging": "no logging capability",
    "completion-complete": "nothing to complete",
    "resources-list": "no resources",
    "resources-read-text": "no resources",
    "resources-read-binary": "no resources",
    "resources-templates-read": "no resources",
    "resources-subscribe": "no resources",
    "resources-unsubscribe": "no resources",
    "prompts-list": "no prompts",
    "prompts-get-simple": "no prompts",
    "prompts-get-with-args": "no prompts",
    "prompts-get-embedded-resource": "no prompts",
    "prompts-get-with-image": "no prompts",
    "tools-call-image": "custom tools return JSON values",
    "tools-call-audio": "custom tools return JSON values",
    "tools-call-embedded-resource": "custom tools return JSON values",
    "tools-call-mixed-content": "custom tools return JSON values",
    "tools-call-with-progress": "custom tools report no progress",
    "tools-call-sampling": "the probe asks the client nothing",
    "tools-call-elicitation": "the probe asks the client nothing",
    "elicitation-sep1034-defaults": "the probe asks the client nothing",
    "elicitation-sep1330-enums": "the probe asks the client nothing",
    "json-schema-2020-12": "custom tool schemas come from signatures",
    "server-sse-polling": "no resumable streams",
}


def pinned(package: str) -> str:
    return str(json.loads((NODE_DIR / "package.json").read_text(encoding="utf-8"))["devDependencies"][package])


@pytest.fixture(scope="module")
def suite() -> list[str]:
    if not NODE.exists() or not (SUITE / "package.json").exists():
        pytest.fail(
            f"The conformance suite or Node 22 is not installed in {NODE_DIR / 'node_modules'}: {INSTALL_HINT}."
        )
    installed = json.loads((SUITE / "package.json").read_text(encoding="utf-8"))["version"]
    if installed != pinned("@modelcontextprotocol/conformance"):
        pytest.fail(f"tests/node has conformance {installed}, package.json pins another: {INSTALL_HINT}.")
    version = subprocess.run([str(NODE), "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    assert version.startswith("v22."), f"the suite runs on Node 22 from tests/node, found {version}"
    return [str(NODE), str(SUITE / "dist" / "index.js")]


# -- the proxy that carries the token ---------------------------------------------------------------


class TokenProxy:
    """Loopback HTTP proxy, one request per connection: adds ``Authorization: Bearer``, and
    rewrites the proxy's own loopback host:port in Host and Origin to the server's."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self._upstream = (host, port)
        self._token = token
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="token-proxy", daemon=True)
        self._stopping: asyncio.Event
        self.port = 0

    def __enter__(self) -> TokenProxy:
        self._thread.start()
        assert self._ready.wait(30), "the proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stopping.set)
        self._thread.join(30)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def _run(self) -> None:
        self._loop.run_until_complete(self._main())
        self._loop.close()

    async def _main(self) -> None:
        self._stopping = asyncio.Event()
        connections: set[asyncio.Task[None]] = set()

        async def serve(client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            connections.add(task)
            try:
                await self._serve(client_in, client_out)
            except asyncio.CancelledError:
                pass  # the proxy is stopping; ending normally keeps asyncio from reporting the task
            finally:
                connections.discard(task)

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopping.wait()
        server.close()
        # Streams still open (an event stream the suite left): closed here, not left to the GC.
        for task in list(connections):
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        await server.wait_closed()

    def _translate(self, value: str) -> str:
        for host in ("127.0.0.1", "localhost"):
            mine = f"{host}:{self.port}"
            if value == mine or value == f"http://{mine}":
                return value.replace(mine, f"{host}:{self._upstream[1]}")
        return value

    async def _serve(self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        upstream_out: asyncio.StreamWriter | None = None
        try:
            head = await client_in.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").rstrip("\r\n").split("\r\n")
            lines = [request_line]
            for line in header_lines:
                name, _, value = line.partition(":")
                key, value = name.strip().lower(), value.strip()
                if key in ("authorization", "connection", "keep-alive"):
                    continue
                lines.append(f"{name}: {self._translate(value) if key in ('host', 'origin') else value}")
            lines += [f"Authorization: Bearer {self._token}", "Connection: close"]
            upstream_in, upstream_out = await asyncio.open_connection(*self._upstream)
            upstream_out.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            pumps = {
                asyncio.ensure_future(_pump(client_in, upstream_out)),
                asyncio.ensure_future(_pump(upstream_in, client_out)),
            }
            # The server closes after its answer (Connection: close); the client may hang up first.
            try:
                await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for pump in pumps:
                    pump.cancel()
                await asyncio.gather(*pumps, return_exceptions=True)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            for writer in (client_out, upstream_out):
                if writer is not None:
                    writer.close()


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()


# -- the app and the run ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireApp]:
    wire = WireApp(tmp_path_factory.mktemp("conformance-app"))
    try:
        yield wire
    finally:
        wire.close()


@pytest.fixture(scope="module")
def results(suite: list[str], app: WireApp, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """Each scenario's checks, from one run of the suite's ``server`` command over every server
    scenario (``--suite all``: those that do not apply too, so the app meets all of it)."""
    out = tmp_path_factory.mktemp("conformance")
    with TokenProxy(app.host, app.port, app.token) as proxy:
        done = subprocess.run(
            [*suite, "server", "--url", proxy.url, "--suite", "all", "-o", str(out)],
            capture_output=True, text=True, timeout=600, cwd=NODE_DIR, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    checks: dict[str, list[Any]] = {}
    for path in sorted(out.glob("server-*/checks.json")):
        # <out>/server-<scenario>-<ISO time>/checks.json
        scenario = path.parent.name.removeprefix("server-").rsplit("-", 6)[0]
        checks[scenario] = json.loads(path.read_text(encoding="utf-8"))
    assert checks, f"no results (exit {done.returncode})\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return checks


@pytest.mark.parametrize("scenario", APPLICABLE)
def test_the_scenario_passes(results: dict[str, list[Any]], scenario: str) -> None:
    assert scenario in results, f"{scenario} did not run: {sorted(results)}"
    checks = results[scenario]
    assert checks, f"{scenario} ran no checks"
    failed = [c for c in checks if c.get("status") not in ("SUCCESS", "INFO")]
    assert not failed, json.dumps(failed, indent=1)[:4000]
    assert any(c.get("status") == "SUCCESS" for c in checks), checks


def test_every_scenario_of_the_pinned_suite_is_either_run_or_said_not_to_apply(
    suite: list[str], results: dict[str, list[Any]]
) -> None:
    listed = subprocess.run([*suite, "list"], capture_output=True, text=True, timeout=120, cwd=NODE_DIR)
    assert listed.returncode == 0, listed.stderr
    server_part = listed.stdout.split("Client scenarios", 1)[0]
    scenarios = {
        line.strip()[2:].split(" ", 1)[0] for line in server_part.splitlines() if line.strip().startswith("- ")
    }
    assert scenarios, listed.stdout
    assert scenarios == set(APPLICABLE) | set(NOT_APPLICABLE), (
        f"new: {sorted(scenarios - set(APPLICABLE) - set(NOT_APPLICABLE))}, "
        f"gone: {sorted((set(APPLICABLE) | set(NOT_APPLICABLE)) - scenarios)}"
    )
    assert set(results) == scenarios, "the run covered every server scenario"


def test_the_declared_capabilities_are_exactly_what_is_served(app: WireApp) -> None:
    """tools, with listChanged (custom tools come and go while it serves); no prompts, resources,
    logging or completions, and their methods are not found."""
    session, result = app.initialize()
    capabilities = result["capabilities"]
    assert capabilities["tools"] == {"listChanged": True}
    assert set(capabilities) <= {"tools", "extensions"}, capabilities
    served = app.rpc(session, "tools/list")["result"]["tools"]
    assert {"test_simple_text", "test_error_handling", "wpf_get_windows"} <= {t["name"] for t in served}
    for method in ("prompts/list", "resources/list", "resources/templates/list", "logging/setLevel"):
        assert (
            app.rpc(session, method, {} if method != "logging/setLevel" else {"level": "info"})["error"]["code"]
            == -32601
        ), method


def test_the_app_printed_nothing_while_the_suite_ran(results: dict[str, list[Any]], app: WireApp) -> None:
    """Regression: 124 lines of tracebacks on the app's stderr while the suite ran."""
    printed = [
        line
        for line in app.printed().splitlines()
        # Lines printed before the probe starts, by the app's own runtime: the CLR host's warning
        # about this Mono, and (now and then) Mono's X11 driver saying it "Could not set X locale
        # modifiers" as the UI thread makes the first form (seen with gdb: the process's only
        # XSetLocaleModifiers call, before wpfprobe.start()).
        if line.strip()
        and "Hosting Mono versions before" not in line
        and line.strip() not in ("warnings.warn(", "Could not set X locale modifiers")
    ]
    assert not printed, "\n".join(printed[-60:])
