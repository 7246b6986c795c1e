"""A soak: tens of thousands of mixed MCP calls against the widget zoo, with the app's memory, threads
and open files recorded over time, and growth after warm-up reported per call.

    python benchmarks/bench_soak.py [--calls 20000] [--warmup 2000] [--every 500] [--rows 300]
                                    [--items 200] [--seed 1] [--only TOOL,...] [--json PATH]

The zoo (examples/zoo_app.py) runs in a process of its own, on a UI thread of
its own, with ``wpfprobe.start(allow="interact")`` and one custom tool added
for the benchmark, ``bench_collect``: a full collection (Python's ``gc``,
then the CLR's ``GC.Collect``, pending finalizers, ``GC.Collect`` again) and
the sizes of both heaps. One MCP client session (the SDK over streamable
HTTP) makes ``--calls`` calls drawn by a seeded generator from a fixed mix:

- reads of every kind: sessions, windows, trees (text and JSON, shallow and
  deep, of each window), children paged with their cursors (the 200-item
  catalog, the grid), ancestors, finds with locators (type, id, text,
  regex, property conditions, descendants), inspect, property pages
  followed by cursor, screenshots (a window, an element), bindings,
  diagnostics, resources, triggers, behaviors, app events since the last;
- interact calls that do not close the app: a tab selected, then a click,
  typing (replacing), a toggle, a list selection, a focus, a key, a wait.

Every ``--every`` calls the app is collected (``bench_collect``, not
counted among the calls) and sampled from outside with psutil: RSS, thread
count, file descriptors, regular files open. Growth is the least-squares
slope of each over the samples after ``--warmup`` calls, per call (KiB/call
for memory), beside the plain difference between the first sample after
warm-up and the last. Latency per tool and every error code are kept too.

What the app itself keeps is kept out: the zoo's journal (every handler's
line, for its tests) is bounded to its last 64 lines in this process, and the
undo history of the text boxes typed into (every edit, as for a user typing:
0.3 KiB of CLR heap per type_text) is cleared before each sample.
The audit log and the manifest go to a temporary WPFPROBE_HOME. The child
ends with ``os._exit`` after stopping the probe and closing the zoo, so an
exit that hangs in pythonnet's unload (issue 18, part 1) cannot hold the run.

Writes a table on stdout and the JSON (settings, machine, every sample, per
tool latency and errors) to artifacts/bench_soak.json unless --json says
otherwise. Nothing is asserted: it exits 0 when the run completed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _harness import ROOT, loadavg, note, percentile, source_fingerprint  # noqa: E402

DEFAULT_JSON = ROOT / "artifacts" / "bench_soak.json"
CHILD_PREFIX = "SOAK "
KIB = 1024
MIB = 1024 * 1024


# -- the app: the zoo with the probe in it, in a process of its own -------------------------------


def child_main(rows: int, items: int) -> int:
    def say(**fields: Any) -> None:
        sys.stdout.write(CHILD_PREFIX + json.dumps(fields) + "\n")
        sys.stdout.flush()

    os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
    spec = importlib.util.spec_from_file_location("soak_zoo_app", ROOT / "examples" / "zoo_app.py")
    assert spec is not None and spec.loader is not None
    zoo_app = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = zoo_app  # its dataclasses look their module up
    spec.loader.exec_module(zoo_app)
    app = zoo_app.start_in_background(rows=rows, items=items)
    # The journal keeps every line the handlers write (the zoo's tests read it): the app's own growth.
    app.zoo.journal.events = collections.deque(app.zoo.journal.events, maxlen=64)

    import wpfprobe

    handle = wpfprobe.start(app.app, name="soak-zoo", allow="interact")

    @handle.tool(name="bench_collect")
    def bench_collect() -> dict[str, int]:
        """A full collection, Python's and then the CLR's, and the sizes of both heaps."""
        from System import GC

        # A text box keeps every edit for Undo (Mono's TextBoxBase), as it would for a user typing:
        # the app's own growth (0.3 KiB per type_text here), cleared so what is left is the probe's.
        app.invoke(lambda: [app.zoo.control(name).ClearUndo() for name in TYPED])
        gc.collect()
        GC.Collect()
        GC.WaitForPendingFinalizers()
        GC.Collect()
        return {
            "clrHeap": int(GC.GetTotalMemory(False)),
            "pyBlocks": sys.getallocatedblocks(),
            "pyObjects": len(gc.get_objects()),
            "pyThreads": threading.active_count(),
        }

    say(event="started", url=handle.url, token=handle.token, pid=os.getpid())
    try:
        for line in sys.stdin:
            if line.strip() == "stop":
                break
    finally:
        handle.stop()
        app.close()
        ended = not app._thread.IsAlive
        say(event="stopped", ui_thread_ended=ended)
    os._exit(0)


class Child:
    def __init__(self, rows: int, items: int) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - read back if the child fails
        command = [
            sys.executable, "-W", "ignore::UserWarning", str(Path(__file__).resolve()), "--child",
            "--rows", str(rows), "--items", str(items),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, cwd=ROOT
        )

    def read(self, timeout: float = 180.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith(CHILD_PREFIX):
                return dict(json.loads(line[len(CHILD_PREFIX) :]))
        raise RuntimeError(f"the zoo ended without answering:\n{self.stderr()}")

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-4000:]

    def finish(self) -> dict[str, Any]:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("stop\n")
            self.proc.stdin.flush()
            stopped = self.read(60)
            self.proc.wait(30)
            return stopped
        finally:
            if self.proc.poll() is None:
                self.proc.kill()  # this child only, by its own handle
                self.proc.wait(10)
            self._stderr.close()


# -- the mix ---------------------------------------------------------------------------------------

LOCATORS = [
    "Button",
    "#helloButton",
    "TextBox",
    'text="Banana"',
    "text=/an+a/",
    "#fruitList > *",
    "CheckBox[Checked=false]",
    "#zooTabs Button",
    "[Enabled=false]",
    "#findWindow TextBox",
    "ListBox#catalogList > text=/Part 1\\d/",
]
TREES = [
    {"locator": "#zooWindow", "maxDepth": 3, "format": "text"},
    {"locator": "#zooWindow", "maxDepth": 6, "format": "json"},
    {"locator": "#findWindow", "maxDepth": 10, "treeType": "logical"},
    {"locator": "#documentsWindow", "maxDepth": 10, "format": "text"},
    {"locator": "#buttonsPage", "maxDepth": 4, "includeProperties": ["Text", "Enabled"], "format": "json"},
]
#: The text boxes the mix types into.
TYPED = ("visitorBox", "findBox")
#: Elements shown whichever tab is selected (a screenshot of a hidden one is refused).
SHOWN = ["#zooTabs", "#findBox", "#findNextButton", "#zooToolBar"]
ELEMENTS = ["#helloButton", "#visitorBox", "#fruitList", "#welcomeLabel", "#zooTabs", "#findBox", "#catalogList"]
# (tab index, calls): a tab selected, then what a user does on it; the find window is always shown.
TAB_ACTIONS: list[tuple[int | None, list[tuple[str, dict[str, Any]]]]] = [
    (0, [("wpf_click", {"locator": "#helloButton"})]),
    (0, [("wpf_toggle", {"locator": "#wrapCheck"})]),
    (1, [("wpf_select", {"locator": "#fruitList", "index": 1})]),
    (1, [("wpf_select", {"locator": "#portionCombo", "index": 0})]),
    (2, [("wpf_type_text", {"locator": "#visitorBox", "text": "Grace", "replace": True})]),
    (2, [("wpf_focus", {"locator": "#visitorBox"}), ("wpf_send_keys", {"locator": "#visitorBox", "keys": "End"})]),
    (5, [("wpf_click", {"locator": "#tallyButton"})]),
    (None, [("wpf_type_text", {"locator": "#findBox", "text": "Kiwi", "replace": True})]),
    (None, [("wpf_toggle", {"locator": "#matchCaseCheck"})]),
    (None, [("wpf_wait_for", {"locator": "#findNextButton", "condition": "visible", "timeoutMs": 2000})]),
]


class Mix:
    """The next call, drawn by a seeded generator; paging calls follow the cursors they were given."""

    def __init__(self, seed: int, ids: dict[str, str]) -> None:
        self.rng = random.Random(seed)
        self.ids = ids
        self.cursors: dict[str, str | None] = {}
        self.events_seq = 0
        self._pending: collections.deque[tuple[str, dict[str, Any]]] = collections.deque()
        self._choices: list[tuple[float, Any]] = [
            (2, lambda: ("wpf_get_session_info", {})),
            (4, lambda: ("wpf_get_windows", {"includeHidden": self.rng.random() < 0.3})),
            (6, lambda: ("wpf_get_visual_tree", dict(self.rng.choice(TREES)))),
            (5, self._children),
            (3, lambda: ("wpf_get_ancestors", {"locator": self.rng.choice(ELEMENTS)})),
            (10, lambda: ("wpf_find_elements", {"locator": self.rng.choice(LOCATORS), "maxResults": 50})),
            (2, lambda: ("wpf_find_elements", {"typeName": "Button", "text": "Tally"})),
            (5, lambda: ("wpf_inspect_element", {"locator": self.rng.choice(ELEMENTS)})),
            (8, self._properties),
            (3, lambda: ("wpf_capture_screenshot", {})),
            (2, lambda: ("wpf_capture_screenshot", {"locator": self.rng.choice(SHOWN)})),
            (2, lambda: ("wpf_get_binding_info", {"locator": "#welcomeLabel", "propertyName": "Text"})),
            (3, lambda: ("wpf_run_diagnostics", {"take": 50})),
            (2, lambda: ("wpf_get_resources", {"locator": "#zooWindow", "take": 50})),
            (1, lambda: ("wpf_get_triggers", {"locator": "#zooWindow"})),
            (1, lambda: ("wpf_get_behaviors", {"locator": "#helloButton"})),
            (4, lambda: ("wpf_get_app_events", {"sinceSeq": self.events_seq})),
            (25, self._interact),
        ]
        self._weights = [w for w, _ in self._choices]

    def next(self) -> tuple[str, dict[str, Any]]:
        if self._pending:
            return self._pending.popleft()
        make = self.rng.choices([m for _, m in self._choices], weights=self._weights, k=1)[0]
        tool, args = make()
        return str(tool), dict(args)

    def _children(self) -> tuple[str, dict[str, Any]]:
        which = self.rng.choice(["catalogList", "ordersGrid", "zooWindow"])
        args: dict[str, Any] = {"nodeId": self.ids[which], "take": 25}
        if self.cursors.get(which):
            args["cursor"] = self.cursors[which]
        return "wpf_get_children", args

    def _properties(self) -> tuple[str, dict[str, Any]]:
        element = self.rng.choice(ELEMENTS[:4])
        args: dict[str, Any] = {"locator": element, "take": 20}
        if self.rng.random() < 0.2:
            args["filter"] = "Text"
        elif self.cursors.get(element):
            args["cursor"] = self.cursors[element]
        return "wpf_get_properties", args

    def _interact(self) -> tuple[str, dict[str, Any]]:
        tab, calls = self.rng.choice(TAB_ACTIONS)
        if tab is not None:
            self._pending.append(("wpf_select", {"locator": "#zooTabs", "index": tab}))
        self._pending.extend(calls)
        return self._pending.popleft()

    def feed(self, tool: str, args: dict[str, Any], structured: dict[str, Any] | None) -> None:
        """Keep the cursors and the events' sequence the answers gave."""
        data = structured or {}
        if tool == "wpf_get_app_events":
            self.events_seq = int(data.get("nextSeq") or self.events_seq)
        elif tool == "wpf_get_children":
            which = next(k for k, v in self.ids.items() if v == args["nodeId"])
            self.cursors[which] = data.get("nextCursor")
        elif tool == "wpf_get_properties" and "filter" not in args:
            self.cursors[args["locator"]] = data.get("nextCursor")


