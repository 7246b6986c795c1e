"""The README's demo: an agent's MCP session with a live app that has the probe inside.

    ./run demo            (or: python examples/demo.py)

It starts the example app on its own UI thread (WinForms under a private
Xvfb on Linux, WPF on Windows), calls ``wpfprobe.start`` in it, connects the
official MCP client over HTTP with the bearer token, and prints what an agent
sees: the tools, the windows, the tree in its compact form, one element's
properties, a search, why a label shows nothing (its binding) and what the
diagnostics find. Then it uses the app as an agent would, through MCP
alone (the probe allows input): fills in the name, presses Save, waits for
the status, and answers the Save As dialog a menu item opens. It saves the
screenshot it got through MCP under artifacts/ and closes everything it
started. The input is recorded in the audit log under a temporary
WPFPROBE_HOME, which the demo verifies and removes.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"


def load_example(kind: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"{kind}_app", ROOT / "examples" / f"{kind}_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def first_sentence(text: str) -> str:
    # A dot inside a name (Microsoft.Xaml.Behaviors) does not end a sentence; a dot and a space does.
    return re.split(r"\.\s", text, maxsplit=1)[0].rstrip(".")


def heading(text: str) -> None:
    print(f"\n== {text} " + "=" * max(0, 70 - len(text)), flush=True)


async def agent_session(url: str, token: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def call(client: Any, tool: str, args: dict[str, Any]) -> Any:
        started = time.perf_counter()
        result = await client.call_tool(tool, args)
        took = (time.perf_counter() - started) * 1000
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        heading(f"{tool}({shown})  {took:.0f} ms{'  ERROR' if result.is_error else ''}")
        for block in result.content:
            if block.type == "text":
                print(block.text)
            else:
                print(f"[{block.type} block, {block.mime_type}, {len(block.data) * 3 // 4} bytes]")
        return result

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            tools = await client.list_tools()
            heading(f"tools/list: {len(tools.tools)} tools")
            for tool in tools.tools:
                print(f"{tool.name:<24} {first_sentence(tool.description)}")
            await call(client, "wpf_get_session_info", {})
            await call(client, "wpf_get_windows", {})
            await call(client, "wpf_get_visual_tree", {"maxDepth": 6})
            await call(client, "wpf_inspect_element", {"locator": "#greetingLabel"})
            await call(client, "wpf_get_properties", {"locator": "#greetingLabel"})
            await call(client, "wpf_get_properties", {"locator": "#passwordBox", "filter": "Text"})
            await call(client, "wpf_find_elements", {"locator": "Button[IsEnabled=false]"})
            await call(client, "wpf_get_visual_tree", {"maxDepth": 99})
            # Why is a label empty? The binding behind it, with its source and error, in one call.
            await call(client, "wpf_get_binding_info", {"locator": "#brokenLabel", "propertyName": "Text"})
            await call(client, "wpf_run_diagnostics", {"minLevel": "warning", "take": 8})
            # Using the app: each action answers with what changed.
            await call(client, "wpf_type_text", {"locator": "#nameBox", "text": "Grace"})
            await call(client, "wpf_click", {"locator": "#saveButton"})
            await call(
                client, "wpf_wait_for",
                {"locator": "#statusLabel", "condition": "propertyEquals", "property": "Text", "value": "Saved Grace"},
            )  # fmt: skip
            await call(client, "wpf_click", {"locator": "#disabledButton"})
            await call(client, "wpf_click", {"locator": "menu:File/Save As"})
            await call(client, "wpf_type_text", {"locator": "#fileNameBox", "text": "grace.txt"})
            await call(client, "wpf_click", {"locator": "#okButton"})
            await call(client, "wpf_inspect_element", {"locator": "#statusLabel"})
            shot = await call(client, "wpf_capture_screenshot", {})
            image = next(b for b in shot.content if b.type == "image")
            ARTIFACTS.mkdir(exist_ok=True)
            path = ARTIFACTS / "demo-window.png"
            path.write_bytes(base64.b64decode(image.data))
            print(f"saved {path.relative_to(ROOT)} ({path.stat().st_size} bytes), received through MCP")


def main() -> int:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    kind = "wpf" if sys.platform.startswith("win") else "winforms"
    home = tempfile.TemporaryDirectory(prefix="wpfprobe-demo-")
    os.environ["WPFPROBE_HOME"] = home.name  # the demo's manifest, audit key and log stay out of yours
    with home, virtual_display() as display:
        wpfprobe_clr.ensure_clr()
        example = load_example(kind)
        app = example.start_in_background()
        try:
            started = time.perf_counter()
            handle = wpfprobe.start(app.app, name="wpfprobe-demo", allow="interact")
            took = (time.perf_counter() - started) * 1000
            heading("wpfprobe.start(app)")
            print(f"{kind} example on display {display or '(desktop)'}; MCP server up in {took:.0f} ms")
            print(f"url   {handle.url}\napp   {handle.app_id}\ntier  {handle.tier}")
            print(f"manifest {handle.manifest_path}")
            print("an agent connects with:")
            print(
                f'  claude mcp add --transport http wpfprobe-demo {handle.url} --header "Authorization: Bearer $TOKEN"'
            )
            try:
                asyncio.run(agent_session(handle.url or "", handle.token or ""))
                log = handle.probe.engine.driver.audit_log()
            finally:
                handle.stop()
            if log is not None:
                from wpfprobe.audit import verify

                heading("the audit log of that input")
                lines = log.path.read_text().splitlines()
                print(f"{log.path.name}: {len(lines)} entries, e.g.\n{lines[0]}")
                print(verify(log.path).summary())
        finally:
            # The UI thread must end before the interpreter does.
            app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
