"""What starting the probe costs the app: how long ``wpfprobe.start()`` takes, when the first answer comes,
how long the UI thread is held meanwhile, and the memory import and start add, in fresh processes.

    python benchmarks/bench_startup.py [--runs 5] [--src DIR] [--no-parts] [--no-raw] [--json PATH]

Every figure comes from a fresh process (``--child``): the example app
(examples/winforms_app.py, a plain form of about 25 controls) is shown on a
UI thread of its own, two heartbeats start, and only then is wpfprobe
imported and started, as an app that imports it at its top would. Three kinds
of process, ``--runs`` of each but the last:

- **answer**: ``wpfprobe.start(app)`` is timed (the call, from before it to
  its return: what delays the app's first window when it is called before
  ``Application.Run``); the client (this process, the SDK already imported,
  as an agent host has it) connects as soon as the URL is known and calls
  ``wpf_get_windows``: the first answer, from the instant before ``start()``.
  Meanwhile both heartbeats post to the UI thread every 2 ms: a **.NET
  heartbeat** (a delegate emitted with System.Reflection.Emit, posted by a
  .NET thread: no Python runs in it, and it leaves System.Linq.Expressions
  cold for the probe's first compile) whose longest gap is the UI thread's
  longest hold, and a **Python heartbeat** (a Python callable posted from a
  Python thread, as an app's handlers are) whose longest wait adds what held
  the GIL. The window is from before ``start()`` to the end of the start-up
  (the probe attached, the walk compiled, the server made) and the first
  answer, plus 0.3 s; the same heartbeats over a second of the idle app
  before ``import wpfprobe`` are the machine's own noise. The SDK's client
  answers a call once it has checked the result against the tool's output
  schema, which it lists the tools for first (a tools/list after the call):
  so **answer** processes of a second kind (unless ``--no-raw``) send one
  plain HTTP POST of ``wpf_get_windows`` instead, in the 2026 envelope, and
  time its answer's last byte: when the answer is the client's to read.
- **idle**: RSS (after ``gc.collect()``) of the app alone, after ``import
  wpfprobe``, when ``start()`` returns, once the start-up is over and has
  settled for a second with no client (the "idle" budget: import and start
  together), then after 20 tool calls of a client (a full tree, a
  screenshot among them).
- **parts** (one process, unless ``--no-parts``): what each part of the
  start-up adds, done by hand one after another in the order the probe does
  them: the import, ``locate`` (what start() does on the caller's thread),
  the settings and DTOs, the engine, the CLR connection (the toolkit's
  modules and the hooks), the walk's compile, uvicorn and the kernel (the
  MCP SDK is made only for a handshake-era client, which this one is not),
  the tools' catalog (its modules imported and made), the tools' listing
  (their Tool objects: made with the catalog before, read from the shipped
  file after, issue 22), the server serving, the first 20 calls; time and RSS
  each, and the objects Python's collector tracks after each with the
  time of one full collection over them (the app's and the probe's: one
  such collection runs whenever enough objects have survived, in whichever
  thread allocates, and holds the GIL throughout).

``--src DIR`` measures another checkout's ``src/`` (say ``git archive`` of
an older commit) with the same harness: the row the history in
docs/benchmarks-mcp.md keeps for every change to the start path. A start
that returns only once it is attached (before issue 22) is handled: its
start-up is over when it returns and its walk has compiled.

The load average at the start and the end is in the report: on a shared
machine the times are not the final ones. Nothing is asserted; the JSON goes
to artifacts/bench_startup.json unless ``--json`` says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import gc
import importlib
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "BENCH "
MIB = 1024 * 1024
BEAT_S = 0.002
SETTLE_S = 0.3
IDLE_SETTLE_S = 1.0
CALLS = 20
SETTINGS_AND_DTOS = ("wpfprobe.core.settings", "wpfprobe.core.models")
TOOL_MIX: list[tuple[str, dict[str, Any]]] = [
    ("wpf_get_session_info", {}),
    ("wpf_get_visual_tree", {"maxDepth": 10}),
    ("wpf_get_visual_tree", {"maxDepth": 3}),
    ("wpf_find_elements", {"locator": "Button[IsEnabled=false]"}),
    ("wpf_inspect_element", {"locator": "#greetingLabel"}),
    ("wpf_get_properties", {"locator": "#nameBox"}),
    ("wpf_get_ancestors", {"locator": "#saveButton"}),
    ("wpf_capture_screenshot", {}),
    ("wpf_get_windows", {}),
    ("wpf_get_children", {}),
]


# -- in the child: the app, the heartbeats, RSS -------------------------------------------------


def rss() -> int:
    gc.collect()
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def heap() -> tuple[int, float]:
    """The objects Python's collector tracks, and the shortest of three full collections over them
    (ms): what one full collection, which runs whenever enough objects have survived, holds the
    GIL for, and so every Python handler of the app, and the UI thread while it runs one."""
    times = []
    for _ in range(3):
        t = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - t) * 1000)
    return len(gc.get_objects()), min(times)


def say(**fields: Any) -> None:
    sys.stdout.write(PREFIX + json.dumps(fields) + "\n")
    sys.stdout.flush()


class NetHeartbeat:
    """Beats posted to the UI thread every 2 ms by a .NET thread; each stamps Stopwatch ticks there.

    Both methods are emitted as IL (System.Reflection.Emit): no Python runs in a beat, and the
    expression compiler the probe uses stays cold until the probe uses it.
    """

    def __init__(self, form: Any) -> None:
        import clr
        from System import Action, Array, Delegate, Int32, Int64, Object, Type
        from System.Collections.Concurrent import ConcurrentQueue
        from System.Diagnostics import Stopwatch
        from System.Reflection.Emit import DynamicMethod, OpCodes
        from System.Threading import ManualResetEvent, Thread, ThreadStart
        from System.Windows.Forms import Control

        queue_type = clr.GetClrType(ConcurrentQueue[Int64])
        stamp = clr.GetClrType(Stopwatch).GetMethod("GetTimestamp")
        enqueue = queue_type.GetMethod("Enqueue")
        self.frequency = float(Stopwatch.Frequency)
        self._stopwatch = Stopwatch
        self.ran = ConcurrentQueue[Int64]()
        self._stop = ManualResetEvent(False)

        beat = DynamicMethod("beat", None, Array[Type]([queue_type]))
        il = beat.GetILGenerator()
        il.Emit(OpCodes.Ldarg_0)
        il.Emit(OpCodes.Call, stamp)
        il.Emit(OpCodes.Callvirt, enqueue)
        il.Emit(OpCodes.Ret)
        beat_delegate = beat.CreateDelegate(clr.GetClrType(Action), self.ran)

        wait_one = clr.GetClrType(ManualResetEvent).GetMethod("WaitOne", Array[Type]([clr.GetClrType(Int32)]))
        begin = clr.GetClrType(Control).GetMethod("BeginInvoke", Array[Type]([clr.GetClrType(Delegate)]))
        loop = DynamicMethod("loop", None, Array[Type]([clr.GetClrType(Array[Object])]))
        il = loop.GetILGenerator()
        top, end = il.DefineLabel(), il.DefineLabel()
        # while (!((ManualResetEvent)state[0]).WaitOne(2)) ((Control)state[1]).BeginInvoke((Delegate)state[2]);
        il.MarkLabel(top)
        il.Emit(OpCodes.Ldarg_0)
        il.Emit(OpCodes.Ldc_I4, Int32(0))
        il.Emit(OpCodes.Ldelem_Ref)
        il.Emit(OpCodes.Castclass, clr.GetClrType(ManualResetEvent))
        il.Emit(OpCodes.Ldc_I4, Int32(int(BEAT_S * 1000)))
        il.Emit(OpCodes.Callvirt, wait_one)
        il.Emit(OpCodes.Brtrue, end)
        il.Emit(OpCodes.Ldarg_0)
        il.Emit(OpCodes.Ldc_I4, Int32(1))
        il.Emit(OpCodes.Ldelem_Ref)
        il.Emit(OpCodes.Castclass, clr.GetClrType(Control))
        il.Emit(OpCodes.Ldarg_0)
        il.Emit(OpCodes.Ldc_I4, Int32(2))
        il.Emit(OpCodes.Ldelem_Ref)
        il.Emit(OpCodes.Castclass, clr.GetClrType(Delegate))
        il.Emit(OpCodes.Callvirt, begin)
        il.Emit(OpCodes.Pop)
        il.Emit(OpCodes.Br, top)
        il.MarkLabel(end)
        il.Emit(OpCodes.Ret)
        state = Array[Object]([self._stop, form, beat_delegate])
        self._thread = Thread(loop.CreateDelegate(clr.GetClrType(ThreadStart), state))
        self._thread.IsBackground = True
        self._thread.Start()
        # Stopwatch ticks to time.monotonic(): both read CLOCK_MONOTONIC here; the offset is measured.
        pairs = []
        for _ in range(5):
            before = time.monotonic()
            ticks = int(Stopwatch.GetTimestamp())
            after = time.monotonic()
            pairs.append((after - before, (before + after) / 2 - ticks / self.frequency))
        self._offset = min(pairs)[1]

    def stamps(self) -> list[float]:
        return [int(t) / self.frequency + self._offset for t in self.ran.ToArray()]

    def stop(self) -> None:
        self._stop.Set()
        self._thread.Join(2000)


class PyHeartbeat:
    """A Python callable posted to the UI thread every 2 ms from a Python thread (due and ran, monotonic)."""

    def __init__(self, form: Any) -> None:
        from System import Action

        self.due: list[float] = []
        self.ran: list[float] = []
        self._form = form
        self._beat = Action(lambda: self.ran.append(time.monotonic()))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._post, name="python-heartbeat", daemon=True)
        self._thread.start()

    def _post(self) -> None:
        due = time.monotonic()
        while not self._stop.is_set():
            due += BEAT_S
            left = due - time.monotonic()
            if left > 0 and self._stop.wait(left):
                return
            self.due.append(due)
            self._form.BeginInvoke(self._beat)

    def waits_ms(self, start: float, end: float) -> list[float]:
        ran = list(self.ran)
        return [(r - d) * 1000 for d, r in zip(self.due[: len(ran)], ran, strict=False) if start <= d <= end]

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)


def gaps_ms(stamps: list[float], start: float, end: float) -> list[float]:
    """Gaps between beats that overlap [start, end]: from the last beat before to the first after."""
    before = [t for t in stamps if t < start]
    inside = [t for t in stamps if start <= t <= end]
    after = [t for t in stamps if t > end]
    seq = ([before[-1]] if before else []) + inside + ([after[0]] if after else [])
    return [(b - a) * 1000 for a, b in itertools.pairwise(seq)]


def beats(net: NetHeartbeat, py: PyHeartbeat, start: float, end: float) -> dict[str, Any]:
    gaps = gaps_ms(net.stamps(), start, end)
    waits = py.waits_ms(start, end)
    return {
        "net_max_gap_ms": round(max(gaps), 1) if gaps else None,
        "net_gaps_over_16ms": sum(1 for g in gaps if g > 16),
        "py_max_wait_ms": round(max(waits), 1) if waits else None,
        "py_waits_over_16ms": sum(1 for w in waits if w > 16),
        "window_ms": round((end - start) * 1000, 1),
    }


def load_example() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("winforms_app", ROOT / "examples" / "winforms_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def startup_over(handle: Any, timeout: float = 60.0) -> None:
    """Until the probe is attached, its walk compiled and its server made (or, for a start that
    returned attached, until its walk compiled on the UI thread)."""
    if hasattr(handle, "wait_ready"):
        handle.wait_ready(timeout)
        from wpfprobe_clr._compiling import wait

        wait(timeout)
        handle._tools_made.wait(timeout)
        return
    from wpfprobe_clr.toolkits.winforms import walker

    deadline = time.monotonic() + timeout
    while not walker.ready() and time.monotonic() < deadline:
        time.sleep(0.005)


def child_main(kind: str) -> int:
    os.environ["MONO_THREADS_SUSPEND"] = "preemptive"
    example = load_example()
    app = example.start_in_background()
    form = app.app
    net = NetHeartbeat(form)
    py = PyHeartbeat(form)
    handle = None
    try:
        time.sleep(IDLE_SETTLE_S)
        rss_app = rss()
        idle_from = time.monotonic()
        time.sleep(IDLE_SETTLE_S)
        noise = beats(net, py, idle_from, time.monotonic())
        if kind == "parts":
            return parts_main(app, net, py)
        t_import = time.monotonic()
        import wpfprobe

        imported = time.monotonic()
        rss_imported = rss()
        t0 = time.monotonic()
        handle = wpfprobe.start(form, name="bench-startup")
        t1 = time.monotonic()
        rss_returned = rss() if kind == "idle" else None
        say(event="started", url=handle.url, token=handle.token, t0=t0, t1=t1)
        if kind == "answer":
            command = sys.stdin.readline().strip()  # the client has its answer
            assert command == "answered", command
        startup_over(handle)
        over = time.monotonic()
        time.sleep(SETTLE_S if kind == "answer" else IDLE_SETTLE_S)
        out: dict[str, Any] = {
            "event": "over",
            "import_ms": round((imported - t_import) * 1000, 1),
            "start_ms": round((t1 - t0) * 1000, 1),
            "startup_over_ms": round((over - t0) * 1000, 1),
            "rss_app": rss_app,
            "rss_imported": rss_imported,
            "noise": noise,
        }
        if kind == "answer":
            out["beats"] = beats(net, py, t0, time.monotonic())
        else:
            out.update(rss_returned=rss_returned, rss_idle=rss())
        say(**out)
        if kind == "idle":
            command = sys.stdin.readline().strip()  # the client made its calls
            assert command == "called", command
            say(event="warm", rss_warm=rss())
        sys.stdin.readline()
    finally:
        if handle is not None:
            handle.stop()
        net.stop()
        py.stop()
        app.close()
    return 0


def parts_main(app: Any, net: NetHeartbeat, py: PyHeartbeat) -> int:
    """Each part of a start, by hand, in the probe's order: (label, ms, RSS after)."""
    import wpfprobe_clr
    from wpfprobe_clr import _compiling

    form = app.app
    rows: list[tuple[str, float, int, int, float]] = [("app alone", 0.0, rss(), *heap())]
    keep: dict[str, Any] = {}

    def part(label: str, fn: Any) -> None:
        t = time.monotonic()
        keep[label] = fn()
        rows.append((label, (time.monotonic() - t) * 1000, rss(), *heap()))

    compiles: list[Any] = []
    real_compile = _compiling.compile_walk
    _compiling.compile_walk = lambda kind, ui, **_: compiles.append(kind)  # type: ignore[assignment]
    try:
        part("import wpfprobe", lambda: __import__("wpfprobe"))
        part("import wpfprobe.mcp.server (start's own)", lambda: __import__("wpfprobe.mcp.server"))
        part("locate (on the caller's thread)", lambda: wpfprobe_clr.locate(form))
        part("settings and DTOs (pydantic)", lambda: [importlib.import_module(m) for m in SETTINGS_AND_DTOS])
        part("the engine's modules", lambda: __import__("wpfprobe.engine.engine"))
        part("the toolkit's modules", lambda: __import__("wpfprobe_clr.toolkits.winforms.adapter"))
        from wpfprobe.api.probe import connected
        from wpfprobe.core.settings import ProbeSettings

        settings = ProbeSettings()

        def connect() -> Any:
            conn = wpfprobe_clr.connect(located=keep["locate (on the caller's thread)"], timeout=30)
            return connected(conn, "bench-parts", settings)

        part("CLR connection, hooks, engine", connect)
    finally:
        _compiling.compile_walk = real_compile  # type: ignore[assignment]
    probe = keep["CLR connection, hooks, engine"]

    def compile_walk() -> None:
        # As the probe's compile thread does it (wpfprobe_clr._compiling): the compile, then the
        # C heap's freed pages given back (wpfprobe_clr._heap).
        from wpfprobe_clr._heap import return_freed_memory

        def compile_and_trim() -> None:
            wpfprobe_clr.toolkits.prepare_walk("winforms")
            return_freed_memory()

        thread = threading.Thread(target=compile_and_trim)
        thread.start()
        thread.join()

    part("the walk's compile (a thread)", compile_walk)
    # As start() serves: the catalog and the kernel (the 2026 era); the MCP SDK is made only for a
    # handshake-era client, which this benchmark's is not.
    part("uvicorn and the kernel", lambda: __import__("uvicorn") and __import__("wpfprobe.mcp.httpserve"))
    from wpfprobe.mcp import server as _server

    def catalog() -> Any:
        from wpfprobe.mcp.catalog import ToolCatalog

        return ToolCatalog(probe.engine, tier="read")

    # Its modules imported in the part (the tools' argument models among them), as start() does.
    part("the tools' catalog", catalog)
    # Made with the catalog before issue 22's deferral; since, on the compile's thread after the
    # start-up (or at a client's first tools/list): the shipped Tool objects read, no model built.
    part("the tools' listing", lambda: getattr(keep["the tools' catalog"], "build_listing", lambda: None)())
    import secrets

    token = secrets.token_urlsafe(32)
    part("the server serving", lambda: _server._start_http(probe, keep["the tools' catalog"], tier="read", port=0,
                                                            token=token))  # fmt: skip
    handle = keep["the server serving"]
    say(event="parts", rows=rows[:], url=handle.url, token=token)
    sys.stdin.readline()  # the client made its calls
    rows.append((f"{CALLS} tool calls (a client)", 0.0, rss(), *heap()))
    say(event="parts", rows=rows)
    sys.stdin.readline()
    handle.stop()
    net.stop()
    py.stop()
    app.close()
    return 0