# -- the soak --------------------------------------------------------------------------------------


def reading(pid: int, collected: dict[str, Any], calls: int, started: float, rss_before: int) -> dict[str, Any]:
    import psutil

    proc = psutil.Process(pid)
    with proc.oneshot():
        rss = proc.memory_info().rss
        threads = proc.num_threads()
        fds = proc.num_fds()
    files = len(proc.open_files())
    return {
        "calls": calls,
        "t_s": round(time.monotonic() - started, 1),
        "rss_mib": round(rss / MIB, 2),
        "rss_before_collect_mib": round(rss_before / MIB, 2),
        "threads": threads,
        "fds": fds,
        "open_files": files,
        "clr_heap_mib": round(collected.get("clrHeap", 0) / MIB, 3),
        "py_blocks": collected.get("pyBlocks"),
        "py_objects": collected.get("pyObjects"),
        "py_threads": collected.get("pyThreads"),
        "load": loadavg(),
    }


async def soak(url: str, token: str, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    import httpx2
    import psutil
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    latencies: dict[str, list[float]] = collections.defaultdict(list)
    errors: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    examples: dict[str, dict[str, str]] = collections.defaultdict(dict)
    samples: list[dict[str, Any]] = []
    started = time.monotonic()
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:

            async def sample(calls: int) -> None:
                rss_before = psutil.Process(pid).memory_info().rss
                result = await client.call_tool("bench_collect", {})
                collected = (result.structured_content or {}).get("result") or {}
                samples.append(reading(pid, collected, calls, started, rss_before))
                s = samples[-1]
                note(
                    f"[soak] {calls:>6} calls {s['t_s']:>7.0f} s  rss {s['rss_mib']:7.1f} MiB  "
                    f"threads {s['threads']:>3}  fds {s['fds']:>3}  clr {s['clr_heap_mib']:6.2f} MiB  load {s['load']}"
                )

            ids: dict[str, str] = {}
            for name in ("catalogList", "ordersGrid", "zooWindow"):
                found = await client.call_tool("wpf_find_elements", {"locator": f"#{name}"})
                ids[name] = found.structured_content["results"][0]["node"]["nodeId"]
            mix = Mix(args.seed, ids)
            only = set(args.only.split(",")) if args.only else None
            await sample(0)
            for n in range(1, args.calls + 1):
                tool, call_args = mix.next()
                while only is not None and tool not in only:
                    tool, call_args = mix.next()
                t0 = time.perf_counter()
                result = await client.call_tool(tool, call_args)
                latencies[tool].append(time.perf_counter() - t0)
                structured = result.structured_content if isinstance(result.structured_content, dict) else None
                if result.is_error:
                    code = str((structured or {}).get("code") or "no-code")
                    errors[tool][code] += 1
                    message = str((structured or {}).get("message") or "")
                    examples[tool].setdefault(code, f"{json.dumps(call_args)}: {message}"[:300])
                mix.feed(tool, call_args, None if result.is_error else structured)
                if n % args.every == 0 or n == args.calls:
                    await sample(n)
    per_tool = {
        tool: {
            "calls": len(values),
            "p50_ms": round(statistics.median(values) * 1000, 1),
            "p95_ms": round(percentile(values, 0.95) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1),
            "errors": dict(errors.get(tool, {})),
            "error_examples": examples.get(tool, {}),
        }
        for tool, values in sorted(latencies.items())
    }
    return {"samples": samples, "tools": per_tool, "seconds": round(time.monotonic() - started, 1)}


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def growth(samples: list[dict[str, Any]], warmup: int) -> dict[str, Any]:
    after = [s for s in samples if s["calls"] >= warmup]
    first, last = after[0], after[-1]
    calls = last["calls"] - first["calls"]

    def per_call(key: str, scale: float) -> dict[str, float]:
        pts = [(s["calls"], s[key] * scale) for s in after if s.get(key) is not None]
        return {
            "slope": round(slope(pts), 4),
            "difference": round((last[key] - first[key]) * scale / calls, 4) if calls else 0.0,
        }

    return {
        "from_calls": first["calls"],
        "to_calls": last["calls"],
        "rss_kib_per_call": per_call("rss_mib", 1024),
        "clr_heap_kib_per_call": per_call("clr_heap_mib", 1024),
        "py_blocks_per_call": per_call("py_blocks", 1),
        "threads_per_1000_calls": {k: round(v * 1000, 3) for k, v in per_call("threads", 1).items()},
        "fds_per_1000_calls": {k: round(v * 1000, 3) for k, v in per_call("fds", 1).items()},
        "rss_mib": {"after_warmup": first["rss_mib"], "end": last["rss_mib"],
                    "min": min(s["rss_mib"] for s in after), "max": max(s["rss_mib"] for s in after)},
        "threads": {"after_warmup": first["threads"], "end": last["threads"],
                    "max": max(s["threads"] for s in samples)},
        "fds": {"after_warmup": first["fds"], "end": last["fds"], "max": max(s["fds"] for s in samples)},
        "open_files": {"after_warmup": first["open_files"], "end": last["open_files"]},
    }  # fmt: skip


def print_report(report: dict[str, Any]) -> None:
    g = report["growth"]
    s = report["settings"]
    print(f"soak: {s['calls']} calls in {report['soak']['seconds']:.0f} s against the widget zoo "
          f"(rows {s['rows']}, items {s['items']}, seed {s['seed']}); growth from call {g['from_calls']} "
          f"to {g['to_calls']}, each sample after a full collection")  # fmt: skip
    print(f"  RSS        {g['rss_mib']['after_warmup']:.1f} -> {g['rss_mib']['end']:.1f} MiB "
          f"(range {g['rss_mib']['min']:.1f}-{g['rss_mib']['max']:.1f}): "
          f"{g['rss_kib_per_call']['slope']:.3f} KiB/call (slope), {g['rss_kib_per_call']['difference']:.3f} (difference)")  # fmt: skip
    print(f"  CLR heap   {g['clr_heap_kib_per_call']['slope']:.4f} KiB/call (slope)")
    print(f"  Py blocks  {g['py_blocks_per_call']['slope']:.3f} blocks/call (slope)")
    print(f"  threads    {g['threads']['after_warmup']} -> {g['threads']['end']} (max {g['threads']['max']})")
    print(f"  fds        {g['fds']['after_warmup']} -> {g['fds']['end']} (max {g['fds']['max']}); "
          f"regular files open {g['open_files']['after_warmup']} -> {g['open_files']['end']}")  # fmt: skip
    print(f"  {'tool':<24} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  errors")
    for tool, t in report["soak"]["tools"].items():
        errs = ", ".join(f"{k} {v}" for k, v in t["errors"].items()) or "-"
        print(f"  {tool:<24} {t['calls']:>6} {t['p50_ms']:>8.1f} {t['p95_ms']:>8.1f} {t['max_ms']:>8.1f}  {errs}")


@contextlib.contextmanager
def private_home() -> Iterator[None]:
    """The audit log and the manifests go to a temporary WPFPROBE_HOME (inherited by the zoo)."""
    with tempfile.TemporaryDirectory(prefix="wpfprobe-soak-home-") as home:
        previous = os.environ.get("WPFPROBE_HOME")
        os.environ["WPFPROBE_HOME"] = home
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("WPFPROBE_HOME", None)
            else:
                os.environ["WPFPROBE_HOME"] = previous


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000, help="MCP calls in the soak (default 20000)")
    parser.add_argument("--warmup", type=int, default=2_000, help="calls before growth is measured (default 2000)")
    parser.add_argument("--every", type=int, default=500, help="calls between two samples (default 500)")
    parser.add_argument("--rows", type=int, default=300, help="rows of the zoo's grid (default 300)")
    parser.add_argument("--items", type=int, default=200, help="items of the zoo's catalog list (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="the mix's seed (default 1)")
    parser.add_argument(
        "--only", default="", help="only these tools of the mix, comma-separated (to find which one grows what)"
    )
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help="JSON output (default artifacts/bench_soak.json)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.rows, args.items)
    if args.calls < 2 * args.every or args.warmup >= args.calls or args.every < 1:
        parser.error("--calls must be at least two samples' worth, and more than --warmup")

    from wpfprobe.testing import virtual_display

    with private_home(), virtual_display() as display:
        note(f"[soak] starting the zoo on {display}; {args.calls} calls, a sample every {args.every}")
        load_at_start = loadavg()
        child = Child(args.rows, args.items)
        try:
            ready = child.read()
            if ready.get("event") != "started":
                raise RuntimeError(f"unexpected first message from the zoo: {ready}")
            result = asyncio.run(soak(ready["url"], ready["token"], ready["pid"], args))
            stopped = child.finish()
        except BaseException:
            sys.stderr.write(child.stderr())
            raise
    report = {
        "settings": {k: getattr(args, k) for k in ("calls", "warmup", "every", "rows", "items", "seed", "only")},
        "machine": {
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "python": sys.version.split()[0],
            "cpu_count": os.cpu_count(),
            "load_average_at_start": load_at_start,
            "load_average_at_end": loadavg(),
            "source": source_fingerprint(),
        },
        "growth": growth(result["samples"], args.warmup),
        "soak": result,
        "ui_thread_ended": stopped.get("ui_thread_ended"),
    }
    print_report(report)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
