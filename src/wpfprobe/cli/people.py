"""The people commands: ``wpfprobe ls``, ``tree``, ``find``, ``props``, ``screenshot``.

Each is one or a few tool calls to a running app through its manifest (the same
MCP tools an agent uses), printed as the tool's own text rendering or, with
``--json``, as its structured content. APP is any target of ``_targets``; with
exactly one app running it may be left out. Nothing here loads the CLR: the app
does the work, this process only talks to it.

Exit codes (``wpfprobe.cli.exits``): 0 ok; 1 the query ran and failed (code, message
and suggestion on stderr); 2 usage error, including arguments the app rejected as
INVALID_ARGUMENT (a malformed locator); 3 no such app, several apps match, or the
app is not available.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from wpfprobe.apps import targets as _targets
from wpfprobe.cli.exits import EXIT_FAILED, EXIT_NO_APP, EXIT_OK, EXIT_USAGE
from wpfprobe.core.errors import ProbeError
from wpfprobe.mcp import client as _client
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.manifest import Manifest

T = TypeVar("T")

_APP_CODES = frozenset({"APP_NOT_AVAILABLE", "APP_AMBIGUOUS"})
PROGRESS_AFTER = 0.5
"""Seconds before a slow call shows a spinner (only when stderr is a terminal)."""


# -- helpers ----------------------------------------------------------------------------------


def _print_error(err: ProbeError | dict[str, Any]) -> None:
    data = err.to_dict() if isinstance(err, ProbeError) else err
    print(f"wpfprobe: {data.get('code', 'ERROR')}: {data.get('message', '')}", file=sys.stderr)
    if data.get("suggestion"):
        print(f"hint: {data['suggestion']}", file=sys.stderr)
    apps = (data.get("detail") or {}).get("apps") if isinstance(data.get("detail"), dict) else None
    if apps:
        print("running apps:", file=sys.stderr)
        for app in apps:
            print(f"  {app.get('appId')}  {app.get('name')}  pid {app.get('pid')}", file=sys.stderr)


def _exit_for(code: str) -> int:
    if code in _APP_CODES:
        return EXIT_NO_APP
    if code == "INVALID_ARGUMENT":
        return EXIT_USAGE
    return EXIT_FAILED


@contextlib.contextmanager
def progress(label: str) -> Iterator[None]:
    """A spinner with the elapsed time on stderr, once a call has taken PROGRESS_AFTER seconds
    (only on a terminal, so pipes and logs stay clean)."""
    if not sys.stderr.isatty():
        yield
        return
    done = threading.Event()
    started = time.monotonic()

    def spin() -> None:
        if done.wait(PROGRESS_AFTER):
            return
        frames = "|/-\\"
        i = 0
        while not done.wait(0.1):
            sys.stderr.write(f"\r{frames[i % 4]} {label} {time.monotonic() - started:4.1f}s")
            sys.stderr.flush()
            i += 1
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()

    thread = threading.Thread(target=spin, name="wpfprobe-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(1)


def live_manifests() -> list[Manifest]:
    return _manifest.read_all()


def shown_ids(manifests: list[Manifest]) -> dict[str, str]:
    from wpfprobe.broker.naming import broker_ids  # noqa: PLC0415 - the same ids the broker shows

    return broker_ids(manifests)


def choose_app(target: str | None) -> Manifest:
    """The manifest ``target`` names; raises the APP_* ProbeErrors of ``_targets``."""
    manifests = live_manifests()
    ids = shown_ids(manifests)
    candidates = []
    needs_titles = (target or "").strip().lower().startswith("title:")
    for m in manifests:
        cmdline, cwd, name, exe = _client.process_facts(m.pid)
        titles: tuple[str, ...] = ()
        if needs_titles:
            titles = _titles(m)
        candidates.append(
            _targets.Candidate(
                manifest=m, app_id=ids.get(m.app_id, m.app_id), titles=titles, cmdline=cmdline, cwd=cwd,
                process_name=name, exe=exe,
            )
        )  # fmt: skip
    return _targets.resolve(target, candidates).manifest


def _titles(m: Manifest) -> tuple[str, ...]:
    try:
        answer = _client.call(m, "wpf_get_windows", {}, timeout=10)
    except ProbeError:
        return ()
    content = answer.structured_content if isinstance(answer.structured_content, dict) else {}
    return tuple(str(w.get("title") or "") for w in content.get("windows", []) if isinstance(w, dict))


def _texts(answer: Any) -> list[str]:
    return [block.text for block in answer.content if getattr(block, "type", "") == "text"]


def _in_session(manifest: Manifest, body: Callable[[_client.ProbeClient], Awaitable[T]]) -> T:
    async def run() -> T:
        async with _client.connect(manifest) as client:
            return await body(client)

    with progress(f"asking {manifest.app_name}"):
        return asyncio.run(run())


def _failure(answer: Any) -> int | None:
    """None for a successful answer; else print the tool error and return its exit code."""
    if not answer.is_error:
        return None
    content = answer.structured_content if isinstance(answer.structured_content, dict) else {}
    if not content:
        content = {"code": "INTERNAL", "message": " ".join(_texts(answer))}
    _print_error(content)
    return _exit_for(str(content.get("code", "")))


def _query(target: str | None, tool: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    """One call on the chosen app: (exit code, answer). Errors are printed here."""
    try:
        manifest = choose_app(target)
        answer = _in_session(manifest, lambda c: c.call_tool(tool, arguments))
    except ProbeError as err:
        _print_error(err)
        return _exit_for(err.code), None
    failed = _failure(answer)
    return (failed, answer) if failed is not None else (EXIT_OK, answer)


def _emit(answer: Any, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(answer.structured_content, indent=2, ensure_ascii=False))
    else:
        for text in _texts(answer):
            print(text)


# -- commands -----------------------------------------------------------------------------------


def ls(args: argparse.Namespace) -> int:
    manifests = live_manifests()
    ids = shown_ids(manifests)
    rows = [
        {
            "appId": ids.get(m.app_id, m.app_id),
            "probeAppId": m.app_id,
            "name": m.app_name,
            "pid": m.pid,
            "toolkit": m.toolkit,
            "tier": m.tier,
            "started": m.started_at,
            "url": m.url,
        }
        for m in sorted(manifests, key=lambda m: (m.app_name.lower(), m.pid))
    ]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return EXIT_OK
    if not rows:
        print("no wpfprobe apps are running", file=sys.stderr)
        return EXIT_OK
    columns = ["appId", "name", "pid", "toolkit", "tier", "started", "url"]
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    print("  ".join(c.upper().ljust(widths[c]) for c in columns).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in columns).rstrip())
    return EXIT_OK


def tree(args: argparse.Namespace) -> int:
    arguments: dict[str, Any] = {"maxDepth": args.depth}
    if args.locator:
        arguments["locator"] = args.locator
    code, answer = _query(args.app, "wpf_get_visual_tree", arguments)
    if code == EXIT_OK:
        _emit(answer, as_json=args.json)
    return code


def _app_and_locator(args: argparse.Namespace, parser_name: str) -> tuple[str | None, str] | None:
    given: list[str] = args.target
    if len(given) > 2:
        print(f"wpfprobe {parser_name}: error: expected [APP] LOCATOR, got {len(given)} arguments", file=sys.stderr)
        return None
    return (given[0], given[1]) if len(given) == 2 else (None, given[0])


def find(args: argparse.Namespace) -> int:
    parsed = _app_and_locator(args, "find")
    if parsed is None:
        return EXIT_USAGE
    app, locator = parsed
    code, answer = _query(app, "wpf_find_elements", {"locator": locator, "maxResults": args.max})
    if code != EXIT_OK:
        return code
    _emit(answer, as_json=args.json)
    if not (answer.structured_content or {}).get("results"):
        # Like grep: a script can test "is it there" by the exit status alone.
        print(f"wpfprobe: LOCATOR_NOT_FOUND: nothing matches {locator!r}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def props(args: argparse.Namespace) -> int:
    parsed = _app_and_locator(args, "props")
    if parsed is None:
        return EXIT_USAGE
    app, locator = parsed
    base: dict[str, Any] = {"locator": locator, "take": 200, "includeDefaults": bool(args.all)}
    if args.filter:
        base["filter"] = args.filter

    async def every_page(client: _client.ProbeClient) -> list[Any]:
        pages: list[Any] = []
        cursor: str | None = None
        # Every page, in order; the bound keeps a misbehaving app from looping forever.
        for _ in range(100):
            page = await client.call_tool("wpf_get_properties", dict(base, cursor=cursor) if cursor else base)
            pages.append(page)
            structured = page.structured_content if isinstance(page.structured_content, dict) else {}
            cursor = structured.get("nextCursor") if structured.get("hasMore") else None
            if page.is_error or not cursor:
                break
        return pages

    try:
        pages = _in_session(choose_app(app), every_page)
    except ProbeError as err:
        _print_error(err)
        return _exit_for(err.code)
    failed = _failure(pages[-1])
    if failed is not None:
        return failed
    if args.json:
        items = [item for page in pages for item in (page.structured_content or {}).get("items", [])]
        print(json.dumps({"items": items, "totalCount": len(items)}, indent=2, ensure_ascii=False))
    else:
        for page in pages:
            _emit(page, as_json=False)
    return EXIT_OK


def screenshot(args: argparse.Namespace) -> int:
    arguments: dict[str, Any] = {}
    if args.locator:
        arguments["locator"] = args.locator
    out: Path = args.output
    if out.parent and not out.parent.exists():
        print(f"wpfprobe screenshot: error: no such directory: {out.parent}", file=sys.stderr)
        return EXIT_USAGE
    code, answer = _query(args.app, "wpf_capture_screenshot", arguments)
    if code != EXIT_OK:
        return code
    image = next((b for b in answer.content if getattr(b, "type", "") == "image"), None)
    if image is None:
        _print_error({"code": "INTERNAL", "message": "The app answered without an image."})
        return EXIT_FAILED
    try:
        out.write_bytes(base64.b64decode(image.data))
    except OSError as exc:
        print(f"wpfprobe screenshot: error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    info = dict(answer.structured_content or {})
    if args.json:
        print(json.dumps({**info, "file": str(out)}, indent=2, ensure_ascii=False))
    else:
        print(f"{out} ({info.get('width')}x{info.get('height')}, {info.get('nodeId')})")
    return EXIT_OK


def mcp(args: argparse.Namespace) -> int:
    from wpfprobe.broker import server as _broker_server  # noqa: PLC0415
    from wpfprobe.testkit.mcp_tools import broker_tools  # noqa: PLC0415

    record = args.record.resolve() if args.record is not None else None
    try:
        return _broker_server.main(
            log_level=args.log_level, log_file=args.log_file, record_dir=record,
            extra_tools=[*broker_tools(args.artifacts.resolve()), *_attach_tools(getattr(args, "allow", "read"))],
        )  # fmt: skip
    except ProbeError as err:
        _print_error(err)
        return EXIT_USAGE
    except OSError as exc:
        print(f"wpfprobe mcp: error: cannot open log file {args.log_file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE


def _attach_tools(tier: str) -> list[Any]:
    """wpf_attach_app, for a broker allowed to interact (``wpfprobe mcp --allow``)."""
    from wpfprobe.broker.attach import attach_tool  # noqa: PLC0415
    from wpfprobe.broker.broker import BrokerTool  # noqa: PLC0415

    made = attach_tool(tier)  # type: ignore[arg-type]
    return [] if made is None else [BrokerTool(tool=made[0], call=made[1])]


def stop(args: argparse.Namespace) -> int:
    """Ask the app to close, SIGTERM it after --timeout, wait until it and its manifest are gone."""
    from wpfprobe.apps.stop import StillRunningError, stop_app  # noqa: PLC0415

    if args.timeout < 0:
        print("wpfprobe: error: --timeout must be 0 or more seconds", file=sys.stderr)
        return EXIT_USAGE
    try:
        manifest = choose_app(args.app)
    except ProbeError as err:
        _print_error(err)
        return _exit_for(err.code)
    shown = shown_ids([manifest]).get(manifest.app_id, manifest.app_id)
    try:
        with progress(f"stopping {manifest.app_name}"):
            stopped = stop_app(manifest, timeout=args.timeout)
    except StillRunningError as exc:
        print(f"wpfprobe: {exc}", file=sys.stderr)
        print(f"hint: kill -9 {manifest.pid} ends it without a word (its manifest is removed by the next `wpfprobe ls`)",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    how = "closed" if stopped.how == "closed" else f"did not close within {args.timeout:g} s: terminated"
    print(f"stopped {shown} (pid {manifest.pid}): {how}, in {stopped.seconds:.1f} s")
    return EXIT_OK