# -- in the parent: the children and the client -------------------------------------------------


class Child:
    def __init__(self, kind: str, src: Path | None) -> None:
        env = dict(os.environ)
        if src is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - read back if the child fails
        self.proc = subprocess.Popen(
            [sys.executable, "-W", "ignore", str(Path(__file__).resolve()), "--child", kind],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, cwd=ROOT, env=env,
        )  # fmt: skip

    def read(self, timeout: float = 180.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith(PREFIX):
                return dict(json.loads(line[len(PREFIX) :]))
        self._stderr.seek(0)
        raise RuntimeError(
            "the child ended without answering:\n" + self._stderr.read().decode(errors="replace")[-4000:]
        )

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def finish(self) -> None:
        try:
            with contextlib.suppress(OSError):
                self.send("stop")
            self.proc.wait(60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()  # this child only, by its own handle
                self.proc.wait(10)
            self._stderr.close()


async def client_calls(url: str, token: str, *, calls: int = 0) -> tuple[float, float]:
    """Connect, ``wpf_get_windows``, then ``calls`` more of the mix; (connected, answered) monotonic times."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            connected = time.monotonic()
            first = await client.call_tool("wpf_get_windows", {})
            answered = time.monotonic()
            if first.is_error:
                raise RuntimeError(f"wpf_get_windows failed: {first.content}")
            for i in range(calls):
                tool, args = TOOL_MIX[i % len(TOOL_MIX)]
                result = await client.call_tool(tool, args)
                if result.is_error:
                    raise RuntimeError(f"{tool} failed: {result.content}")
    return connected, answered


def raw_call(url: str, token: str) -> float:
    """One tools/call of ``wpf_get_windows`` as a plain HTTP POST (the 2026 envelope, no session, no
    SDK); the monotonic time its whole answer had arrived."""
    import httpx2

    version = "2026-07-28"
    body = {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wpf_get_windows", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {},
        }},
    }  # fmt: skip
    headers = {
        "Authorization": f"Bearer {token}", "MCP-Protocol-Version": version, "Mcp-Method": "tools/call",
        "Mcp-Name": "wpf_get_windows", "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }  # fmt: skip
    with httpx2.Client(timeout=120) as http:
        answer = http.post(url, headers=headers, content=json.dumps(body))
        answered = time.monotonic()
    if answer.status_code != 200 or '"isError":true' in answer.text:
        raise RuntimeError(f"wpf_get_windows failed: {answer.status_code} {answer.text[:500]}")
    return answered


def answer_run(src: Path | None, *, raw: bool = False) -> dict[str, Any]:
    child = Child("answer", src)
    try:
        started = child.read()
        seen = time.monotonic()
        if raw:
            connected, answered = None, raw_call(started["url"], started["token"])
        else:
            connected, answered = asyncio.run(client_calls(started["url"], started["token"]))
        child.send("answered")
        over = child.read()
    finally:
        child.finish()
    t0 = started["t0"]
    return {
        "start_ms": over["start_ms"],
        "import_ms": over["import_ms"],
        "handoff_ms": round((seen - started["t1"]) * 1000, 1),
        "connected_ms": round((connected - t0) * 1000, 1) if connected is not None else None,
        "first_answer_ms": round((answered - t0) * 1000, 1),
        "first_call_ms": round((answered - connected) * 1000, 1) if connected is not None else None,
        "startup_over_ms": over["startup_over_ms"],
        **{f"beats_{k}": v for k, v in over["beats"].items()},
        **{f"noise_{k}": v for k, v in over["noise"].items()},
    }


def idle_run(src: Path | None) -> dict[str, Any]:
    child = Child("idle", src)
    try:
        started = child.read()
        over = child.read()
        asyncio.run(client_calls(started["url"], started["token"], calls=CALLS - 1))
        child.send("called")
        warm = child.read()
    finally:
        child.finish()
    base = over["rss_app"]
    return {
        "rss_app_mib": round(base / MIB, 1),
        "import_mib": round((over["rss_imported"] - base) / MIB, 2),
        "start_returned_mib": round((over["rss_returned"] - over["rss_imported"]) / MIB, 2),
        "idle_mib": round((over["rss_idle"] - base) / MIB, 2),
        "warm_mib": round((warm["rss_warm"] - base) / MIB, 2),
    }


def parts_run(src: Path | None) -> list[dict[str, Any]]:
    child = Child("parts", src)
    try:
        first = child.read()
        asyncio.run(client_calls(first["url"], first["token"], calls=CALLS - 1))
        child.send("called")
        rows = child.read()["rows"]
    finally:
        child.finish()
    out, last = [], rows[0][2]
    for label, ms, value, objects, collect_ms in rows:
        out.append({"part": label, "ms": round(ms, 1), "rss_mib": round(value / MIB, 2),
                    "adds_mib": round((value - last) / MIB, 2), "gc_objects": objects,
                    "full_collection_ms": round(collect_ms, 1)})  # fmt: skip
        last = value
    return out


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    if not runs:
        return {}
    keys = [k for k, v in runs[0].items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return {k: round(statistics.median(r[k] for r in runs if r.get(k) is not None), 2) for k in keys}


def render(report: dict[str, Any]) -> str:
    m, mem = report["answer"]["median"], report["idle"]["median"]
    runs = len(report["answer"]["runs"])
    lines = [
        f"wpfprobe start-up, {report['date']}, source {report['source']}",
        f"{report['machine']}; load average {report['load_start']} at the start, {report['load_end']} at the end",
        f"medians of {runs} fresh processes each (the example app, ~25 controls, on its own UI thread):",
        f"  wpfprobe.start() returns                  {m['start_ms']:8.1f} ms   (target <= 100)",
        f"  first wpf_get_windows answer, from start() {m['first_answer_ms']:7.1f} ms   (target <= 250)"
        f"   [connected at {m['connected_ms']:.0f} ms; the call itself {m['first_call_ms']:.0f} ms]",
    ]
    if raw := report.get("raw", {}).get("median"):
        lines.append(
            f"  the same, one plain HTTP POST (no SDK)    {raw['first_answer_ms']:8.1f} ms   (UI thread held"
            f" {raw['beats_net_max_gap_ms']:.1f} ms, a handler waited {raw['beats_py_max_wait_ms']:.1f} ms)"
        )
    lines += [
        f"  start-up over (attached, compiled, served) {m['startup_over_ms']:7.1f} ms",
        f"  UI thread held, longest (.NET heartbeat)  {m['beats_net_max_gap_ms']:8.1f} ms   (target <= 16;"
        f" idle app: {m['noise_net_max_gap_ms']:.1f})",
        f"  a Python handler's longest wait           {m['beats_py_max_wait_ms']:8.1f} ms   (idle app:"
        f" {m['noise_py_max_wait_ms']:.1f})",
        f"  import wpfprobe (not in start())          {m['import_ms']:8.1f} ms",
        f"  RSS: the app alone {mem['rss_app_mib']:.1f} MiB; import {mem['import_mib']:+.2f}; start() returned"
        f" {mem['start_returned_mib']:+.2f};",
        f"       idle after start-up, import and start together {mem['idle_mib']:+.2f} MiB (target <= 20);"
        f" after {CALLS} calls {mem['warm_mib']:+.2f}",
    ]
    if report.get("parts"):
        lines.append("parts, by hand in the probe's order (one process):")
        lines.append(f"  {'part':44s} {'ms':>8s} {'adds MiB':>9s} {'RSS MiB':>9s} {'objects':>8s} {'full GC':>8s}")
        for row in report["parts"]:
            lines.append(f"  {row['part']:44s} {row['ms']:8.1f} {row['adds_mib']:+9.2f} {row['rss_mib']:9.2f}"
                         f" {row.get('gc_objects', 0):8d} {row.get('full_collection_ms', 0.0):6.1f}ms")  # fmt: skip
    return "\n".join(lines)


def source_label(src: Path | None) -> str:
    if src is not None:
        return str(src)
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "src"], capture_output=True, text=True)
        return done.stdout.strip() + (" + changes in src/" if dirty.stdout.strip() else "")
    return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes of each kind (default 5)")
    parser.add_argument("--src", type=Path, default=None, help="measure this src/ directory instead of ./src")
    parser.add_argument("--no-parts", action="store_true", help="skip the part-by-part process")
    parser.add_argument("--no-raw", action="store_true", help="skip the answers to a plain HTTP POST")
    parser.add_argument("--json", type=Path, default=ROOT / "artifacts" / "bench_startup.json")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.path.insert(0, os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or str(ROOT / "src"))
        return child_main(args.child)
    sys.path.insert(0, str(ROOT / "src"))
    from wpfprobe.testing import virtual_display

    # An installed wpfprobe is imported from bytecode compiled at install time. A checkout may
    # have none, or stale (PYTHONDONTWRITEBYTECODE, a branch switched): each fresh process then
    # compiled the probe's sources again, which is no part of what an app pays.
    compileall.compile_dir(str(args.src or ROOT / "src"), quiet=1)
    home = tempfile.mkdtemp(prefix="bench-startup-home-")
    os.environ["WPFPROBE_HOME"] = home  # the manifests go there, and the children inherit it
    load_start = [round(x, 2) for x in os.getloadavg()]
    with virtual_display():
        answers, raws, idles = [], [], []
        for i in range(args.runs):
            print(f"run {i + 1}/{args.runs}", file=sys.stderr, flush=True)
            answers.append(answer_run(args.src))
            if not args.no_raw:
                raws.append(answer_run(args.src, raw=True))
            idles.append(idle_run(args.src))
        parts = [] if args.no_parts else parts_run(args.src)
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()) + " UTC",
        "source": source_label(args.src),
        "machine": f"{os.cpu_count()} cpus, Python {platform.python_version()}, {platform.platform()}",
        "load_start": load_start,
        "load_end": [round(x, 2) for x in os.getloadavg()],
        "answer": {"runs": answers, "median": median_of(answers)},
        "raw": {"runs": raws, "median": median_of(raws)},
        "idle": {"runs": idles, "median": median_of(idles)},
        "parts": parts,
    }
    print(render(report))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"wrote {args.json}")
    import shutil

    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
