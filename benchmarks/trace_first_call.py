"""The first call after ``wpfprobe.start()``, slice by slice: what holds the UI thread while the probe starts.

    python benchmarks/trace_first_call.py [--runs 8] [--src DIR] [--json PATH]

``bench_startup.py`` says how long the UI thread was held at most while the
probe started; this says by what. In fresh processes, as there (the example
app on a UI thread of its own, both heartbeats, then ``import wpfprobe`` and
``start()``, a client calling ``wpf_get_windows`` at once), it times from
inside the app, through the probe's private functions:

- each call the probe ran on the UI thread during the first tool call (the
  name index's slices, then the read): its wall time and the UI thread's CPU
  time in it. Wall far above CPU is the UI thread waiting, for the GIL
  (pythonnet lets it go during every .NET call and takes it back after) or for
  a core;
- how long ``wpfprobe_clr.connect`` took on the start-up thread (before it,
  no tool call is answered);
- when the server had the call's answer (``ToolCatalog.call_tool`` returned),
  and when the client had it, from the instant before ``start()``;
- the longest gap of the .NET heartbeat over the start-up (as in bench_startup).

Medians over ``--runs`` processes, and each run's longest slice and longest
gap. It hooks private functions, so it measures this checkout's probe (or
``--src``'s, if it has the same ones). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_startup as bench

ROOT = bench.ROOT
PREFIX = "TRACE "


def beating(net: Any, py: Any, *, after: float, beats: int, timeout: float) -> None:
    """Until each heartbeat has run ``beats`` beats later than ``after``, each within 10 ms of the
    one before (RuntimeError after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    poll = threading.Event()
    while time.monotonic() < deadline:
        net_beats = [t for t in net.stamps() if t > after]
        py_beats = [t for t in list(py.ran) if t > after]
        if all(
            len(seen) >= beats and all(b - a <= 0.010 for a, b in zip(seen[-beats:], seen[-beats + 1 :], strict=False))
            for seen in (net_beats, py_beats)
        ):
            return
        poll.wait(bench.BEAT_S)  # a beat's interval between looks
    raise RuntimeError(f"the heartbeats did not run {beats} regular beats within {timeout} s")


def child_main() -> int:
    os.environ["MONO_THREADS_SUSPEND"] = "preemptive"
    example = bench.load_example()
    app = example.start_in_background()
    form = app.app
    net = bench.NetHeartbeat(form)
    py = bench.PyHeartbeat(form)
    # The form shown and the UI thread idle: both heartbeats beating, none of the last 100 late.
    beating(net, py, after=time.monotonic(), beats=100, timeout=30.0)
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.mcp import catalog
    from wpfprobe_clr import _ui_thread

    slices: list[tuple[float, float, float]] = []  # (start, wall ms, cpu ms) of each UI-thread call
    spans: dict[str, tuple[float, float]] = {}
    real_call, real_connect, real_tool = _ui_thread._Call.__call__, wpfprobe_clr.connect, catalog.ToolCatalog.call_tool

    def call(self: Any) -> None:
        began, cpu = time.monotonic(), time.thread_time()
        real_call(self)
        slices.append((began, (time.monotonic() - began) * 1000, (time.thread_time() - cpu) * 1000))

    def connect(*args: Any, **kwargs: Any) -> Any:
        began = time.monotonic()
        try:
            return real_connect(*args, **kwargs)
        finally:
            spans["connect"] = (began, time.monotonic())

    async def call_tool(self: Any, name: str, arguments: Any, **kwargs: Any) -> Any:
        began = time.monotonic()
        try:
            return await real_tool(self, name, arguments, **kwargs)
        finally:
            spans.setdefault("first call", (began, time.monotonic()))

    _ui_thread._Call.__call__ = call  # type: ignore[method-assign]
    wpfprobe_clr.connect = connect
    catalog.ToolCatalog.call_tool = call_tool  # type: ignore[method-assign]
    t0 = time.monotonic()
    handle = wpfprobe.start(form, name="trace-first-call")
    print(PREFIX + json.dumps({"url": handle.url, "token": handle.token, "t0": t0}), flush=True)
    sys.stdin.readline()  # the client has its answer
    bench.startup_over(handle)
    # The window closed: a beat of each heartbeat after the start-up was over.
    beating(net, py, after=time.monotonic(), beats=1, timeout=5.0)
    first = spans["first call"]
    gaps = bench.gaps_ms(net.stamps(), t0, time.monotonic())
    out = {
        "connect_ms": (spans["connect"][1] - spans["connect"][0]) * 1000,
        "server_answer_ms": (first[1] - t0) * 1000,
        "slices": [[round(w, 2), round(c, 2)] for began, w, c in slices if first[0] <= began <= first[1]],
        "net_max_gap_ms": max(gaps, default=0.0),
    }
    print(PREFIX + json.dumps(out), flush=True)
    sys.stdin.readline()
    handle.stop()
    net.stop()
    py.stop()
    app.close()
    return 0


def run_once(src: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    proc = subprocess.Popen(
        [sys.executable, "-W", "ignore", str(Path(__file__).resolve()), "--child"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def read() -> dict[str, Any]:
        for line in proc.stdout:  # type: ignore[union-attr]
            if line.startswith(PREFIX):
                return dict(json.loads(line[len(PREFIX) :]))
        raise RuntimeError("the traced app ended without answering")

    try:
        started = read()
        _connected, answered = asyncio.run(bench.client_calls(started["url"], started["token"]))
        proc.stdin.write("answered\n")
        proc.stdin.flush()
        result = read()
        result["client_answer_ms"] = (answered - started["t0"]) * 1000
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=8, help="fresh processes (default 8)")
    parser.add_argument("--src", type=Path, default=None, help="trace this src/ directory instead of ./src")
    parser.add_argument("--json", type=Path, default=ROOT / "artifacts" / "trace_first_call.json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main()
    from wpfprobe.testing import virtual_display

    compileall.compile_dir(str(args.src or ROOT / "src"), quiet=1)  # as bench_startup, and why
    import httpx2  # noqa: F401 - the client's imports, made before the first run
    import mcp  # noqa: F401

    runs = []
    with virtual_display():
        for i in range(args.runs):
            print(f"run {i + 1}/{args.runs}", file=sys.stderr, flush=True)
            runs.append(run_once(args.src))
    for r in runs:
        r["longest_slice_ms"] = max((w for w, _c in r["slices"]), default=0.0)
        r["slices_wall_ms"] = sum(w for w, _c in r["slices"])
        r["slices_cpu_ms"] = sum(c for _w, c in r["slices"])
    keys = ("connect_ms", "server_answer_ms", "client_answer_ms", "longest_slice_ms", "slices_wall_ms",
            "slices_cpu_ms", "net_max_gap_ms")  # fmt: skip
    median = {k: round(statistics.median(r[k] for r in runs), 1) for k in keys}
    load = [round(x, 2) for x in os.getloadavg()]
    print(f"the first call after start(), {len(runs)} fresh processes, source {args.src or 'src/'}, load {load}")
    print(f"  connect (start-up thread)            {median['connect_ms']:7.1f} ms")
    print(f"  the call's answer, server / client   {median['server_answer_ms']:7.1f} / "
          f"{median['client_answer_ms']:.1f} ms from start()")  # fmt: skip
    print(f"  its UI-thread calls, wall / CPU      {median['slices_wall_ms']:7.1f} / {median['slices_cpu_ms']:.1f} ms")
    print(f"  its longest UI-thread call           {median['longest_slice_ms']:7.1f} ms; each run's: "
          f"{sorted(round(r['longest_slice_ms'], 1) for r in runs)}")  # fmt: skip
    print(f"  the .NET heartbeat's longest gap     {median['net_max_gap_ms']:7.1f} ms; each run's: "
          f"{sorted(round(r['net_max_gap_ms'], 1) for r in runs)}")  # fmt: skip
    print("  slices (wall ms, CPU ms) of the median run:", runs[sorted(range(len(runs)),
          key=lambda i: runs[i]["longest_slice_ms"])[len(runs) // 2]]["slices"])  # fmt: skip
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"median": median, "runs": runs, "load_end": load}, indent=2), encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
