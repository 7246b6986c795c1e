"""How long each read tool makes the app wait, measured from outside with two heartbeats.

    python benchmarks/bench_heartbeat.py [--sizes 5000] [--zoo ROWS,ITEMS] [--grid ROWS] [--repeat N] [--no-mcp]
                                         [--json PATH]

Two heartbeats run at once, each posting a beat to the UI thread every 2 ms:

- the **.NET heartbeat**: a delegate compiled with System.Linq.Expressions,
  posted by a .NET thread, stamping a .NET queue. No Python runs in it, so a
  beat runs the moment the UI thread is free: its gaps are how long the UI
  thread itself was held (the app could not paint or take input);
- the **Python heartbeat**: a Python callable posted from a Python thread,
  as a pythonnet app's own handlers and workers are. It needs the GIL twice
  (to post, and to run on the UI thread), so its waits add whatever Python
  work of the probe held the interpreter meanwhile (building 5,000 models
  on the caller's thread, encoding a big JSON answer) to the UI thread's
  holds. A beat's wait is counted from when it was due, so a poster kept
  from the GIL counts too.

Per form size (the same deterministic forms as bench_snapshot.py), and the
widget zoo with ``--zoo``, and a form of a bound DataGridView and a virtual
ListView side by side with ``--grid`` (their rows in view are the nodes), per read tool through the Python API (tree,
children page, find by name, find by type and text over the whole app,
locator resolution, properties, binding info, diagnostics, ...) and through
the MCP server (a client in a process of its own over HTTP: the tree as
compact text and as JSON, an app-wide find, a children page, properties,
diagnostics), over --repeat runs: each heartbeat's longest gap, the median of
each run's longest gap, the p99 and the longest of the beats' waits, the
probe's own longest UI-thread hold, and CPython's full collections that
overlapped the runs (how many, the longest: one holds the GIL throughout, on
whichever thread allocated, so a Python wait as long as one is the
collector's); beside an idle baseline measured the same way.

Then the **GIL share** of a full snapshot, ``tree(max_depth=10)`` through the
API, and through MCP as text and as JSON, against the bare pythonnet walk of
the same form in the same run (the target: at most 0.35x), two ways:

- a Python thread spins on ``time.perf_counter()`` and records every gap
  longer than 50 us, i.e. every time another thread held the GIL, or the OS
  took its core: the idle rate of such gaps is measured and taken off, which
  works on a quiet machine only (on a loaded one the figure is noise, down
  to 0);
- the CPU time of the process's Python threads but the UI thread and the
  benchmark's own (``/proc/self/task/*/schedstat``): the probe's Python
  holds the GIL while it runs, so this is a floor under its GIL time that
  the machine's load hardly moves (the UI thread's share, a slice's
  bookkeeping, is left out: its CPU time is mostly the .NET walk).

The spinner competes for the GIL, so this part runs apart from the heartbeats.

Also: the UI-thread time per node of the snapshot against the bare walk, of
the same snapshot read the engine's own way (``toolkit_walk=False``), and
the compact text's characters per node. No timing is asserted. The load
average at the start and the end is in the report: on a shared machine the
figures are not the final ones. See docs/benchmarks.md.

Internal entry: ``bench_heartbeat.py --client URL`` is the MCP client process
(the token comes on its stdin's first line, then one JSON call per line).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import os
import secrets
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness as h

PROG = "bench_heartbeat"
BEAT_MS = 2
MAX_DEPTH = 10
UI_TIMEOUT = 120.0
IDLE_SECONDS = 1.0
#: A spinner's gap longer than this is another thread holding the GIL (an iteration takes ~0.2 us).
GIL_GAP_S = 50e-6


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000", help="form sizes in controls, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per tool (after 1 warm-up)")
    parser.add_argument("--json", default=str(h.ROOT / "artifacts" / "bench_heartbeat.json"))
    parser.add_argument("--no-mcp", action="store_true", help="skip the tools called through the MCP server")
    parser.add_argument("--only", default=None, help="measure only tools whose label contains this text")
    parser.add_argument("--client", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--zoo", metavar="ROWS,ITEMS", default=None,
        help="also the widget zoo (examples/zoo_app.py) with this many grid rows and catalog items",
    )  # fmt: skip
    parser.add_argument(
        "--grid", metavar="ROWS", type=int, default=None,
        help="also a form of a bound grid and a virtual list view of this many rows each, scrolled half way",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.zoo is not None:
        try:
            rows, items = (int(v) for v in args.zoo.split(","))
        except ValueError:
            parser.error("--zoo takes two integers: ROWS,ITEMS")
        if rows < 0 or items < 0:
            parser.error("--zoo takes counts of 0 or more")
        args.zoo = (rows, items)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes integers separated by commas")
    if any(s < 8 or s > 20000 for s in args.sizes):
        parser.error("each size must be between 8 and 20000 controls")
    if not args.sizes and args.zoo is None and args.grid is None:
        parser.error("nothing to measure: give --sizes, --zoo or --grid")
    if args.grid is not None and args.grid < 0:
        parser.error("--grid takes a count of 0 or more")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


class Heartbeat:
    """Beats posted to the UI thread every BEAT_MS from a .NET thread, stamped on the UI thread.

    The stamps are Stopwatch ticks in two ConcurrentQueues: when each beat
    was posted and when it ran (beats run in the order posted, so the i-th of
    each pair up). The caller brackets each tool with ``now()`` (the same
    clock) and reads the beats in between. The gaps between beats that ran
    say how long the UI thread was held; a beat's delay (ran - posted) is how
    long an input event arriving then would have waited.
    """

    def __init__(self, loop: h.UiLoop) -> None:
        import clr
        from System import Action, Array, Delegate, Int32, Int64
        from System import Type as NetType
        from System.Collections.Concurrent import ConcurrentQueue
        from System.Diagnostics import Stopwatch
        from System.Linq.Expressions import Expression
        from System.Threading import ManualResetEvent, Thread, ThreadStart

        self._stopwatch = Stopwatch
        self.frequency = float(Stopwatch.Frequency)
        self.stamps = ConcurrentQueue[Int64]()
        self.posted = ConcurrentQueue[Int64]()
        self._stop = ManualResetEvent(False)
        stamp = Expression.Call(clr.GetClrType(Stopwatch).GetMethod("GetTimestamp"))
        enqueue = Expression.Call(Expression.Constant(self.stamps), self.stamps.GetType().GetMethod("Enqueue"), stamp)
        beat = Expression.Lambda[Action](enqueue).Compile()
        marshal = loop._marshal  # the hidden control the loop posts through
        begin = marshal.GetType().GetMethod("BeginInvoke", Array[NetType]([clr.GetClrType(Delegate)]))
        wait = clr.GetClrType(ManualResetEvent).GetMethod("WaitOne", Array[NetType]([clr.GetClrType(Int32)]))
        done = Expression.Label("done")
        body = Expression.Loop(
            Expression.IfThenElse(
                Expression.Call(
                    Expression.Constant(self._stop), wait, Expression.Constant(Int32(BEAT_MS), clr.GetClrType(Int32))
                ),
                Expression.Break(done),
                Expression.Block(
                    Expression.Call(
                        Expression.Constant(self.posted), self.posted.GetType().GetMethod("Enqueue"), stamp
                    ),
                    Expression.Call(
                        Expression.Constant(marshal), begin, Expression.Constant(beat, clr.GetClrType(Delegate))
                    ),
                ),
            ),
            done,
        )
        self._thread = Thread(Expression.Lambda[ThreadStart](body).Compile())
        self._thread.IsBackground = True
        self._thread.Start()

    def now(self) -> int:
        return int(self._stopwatch.GetTimestamp())

    def drain(self) -> list[int]:
        return [int(t) for t in self.stamps.ToArray()]

    def after(self, start: int, seconds: float, *, timeout: float = 30.0) -> int:
        """Wait until a beat has run ``seconds`` or more after ``start`` (a stamp); the window's end, as a stamp.

        The window ends when the UI thread shows it, not when a clock here says so.
        """
        want = start + int(seconds * self.frequency)
        deadline = time.monotonic() + seconds + timeout
        while not any(t >= want for t in self.drain()[-4:]):
            if time.monotonic() > deadline:
                raise h.BenchError(f"No beat ran on the UI thread for {seconds + timeout:g} s.")
            time.sleep(0.05)
        return self.now()

    def settled(self, end: int) -> bool:
        return any(t > end for t in self.drain()[-4:])

    def delays_ms(self, start: int, end: int) -> list[float]:
        """Delays of the beats posted in [start, end] that have run."""
        ran = self.stamps.ToArray()
        posted = self.posted.ToArray()
        out = []
        for i in range(min(len(ran), len(posted))):
            p = int(posted[i])
            if start <= p <= end:
                out.append((int(ran[i]) - p) * 1e3 / self.frequency)
        return out

    def window(self, start: int, end: int) -> tuple[list[float], list[float]]:
        """(gaps, delays) in ms for the window [start, end]."""
        return gaps_ms(self.drain(), start, end, 1e3 / self.frequency), self.delays_ms(start, end)

    def stop(self) -> None:
        self._stop.Set()
        self._thread.Join(2000)


class PyHeartbeat:
    """A Python callable posted to the UI thread every BEAT_MS from a Python thread, as an app's own code is.

    Stamps are ``time.perf_counter()``: when each beat was due (the poster's
    schedule, so a poster kept from the GIL makes its beat late too) and when
    it ran on the UI thread. ``pause`` stops posting (the GIL meter's runs).
    """

    def __init__(self, loop: h.UiLoop) -> None:
        from System import Action

        self.due: list[float] = []
        self.ran: list[float] = []
        self._marshal = loop._marshal
        self._beat = Action(self._ran)  # one delegate for every beat: posting makes no new wrapper
        self._stop = threading.Event()
        self._posting = threading.Event()
        self._posting.set()
        self._thread = threading.Thread(target=self._post, name="python-heartbeat", daemon=True)
        self._thread.start()
        self.native_id = self._thread.native_id

    def _ran(self) -> None:
        self.ran.append(time.perf_counter())

    def _post(self) -> None:
        due = time.perf_counter()
        while not self._stop.is_set():
            if not self._posting.is_set():
                self._posting.wait(0.1)
                due = time.perf_counter()
                continue
            due += BEAT_MS / 1000
            left = due - time.perf_counter()
            if left > 0 and self._stop.wait(left):
                return
            if time.perf_counter() - due > 0.25:
                due = time.perf_counter()  # far behind (the machine stalled): start the schedule again
            self.due.append(due)
            self._marshal.BeginInvoke(self._beat)

    def pause(self) -> None:
        self._posting.clear()
        deadline = time.monotonic() + 5
        while len(self.ran) < len(self.due) and time.monotonic() < deadline:
            time.sleep(0.005)  # the beats posted so far have run

    def resume(self) -> None:
        self._posting.set()

    def settled(self, end: float) -> bool:
        return bool(self.ran) and self.ran[-1] > end

    def window(self, start: float, end: float) -> tuple[list[float], list[float]]:
        """(gaps, waits) in ms: gaps between Python beats that ran around [start, end], waits of those due in it."""
        ran = list(self.ran)
        due = self.due[: len(ran)]
        waits = [(r - d) * 1e3 for d, r in zip(due, ran, strict=True) if start <= d <= end]
        return gaps_ms(ran, start, end, 1e3), waits

    def stop(self) -> None:
        self._stop.set()
        self._posting.set()
        self._thread.join(2)


class GilMeter:
    """A Python thread spinning on ``perf_counter()``: each gap over GIL_GAP_S is time another thread held the GIL.

    The OS descheduling the spinner looks the same; ``idle_rate`` measures
    that with nothing else running, and ``held`` takes it off.
    """

    def __init__(self) -> None:
        self.gaps: list[tuple[float, float]] = []
        self._run = True
        self._thread = threading.Thread(target=self._spin, name="gil-meter", daemon=True)
        self._thread.start()
        self.native_id = self._thread.native_id
        self.idle_rate = 0.0

    def _spin(self) -> None:
        clock = time.perf_counter
        gaps = self.gaps
        last = clock()
        while self._run:
            now = clock()
            if now - last > GIL_GAP_S:
                gaps.append((last, now))
            last = now

    def held(self, start: float, end: float) -> float:
        """Seconds of [start, end] the spinner could not run, less the idle rate's share."""
        total = 0.0
        for a, b in list(self.gaps):
            lo, hi = max(a, start), min(b, end)
            if hi > lo:
                total += hi - lo
        return max(0.0, total - self.idle_rate * (end - start))

    def measure_idle(self, seconds: float = 1.0) -> None:
        start = time.perf_counter()
        time.sleep(seconds)
        self.idle_rate = 0.0
        self.idle_rate = self.held(start, time.perf_counter()) / seconds

    def stop(self) -> None:
        self._run = False
        self._thread.join(2)


class ThreadCpu:
    """CPU time of this process's Python threads but some (``/proc/self/task/<tid>/schedstat``, in ns).

    The spinner's figure counts the time another thread held the GIL, and on
    a loaded machine the time the OS took the spinner's core too. CPU time
    does not depend on the load: the Python threads but the UI thread (whose
    CPU is mostly the .NET walk, with the GIL let go) and the benchmark's own
    run the probe's Python (the caller's thread, the MCP server's), holding
    the GIL while they do, so their CPU time is a floor under the GIL time
    the probe takes (the UI thread's share of Python, a slice's bookkeeping,
    is not in it).
    """

    def __init__(self, exclude: set[int]) -> None:
        self.exclude = exclude

    def now(self) -> int:
        total = 0
        for t in threading.enumerate():
            tid = t.native_id
            if tid is None or tid in self.exclude:
                continue
            try:
                with open(f"/proc/self/task/{tid}/schedstat", encoding="ascii") as fh:
                    total += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that ended meanwhile
        return total


def gaps_ms(stamps: Sequence[float], start: float, end: float, scale: float) -> list[float]:
    """Gaps between beats that overlap [start, end]: from the last beat before to the first after."""
    before = [t for t in stamps if t < start]
    inside = [t for t in stamps if start <= t <= end]
    after = [t for t in stamps if t > end]
    seq = ([before[-1]] if before else []) + inside + ([after[0]] if after else [])
    return [(b - a) * scale for a, b in itertools.pairwise(seq)]


class FullCollections:
    """CPython's full (oldest-generation) collections in this process, as (start, end) perf_counter times.

    One holds the GIL from start to end, on whichever thread allocated past the
    threshold, so every Python beat due meanwhile waits for it: a long Python
    wait that overlaps one is the collector's, whoever's objects it walked.
    """

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []
        self._began: dict[int, float] = {}
        gc.callbacks.append(self._on)

    def _on(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        ident = threading.get_ident()
        if phase == "start":
            self._began[ident] = time.perf_counter()
        elif (began := self._began.pop(ident, None)) is not None:
            self.spans.append((began, time.perf_counter()))

    def within(self, start: float, end: float) -> list[float]:
        """The lengths (ms) of the collections that overlap [start, end]."""
        return [(b - a) * 1000 for a, b in list(self.spans) if b >= start and a <= end]

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on)


class Beats:
    """Both heartbeats, bracketed together, and the full collections meanwhile."""

    def __init__(self, loop: h.UiLoop) -> None:
        self.net = Heartbeat(loop)
        self.py = PyHeartbeat(loop)
        self.collections = FullCollections()

    def now(self) -> tuple[int, float]:
        return self.net.now(), time.perf_counter()

    def settle(self, end: tuple[int, float], timeout: float = 5.0) -> None:
        """Wait until a beat of each kind later than ``end`` has run (so the window after a tool is closed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.net.settled(end[0]) and self.py.settled(end[1]):
                return
            time.sleep(BEAT_MS / 1000)

    def stop(self) -> None:
        self.net.stop()
        self.py.stop()
        self.collections.stop()


class McpClient:
    """A client in a process of its own (this script with ``--client``), so its parsing takes no GIL here."""

    def __init__(self, url: str, token: str) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, __file__, "--client", url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )  # fmt: skip
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(token + "\n")
        line = self._proc.stdout.readline()
        if line.strip() != "ready":
            self.close()
            raise h.BenchError(f"The MCP client process did not start: {line.strip()!r}")

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps({"name": name, "arguments": arguments}) + "\n")
        answer = json.loads(self._proc.stdout.readline() or '{"error": "the client process ended"}')
        if answer.get("error"):
            raise h.BenchError(f"MCP call {name} failed: {answer['error']}")
        return answer

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(5)


def client_main(url: str) -> int:
    """The ``--client`` process: one MCP session; each stdin line is a call, each stdout line its outcome."""
    import asyncio

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    token = sys.stdin.readline().strip()

    async def run() -> None:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as client:
                print("ready", flush=True)
                while True:
                    line = await asyncio.to_thread(sys.stdin.readline)
                    if not line:
                        return
                    call = json.loads(line)
                    try:
                        result = await client.call_tool(call["name"], call["arguments"])
                        text = "".join(getattr(c, "text", "") for c in result.content)
                        structured = json.dumps(result.structured_content or {})
                        out = {"chars": len(text), "structuredChars": len(structured), "isError": result.is_error}
                        if result.is_error:
                            out["error"] = text[:300]
                    except Exception as exc:  # reported to the benchmark, which stops
                        out = {"error": f"{type(exc).__name__}: {exc}"}
                    print(json.dumps(out), flush=True)

    asyncio.run(run())
    return 0


def measure(beats: Beats, fn: Callable[[], Any], repeat: int, rec: h.HoldRecorder, label: str) -> dict[str, Any]:
    """Both heartbeats' gaps and waits while ``fn`` runs, and the probe's own longest UI-thread hold.

    A .NET gap is whatever kept the UI thread from a beat: the probe's slices,
    and what stops every thread (the runtime's garbage collector) or the X
    server (busy with a screen copy). The hold is the probe's own code on the
    UI thread only (``HoldRecorder``): a gap far above it was not the probe's
    slice. A Python beat's wait adds the GIL: any Python the probe ran
    meanwhile, on whichever thread.
    """
    net_delays: list[float] = []
    net_longest: list[float] = []
    py_waits: list[float] = []
    py_longest: list[float] = []
    py_longest_wait: list[float] = []
    holds: list[float] = []
    collections: list[float] = []
    for i in range(repeat + 1):
        start = beats.now()
        with rec.op(label) as span:
            fn()
        end = beats.now()
        beats.settle(end)
        gaps, delays = beats.net.window(start[0], end[0])
        pgaps, pwaits = beats.py.window(start[1], end[1])
        if i == 0 or not gaps:
            continue  # the warm-up is not measured
        net_delays += delays
        net_longest.append(max(gaps))
        py_waits += pwaits
        if pgaps:
            py_longest.append(max(pgaps))
        py_longest_wait.append(max(pwaits, default=0.0))
        holds.append(max(span.holds, default=0.0) * 1000)
        collections += beats.collections.within(start[1], end[1])
    return {
        "longest_probe_hold_ms": round(max(holds, default=0.0), 2),
        "longest_gap_ms": round(max(net_longest), 2),
        "median_longest_gap_ms": round(h.percentile(net_longest, 0.5), 2),
        "p99_delay_ms": round(h.percentile(net_delays, 0.99), 2) if net_delays else None,
        "beats": len(net_delays),
        "python": {
            "longest_wait_ms": round(max(py_longest_wait, default=0.0), 2),
            "median_longest_wait_ms": round(h.percentile(py_longest_wait, 0.5), 2) if py_longest_wait else None,
            "longest_gap_ms": round(max(py_longest, default=0.0), 2),
            "p99_wait_ms": round(h.percentile(py_waits, 0.99), 2) if py_waits else None,
            "beats": len(py_waits),
            "full_collections": len(collections),
            "longest_full_collection_ms": round(max(collections, default=0.0), 2),
        },
    }


def bench_size(
    loop: h.UiLoop, rec: h.HoldRecorder, beats: Beats, size: int, args: argparse.Namespace
) -> dict[str, Any]:
    h.note(f"[{size}] building and showing the form ...")
    form, _textbox, info, _ = h.show_form(loop, size)
    try:
        return {"controls": size, **bench_form(loop, rec, beats, form, info.sample_textbox, str(size), args)}
    finally:
        h.close_form(loop, form)


def bench_zoo(
    loop: h.UiLoop, rec: h.HoldRecorder, beats: Beats, rows: int, items: int, args: argparse.Namespace
) -> dict[str, Any]:
    """The widget zoo on the same UI thread: items (grid rows in view, list items) are nodes too."""
    import importlib.util

    h.note(f"[zoo] building and showing the zoo ({rows} rows, {items} items) ...")
    spec = importlib.util.spec_from_file_location("zoo_app", h.ROOT / "examples" / "zoo_app.py")
    assert spec is not None and spec.loader is not None
    zoo_app = importlib.util.module_from_spec(spec)
    sys.modules["zoo_app"] = zoo_app  # its dataclasses look their module up there
    spec.loader.exec_module(zoo_app)
    shown = threading.Event()

    def make() -> Any:
        zoo = zoo_app.build(rows=rows, items=items)
        zoo.form.Shown += lambda sender, args: shown.set()
        zoo.form.Show()
        return zoo

    zoo = loop.call(make).result
    if not shown.wait(60):
        raise h.BenchError("The widget zoo was not shown within 60 s.")
    loop.settle()  # its first paints have run
    try:
        label = f"zoo {rows} rows, {items} items"
        return {"controls": label, **bench_form(loop, rec, beats, zoo.form, "visitorBox", "zoo", args)}
    finally:
        for window in (zoo.find_window, zoo.documents_window, zoo.form):
            h.close_form(loop, window)


def bench_grid(
    loop: h.UiLoop, rec: h.HoldRecorder, beats: Beats, rows: int, args: argparse.Namespace
) -> dict[str, Any]:
    """A bound grid and a virtual list view of ``rows`` rows each (``_harness.build_grid_form``)."""
    h.note(f"[grid] building and showing a grid and a virtual list of {rows} rows ...")
    form, _box, _info, _ = h.show_grid_form(loop, rows)
    try:
        return {"controls": f"grid {rows} rows", **bench_form(loop, rec, beats, form, "gridFilter", "grid", args)}
    finally:
        h.close_form(loop, form)


def bench_form(
    loop: h.UiLoop, rec: h.HoldRecorder, beats: Beats, form: Any, name: str, tag: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Each read tool's waits, the snapshot's GIL share and its UI-thread cost per node, on a shown ``form``."""
    import wpfprobe
    from wpfprobe.mcp.catalog import ToolCatalog
    from wpfprobe.mcp.server import _start_http
    from wpfprobe.mcp.text import tree_text

    repeat = args.repeat
    probe = wpfprobe.attach(form, settings=wpfprobe.ProbeSettings(ui_timeout=UI_TIMEOUT))
    form_id = probe.windows()[0].node_id
    by_locator = probe.locator(f"TextBox#{name}")
    # The same element by its path (type and index per level): no index answers it, every step is a walk.
    by_path = probe.locator(by_locator.inspect().path)

    def after_a_change() -> Any:
        """A control added and removed (counted as a change), then a read: the name index is walked anew."""
        from System.Windows.Forms import Label

        loop.call(lambda: (form.Controls.Add(marker := Label()), form.Controls.Remove(marker), marker.Dispose()))
        return by_locator.inspect()

    tools: dict[str, Callable[[], Any]] = {
        f"tree(max_depth={MAX_DEPTH})": lambda: probe.tree(max_depth=MAX_DEPTH),
        "children(form, take=50)": lambda: probe.children(form_id, take=50),
        "find(name=...)": lambda: probe.find(name=name, max_results=20),
        # No index answers this: the whole app is walked and every TextBox's text read.
        "find(type_name=..., text=...)": lambda: probe.find(type_name="TextBox", text="no such text", max_results=20),
        "locator TextBox#name .node()": lambda: by_locator.node(),
        "properties(include_defaults, take=200)": lambda: by_locator.properties(include_defaults=True, take=200),
        "locator by path .node()": lambda: by_path.node(),
        "inspect()": lambda: by_locator.inspect(),
        "inspect() after a change": after_a_change,
        "ancestors()": lambda: by_locator.ancestors(),
        "bindings()": lambda: by_locator.bindings(),
        "triggers()": lambda: by_locator.triggers(),
        "resources(app)": lambda: probe.resources(take=200),
        "screenshot(window)": lambda: probe.screenshot(),
        "diagnostics(take=200)": lambda: probe.diagnostics(take=200),
    }
    handle = client = None
    if not args.no_mcp:
        handle = _start_http(probe, ToolCatalog(probe.engine, tier="read"), tier="read", port=0,
                             token=secrets.token_urlsafe(32))  # fmt: skip
        client = McpClient(handle.url or "", handle.token or "")
        calls: dict[str, tuple[str, dict[str, Any]]] = {
            "MCP wpf_get_visual_tree (text)": ("wpf_get_visual_tree", {"maxDepth": MAX_DEPTH}),
            "MCP wpf_get_visual_tree (json)": ("wpf_get_visual_tree", {"maxDepth": MAX_DEPTH, "format": "json"}),
            "MCP wpf_get_children (take=50)": ("wpf_get_children", {"nodeId": form_id, "take": 50}),
            "MCP wpf_find_elements (name)": ("wpf_find_elements", {"name": name}),
            "MCP wpf_find_elements (type, text)": (
                "wpf_find_elements", {"typeName": "TextBox", "text": "no such text"}),
            "MCP wpf_get_properties (take=200)": (
                "wpf_get_properties", {"locator": f"TextBox#{name}", "includeDefaults": True, "take": 200}),
            "MCP wpf_run_diagnostics (take=200)": ("wpf_run_diagnostics", {"take": 200}),
        }  # fmt: skip
        for label, (tool, arguments) in calls.items():
            tools[label] = lambda tool=tool, arguments=arguments: client.call(tool, arguments)  # type: ignore[union-attr]
    try:
        results: dict[str, Any] = {}
        for label, fn in tools.items():
            if args.only and args.only not in label:
                continue
            h.note(f"[{tag}] {label}")
            results[label] = measure(beats, fn, repeat, rec, f"[{tag}] {label}")
        # Idle last: right after the form is shown the UI thread is still busy with it.
        start = beats.now()
        end_net = beats.net.after(start[0], IDLE_SECONDS)
        end = (end_net, time.perf_counter())
        idle_gaps, idle_delays = beats.net.window(start[0], end[0])
        py_gaps, py_waits = beats.py.window(start[1], end[1])
        results = {
            "idle": {
                "longest_gap_ms": round(max(idle_gaps), 2),
                "p99_delay_ms": round(h.percentile(idle_delays, 0.99), 2),
                "beats": len(idle_delays),
                "python": {
                    "longest_wait_ms": round(max(py_waits, default=0.0), 2),
                    "longest_gap_ms": round(max(py_gaps, default=0.0), 2),
                    "p99_wait_ms": round(h.percentile(py_waits, 0.99), 2) if py_waits else None,
                    "beats": len(py_waits),
                },
            },
            **results,
        }
        snapshot = bench_snapshot(loop, rec, probe, form, tag, repeat, tree_text)
        gil = bench_gil(loop, beats, probe, form, client, repeat, tag)
    finally:
        if client is not None:
            client.close()
        if handle is not None:
            handle.stop()
    return {"tools": results, "snapshot": snapshot, "gil": gil}


def bench_snapshot(
    loop: h.UiLoop, rec: h.HoldRecorder, probe: Any, form: Any, tag: str, repeat: int, tree_text: Any
) -> dict[str, Any]:
    """UI-thread time per node of ``tree()`` against the bare walk, interleaved in this run."""
    tree_holds: list[float] = []
    floor_holds: list[float] = []
    items_floor_holds: list[float] = []
    nodes = floor_nodes = items_floor_nodes = chars = 0
    for i in range(repeat + 1):
        with rec.op(f"tree {tag}") as span:
            tree = probe.tree(max_depth=MAX_DEPTH)
        floor = loop.call(lambda: h.floor_walk(form))
        items_floor = loop.call(lambda cap=tree.returned_node_count: h.floor_walk_items(form, cap))
        if i:
            tree_holds.append(span.hold)
            floor_holds.append(floor.hold)
            items_floor_holds.append(items_floor.hold)
        nodes, floor_nodes, items_floor_nodes = tree.returned_node_count, floor.result, items_floor.result
        chars = len(tree_text(tree))
    # The engine's own path (every element read from Python; the walk's oracle) on the same form.
    own_holds: list[float] = []
    kept = probe.engine.settings
    probe.engine.settings = kept.model_copy(update={"toolkit_walk": False})
    try:
        for i in range(repeat + 1):
            with rec.op(f"tree (own path) {tag}") as span:
                probe.tree(max_depth=MAX_DEPTH)
            if i:
                own_holds.append(span.hold)
    finally:
        probe.engine.settings = kept
    tree_us = h.percentile(tree_holds, 0.5) * 1e6 / max(nodes, 1)
    floor_us = h.percentile(floor_holds, 0.5) * 1e6 / max(floor_nodes, 1)
    items_floor_us = h.percentile(items_floor_holds, 0.5) * 1e6 / max(items_floor_nodes, 1)
    return {
        "nodes": nodes,
        "hold_us_per_node": round(tree_us, 2),
        "floor_us_per_node": round(floor_us, 2),
        "ratio": round(tree_us / floor_us, 2),
        # The bare walk with list items as nodes, as many as the snapshot has: where most nodes are items.
        "items_floor_nodes": items_floor_nodes,
        "items_floor_us_per_node": round(items_floor_us, 2),
        "items_ratio": round(tree_us / items_floor_us, 2),
        "own_path_us_per_node": round(h.percentile(own_holds, 0.5) * 1e6 / max(nodes, 1), 2),
        "own_path_ratio": round(h.percentile(own_holds, 0.5) * 1e6 / max(nodes, 1) / floor_us, 2),
        "text_chars": chars,
        "text_chars_per_node": round(chars / max(nodes, 1), 1),
    }


def bench_gil(
    loop: h.UiLoop, beats: Beats, probe: Any, form: Any, client: McpClient | None, repeat: int, tag: str
) -> dict[str, Any]:
    """The GIL time a full snapshot takes from the app (every thread but the spinner), against the bare walk.

    The Python heartbeat pauses meanwhile (its own GIL time would count); the
    bare walk is measured in the same run, its UI-thread time per node.
    """
    h.note(f"[{tag}] GIL share of a full snapshot")
    runs: dict[str, Callable[[], Any]] = {"tree (API)": lambda: probe.tree(max_depth=MAX_DEPTH)}
    if client is not None:
        runs["tree (MCP text)"] = lambda: client.call("wpf_get_visual_tree", {"maxDepth": MAX_DEPTH})
        runs["tree (MCP json)"] = lambda: client.call("wpf_get_visual_tree", {"maxDepth": MAX_DEPTH, "format": "json"})
    nodes = probe.tree(max_depth=MAX_DEPTH).returned_node_count
    ui_tid = loop.call(threading.get_native_id).result
    beats.py.pause()
    # The bare walk without the spinner: with it, every pythonnet call of the walk waits for the GIL in turn.
    floors: list[float] = []
    for _ in range(repeat):
        floor = loop.call(lambda: h.floor_walk(form))
        floors.append(floor.hold / max(floor.result, 1))
    meter = GilMeter()
    cpu = ThreadCpu({ui_tid, beats.py.native_id, meter.native_id})
    try:
        meter.measure_idle()
        held: dict[str, list[float]] = {k: [] for k in runs}
        spent: dict[str, list[float]] = {k: [] for k in runs}
        for i in range(repeat + 1):
            for label, fn in runs.items():
                start, cpu_start = time.perf_counter(), cpu.now()
                fn()
                seconds, cpu_seconds = meter.held(start, time.perf_counter()), (cpu.now() - cpu_start) / 1e9
                if i:
                    held[label].append(seconds)
                    spent[label].append(cpu_seconds)
        idle_rate = meter.idle_rate
    finally:
        meter.stop()
        beats.py.resume()
    floor_us = h.percentile(floors, 0.5) * 1e6
    out: dict[str, Any] = {
        "nodes": nodes, "floor_us_per_node": round(floor_us, 2), "idle_rate": round(idle_rate, 4), "runs": {}
    }  # fmt: skip
    for label, samples in held.items():
        us = h.percentile(samples, 0.5) * 1e6 / max(nodes, 1)
        cpu_us = h.percentile(spent[label], 0.5) * 1e6 / max(nodes, 1)
        out["runs"][label] = {
            "gil_ms": round(h.percentile(samples, 0.5) * 1e3, 2),
            "gil_us_per_node": round(us, 2),
            "ratio": round(us / floor_us, 2) if floor_us else None,
            "samples_ms": [round(s * 1e3, 2) for s in samples],
            "python_cpu_ms": round(h.percentile(spent[label], 0.5) * 1e3, 2),
            "python_cpu_us_per_node": round(cpu_us, 2),
            "python_cpu_ratio": round(cpu_us / floor_us, 2) if floor_us else None,
        }
    return out


def render(results: list[dict[str, Any]], machine: dict[str, Any], repeat: int, load_end: Any) -> str:
    lines = [
        f"wpfprobe heartbeat benchmark: {machine['runtime']['description']}, Python {machine['python']}, "
        f"{machine['cpu_count']} CPUs, load {machine['load_average_at_start']} at start, {load_end} at end",
        f"beats posted to the UI thread every {BEAT_MS} ms, from a .NET thread (a compiled delegate) and from a "
        f"Python thread (a Python callable); {repeat} runs after 1 warm-up",
    ]
    for r in results:
        what = r["controls"]
        lines += ["", f"{what:,} controls" if isinstance(what, int) else str(what)]
        rows = [(
            "tool", ".NET gap ms", "median ms", "p99 delay ms", "probe hold ms",
            "Python wait ms", "median ms", "p99 wait ms", "full GCs (ms)",
        )]  # fmt: skip
        for label, m in r["tools"].items():
            py = m.get("python", {})
            rows.append((
                label, f"{m['longest_gap_ms']:.1f}", f"{m.get('median_longest_gap_ms', m['longest_gap_ms']):.1f}",
                f"{m['p99_delay_ms']:.1f}" if m["p99_delay_ms"] is not None else "n/a",
                f"{m['longest_probe_hold_ms']:.1f}" if "longest_probe_hold_ms" in m else "-",
                f"{py.get('longest_wait_ms', 0.0):.1f}",
                f"{py['median_longest_wait_ms']:.1f}" if py.get("median_longest_wait_ms") is not None else "-",
                f"{py['p99_wait_ms']:.1f}" if py.get("p99_wait_ms") is not None else "n/a",
                f"{py['full_collections']} ({py['longest_full_collection_ms']:.1f})" if "full_collections" in py else "-",
            ))  # fmt: skip
        lines += h_table(rows)
        s = r["snapshot"]
        lines.append(
            f"snapshot: {s['nodes']} nodes, {s['hold_us_per_node']:.1f} us/node on the UI thread vs the bare walk "
            f"{s['floor_us_per_node']:.1f} us/node ({s['ratio']:.2f}x); compact text {s['text_chars_per_node']:.1f} "
            "chars/node"
        )
        lines.append(
            f"  vs the bare walk with list items as nodes ({s['items_floor_nodes']} nodes): "
            f"{s['items_floor_us_per_node']:.1f} us/node ({s['items_ratio']:.2f}x)"
        )
        lines.append(
            f"the same snapshot read the engine's own way (toolkit_walk=False): {s['own_path_us_per_node']:.1f} "
            f"us/node ({s['own_path_ratio']:.2f}x the bare walk)"
        )
        g = r["gil"]
        for label, run in g["runs"].items():
            lines.append(
                f"GIL taken by {label}: {run['gil_ms']:.1f} ms for {g['nodes']} nodes, {run['gil_us_per_node']:.2f} "
                f"us/node ({run['ratio']:.2f}x the bare walk, {g['floor_us_per_node']:.1f} us/node); CPU of its "
                f"Python threads {run['python_cpu_ms']:.1f} ms, {run['python_cpu_us_per_node']:.2f} us/node "
                f"({run['python_cpu_ratio']:.2f}x)"
            )
    return "\n".join(lines)


def h_table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        out.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.client is not None:
        return client_main(args.client)
    h.install_sigterm()
    display = loop = beats = None
    rec = h.HoldRecorder()
    code = 1
    home = None
    try:
        import tempfile

        home = tempfile.TemporaryDirectory(prefix="bench-heartbeat-")
        os.environ["WPFPROBE_HOME"] = home.name  # the discovery manifests of its servers go there
        display = h.Display.ensure()
        runtime = h.load_winforms()
        rec.install()
        loop = h.UiLoop.start()
        machine = h.machine_info(runtime, display)
        beats = Beats(loop)
        results = [bench_size(loop, rec, beats, size, args) for size in args.sizes]
        if args.zoo is not None:
            rows, items = args.zoo
            results.append(bench_zoo(loop, rec, beats, rows, items, args))
        if args.grid is not None:
            results.append(bench_grid(loop, rec, beats, args.grid, args))
        load_end = h.loadavg()
        report = {
            "benchmark": PROG,
            "machine": machine,
            "settings": {
                "sizes": args.sizes, "zoo": args.zoo, "grid": args.grid, "repeat": args.repeat, "warmup": 1, "beat_ms": BEAT_MS,
                "mcp": not args.no_mcp, "only": args.only,
            },
            "results": results,
            "load_average_at_end": load_end,
        }  # fmt: skip
        print(render(results, machine, args.repeat, load_end))
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        h.note(f"JSON written to {out}")
        code = 0
    except h.BenchError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        code = 130
    except Exception as exc:
        traceback.print_exc()
        print(f"{PROG}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 1
    finally:
        if beats is not None:
            beats.stop()
        rec.uninstall()
        code = h.finish(code, loop, display, PROG)
        if home is not None:
            home.cleanup()
    return code


if __name__ == "__main__":
    sys.exit(main())
