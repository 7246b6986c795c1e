"""What the co-located MCP server costs: per-tool latency against a no-op floor,
start() to first answer, resident memory, and tokens per tree node.

    python benchmarks/bench_mcp.py [--controls 1000] [--calls 50] [--runs 5] [--json PATH]

Everything is measured in one run, for real (a WinForms UI under Mono and a
private Xvfb on Linux), and written as a table on stdout and as JSON
(default artifacts/bench_mcp.json). See docs/benchmarks-mcp.md for what each
figure means. There are no timing assertions: it exits 0 when every part ran.

1. Latency: a form of ``--controls`` controls runs on a UI thread of its own in
   this process; the server is built the way ``wpfprobe.start`` builds it, plus
   one no-op tool (``bench_noop``) whose handler touches neither the engine nor
   the UI. One SDK client session over HTTP calls every tool in turn, round
   after round; each tool's p50/p95 is set beside the no-op's p50 (the floor:
   what the SDK client, HTTP, the guard, wpfprobe's kernel and the
   worker-thread hop cost by themselves).
   Measured twice: the server as shipped, and with TCP_NODELAY on its socket
   (the one-line fix for the delayed-ACK stall described in the doc).
2. start() to first answer and 3. memory: ``--runs`` fresh subprocesses each run
   the example app (examples/winforms_app.py), call ``wpfprobe.start``, and are
   then driven by a client in this process: the first ``wpf_get_windows``, a
   warm-up of 20 calls, and (in one process) blocks of further calls to see
   whether memory keeps growing.
4. Tokens per node: the ``wpf_get_visual_tree`` text block (maxDepth 10) of the
   example app and of the big form, in characters/4 and, when the optional
   ``bpe-openai`` package is installed (its wheel ships the BPE files; tiktoken
   downloads them at run time, which fails offline), in real BPE tokens.
5. Actions: once the reads are done, a strip of controls is added to the big
   form (a Button whose Click sets a Label's text, a TextBox, a CheckBox, a
   ComboBox, a Label) and a server built with ``tier="mutate"`` (plus the
   no-op) takes every action tool round after round beside the no-op floor:
   wpf_click (toolkit, by node id and by locator), wpf_type_text, wpf_toggle,
   wpf_select, wpf_focus, wpf_send_keys "Tab", wpf_wait_for (condition exists,
   one poll), wpf_set_property, and wpf_click mode="os" (xdotool; it includes
   the fixed ``os_input_settle`` sleep, shown apart). The audit append (a
   file write and fsync per action) is inside each round trip; the log goes to
   a temporary ``WPFPROBE_HOME`` set for the whole run and is verified at the
   end. Then the driver is called directly, with its UI-thread hops and audit
   appends timed, to show where an action's time goes.

Internal entry (parts 2 and 3): ``bench_mcp.py --child`` runs the example app
with the probe in it and obeys commands on stdin.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as _dt
import gc
import importlib.util
import json
import logging
import math
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
DEFAULT_JSON = ROOT / "artifacts" / "bench_mcp.json"
CHILD_PREFIX = "BENCH "
MIB = 1024 * 1024
WARMUP_CALLS = 20
NOOP = "bench_noop"


# -- small helpers ---------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def load_example(kind: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"bench_{kind}_app", ROOT / "examples" / f"{kind}_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rss() -> int:
    import psutil

    gc.collect()
    return int(psutil.Process().memory_info().rss)


def heaps() -> dict[str, int]:
    """Python's allocated blocks and the CLR's managed heap, to tell where RSS growth lives."""
    out = {"py_blocks": sys.getallocatedblocks()}
    with contextlib.suppress(Exception):
        from System import GC

        out["clr_heap"] = int(GC.GetTotalMemory(False))
    return out


def result_text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


def result_bytes(result: Any) -> int:
    """Bytes of the result as JSON on the wire (content blocks and structured content)."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode())


class Tokenizers:
    """characters/4 always; real BPE counts when bpe-openai (offline, BPE files included) is installed."""

    def __init__(self) -> None:
        self.encodings: dict[str, Any] = {}
        self.note = "characters/4"
        try:
            import bpe_openai

            for name in ("cl100k_base", "o200k_base"):
                self.encodings[name] = bpe_openai.get_encoding(name)
            self.note = (
                f"characters/4, and bpe-openai {getattr(bpe_openai, '__version__', '?')} (cl100k_base, o200k_base)"
            )
        except Exception as exc:
            self.encodings.clear()
            self.note = f"characters/4 only (no offline BPE tokenizer: {type(exc).__name__}: {exc})"

    def count(self, text: str) -> dict[str, float]:
        out: dict[str, float] = {"chars/4": len(text) / 4}
        for name, enc in self.encodings.items():
            out[name] = float(len(enc.encode(text)))
        return out

    def prefix_spread(self, text: str, prefix: str, nodes: int) -> dict[str, dict[str, float]]:
        """Node ids start with a random two-letter prefix per process, and BPE counts depend on
        it: the count of ``text`` under every prefix the probe can choose, as min, median and max."""
        import re

        ids = re.compile(rf"\b{re.escape(prefix)}(?=\d)")
        from wpfprobe_clr._objects import ID_PREFIX_LETTERS

        variants = [ids.sub(a + b, text) for a in ID_PREFIX_LETTERS for b in ID_PREFIX_LETTERS]
        out = {}
        for name, enc in self.encodings.items():
            counts = sorted(len(enc.encode(v)) for v in variants)
            out[name] = {"min": counts[0], "median": statistics.median(counts), "max": counts[-1]}
            out[name]["share_above_12_per_node"] = sum(c > 12 * nodes for c in counts) / len(counts)
        return out


# -- part 1: per-tool latency against the floor -------------------------------------


@dataclass
class Call:
    label: str
    tool: str
    args: dict[str, Any]
    every: int = 1  # call in one round out of `every` (slow tools)
    vary: Callable[[int], dict[str, Any]] | None = None  # per-round arguments (actions), else `args`
    times: list[float] = field(default_factory=list)
    handler: list[float] = field(default_factory=list)
    paced: list[float] = field(default_factory=list)
    paced_handler: list[float] = field(default_factory=list)
    sample: Any = None


