"""How long each read tool freezes the app, measured from outside with a heartbeat.

    python benchmarks/bench_heartbeat.py [--sizes 5000] [--zoo ROWS,ITEMS] [--repeat N] [--json PATH]

A heartbeat is posted to the UI thread every 2 ms from another thread; each
beat records the time it ran on the UI thread. The longest gap between beats
while a tool runs is how long the app could not paint or take input, whatever
the probe's own bookkeeping says. Both the beat and the thread that posts it
are .NET delegates compiled with System.Linq.Expressions, so neither needs
Python's GIL: a beat runs the moment the UI thread is free, not when Python
lets it (a Python beat would also wait for the GIL the probe's callers hold).

Per form size (the same deterministic forms as bench_snapshot.py) and per
read tool (tree, children page, find by name, find by type and text over the
whole app, locator resolution, properties, binding info, diagnostics) it reports, over --repeat runs, the longest gap,
the median of each run's longest gap, and the p99 of the beats' delays
(posted to run: how long an input arriving then waits), beside an idle
baseline measured the same way; the
UI-thread time per node of ``tree(max_depth=10)`` (made from the .NET walk)
against the bare pythonnet walk in the same run, and of the same snapshot
read the engine's own way (``toolkit_walk=False``); and the compact text's characters per node (what the
MCP tree tool sends). No timing is asserted. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
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


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000", help="form sizes in controls, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per tool (after 1 warm-up)")
    parser.add_argument("--json", default=str(h.ROOT / "artifacts" / "bench_heartbeat.json"))
    parser.add_argument(
        "--zoo", metavar="ROWS,ITEMS", default=None,
        help="also the widget zoo (examples/zoo_app.py) with this many grid rows and catalog items",
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
    if not args.sizes or any(s < 8 or s > 20000 for s in args.sizes):
        parser.error("each size must be between 8 and 20000 controls")
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

    def stop(self) -> None:
        self._stop.Set()
        self._thread.Join(2000)

    def gaps_ms(self, stamps: list[int], start: int, end: int) -> list[float]:
        """Gaps between beats that overlap [start, end]: from the last beat before to the first after."""
        before = [t for t in stamps if t < start]
        inside = [t for t in stamps if start <= t <= end]
        after = [t for t in stamps if t > end]
        seq = ([before[-1]] if before else []) + inside + ([after[0]] if after else [])
        return [(b - a) * 1e3 / self.frequency for a, b in itertools.pairwise(seq)]


def _settle(beat: Heartbeat, start: int, timeout: float = 5.0) -> None:
    """Wait until a beat later than ``start`` has run (so the window after a tool is closed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(t > start for t in beat.drain()[-4:]):
            return
        time.sleep(BEAT_MS / 1000)


def measure(beat: Heartbeat, fn: Callable[[], Any], repeat: int, rec: h.HoldRecorder, label: str) -> dict[str, Any]:
    """The gaps between beats while ``fn`` runs, and the probe's own longest UI-thread hold.

    A gap is whatever kept the UI thread from a beat: the probe's slices, and
    what stops every thread (the runtime's garbage collector) or the X server
    (busy with a screen copy). The hold is the probe's own code on the UI
    thread only (``HoldRecorder``): a gap far above it was not the probe's slice.
    """
    delays: list[float] = []
    longest: list[float] = []
    holds: list[float] = []
    for i in range(repeat + 1):
        start = beat.now()
        with rec.op(label) as span:
            fn()
        end = beat.now()
        _settle(beat, end)
        g = beat.gaps_ms(beat.drain(), start, end)
        if i == 0 or not g:
            continue  # the warm-up is not measured
        delays += beat.delays_ms(start, end)
        longest.append(max(g))
        holds.append(max(span.holds, default=0.0) * 1000)
    return {
        "longest_probe_hold_ms": round(max(holds, default=0.0), 2),
        "longest_gap_ms": round(max(longest), 2),
        "median_longest_gap_ms": round(h.percentile(longest, 0.5), 2),
        "p99_delay_ms": round(h.percentile(delays, 0.99), 2) if delays else None,
        "beats": len(delays),
    }


def bench_size(loop: h.UiLoop, rec: h.HoldRecorder, beat: Heartbeat, size: int, repeat: int) -> dict[str, Any]:
    h.note(f"[{size}] building and showing the form ...")
    form, _textbox, info, _ = h.show_form(loop, size)
    try:
        return {"controls": size, **bench_form(loop, rec, beat, form, info.sample_textbox, str(size), repeat)}
    finally:
        h.close_form(loop, form)


def bench_zoo(
    loop: h.UiLoop, rec: h.HoldRecorder, beat: Heartbeat, rows: int, items: int, repeat: int
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
        return {"controls": label, **bench_form(loop, rec, beat, zoo.form, "visitorBox", "zoo", repeat)}
    finally:
        for window in (zoo.find_window, zoo.documents_window, zoo.form):
            h.close_form(loop, window)


def bench_form(
    loop: h.UiLoop, rec: h.HoldRecorder, beat: Heartbeat, form: Any, name: str, tag: str, repeat: int
) -> dict[str, Any]:
    """Each read tool's freezes, and the snapshot's cost per node, on a shown ``form``."""
    import wpfprobe
    from wpfprobe.mcp.text import tree_text

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
    results: dict[str, Any] = {}
    for label, fn in tools.items():
        h.note(f"[{tag}] {label}")
        results[label] = measure(beat, fn, repeat, rec, f"[{tag}] {label}")
    # Idle last: right after the form is shown the UI thread is still busy with it.
    start = beat.now()
    end = beat.after(start, IDLE_SECONDS)
    idle_gaps = beat.gaps_ms(beat.drain(), start, end)
    idle_delays = beat.delays_ms(start, end)
    results = {
        "idle": {
            "longest_gap_ms": round(max(idle_gaps), 2),
            "p99_delay_ms": round(h.percentile(idle_delays, 0.99), 2),
            "beats": len(idle_delays),
        },
        **results,
    }

    # UI-thread time per node against the bare walk, interleaved in this run.
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
        "tools": results,
        "snapshot": {
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
        },
    }


def render(results: list[dict[str, Any]], machine: dict[str, Any], repeat: int) -> str:
    lines = [
        f"wpfprobe heartbeat benchmark: {machine['runtime']['description']}, Python {machine['python']}, "
        f"{machine['cpu_count']} CPUs, load {machine['load_average_at_start']}",
        f"a beat posted to the UI thread every {BEAT_MS} ms from a .NET thread; gaps between beats while "
        f"each tool runs, {repeat} runs after 1 warm-up",
    ]
    for r in results:
        what = r["controls"]
        lines += ["", f"{what:,} controls" if isinstance(what, int) else str(what)]
        rows = [("tool", "longest gap ms", "median of run maxima ms", "p99 beat delay ms", "longest probe hold ms")]
        for label, m in r["tools"].items():
            rows.append((
                label, f"{m['longest_gap_ms']:.1f}", f"{m.get('median_longest_gap_ms', m['longest_gap_ms']):.1f}",
                f"{m['p99_delay_ms']:.1f}" if m["p99_delay_ms"] is not None else "n/a",
                f"{m['longest_probe_hold_ms']:.1f}" if "longest_probe_hold_ms" in m else "-",
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
    h.install_sigterm()
    display = loop = beat = None
    rec = h.HoldRecorder()
    code = 1
    try:
        display = h.Display.ensure()
        runtime = h.load_winforms()
        rec.install()
        loop = h.UiLoop.start()
        machine = h.machine_info(runtime, display)
        beat = Heartbeat(loop)
        results = [bench_size(loop, rec, beat, size, args.repeat) for size in args.sizes]
        if args.zoo is not None:
            rows, items = args.zoo
            results.append(bench_zoo(loop, rec, beat, rows, items, args.repeat))
        report = {
            "benchmark": PROG,
            "machine": machine,
            "settings": {"sizes": args.sizes, "zoo": args.zoo, "repeat": args.repeat, "warmup": 1, "beat_ms": BEAT_MS},
            "results": results,
            "load_average_at_end": h.loadavg(),
        }
        print(render(results, machine, args.repeat))
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
        if beat is not None:
            beat.stop()
        rec.uninstall()
        code = h.finish(code, loop, display, PROG)
    return code


if __name__ == "__main__":
    sys.exit(main())
