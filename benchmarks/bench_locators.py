"""Where the engine's UI-thread time goes: the locator census, one-element reads, paging.

    python benchmarks/bench_locators.py [--sizes 100,1000,5000] [--wide 100,1000,2000]
                                        [--repeat N] [--json PATH]

A diagnostic companion to bench_snapshot.py (same forms, same hold recording).
It reports, as UI-thread holds:

- per form size: the generated-locator census alone (an engine internal,
  ``Hop.census``), the full snapshot it is part of, and one-element reads
  that pay for it: ``node()``, ``find(type_name=..., max_results=20)`` and
  the first ``children()`` page of the form;
- per-call costs on the UI thread of the adapter calls a snapshot makes for
  every node, measured over every control of the largest form;
- a Panel with K Buttons (``--wide``): every ``children(panel, take=100)``
  page (first, last, total) against ``tree()`` of the same panel.

The census and per-call rows use one engine internal,
``wpfprobe.engine.hop.Hop``; if it changes, those rows say "n/a" and the rest
(public API only) still runs. No timing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness as h

PROG = "bench_locators"
UI_TIMEOUT = 120.0  # paging a wide parent holds the UI thread for seconds; measure it, do not time out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="form sizes in controls, comma-separated")
    parser.add_argument("--wide", default="100,1000,2000", help="child counts of the wide panel ('' to skip)")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs per operation (after 1 warm-up)")
    parser.add_argument("--json", default=str(h.ROOT / "artifacts" / "bench_locators.json"))
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        args.wide = [int(s) for s in args.wide.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes and --wide take integers separated by commas")
    if any(s < 8 or s > 20000 for s in args.sizes) or any(k < 1 or k > 10000 for k in args.wide):
        parser.error("sizes must be 8..20000 controls and wide panels 1..10000 children")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def _median_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1e3, 3)


def bench_size(loop: h.UiLoop, rec: h.HoldRecorder, size: int, repeat: int, *, breakdown: bool) -> dict[str, Any]:
    import wpfprobe

    h.note(f"[{size}] building and showing the form ...")
    form, _textbox, _info, _ = h.show_form(loop, size)
    try:
        probe = wpfprobe.attach(form, settings=wpfprobe.ProbeSettings(ui_timeout=UI_TIMEOUT))
        form_id = probe.windows()[0].node_id
        probe.tree(max_depth=10)  # every node gets its id before anything is timed
        some_id = probe.find(type_name="TextBox", max_results=1).results[0].node.node_id
        census = _census_call(probe)
        ops: dict[str, Any] = {
            "tree(max_depth=10)": lambda: probe.tree(max_depth=10),
            "node() of one TextBox by id": lambda: probe.node(some_id).node(),
            "find(type_name='TextBox', max_results=20)": lambda: probe.find(type_name="TextBox", max_results=20),
            "children(form, take=100), first page": lambda: probe.children(form_id, take=100),
        }
        holds: dict[str, list[float]] = {k: [] for k in ops}
        census_holds: list[float] = []
        for i in range(repeat + 1):
            for label, fn in ops.items():
                with rec.op(f"{label} n={size}") as span:
                    fn()
                if i:
                    holds[label].append(span.hold)
            if census is not None:
                timed = loop.call(census)
                if i:
                    census_holds.append(timed.hold)
        out: dict[str, Any] = {"controls": size, "form_children": loop.call(lambda: int(form.Controls.Count)).result}
        out["census_ms"] = _median_ms(census_holds) if census_holds else None
        out["census_us_per_control"] = round(out["census_ms"] * 1e3 / size, 2) if census_holds else None
        for label, values in holds.items():
            out[label] = _median_ms(values)
        tree_ms = out["tree(max_depth=10)"]
        out["census_share_of_tree"] = round(out["census_ms"] / tree_ms, 3) if census_holds and tree_ms else None
        if breakdown:
            out["per_call_us"] = _per_call_costs(loop, probe, form)
        return out
    finally:
        h.close_form(loop, form)


def _census_call(probe: Any) -> Any:
    """A callable that builds the locator census once, as one hop of the engine would; None if unavailable."""
    try:
        from wpfprobe.engine.hop import Hop as _Hop
    except ImportError:
        return None
    engine = probe.engine
    if not hasattr(_Hop(engine), "census"):
        return None

    def fresh() -> Any:
        engine.name_index = None  # the census is the name index's counts, kept across hops: count anew
        return _Hop(engine).census()

    return fresh


def _per_call_costs(loop: h.UiLoop, probe: Any, form: Any) -> dict[str, float] | None:
    """Microseconds per call, on the UI thread, of what a snapshot does for every node."""
    try:
        from wpfprobe.engine.hop import Hop as _Hop
    except ImportError:
        return None
    engine = probe.engine

    def measure() -> dict[str, float]:
        hop = _Hop(engine)
        ad = hop.adapter
        controls = []
        stack = [form]
        while stack:
            c = stack.pop()
            controls.append(c)
            stack.extend(c.Controls)
        a, b = controls[0], controls[-1]
        res: dict[str, float] = {}

        def each(label: str, fn: Any) -> None:
            t0 = time.perf_counter()
            for c in controls:
                fn(c)
            res[label] = round((time.perf_counter() - t0) / len(controls) * 1e6, 2)

        each("floor: type, Name, Text, Visible, Enabled, Focused, Controls.Count", lambda c: (
            type(c).__name__, c.Name, c.Text, c.Visible, c.Enabled, c.Focused, c.Controls.Count))  # fmt: skip
        each("adapter.children(el)", lambda c: ad.children(c, "visual"))
        each("adapter.naming(el)", ad.naming)
        each("adapter.state(el)", ad.state)
        each("hop.text(el) (text_property + redaction check + read)", hop.text)
        each("hop.id(el) (ConditionalWeakTable lookup)", hop.id)
        t0 = time.perf_counter()
        hop.census()
        res["hop.census() per control"] = round((time.perf_counter() - t0) / len(controls) * 1e6, 2)
        t0 = time.perf_counter()
        for _ in range(2000):
            hop.same(a, b)
        res["hop.same(a, b) (Object.ReferenceEquals)"] = round((time.perf_counter() - t0) / 2000 * 1e6, 2)
        sample = controls[-1]
        t0 = time.perf_counter()
        for _ in range(20):
            hop.locator_of(sample)
        res["hop.locator_of(last control walked), census built"] = round((time.perf_counter() - t0) / 20 * 1e6, 2)
        return res

    return loop.call(measure, timeout=UI_TIMEOUT).result


def bench_wide(loop: h.UiLoop, rec: h.HoldRecorder, k: int) -> dict[str, Any]:
    import wpfprobe

    def make() -> Any:
        from System.Drawing import Point, Size
        from System.Windows.Forms import Button, Form, FormStartPosition, Panel

        form = Form()
        form.Name = f"wide{k}Form"
        form.StartPosition = FormStartPosition.Manual
        form.Location = Point(0, 0)
        form.ClientSize = Size(800, 600)
        panel = Panel()
        panel.Name = "widePanel"
        panel.Size = Size(790, 590)
        panel.AutoScroll = True
        panel.SuspendLayout()
        for i in range(k):
            b = Button()
            b.Name = f"item{i}Button"
            b.Text = str(i)
            b.Location = Point((i % 20) * 38, (i // 20) * 20)
            b.Size = Size(36, 18)
            panel.Controls.Add(b)
        panel.ResumeLayout(False)
        form.Controls.Add(panel)
        form.Show()
        return form

    h.note(f"[wide {k}] building ...")
    form = loop.call(make).result
    try:
        probe = wpfprobe.attach(form, settings=wpfprobe.ProbeSettings(ui_timeout=UI_TIMEOUT))
        panel = probe.locator("Panel#widePanel")
        panel_id = panel.all()[0].target.node_id
        with rec.op(f"tree(widePanel, max_depth=1) k={k}") as tree_span:
            probe.tree(panel, max_depth=1)
        pages = []
        cursor = None
        while True:
            n = len(pages)
            with rec.op(f"children(widePanel, take=100) page {n + 1} of k={k}") as span:
                page = probe.children(panel_id, take=100, cursor=cursor)
            pages.append(span.hold)
            h.note(f"[wide {k}] page {n + 1}: {span.hold * 1e3:.0f} ms")
            cursor = page.next_cursor
            if cursor is None:
                break
        return {
            "children": k,
            "tree_depth1_ms": round(tree_span.hold * 1e3, 1),
            "pages": len(pages),
            "first_page_ms": round(pages[0] * 1e3, 1),
            "last_page_ms": round(pages[-1] * 1e3, 1),
            "worst_page_ms": round(max(pages) * 1e3, 1),
            "all_pages_ms": round(sum(pages) * 1e3, 1),
        }
    finally:
        h.close_form(loop, form)


def render(sizes: list[dict[str, Any]], wide: list[dict[str, Any]], machine: dict[str, Any], repeat: int) -> str:
    lines = [
        f"wpfprobe locator-cost diagnostics: {machine['runtime']['description']}, {machine['cpu_count']} CPUs",
        f"UI-thread hold, median of {repeat} runs after 1 warm-up, in ms",
        "",
    ]
    labels = ["census_ms", "tree(max_depth=10)", "census_share_of_tree", "node() of one TextBox by id",
              "find(type_name='TextBox', max_results=20)", "children(form, take=100), first page"]  # fmt: skip
    rows = [("controls", "census", "tree", "census/tree", "node()", "find 20", "children(form)")]
    for r in sizes:
        cells = [f"{r['controls']:,}"]
        for label in labels:
            v = r.get(label)
            cells.append("n/a" if v is None else (f"{v:.0%}" if label == "census_share_of_tree" else f"{v:.1f}"))
        rows.append(tuple(cells))
    lines += _table(rows)
    per_call = next((r["per_call_us"] for r in reversed(sizes) if r.get("per_call_us")), None)
    if per_call:
        lines += ["", f"Per call on the UI thread, over every control of the {sizes[-1]['controls']:,} form (us)"]
        lines += _table([("call", "us")] + [(k, f"{v:.1f}") for k, v in per_call.items()])
    if wide:
        lines += ["", "A Panel with K Buttons: each children(panel, take=100) page vs tree(panel, max_depth=1), ms"]
        rows = [("K", "pages", "first page", "last page", "worst page", "all pages", "tree depth 1")]
        for w in wide:
            rows.append((f"{w['children']:,}", str(w["pages"]), f"{w['first_page_ms']:.1f}",
                         f"{w['last_page_ms']:.1f}", f"{w['worst_page_ms']:.1f}", f"{w['all_pages_ms']:.1f}",
                         f"{w['tree_depth1_ms']:.1f}"))  # fmt: skip
        lines += _table(rows)
    return "\n".join(lines)


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        out.append(
            "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=False)))
        )
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    h.install_sigterm()
    display = loop = None
    rec = h.HoldRecorder()
    code = 1
    try:
        display = h.Display.ensure()
        h.note(f"display {display.describe()}")
        runtime = h.load_winforms()
        rec.install()
        loop = h.UiLoop.start()
        machine = h.machine_info(runtime, display)
        sizes = [bench_size(loop, rec, size, args.repeat, breakdown=size == max(args.sizes)) for size in args.sizes]
        wide = [bench_wide(loop, rec, k) for k in args.wide]
        worst = rec.longest()
        report = {
            "benchmark": "bench_locators",
            "machine": machine,
            "settings": {"sizes": args.sizes, "wide": args.wide, "repeat": args.repeat, "warmup": 1},
            "sizes": sizes,
            "wide": wide,
            "longest_hold": {"ms": round(worst.seconds * 1e3, 3), "op": worst.label} if worst else None,
        }
        print(render(sizes, wide, machine, args.repeat))
        if worst:
            print(
                f"\nLongest single UI-thread hold by the probe in this run: {worst.seconds * 1e3:.1f} ms ({worst.label})"
            )
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
        rec.uninstall()
        code = h.finish(code, loop, display, PROG)
    return code


if __name__ == "__main__":
    sys.exit(main())