class HandlerTimes(logging.Handler):
    """Captures the server's own per-tool duration (tool_function logs tool, outcome, ms)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, str, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        # The per-call record carries its facts as extra fields (wpfprobe.core.logs.FIELDS).
        fields = record.__dict__
        if "tool" in fields and "durationMs" in fields:
            self.records.append((str(fields["tool"]), str(fields.get("outcome")), float(fields["durationMs"])))


def noop_spec() -> Any:
    from pydantic import BaseModel

    from wpfprobe.mcp.tools import NoArgs, ToolOutput, ToolSpec

    class NoopResult(BaseModel):
        ok: bool

    result = ToolOutput(NoopResult(ok=True), "ok")
    return ToolSpec(
        NOOP, "read", "No-op", "Returns ok without touching the engine or the UI (benchmark floor).",
        NoArgs, NoopResult, lambda engine, args: result,
    )  # fmt: skip


async def timed(fn: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = await fn()
    return (time.perf_counter() - started) * 1000, value


async def latency_session(
    url: str, token: str, *, calls: int, targets: dict[str, str], tok: Tokenizers, paced: int = 0, spacing: float = 0
) -> dict[str, Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    capture = HandlerTimes()
    server_log = logging.getLogger("wpfprobe.server")
    server_log.addHandler(capture)
    old_level, old_propagate = server_log.level, server_log.propagate
    server_log.setLevel(logging.INFO)
    server_log.propagate = False
    try:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                listed = await client.list_tools()

                async def call(tool: str, args: dict[str, Any]) -> Any:
                    result = await client.call_tool(tool, args)
                    if result.is_error:
                        raise RuntimeError(f"{tool}({args}) failed: {result_text(result)}")
                    return result

                # Node ids to aim at: a container with rows, and a TextBox deep in the form.
                session = await call("wpf_get_session_info", {})
                found = await call("wpf_find_elements", {"name": targets["container"]})
                container_id = found.structured_content["results"][0]["node"]["nodeId"]
                found = await call("wpf_find_elements", {"name": targets["leaf"]})
                leaf_id = found.structured_content["results"][0]["node"]["nodeId"]
                leaf_depth = found.structured_content["results"][0]["path"].count("/")
                far = targets["far"]

                plan = [
                    Call(f"{NOOP} (floor)", NOOP, {}),
                    Call("wpf_get_session_info", "wpf_get_session_info", {}),
                    Call("wpf_get_windows", "wpf_get_windows", {}),
                    Call("wpf_get_visual_tree maxDepth=3", "wpf_get_visual_tree", {"maxDepth": 3}),
                    Call("wpf_get_visual_tree maxDepth=10", "wpf_get_visual_tree", {"maxDepth": 10}),
                    Call("wpf_get_children (4 rows)", "wpf_get_children", {"nodeId": container_id}),
                    Call(f"wpf_get_ancestors (depth-{leaf_depth} TextBox)", "wpf_get_ancestors", {"nodeId": leaf_id}),
                    Call(f"wpf_find_elements name={far}", "wpf_find_elements", {"name": far}),
                    Call("wpf_inspect_element nodeId", "wpf_inspect_element", {"nodeId": leaf_id}),
                    Call("wpf_inspect_element locator", "wpf_inspect_element", {"locator": f"#{far}"}),
                    Call("wpf_get_properties nodeId", "wpf_get_properties", {"nodeId": leaf_id}),
                    Call("wpf_capture_screenshot (window)", "wpf_capture_screenshot", {}),
                ]

                # Warm-up: every call a few times (imports, JIT, caches, the output-schema cache).
                for _ in range(5):
                    for c in plan:
                        c.sample = await call(c.tool, c.args)
                shot = plan[-1]
                shot_ms = min([(await timed(lambda: call(shot.tool, shot.args)))[0] for _ in range(3)])
                if shot_ms > 100:  # slow: fewer samples, spread over the same rounds
                    shot.every = max(1, min(4, calls // 12))

                async def measure(c: Call, times: list[float], handler: list[float]) -> None:
                    capture.records.clear()
                    ms, _ = await timed(lambda: call(c.tool, c.args))
                    times.append(ms)
                    mine = [r for r in capture.records if r[0] == c.tool]
                    if mine:
                        handler.append(mine[-1][2])

                rss_before = rss()
                for rnd in range(calls):
                    for c in plan:
                        if rnd % c.every == 0:
                            await measure(c, c.times, c.handler)
                rss_after = rss()
                # At an agent's pace: a pause before each call outlives the engine's short-lived
                # caches (the name census is reused for census_ttl seconds), as think time does.
                for c in plan if paced else []:
                    for _ in range(paced):
                        await asyncio.sleep(spacing)
                        await measure(c, c.paced, c.paced_handler)

                # Where the rest of the time goes, for one sample of each: the client's check
                # against the output schema (jsonschema). The server checks nothing: the kernel
                # sends the catalog's answer as the tool made it.
                rows = []
                floor_p50 = percentile(plan[0].times, 50)
                for c in plan:
                    client_check = min(
                        [
                            (await timed(lambda c=c: client.session.validate_tool_result(c.tool, c.sample)))[0]
                            for _ in range(3)
                        ]
                    )
                    p50, p95 = percentile(c.times, 50), percentile(c.times, 95)
                    rows.append(
                        {
                            "call": c.label,
                            "tool": c.tool,
                            "args": _shown_args(c.args),
                            "n": len(c.times),
                            "p50_ms": round(p50, 2),
                            "p95_ms": round(p95, 2),
                            "ratio_p50_to_floor": round(p50 / floor_p50, 2),
                            "handler_p50_ms": round(percentile(c.handler, 50), 2) if c.handler else None,
                            "paced_n": len(c.paced),
                            "paced_p50_ms": round(percentile(c.paced, 50), 2) if c.paced else None,
                            "paced_handler_p50_ms": round(percentile(c.paced_handler, 50), 2)
                            if c.paced_handler
                            else None,
                            "client_schema_check_ms": round(client_check, 2),
                            "response_bytes": result_bytes(c.sample),
                        }
                    )
                big_tree = next(c for c in plan if c.args.get("maxDepth") == 10).sample
                return {
                    "tools_listed": len(listed.tools),
                    "floor_p50_ms": round(floor_p50, 2),
                    "rows": rows,
                    "runtime": session.structured_content["runtime"]["description"],
                    "parent_rss_growth_mib_during_rounds": round((rss_after - rss_before) / MIB, 2),
                    "big_form_tokens": tree_tokens("big form", big_tree, tok),
                }
    finally:
        server_log.removeHandler(capture)
        server_log.setLevel(old_level)
        server_log.propagate = old_propagate


def _shown_args(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items())


VARIANTS = ("shipped", "nodelay")


def set_nodelay(handle: Any) -> None:
    """The one-line fix, emulated: TCP_NODELAY on the listening socket (Linux passes it on to
    accepted connections). _start_http makes its socket with proto 0, so asyncio skips the
    TCP_NODELAY it sets on TCP connections, and keep-alive requests stall on delayed ACKs."""
    import socket

    handle._runner._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def run_latency(controls: int, calls: int, tok: Tokenizers, paced: int) -> dict[str, Any]:
    """Part 1 (and the big form's part 4), in this process: the server as shipped, then with TCP_NODELAY.

    The form is the shared benchmark form (benchmarks/_harness.py, the same one
    bench_snapshot.py measures), shown on a WinForms loop of its own STA thread.
    """
    import wpfprobe
    from wpfprobe.mcp.catalog import ToolCatalog
    from wpfprobe.mcp.server import _start_http

    sys.path.insert(0, str(HERE))
    import _harness as h

    h.load_winforms()
    loop = h.UiLoop.start()
    try:
        form, _sample, info, show_s = h.show_form(loop, controls)
        # A TextBox in the middle, and the last uniquely named CheckBox (a search walks most of the form).
        targets = {
            "container": "section0Fields",
            "leaf": info.sample_textbox,
            "far": loop.call(lambda: _last_check(form)).result,
        }
        probe = wpfprobe.attach(form, name="bench-big-form")
        census_ttl = float(getattr(probe.engine.settings, "census_ttl", 0.0))
        spacing = max(1.2, census_ttl + 0.2)
        variants = {}
        for variant in VARIANTS:
            catalog = ToolCatalog(probe.engine, tier="read")
            catalog.add(noop_spec())
            handle = _start_http(probe, catalog, tier="read", port=0, token=secrets.token_urlsafe(32))
            try:
                if variant == "nodelay":
                    set_nodelay(handle)
                session = latency_session(
                    handle.url or "", handle.token or "", calls=calls, targets=targets, tok=tok,
                    paced=paced if variant == "nodelay" else 0, spacing=spacing,
                )  # fmt: skip
                variants[variant] = asyncio.run(session)
            finally:
                handle.stop()
        last_variant = variants[VARIANTS[-1]]
        out = {
            "controls": info.controls,
            "form": {"named": info.named, "unnamed": info.unnamed, "names_shared": info.names_shared,
                     "max_depth": info.max_depth, "by_type": info.by_type, "show_ms": round(show_s * 1000, 1)},
            "targets": targets,
            "calls_per_tool": calls,
            "paced": {"calls_per_tool": paced, "spacing_s": spacing, "census_ttl_s": census_ttl},
            "runtime": last_variant["runtime"],
            "big_form_tokens": last_variant["big_form_tokens"],
            "variants": variants,
        }  # fmt: skip
        for v in variants.values():
            del v["runtime"], v["big_form_tokens"]
        # Part 5, on the same form once the reads are done: a few controls of its own,
        # so that the reads above measured exactly --controls controls.
        print("[bench] part 5: action round trips ...", file=sys.stderr, flush=True)
        clicks = loop.call(lambda: add_action_controls(form)).result
        loop.call(lambda: None)  # the layout and paint messages of the new controls have run
        out["actions"] = run_actions(probe, calls=calls, clicks=clicks, controls=info.controls)
        h.close_form(loop, form)
        return out
    finally:
        if not loop.stop():
            print("warning: the benchmark form's UI thread did not end", file=sys.stderr)


def _last_check(form: Any) -> str:
    """The name ``field{k}Check`` with the highest k (call on the UI thread)."""
    best, stack = (-1, ""), [form]
    while stack:
        c = stack.pop()
        name = str(c.Name or "")
        if name.startswith("field") and name.endswith("Check") and name[5:-5].isdigit():
            best = max(best, (int(name[5:-5]), name))
        stack.extend(c.Controls)
    if not best[1]:
        raise RuntimeError("the benchmark form has no named CheckBox")
    return best[1]


# -- part 5: action round trips against the floor -----------------------------------

ACTION_NAMES = {  # role -> the name of the control part 5 adds
    "button": "benchClickButton",
    "label": "benchClickLabel",
    "box": "benchTypeBox",
    "check": "benchToggleCheck",
    "combo": "benchCombo",
    "status": "benchStatusLabel",
}
OS_SLOW_MS = 100.0  # an OS click slower than this is timed every other round
NOT_AUDITED = frozenset({NOOP, "wpf_wait_for"})  # waits read; every other action tool appends an entry


def add_action_controls(form: Any) -> dict[str, int]:
    """A strip of controls for part 5 over the form's top-left corner (call on the UI thread).

    The benchmark form has no ComboBox, and its buttons share one name and have no
    handler, so part 5 adds its own: a Button whose Click sets a Label's text and
    counts (to check that OS clicks landed), a TextBox, a CheckBox, a ComboBox of
    four items and a Label for wpf_set_property. Returns the click counter.
    """
    from System.Drawing import Point, Size
    from System.Windows.Forms import (
        Button,
        CheckBox,
        ComboBox,
        ComboBoxStyle,
        Label,
        Panel,
        TextBox,
    )

    clicks = {"n": 0}
    panel = Panel()
    panel.Name = "benchActions"
    panel.Location = Point(8, 8)  # the form is not scrolled: client coordinates as given
    panel.Size = Size(720, 30)

    def add(cls: Any, role: str, text: str | None, x: int, width: int) -> Any:
        c = cls()
        c.Name = ACTION_NAMES[role]
        if text is not None:
            c.Text = text
        c.Location = Point(x, 4)
        c.Size = Size(width, 22)
        panel.Controls.Add(c)
        return c

    button = add(Button, "button", "Click", 4, 70)
    label = add(Label, "label", "not clicked", 80, 110)
    add(TextBox, "box", "", 196, 120)
    add(CheckBox, "check", "Check", 322, 70)
    combo = add(ComboBox, "combo", None, 398, 110)
    combo.DropDownStyle = ComboBoxStyle.DropDownList
    for item in ("Alpha", "Beta", "Gamma", "Delta"):
        combo.Items.Add(item)
    combo.SelectedIndex = 0
    add(Label, "status", "status", 514, 200)

    def on_click(sender: Any, args: Any) -> None:  # cheap, as the brief of part 5 says
        clicks["n"] += 1
        label.Text = f"clicked {clicks['n']}"

    button.Click += on_click
    form.Controls.Add(panel)
    panel.BringToFront()  # over section0, so nothing covers the button's centre (mode="os")
    return clicks


def action_plan(ids: dict[str, str]) -> list[Call]:
    """Every action tool once per round; the floor first, the OS click last."""
    return [
        Call(f"{NOOP} (floor)", NOOP, {}),
        Call("wpf_click nodeId (Button)", "wpf_click", {"nodeId": ids["button"]}),
        Call("wpf_click locator", "wpf_click", {"locator": f"#{ACTION_NAMES['button']}"}),
        Call("wpf_type_text replace=true (7 ch)", "wpf_type_text", {},
             vary=lambda r: {"nodeId": ids["box"], "text": f"typed {r % 10}", "replace": True}),
        Call("wpf_toggle (CheckBox, flip)", "wpf_toggle", {"nodeId": ids["check"]}),
        Call("wpf_select (ComboBox, index 0/1)", "wpf_select", {},
             vary=lambda r: {"nodeId": ids["combo"], "index": r % 2}),
        Call("wpf_focus (TextBox)", "wpf_focus", {"nodeId": ids["box"]}),
        Call('wpf_send_keys "Tab" (TextBox)', "wpf_send_keys", {"nodeId": ids["box"], "keys": "Tab"}),
        Call("wpf_wait_for exists nodeId", "wpf_wait_for",
             {"nodeId": ids["label"], "condition": "exists", "timeoutMs": 2000}),
        Call("wpf_wait_for exists locator", "wpf_wait_for",
             {"locator": f"#{ACTION_NAMES['label']}", "condition": "exists", "timeoutMs": 2000}),
        Call("wpf_set_property Label.Text", "wpf_set_property", {},
             vary=lambda r: {"nodeId": ids["status"], "propertyName": "Text", "value": f"set {r % 2}"}),
        Call('wpf_click mode="os" (Button)', "wpf_click", {"nodeId": ids["button"], "mode": "os"}),
    ]  # fmt: skip


async def action_session(url: str, token: str, *, calls: int) -> dict[str, Any]:
    """Part 5 over MCP: each round calls the no-op and every action once (the OS click maybe every other)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    capture = HandlerTimes()
    server_log = logging.getLogger("wpfprobe.server")
    server_log.addHandler(capture)
    old_level, old_propagate = server_log.level, server_log.propagate
    server_log.setLevel(logging.INFO)
    server_log.propagate = False
    try:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                listed = await client.list_tools()

                async def call(tool: str, args: dict[str, Any]) -> Any:
                    result = await client.call_tool(tool, args)
                    if result.is_error:
                        raise RuntimeError(f"{tool}({args}) failed: {result_text(result)}")
                    return result

                ids = {}
                for role, name in ACTION_NAMES.items():
                    found = await call("wpf_find_elements", {"name": name})
                    ids[role] = found.structured_content["results"][0]["node"]["nodeId"]
                plan = action_plan(ids)
                counts = {"clicks": 0, "audited": 0}
                polls: list[int] = []

                async def once(c: Call, rnd: int, *, timed_run: bool) -> float:
                    args = c.vary(rnd) if c.vary else c.args
                    capture.records.clear()
                    ms, result = await timed(lambda: call(c.tool, args))
                    counts["clicks"] += c.tool == "wpf_click"
                    counts["audited"] += c.tool not in NOT_AUDITED
                    if c.tool == "wpf_wait_for":
                        polls.append(int(result.structured_content["polls"]))
                    c.sample = result
                    if timed_run:
                        c.times.append(ms)
                        mine = [r for r in capture.records if r[0] == c.tool]
                        if mine:
                            c.handler.append(mine[-1][2])
                    return ms

                for rnd in range(3):  # warm-up
                    for c in plan:
                        await once(c, rnd, timed_run=False)
                os_click = plan[-1]
                if min([await once(os_click, 0, timed_run=False) for _ in range(2)]) > OS_SLOW_MS:
                    os_click.every = 2
                for rnd in range(calls):
                    for c in plan:
                        if rnd % c.every == 0:
                            await once(c, rnd, timed_run=True)

                floor_p50 = percentile(plan[0].times, 50)
                rows = []
                for c in plan:
                    p50, p95 = percentile(c.times, 50), percentile(c.times, 95)
                    handler = percentile(c.handler, 50) if c.handler else None
                    structured = c.sample.structured_content or {}
                    rows.append(
                        {
                            "call": c.label,
                            "tool": c.tool,
                            "args": _shown_args(c.vary(0) if c.vary else c.args),
                            "n": len(c.times),
                            "p50_ms": round(p50, 2),
                            "p95_ms": round(p95, 2),
                            "ratio_p50_to_floor": round(p50 / floor_p50, 2),
                            "handler_p50_ms": round(handler, 2) if handler is not None else None,
                            "outside_handler_p50_ms": round(p50 - handler, 2) if handler is not None else None,
                            "last_changed": structured.get("changed"),
                            "last_completed": structured.get("completed"),
                            "response_bytes": result_bytes(c.sample),
                        }
                    )
                return {
                    "tools_listed": len(listed.tools),
                    "floor_p50_ms": round(floor_p50, 2),
                    "rows": rows,
                    "ids": ids,
                    "clicks_sent": counts["clicks"],
                    "audited_calls": counts["audited"],
                    "wait_polls": {"calls": len(polls), "max": max(polls), "all_one": all(p == 1 for p in polls)},
                    "os_click_every": os_click.every,
                }
    finally:
        server_log.removeHandler(capture)
        server_log.setLevel(old_level)
        server_log.propagate = old_propagate


class HopClock:
    """Times every engine hop (``UiThread.run``: from the caller, and held on the UI thread) and every
    audit append, while the driver is called directly (no MCP), to show where an action's time goes."""

    def __init__(self) -> None:
        self.hops: list[tuple[float, float]] = []  # (wall ms, hold ms) per hop
        self.audits: list[float] = []
        self._undo: list[Callable[[], None]] = []

    def install(self, driver: Any) -> None:
        from wpfprobe_clr._ui_thread import UiThread

        original = UiThread.run
        clock = self

        def run(ui: Any, fn: Callable[[], Any], *, timeout: float | None = None) -> Any:
            box: dict[str, float] = {}

            def held() -> Any:
                t0 = time.perf_counter()
                try:
                    return fn()
                finally:
                    box["hold"] = (time.perf_counter() - t0) * 1000

            t0 = time.perf_counter()
            try:
                return original(ui, held, timeout=timeout)
            finally:
                clock.hops.append(((time.perf_counter() - t0) * 1000, box.get("hold", math.nan)))

        UiThread.run = run  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(UiThread, "run", original))
        log = driver.audit_log()
        if log is not None:
            record = log.record

            def timed_record(*args: Any, **kwargs: Any) -> Any:
                t0 = time.perf_counter()
                try:
                    return record(*args, **kwargs)
                finally:
                    clock.audits.append((time.perf_counter() - t0) * 1000)

            log.record = timed_record
            self._undo.append(lambda: delattr(log, "record"))

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()


