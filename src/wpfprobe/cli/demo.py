"""``wpfprobe demo``: the example app that ships with the package, with the probe inside, driven as an
agent would drive it; it needs nothing but the wheel and a .NET runtime (Mono on Linux).

It starts ``wpfprobe.examples.greeter`` under ``wpfprobe run`` (a private virtual display where there is
no screen), and through the probe's MCP tools, as any agent: reads the element tree, types a name,
presses Greet, reads the greeting and saves a screenshot. Then it stops the app (``--keep`` leaves it
running for ``wpfprobe tree``, ``props``, ``find``, ``mcp``) and prints what to try next.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, TypeAlias

from wpfprobe.cli.exits import EXIT_FAILED, EXIT_OK

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
NAME = "greeter"


def add_demo(commands: Commands) -> None:
    demo = commands.add_parser(
        "demo", help="run the example app with the probe inside and drive it as an agent would",
        description="Start the greeter example shipped with wpfprobe, with the probe inside, and use it through "
        "the probe's MCP tools: its tree, typing, a click, the result and a screenshot.",
        epilog="exit status: 0 the demo ran; 1 the app did not start, or a tool failed (what and why printed)",
    )  # fmt: skip
    demo.add_argument(
        "--keep", action="store_true", help="leave the app running afterwards (stop it with wpfprobe stop)"
    )
    demo.add_argument(
        "--screenshot", type=Path, default=Path("wpfprobe-demo.png"), metavar="FILE",
        help="where the screenshot goes (wpfprobe-demo.png)",
    )  # fmt: skip
    demo.set_defaults(handler=_demo)


def _say(text: str) -> None:
    print(text, flush=True)


def _demo(args: argparse.Namespace) -> int:
    from wpfprobe.apps.launch import launch  # noqa: PLC0415
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.examples import FOLDER  # noqa: PLC0415
    from wpfprobe.testkit.connection import McpConnection  # noqa: PLC0415

    script = FOLDER / "greeter.py"
    _say(f"starting the example app under `wpfprobe run` ({script}) ...")
    started = time.monotonic()
    try:
        app = launch([sys.executable, str(script)], allow="interact", name=NAME, timeout=90)
    except ProbeError as err:
        print(f"wpfprobe demo: the app did not start: {err.message}", file=sys.stderr)
        if err.suggestion:
            print(f"hint: {err.suggestion}", file=sys.stderr)
        return EXIT_FAILED
    _say(f"up in {time.monotonic() - started:.1f} s: pid {app.pid}, MCP at {app.manifest.url}\n")
    connection = McpConnection(app.manifest)
    try:
        code = _drive(connection, args.screenshot)
    finally:
        connection.close()
        if not args.keep:
            _stop(app.manifest)
    _say("\nnext:")
    if args.keep:
        _say(f"  wpfprobe tree {NAME}                      # the app is still running")
        _say(f"  wpfprobe find {NAME} 'Button'")
        _say(f"  wpfprobe stop {NAME}")
    _say(f"  wpfprobe run {script}    # this app under the probe, in the foreground")
    _say("  wpfprobe help locators                     # how to name elements")
    _say("  your own app in a pytest test: 'Your first test' on https://pypi.org/project/wpfprobe/")
    return code


def _drive(connection: Any, screenshot: Path) -> int:
    steps: list[tuple[str, str, dict[str, Any]]] = [
        ("the element tree", "wpf_get_visual_tree", {"maxDepth": 3, "format": "text"}),
        ("type a name", "wpf_type_text", {"locator": "#nameBox", "text": "Ada"}),
        ("press Greet", "wpf_click", {"locator": "#greetButton"}),
        ("read the greeting", "wpf_inspect_element", {"locator": "#greetingLabel"}),
    ]
    for title, tool, arguments in steps:
        outcome = connection.call(tool, arguments)
        shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        _say(f"== {title}: {tool}({shown})")
        if not outcome.ok:
            print(f"wpfprobe demo: {tool} failed: {outcome.code}: {outcome.message}", file=sys.stderr)
            return EXIT_FAILED
        _say(outcome.text.rstrip() + "\n")
    shot = connection.call("wpf_capture_screenshot", {})
    if shot.ok and shot.png:
        screenshot.write_bytes(shot.png)
        _say(f"== a screenshot, through MCP: {screenshot} ({len(shot.png)} bytes)")
    return EXIT_OK


def _stop(manifest: Any) -> None:
    from wpfprobe.apps.stop import StillRunningError, stop_app  # noqa: PLC0415

    try:
        stop_app(manifest, timeout=10)
        _say("\nstopped the app.")
    except StillRunningError as exc:
        print(f"wpfprobe demo: {exc}", file=sys.stderr)