def action_breakdown(engine: Any, ids: dict[str, str], *, rounds: int, os_rounds: int) -> dict[str, Any]:
    """The driver called directly, in this process: wall time, the hops, the audit append, the rest."""
    from wpfprobe.engine.engine import Target

    d = engine.driver

    def t(role: str) -> Any:
        return Target(node_id=ids[role])

    ops: list[tuple[str, Callable[[int], Any], int]] = [
        ("wpf_click (toolkit)", lambda r: d.click(t("button")), rounds),
        ("wpf_type_text", lambda r: d.type_text(t("box"), f"typed {r % 10}", replace=True), rounds),
        ("wpf_toggle", lambda r: d.toggle(t("check")), rounds),
        ("wpf_select", lambda r: d.select(t("combo"), index=r % 2), rounds),
        ("wpf_focus", lambda r: d.focus(t("box")), rounds),
        ('wpf_send_keys "Tab"', lambda r: d.send_keys(t("box"), "Tab"), rounds),
        ("wpf_wait_for exists nodeId", lambda r: d.wait_for(t("label"), "exists", timeout_ms=2000), rounds),
        ("wpf_set_property", lambda r: d.set_property(t("status"), "Text", f"set {r % 2}"), rounds),
        ('wpf_click mode="os"', lambda r: d.click(t("button"), mode="os"), os_rounds),
    ]
    clock = HopClock()
    clock.install(d)
    clicks = 0
    try:
        bare: list[tuple[float, float]] = []
        for i in range(60):
            clock.hops.clear()
            engine.hop(lambda h: None)  # what the settle hop is
            if i >= 10:
                bare.extend(clock.hops)
        rows = []
        for label, op, n in ops:
            samples = []
            for r in range(n + 2):  # two warm-up calls
                clock.hops.clear()
                clock.audits.clear()
                t0 = time.perf_counter()
                op(r)
                wall = (time.perf_counter() - t0) * 1000
                clicks += label.startswith("wpf_click")
                if r >= 2:
                    samples.append((wall, list(clock.hops), sum(clock.audits)))
            hop_counts = [len(s[1]) for s in samples]
            hops = max(set(hop_counts), key=hop_counts.count)
            same = [s for s in samples if len(s[1]) == hops]
            rows.append(
                {
                    "call": label,
                    "n": len(samples),
                    "wall_p50_ms": round(percentile([s[0] for s in samples], 50), 2),
                    "hops": hops,
                    "hop_wall_p50_ms": [round(percentile([s[1][i][0] for s in same], 50), 2) for i in range(hops)],
                    "hop_hold_p50_ms": [round(percentile([s[1][i][1] for s in same], 50), 2) for i in range(hops)],
                    "hops_wall_sum_p50_ms": round(percentile([sum(w for w, _ in s[1]) for s in samples], 50), 2),
                    "audit_p50_ms": round(percentile([s[2] for s in samples], 50), 2),
                    "rest_p50_ms": round(percentile([s[0] - sum(w for w, _ in s[1]) - s[2] for s in samples], 50), 2),
                }
            )
        # The OS back end alone (xdotool on X11): the same click, without hops, audit or settle.
        backend, backend_ms = getattr(d, "_os", None), []
        if backend is not None and backend.available() is None:
            x, y = engine.hop(lambda h: h.adapter.click_point(h.resolve(t("button"))))
            for i in range(os_rounds + 1):
                t0 = time.perf_counter()
                backend.click(x, y)
                if i:
                    backend_ms.append((time.perf_counter() - t0) * 1000)
                clicks += 1
                time.sleep(engine.settings.os_input_settle)  # let the app take it, as the driver does
    finally:
        clock.uninstall()
    return {
        "rounds": rounds,
        "os_rounds": os_rounds,
        "os_backend_click_p50_ms": round(percentile(backend_ms, 50), 2) if backend_ms else None,
        "bare_hop_wall_p50_ms": round(percentile([w for w, _ in bare], 50), 3),
        "bare_hop_hold_p50_ms": round(percentile([h for _, h in bare], 50), 3),
        "rows": rows,
        "clicks_sent": clicks,
    }


def fs_type(path: Path) -> str:
    """The file system a path is on (Linux /proc/mounts; '?' elsewhere)."""
    best, kind = "", "?"
    with contextlib.suppress(OSError):
        target = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            covers = len(parts) >= 3 and (target == parts[1] or target.startswith(parts[1].rstrip("/") + "/"))
            if covers and len(parts[1]) > len(best):
                best, kind = parts[1], parts[2]
    return kind


def run_actions(probe: Any, *, calls: int, clicks: dict[str, int], controls: int) -> dict[str, Any]:
    """Part 5: the action tools over MCP on a mutate-tier server, then the same actions called
    directly with their hops and audit appends timed; checks that every click landed and the
    audit log verifies."""
    from wpfprobe.audit._verify import verify
    from wpfprobe.mcp.catalog import ToolCatalog
    from wpfprobe.mcp.server import _start_http

    engine = probe.engine
    catalog = ToolCatalog(engine, tier="mutate")
    catalog.add(noop_spec())
    handle = _start_http(probe, catalog, tier="mutate", port=0, token=secrets.token_urlsafe(32))
    try:
        session = asyncio.run(action_session(handle.url or "", handle.token or "", calls=calls))
    finally:
        handle.stop()
    engine.hop(lambda h: None)  # any click still queued has run
    landed_mcp = clicks["n"]
    breakdown = action_breakdown(engine, session["ids"], rounds=min(calls, 20), os_rounds=max(3, min(calls, 20) // 2))
    engine.hop(lambda h: None)
    log = engine.driver.audit_log()
    audit: dict[str, Any] = {"enabled": log is not None}
    if log is not None:
        checked = verify(log.path)  # the key from $WPFPROBE_HOME, like `wpfprobe audit verify`
        audit.update(
            path=str(log.path), fs=fs_type(log.path), entries=checked.entries, ok=checked.ok,
            expected_entries=session["audited_calls"] + sum(
                r["n"] + 2 for r in breakdown["rows"] if not r["call"].startswith("wpf_wait_for")
            ),
        )  # fmt: skip
    engine.driver.close()
    return {
        "controls": controls + 1 + len(ACTION_NAMES),
        "calls_per_tool": calls,
        "os_input_settle_s": engine.settings.os_input_settle,
        "mcp": session,
        "clicks": {
            "sent_over_mcp": session["clicks_sent"],
            "counted_by_app_after_mcp": landed_mcp,
            "sent_in_total": session["clicks_sent"] + breakdown["clicks_sent"],
            "counted_by_app_in_total": clicks["n"],
        },
        "breakdown": breakdown,
        "audit": audit,
    }


# -- part 4 helper ---------------------------------------------------------------


def tree_tokens(label: str, result: Any, tok: Tokenizers) -> dict[str, Any]:
    text = result_text(result)
    structured = result.structured_content
    nodes = int(structured["returnedNodeCount"])
    as_json = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    text_tokens = tok.count(text)
    json_tokens = tok.count(as_json)
    root_id = structured["root"]["nodeId"]
    prefix = root_id[:2] if len(root_id) > 2 and root_id[:2].isalpha() and root_id[2:].isdigit() else ""
    spread = tok.prefix_spread(text, prefix, nodes) if prefix else {}
    return {
        "app": label,
        "nodes": nodes,
        "text_bytes": len(text.encode()),
        "text_bytes_per_node": round(len(text.encode()) / nodes, 1),
        "text_tokens_per_node": {k: round(v / nodes, 2) for k, v in text_tokens.items()},
        "id_prefix": prefix,
        "text_tokens_per_node_over_all_prefixes": {
            k: {
                stat: round(v / nodes, 2) if stat != "share_above_12_per_node" else round(v, 3)
                for stat, v in stats.items()
            }
            for k, stats in spread.items()
        },
        "json_bytes": len(as_json.encode()),
        "json_bytes_per_node": round(len(as_json.encode()) / nodes, 1),
        "json_tokens_per_node": {k: round(v / nodes, 2) for k, v in json_tokens.items()},
        "text": text if nodes <= 100 else None,
        "text_sample": text.splitlines()[:6],
    }


# -- parts 2 and 3: fresh subprocesses with the example app -------------------------


def child_main(nodelay: bool) -> int:
    """Runs in the subprocess: the example app, then wpfprobe.start, then commands."""

    def say(**fields: Any) -> None:
        sys.stdout.write(CHILD_PREFIX + json.dumps(fields) + "\n")
        sys.stdout.flush()

    # The baseline is the app alone, without wpfprobe: the example loads pythonnet itself,
    # in the thread-suspend mode wpfprobe_clr.ensure_clr() would choose (set here first).
    os.environ["MONO_THREADS_SUSPEND"] = "preemptive"
    example = load_example("winforms")
    app = example.start_in_background()
    handle = None
    try:
        rss_app = rss()
        had_wpfprobe = "wpfprobe" in sys.modules
        t_import = time.monotonic()
        import wpfprobe
        import wpfprobe_clr

        wpfprobe_clr.ensure_clr()  # finds the loaded Mono and checks its suspend mode
        import_ms = (time.monotonic() - t_import) * 1000
        rss_imported = rss()
        mcp_before_start = "mcp" in sys.modules
        t0 = time.monotonic()
        handle = wpfprobe.start(app.app, name="bench-example")
        t1 = time.monotonic()
        if nodelay:
            set_nodelay(handle)
        rss_started = rss()
        say(
            event="started", url=handle.url, token=handle.token, t0=t0, t1=t1, import_wpfprobe_ms=import_ms,
            wpfprobe_imported_before=had_wpfprobe, mcp_imported_before_start=mcp_before_start,
            rss_app=rss_app, rss_imported=rss_imported, rss_started=rss_started,
            threads=threading.active_count(),
        )  # fmt: skip
        for line in sys.stdin:
            command = line.strip()
            if command == "rss":
                say(event="rss", rss=rss(), threads=threading.active_count(), **heaps())
            elif command == "collect":  # a full CLR collection, then the same reading
                from System import GC

                GC.Collect()
                GC.WaitForPendingFinalizers()
                GC.Collect()
                say(event="rss", rss=rss(), threads=threading.active_count(), **heaps())
            elif command == "stop":
                break
    finally:
        if handle is not None:
            handle.stop()
        app.close()
    say(event="stopped", ui_thread_ended=not app._thread.IsAlive)
    return 0


class Child:
    def __init__(self, *, nodelay: bool) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child; read back if it fails
        command = [sys.executable, "-W", "ignore::UserWarning", str(Path(__file__).resolve()), "--child"]
        self.proc = subprocess.Popen(
            command + (["--nodelay"] if nodelay else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            cwd=ROOT,
        )

    def read(self, timeout: float = 120.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith(CHILD_PREFIX):
                return json.loads(line[len(CHILD_PREFIX) :])
        raise RuntimeError(f"the child ended without answering:\n{self.stderr()}")

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-4000:]

    def finish(self, timeout: float = 30.0) -> dict[str, Any]:
        try:
            self.send("stop")
            stopped = self.read(timeout)
            self.proc.wait(timeout)
            return stopped
        finally:
            if self.proc.poll() is None:
                self.proc.kill()  # only this child, by its own handle
                self.proc.wait(10)
            self._stderr.close()


async def startup_run(index: int, *, nodelay: bool, leak_calls: int, tok: Tokenizers) -> dict[str, Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    child = Child(nodelay=nodelay)
    try:
        ready = await asyncio.to_thread(child.read)
        if ready.get("event") != "started":
            raise RuntimeError(f"unexpected first message from the child: {ready}")
        t_seen = time.monotonic()
        url, token = ready["url"], ready["token"]
        # start() returns with the socket already listening: the first attempt must succeed.
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                t_init = time.monotonic()
                first = await client.call_tool("wpf_get_windows", {})
                t2 = time.monotonic()
                if first.is_error:
                    raise RuntimeError(result_text(first))
                out = await memory_session(client, child, leak_calls=leak_calls, tok=tok, index=index)
        stopped = child.finish()
    except BaseException:
        sys.stderr.write(child.stderr())
        raise
    t0, t1 = ready["t0"], ready["t1"]
    out.update(
        {
            "start_ms": round((t1 - t0) * 1000, 1),
            # The child reads its RSS between t1 and telling us the url: not the probe's time.
            "connect_initialize_ms": round((t_init - t_seen) * 1000, 1),
            "first_get_windows_ms": round((t2 - t_init) * 1000, 1),
            "first_answer_ms": round((t2 - t_seen) * 1000, 1),
            "total_ms": round((t1 - t0 + t2 - t_seen) * 1000, 1),
            "handoff_ms": round((t_seen - t1) * 1000, 1),
            "import_wpfprobe_ms": round(ready["import_wpfprobe_ms"], 1),
            "mcp_imported_before_start": ready["mcp_imported_before_start"],
            "rss_app_mib": round(ready["rss_app"] / MIB, 1),
            "delta_import_wpfprobe_mib": round((ready["rss_imported"] - ready["rss_app"]) / MIB, 2),
            "delta_start_mib": round((ready["rss_started"] - ready["rss_imported"]) / MIB, 2),
            "ui_thread_ended": stopped.get("ui_thread_ended"),
        }
    )
    base = ready["rss_started"]
    out["delta_warmup_mib"] = round((out.pop("rss_warm") - base) / MIB, 2)
    out["delta_total_after_warmup_mib"] = round(
        out["delta_import_wpfprobe_mib"] + out["delta_start_mib"] + out["delta_warmup_mib"], 2
    )
    return out


async def memory_session(client: Any, child: Child, *, leak_calls: int, tok: Tokenizers, index: int) -> dict[str, Any]:
    """Warm-up of 20 calls (a full tree among them), then two blocks to see growth per call."""
    await client.list_tools()
    window = (await client.call_tool("wpf_get_windows", {})).structured_content["windows"][0]["nodeId"]
    mix: list[tuple[str, dict[str, Any]]] = [
        ("wpf_get_session_info", {}),
        ("wpf_get_visual_tree", {"maxDepth": 10}),
        ("wpf_get_visual_tree", {"maxDepth": 3}),
        ("wpf_get_children", {"nodeId": window}),
        ("wpf_find_elements", {"locator": "Button[IsEnabled=false]"}),
        ("wpf_inspect_element", {"locator": "#greetingLabel"}),
        ("wpf_get_properties", {"locator": "#nameBox"}),
        ("wpf_get_ancestors", {"locator": "#saveButton"}),
        ("wpf_capture_screenshot", {}),
        ("wpf_get_windows", {}),
    ]
    full_tree = None
    for i in range(WARMUP_CALLS - 1):  # wpf_get_windows above is the first of the 20
        tool, args = mix[i % len(mix)]
        result = await client.call_tool(tool, args)
        if result.is_error:
            raise RuntimeError(f"{tool}: {result_text(result)}")
        if tool == "wpf_get_visual_tree" and args["maxDepth"] == 10:
            full_tree = result
    child.send("rss")
    warm = await asyncio.to_thread(child.read)
    out: dict[str, Any] = {"rss_warm": warm["rss"]}
    if index == 0 and full_tree is not None:
        out["example_tokens"] = tree_tokens("example app", full_tree, tok)
    if not leak_calls:
        return out
    # Growth: GROWTH_BLOCKS blocks of the same mix, RSS and both heaps after each.
    points = [{"calls": 0, **_mem_point(warm)}]
    for block in range(GROWTH_BLOCKS):
        for i in range(leak_calls):
            tool, args = mix[i % len(mix)]
            await client.call_tool(tool, args)
        child.send("rss")
        points.append({"calls": (block + 1) * leak_calls, **_mem_point(await asyncio.to_thread(child.read))})
    total = GROWTH_BLOCKS * leak_calls
    child.send("collect")
    collected = _mem_point(await asyncio.to_thread(child.read))
    rss_values = [p["rss_mib"] for p in points]
    clr_values = [p["clr_heap_mib"] for p in points if p.get("clr_heap_mib") is not None]
    out["growth"] = {
        "calls": total,
        "points": points,
        "rss_kib_per_call_overall": round((rss_values[-1] - rss_values[0]) * 1024 / total, 2),
        "rss_kib_per_call_last_block": round((rss_values[-1] - rss_values[-2]) * 1024 / leak_calls, 2),
        "rss_range_mib": [min(rss_values), max(rss_values)],
        "py_blocks_delta": points[-1]["py_blocks"] - points[0]["py_blocks"],
        "clr_heap_range_mib": [min(clr_values), max(clr_values)] if clr_values else None,
        "after_full_clr_gc": collected,
        "rss_kib_per_call_after_full_clr_gc": round((collected["rss_mib"] - rss_values[0]) * 1024 / total, 2),
    }
    return out


def _mem_point(message: dict[str, Any]) -> dict[str, Any]:
    clr = message.get("clr_heap")
    return {
        "rss_mib": round(message["rss"] / MIB, 2),
        "py_blocks": message["py_blocks"],
        "clr_heap_mib": round(clr / MIB, 2) if clr is not None else None,
        "threads": message["threads"],
    }


STARTUP_KEYS = (
    "start_ms", "connect_initialize_ms", "first_get_windows_ms", "first_answer_ms", "total_ms", "handoff_ms",
    "import_wpfprobe_ms", "rss_app_mib", "delta_import_wpfprobe_mib", "delta_start_mib", "delta_warmup_mib",
    "delta_total_after_warmup_mib",
)  # fmt: skip
GROWTH_BLOCKS = 5


def run_subprocess_parts(runs: int, leak_calls: int, tok: Tokenizers) -> dict[str, Any]:
    """Parts 2 and 3: `runs` fresh processes as shipped, then `runs` with TCP_NODELAY; the first
    of those also runs the growth check (the fix only makes it quicker: memory is the same)."""

    async def all_runs(nodelay: bool) -> list[dict[str, Any]]:
        return [
            await startup_run(i, nodelay=nodelay, leak_calls=leak_calls if nodelay and i == 0 else 0, tok=tok)
            for i in range(runs)
        ]

    out: dict[str, Any] = {}
    for variant in VARIANTS:
        results = asyncio.run(all_runs(variant == "nodelay"))
        out[variant] = {
            "runs": results,
            "median": {k: round(statistics.median(r[k] for r in results), 2) for k in STARTUP_KEYS},
        }
    out["growth"] = out["nodelay"]["runs"][0].pop("growth")
    out["example_tokens"] = out["shipped"]["runs"][0].pop("example_tokens", None)
    out["nodelay"]["runs"][0].pop("example_tokens", None)  # the same app and tree, a second time
    out["server_import_ms"] = server_import_ms(runs)
    return out


#: What start()'s serve step imports (server._start_http_soon's build, _http_app): the catalog and
#: its tools, the kernel, its HTTP endpoints, uvicorn. Before the clock: what is loaded by then
#: (wpfprobe, start()'s own module, and the engine, which the start-up preloads before it serves).
SERVER_IMPORT = """
import time, wpfprobe, wpfprobe.mcp.server, wpfprobe.engine.engine
started = time.perf_counter()
import wpfprobe.mcp.catalog, wpfprobe.mcp.protocol, wpfprobe.mcp.httpserve, wpfprobe.mcp.handshake
import wpfprobe.mcp.spliced, uvicorn
print((time.perf_counter() - started) * 1000)
"""


def server_import_ms(runs: int) -> float:
    """What start() spends importing its server and uvicorn: timed apart, in fresh processes (median)."""
    times = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", SERVER_IMPORT], capture_output=True, text=True, check=True, cwd=ROOT
        )
        times.append(float(done.stdout.strip().splitlines()[-1]))
    return round(statistics.median(times), 1)


# -- reporting -------------------------------------------------------------------


def source_state() -> dict[str, Any]:
    """Which code was measured: the commit, the files under src/ changed since it, a hash of src/."""
    import hashlib

    def git(*args: str) -> str | None:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10)
            if done.returncode == 0:
                return done.stdout
        return None

    digest = hashlib.sha256()
    for path in sorted((ROOT / "src").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    changed = git("status", "--porcelain", "--", "src")
    return {
        "git_commit": (git("rev-parse", "--short", "HEAD") or "").strip() or None,
        "src_changed_since_commit": [line[3:] for line in (changed or "").splitlines()],
        "src_sha256": digest.hexdigest()[:16],
    }


def machine_info(runtime: str, tok: Tokenizers, display: str | None, private_xvfb: bool) -> dict[str, Any]:
    cpu_model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    return {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "runtime": runtime,
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model or platform.processor(),
        "display": display or "(desktop)",
        "private_xvfb": private_xvfb,
        "tokenizer": tok.note,
        "source": source_state(),
    }


def print_report(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(f"\nwpfprobe MCP benchmark, {m['date']}")
    print(f"python {m['python']}, {m['runtime']}, {m['cpu_count']} cpus ({m['cpu_model']}), {m['platform']}")
    src = m["source"]
    changed = ", ".join(src["src_changed_since_commit"]) or "none"
    print(f"source: commit {src['git_commit']}, src/ changed since: {changed} (src sha256 {src['src_sha256']})")

    lat = report["latency"]
    shipped, fixed = lat["variants"]["shipped"], lat["variants"]["nodelay"]
    print(
        f"\n1. Per-tool latency over HTTP, one SDK client session, {lat['controls']}-control form, "
        f"{lat['calls_per_tool']} rounds; floor = {NOOP} p50: {shipped['floor_p50_ms']} ms as shipped, "
        f"{fixed['floor_p50_ms']} ms with TCP_NODELAY"
    )
    paced = lat["paced"]
    head = (
        f"{'call':<36} {'n':>3} | {'p50':>6} {'p95':>6} {'xfloor':>6} | {'p50':>6} {'p95':>6} {'xfloor':>6} "
        f"{'handler':>7} | {'p50':>6} {'handler':>7} | {'cli chk':>7} {'resp KB':>7}"
    )
    print(
        f"{'':<40} | {'as shipped (ms)':^20} | {'with TCP_NODELAY (ms)':^28} | {'paced (ms)':^14} | {'one result':^15}"
    )
    print(head)
    print("-" * len(head))

    def cell(value: float | None, width: int) -> str:
        return f"{'':>{width}}" if value is None else f"{value:>{width}.1f}"

    for a, b in zip(shipped["rows"], fixed["rows"], strict=True):
        print(
            f"{a['call']:<36} {a['n']:>3} | {a['p50_ms']:>6.1f} {a['p95_ms']:>6.1f} {a['ratio_p50_to_floor']:>6.1f} | "
            f"{b['p50_ms']:>6.1f} {b['p95_ms']:>6.1f} {b['ratio_p50_to_floor']:>6.1f} {cell(b['handler_p50_ms'], 7)} | "
            f"{cell(b['paced_p50_ms'], 6)} {cell(b['paced_handler_p50_ms'], 7)} | "
            f"{b['client_schema_check_ms']:>7.1f} {b['response_bytes'] / 1024:>7.1f}"
        )
    print("xfloor: p50 / the no-op's p50 on the same server. handler: the tool function's own time (engine, text,")
    print(f"JSON), p50. paced: {paced['calls_per_tool']} calls per tool, each after a {paced['spacing_s']:.1f} s pause "
          f"(census_ttl {paced['census_ttl_s']:g} s), TCP_NODELAY server.")  # fmt: skip
    print("cli chk: checking one result against the output schema in the SDK client (jsonschema, inside the")
    print("client's latency; the server checks nothing after the tool); resp: the result as JSON on the wire, in KB.")

    st = report["startup"]
    for variant, title in (("shipped", "as shipped"), ("nodelay", "with TCP_NODELAY")):
        med, runs = st[variant]["median"], st[variant]["runs"]
        print(f"\n2{'' if variant == 'shipped' else 'b'}. wpfprobe.start() to first answered wpf_get_windows, {title}: "
              f"example app, median of {len(runs)} fresh processes")  # fmt: skip
        print(
            f"  start() call                         {med['start_ms']:>8.1f} ms  (runs: {', '.join(str(r['start_ms']) for r in runs)})"
        )
        print(f"  client connect + initialize          {med['connect_initialize_ms']:>8.1f} ms")
        print(f"  first wpf_get_windows (+tools/list)  {med['first_get_windows_ms']:>8.1f} ms")
        print(f"  first request, after start()         {med['first_answer_ms']:>8.1f} ms")
        print(
            f"  total, before start() to the answer  {med['total_ms']:>8.1f} ms  (runs: {', '.join(str(r['total_ms']) for r in runs)})"
        )
    runs = st["shipped"]["runs"]
    med = st["shipped"]["median"]
    print(
        f"  (of start(): importing its server and uvicorn, timed apart in fresh processes: {st['server_import_ms']:.1f} ms;"
    )
    print(f"  import wpfprobe before start(): {med['import_wpfprobe_ms']:.1f} ms, not counted; "
          f"mcp imported before start(): {any(r['mcp_imported_before_start'] for r in runs)})")  # fmt: skip

    print(
        f"\n3. Resident memory the probe adds, as shipped (RSS, median of {len(runs)}; the app alone: {med['rss_app_mib']} MiB)"
    )
    print(f"  import wpfprobe                      {med['delta_import_wpfprobe_mib']:>+8.2f} MiB")
    print(f"  wpfprobe.start() (kernel, uvicorn)   {med['delta_start_mib']:>+8.2f} MiB")
    print(f"  first {WARMUP_CALLS} tool calls (full tree too)   {med['delta_warmup_mib']:>+8.2f} MiB")
    print(f"  total after the warm-up              {med['delta_total_after_warmup_mib']:>+8.2f} MiB")
    g = st["growth"]
    print(f"  growth: {g['calls']} more calls of the same mix in one process (the TCP_NODELAY server, for speed):")
    print(f"    {'calls':>6} {'RSS MiB':>9} {'Python blocks':>14} {'CLR heap MiB':>13}")
    for p in g["points"]:
        clr = "" if p["clr_heap_mib"] is None else f"{p['clr_heap_mib']:.2f}"
        print(f"    {p['calls']:>6} {p['rss_mib']:>9.2f} {p['py_blocks']:>14} {clr:>13}")
    c = g["after_full_clr_gc"]
    clr = "" if c["clr_heap_mib"] is None else f"{c['clr_heap_mib']:.2f}"
    print(
        f"    {'GC.Collect':>10} {c['rss_mib']:>5.2f} {c['py_blocks']:>14} {clr:>13}   (a full CLR collection, then read)"
    )
    print(f"    RSS {g['rss_kib_per_call_overall']:+.2f} KiB/call overall, {g['rss_kib_per_call_last_block']:+.2f} in the last "
          f"block, {g['rss_kib_per_call_after_full_clr_gc']:+.2f} after the CLR collection; "
          f"Python blocks {g['py_blocks_delta']:+d}")  # fmt: skip

    print(f"\n4. Tokens per node, wpf_get_visual_tree maxDepth=10 (tokens: {m['tokenizer']})")
    tok_rows = [t for t in (st.get("example_tokens"), lat.get("big_form_tokens")) if t]
    methods = list(tok_rows[0]["text_tokens_per_node"]) if tok_rows else []
    head = f"{'':<12} {'nodes':>6} | {'text: B':>8} {'B/node':>7} " + " ".join(f"{k:>11}" for k in methods)
    head += f" | {'JSON B/node':>11} " + " ".join(f"{k:>11}" for k in methods)
    print(
        f"{'':<19} | {'text block, tokens/node':^{8 + 7 + 12 * len(methods) + 1}} | {'structured JSON, tokens/node':^{11 + 12 * len(methods) + 1}}"
    )
    print(head)
    print("-" * len(head))
    for t in tok_rows:
        line = f"{t['app']:<12} {t['nodes']:>6} | {t['text_bytes']:>8} {t['text_bytes_per_node']:>7.1f} "
        line += " ".join(f"{t['text_tokens_per_node'][k]:>11.2f}" for k in methods)
        line += f" | {t['json_bytes_per_node']:>11.1f} " + " ".join(
            f"{t['json_tokens_per_node'][k]:>11.2f}" for k in methods
        )
        print(line)
    from wpfprobe_clr._objects import ID_PREFIX_LETTERS

    for t in tok_rows:
        for k, v in t["text_tokens_per_node_over_all_prefixes"].items():
            print(f"  {t['app']}, text, {k} over all {len(ID_PREFIX_LETTERS) ** 2} possible node-id prefixes (this run: {t['id_prefix']!r}): "
                  f"min {v['min']:.2f}, median {v['median']:.2f}, max {v['max']:.2f} tokens/node; "
                  f"above 12 for {v['share_above_12_per_node']:.0%} of prefixes")  # fmt: skip
    if report.get("actions"):
        print_actions(report["actions"], read_floor=fixed["floor_p50_ms"])
    print()


def print_actions(a: dict[str, Any], *, read_floor: float) -> None:
    mcp, br, settle = a["mcp"], a["breakdown"], a["os_input_settle_s"] * 1000
    print(
        "\n5. Action round trips over HTTP (call to the answer with before/after), tier=mutate server,\n"
        f"   one SDK client session, {a['controls']}-control form, {a['calls_per_tool']} rounds; "
        f"floor = {NOOP} p50: {mcp['floor_p50_ms']} ms (part 1's: {read_floor} ms)"
    )
    head = f"{'call':<36} {'n':>3} | {'p50':>6} {'p95':>6} {'xfloor':>6} | {'handler':>7} {'outside':>7} | changed"
    print(head)
    print("-" * (len(head) + 12))
    for r in mcp["rows"]:
        handler = "" if r["handler_p50_ms"] is None else f"{r['handler_p50_ms']:>7.1f}"
        outside = "" if r["outside_handler_p50_ms"] is None else f"{r['outside_handler_p50_ms']:>7.1f}"
        changed = "" if r["last_changed"] is None else ",".join(r["last_changed"]) or "-"
        print(
            f"{r['call']:<36} {r['n']:>3} | {r['p50_ms']:>6.1f} {r['p95_ms']:>6.1f} {r['ratio_p50_to_floor']:>6.1f} | "
            f"{handler:>7} {outside:>7} | {changed}"
        )
    os_row = mcp["rows"][-1]
    print("handler: the tool function's own time (hops, audit append, OS input), p50; outside: p50 - handler")
    print("(client, HTTP, kernel, JSON, the client's schema check). changed: the last result's changed fields.")
    print(
        f'wpf_click mode="os" (timed every {mcp["os_click_every"]} round(s)) includes a fixed sleep, '
        f"os_input_settle = {settle:.0f} ms;\nwithout it: p50 {os_row['p50_ms'] - settle:.1f} ms "
        f"({(os_row['p50_ms'] - settle) / mcp['floor_p50_ms']:.1f}x floor)."
    )
    w = mcp["wait_polls"]
    print(f"wpf_wait_for: {w['calls']} calls, at most {w['max']} poll(s) each.")
    c = a["clicks"]
    print(
        f"clicks counted by the app's handler: {c['counted_by_app_after_mcp']} of {c['sent_over_mcp']} sent over MCP; "
        f"{c['counted_by_app_in_total']} of {c['sent_in_total']} in all."
    )
    au = a["audit"]
    if au.get("enabled"):
        print(
            "audit: every action but wpf_wait_for appends an fsynced entry, inside the round trip; the log\n"
            f"({au['fs']}, in a temporary WPFPROBE_HOME) has {au['entries']} entries (expected "
            f"{au['expected_entries']}), verify: {'OK' if au['ok'] else 'FAILED'}."
        )
    print(
        f"\n5b. Where the time goes: the driver called directly in this process (no MCP), p50 of {br['rounds']} "
        f"({br['os_rounds']} for OS);\n    one bare engine hop: {br['bare_hop_wall_p50_ms']:.2f} ms "
        f"({br['bare_hop_hold_p50_ms']:.2f} ms on the UI thread)"
    )
    head = (
        f"{'call':<28} {'n':>3} | {'wall':>6} | {'hops':>4} {'each hop: wall (held on UI thread)':<36} {'sum':>5} | "
        f"{'audit':>6} | {'rest':>6}"
    )
    print(head)
    print("-" * len(head))
    for r in br["rows"]:
        each = " / ".join(f"{w:.1f} ({h:.1f})" for w, h in zip(r["hop_wall_p50_ms"], r["hop_hold_p50_ms"], strict=True))
        print(
            f"{r['call']:<28} {r['n']:>3} | {r['wall_p50_ms']:>6.1f} | {r['hops']:>4} {each:<36} "
            f"{r['hops_wall_sum_p50_ms']:>5.1f} | {r['audit_p50_ms']:>6.1f} | {r['rest_p50_ms']:>6.1f}"
        )
    print("hops: prepare / settle / observe for toolkit actions (the action runs as its own UI message between")
    print("the first two, so its time shows in the settle hop's wall), prepare / observe in OS mode, one per poll")
    print("for wpf_wait_for, one for wpf_set_property. audit: the fsynced append. rest: wall - hops - audit")
    print(f"(argument checks, models; for the OS click also the OS input and the {settle:.0f} ms settle sleep).")
    if br.get("os_backend_click_p50_ms") is not None:
        print(
            "The OS back end's click alone (xdotool, no hops, audit or settle): "
            f"p50 {br['os_backend_click_p50_ms']:.1f} ms of {br['os_rounds']}."
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--controls", type=int, default=1000, help="controls of the latency form, the Form included (default 1000)"
    )
    parser.add_argument("--calls", type=int, default=50, help="timed calls per tool (default 50)")
    parser.add_argument(
        "--paced", type=int, default=5, help="calls per tool at an agent's pace, a pause before each (default 5)"
    )
    parser.add_argument("--runs", type=int, default=5, help="fresh processes for start-up and memory (default 5)")
    parser.add_argument(
        "--leak-calls",
        type=int,
        default=400,
        help=f"calls per block of the growth check, {GROWTH_BLOCKS} blocks (default 400)",
    )
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help=f"JSON output (default {DEFAULT_JSON.relative_to(ROOT)})"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--nodelay", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.nodelay)
    if args.calls < 2 or args.runs < 1 or args.leak_calls < 1:
        parser.error("--calls must be at least 2, --runs and --leak-calls at least 1")

    import warnings

    warnings.filterwarnings("ignore", message="Hosting Mono versions before v6.12")
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    tok = Tokenizers()
    private_xvfb = not sys.platform.startswith("win") and not os.environ.get("DISPLAY")
    # Part 5 appends to the audit log, and every server writes a session manifest: both go to a
    # temporary WPFPROBE_HOME (inherited by the child processes), never the user's real one.
    home = tempfile.TemporaryDirectory(prefix="wpfprobe-bench-home-")
    os.environ["WPFPROBE_HOME"] = home.name
    for name in ("WPFPROBE_AUDIT", "WPFPROBE_AUDIT_LOG"):  # audit on, at its default path under that home
        os.environ.pop(name, None)
    with home, virtual_display() as display:
        wpfprobe_clr.ensure_clr()
        print(
            f"[bench] part 1: {args.controls}-control form, {args.calls} rounds of calls ...",
            file=sys.stderr,
            flush=True,
        )
        latency = run_latency(args.controls, args.calls, tok, args.paced)
        print(f"[bench] parts 2-3: {args.runs} fresh processes with the example app ...", file=sys.stderr, flush=True)
        startup = run_subprocess_parts(args.runs, args.leak_calls, tok)
    report = {
        "machine": machine_info(latency["runtime"], tok, display, private_xvfb),
        "settings": {
            "controls": args.controls,
            "calls": args.calls,
            "paced": args.paced,
            "runs": args.runs,
            "leak_calls": args.leak_calls,
        },
        "actions": latency.pop("actions"),
        "latency": latency,
        "startup": startup,
    }
    print_report(report)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
