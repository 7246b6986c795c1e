"""How long wpfprobe holds the UI thread for a full snapshot and for one element's properties.

    python benchmarks/bench_snapshot.py [--sizes 100,1000,5000] [--grid ROWS] [--repeat N] [--json PATH]

For each size it builds a WinForms form of that many controls (the Form
included) on a UI thread of its own, attaches ``wpfprobe.attach(form)`` and
measures, in this one run and on the same form:

- ``probe.tree(max_depth=10)``: the UI-thread hold (the engine's callable,
  timed on the UI thread) and the caller's wall time, per node returned;
- the floor: the same reads done by a bare pythonnet loop in one hop;
- ``properties(include_defaults=True, take=200)`` of one TextBox, through a
  locator and through a node id, and its floor (TypeDescriptor.GetProperties
  + GetValue in one hop);
- ``probe.diagnostics()`` (every provider over the whole app, one hop),
  against the same bare walk;
- the longest single UI-thread hold the probe made during the whole run.

With ``--grid ROWS``, also a form of a bound DataGridView and a virtual
ListView of ROWS rows each, scrolled half way (``_harness.build_grid_form``):
``tree()``'s UI-thread hold per node, where the nodes are their rows in view
and cells, against the bare walk that reads those items too
(``floor_walk_items``) and against the same snapshot read the engine's own
way (``toolkit_walk=False``).

Each operation is warmed up once, then run --repeat times (interleaved);
median and p95 are reported. No timing is asserted: this measures, it does
not judge. Starts its own Xvfb when DISPLAY is unset. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness as h

PROG = "bench_snapshot"
MAX_DEPTH = 10
PROPS_TAKE = 200
UI_TIMEOUT = 60.0  # generous, so a slow machine measures instead of failing with DISPATCHER_BUSY


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="form sizes in controls, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="measured runs per operation (after 1 warm-up)")
    parser.add_argument("--grid", metavar="ROWS", type=int, default=None, help="also a grid form of this many rows")
    parser.add_argument(
        "--json", default=str(h.ROOT / "artifacts" / "bench_snapshot.json"),
        help="where to write the JSON results (default: artifacts/bench_snapshot.json in the repository)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes takes integers separated by commas, got {args.sizes!r}")
    if any(s < 8 or s > 20000 for s in args.sizes):
        parser.error("each size must be between 8 and 20000 controls")
    if not args.sizes and args.grid is None:
        parser.error("nothing to measure: give --sizes or --grid")
    if args.grid is not None and args.grid < 0:
        parser.error("--grid takes a count of 0 or more")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def bench_size(loop: h.UiLoop, rec: h.HoldRecorder, size: int, repeat: int) -> dict[str, Any]:
    import wpfprobe
    from wpfprobe import ProbeSettings

    h.note(f"[{size}] building and showing the form ...")
    form, textbox, info, show_seconds = h.show_form(loop, size)
    try:
        with rec.op(f"attach n={size}"):
            probe = wpfprobe.attach(form, settings=ProbeSettings(ui_timeout=UI_TIMEOUT))
        selector = f"TextBox#{info.sample_textbox}"
        by_locator = probe.locator(selector)
        with rec.op(f"resolve the sample TextBox n={size}"):
            node_id = by_locator.all()[0].target.node_id
        by_id = probe.node(node_id)

        samples: dict[str, list[Any]] = {k: [] for k in (
            "tree", "floor_tree", "props_locator", "props_node", "floor_props", "diagnostics")}  # fmt: skip
        cold: dict[str, float] = {}
        facts: dict[str, Any] = {"node_cap": probe.engine.settings.max_tree_nodes}

        for i in range(repeat + 1):
            phase = "warm-up" if i == 0 else f"run {i}"
            h.note(f"[{size}] {phase}")

            with rec.op(f"tree(max_depth={MAX_DEPTH}) n={size} {phase}") as span:
                tree = probe.tree(max_depth=MAX_DEPTH)
            facts.update(returned_nodes=tree.returned_node_count, truncated=tree.truncated)
            samples["tree"].append(span)

            floor = loop.call(lambda: h.floor_walk(form))
            facts["floor_nodes"] = floor.result
            samples["floor_tree"].append(floor)

            with rec.op(f"properties via locator n={size} {phase}") as span:
                page = by_locator.properties(include_defaults=True, take=PROPS_TAKE)
            facts.update(properties_returned=len(page.items), properties_total=page.total_count)
            samples["props_locator"].append(span)

            with rec.op(f"properties via node id n={size} {phase}") as span:
                by_id.properties(include_defaults=True, take=PROPS_TAKE)
            samples["props_node"].append(span)

            floor = loop.call(lambda: h.floor_properties(textbox))
            facts["floor_properties"] = floor.result
            samples["floor_props"].append(floor)

            with rec.op(f"diagnostics n={size} {phase}") as span:
                findings = probe.diagnostics(take=200)
            facts["findings"] = findings.total_count
            samples["diagnostics"].append(span)

            if i == 0:
                cold["tree_hold_ms"] = samples["tree"][0].hold * 1e3
                for key in samples:
                    samples[key].clear()  # the warm-up is not measured

        return _summarise(size, info, show_seconds, samples, cold, facts, selector)
    finally:
        h.close_form(loop, form)


def bench_grid(loop: h.UiLoop, rec: h.HoldRecorder, rows: int, repeat: int) -> dict[str, Any]:
    """``tree()`` of the grid form against the bare walk of the same items and the engine's own path."""
    import wpfprobe
    from wpfprobe import ProbeSettings

    h.note(f"[grid {rows}] building and showing the form ...")
    form, _box, _info, _ = h.show_grid_form(loop, rows)
    try:
        probe = wpfprobe.attach(form, settings=ProbeSettings(ui_timeout=UI_TIMEOUT))
        spans: dict[str, list[Any]] = {"tree": [], "own": [], "floor": []}
        nodes = floor_nodes = 0
        kept = probe.engine.settings
        own = kept.model_copy(update={"toolkit_walk": False})
        for i in range(repeat + 1):
            h.note(f"[grid {rows}] {'warm-up' if i == 0 else f'run {i}'}")
            with rec.op(f"tree grid {rows}") as span:
                nodes = probe.tree(max_depth=MAX_DEPTH).returned_node_count
            floor = loop.call(lambda cap=nodes: h.floor_walk_items(form, cap))
            probe.engine.settings = own
            try:
                with rec.op(f"tree (own path) grid {rows}") as own_span:
                    probe.tree(max_depth=MAX_DEPTH)
            finally:
                probe.engine.settings = kept
            if i:
                spans["tree"].append(span.hold)
                spans["own"].append(own_span.hold)
                spans["floor"].append(floor.hold)
            floor_nodes = floor.result
    finally:
        h.close_form(loop, form)

    def per(key: str, count: int) -> dict[str, Any]:
        return h.summary([s / max(count, 1) for s in spans[key]], 1e6, 2)

    tree, own_path, floor_items = per("tree", nodes), per("own", nodes), per("floor", floor_nodes)
    return {
        "rows": rows,
        "nodes": nodes,
        "tree_hold_us_per_node": tree,
        "floor_nodes": floor_nodes,
        "floor_hold_us_per_node": floor_items,
        "own_path_hold_us_per_node": own_path,
        "ratio": round(tree["median"] / floor_items["median"], 2),
        "own_path_ratio": round(own_path["median"] / floor_items["median"], 2),
    }


def _summarise(
    size: int, info: h.FormInfo, show_seconds: float, samples: dict[str, list[Any]],
    cold: dict[str, float], facts: dict[str, Any], selector: str,
) -> dict[str, Any]:  # fmt: skip
    nodes = facts["returned_nodes"]
    floor_nodes = facts["floor_nodes"]

    def engine(key: str, per: int | None = None) -> dict[str, Any]:
        spans = samples[key]
        out = {
            "hold_ms": h.summary([s.hold for s in spans], 1e3),
            "wall_ms": h.summary([s.wall for s in spans], 1e3),
            "hops": max(len(s.holds) for s in spans),
        }
        if per:
            out["hold_us_per_node"] = h.summary([s.hold / per for s in spans], 1e6, 2)
            out["wall_us_per_node"] = h.summary([s.wall / per for s in spans], 1e6, 2)
        return out

    def floor(key: str, per: int | None = None) -> dict[str, Any]:
        timed = samples[key]
        out = {"hold_ms": h.summary([t.hold for t in timed], 1e3), "wall_ms": h.summary([t.wall for t in timed], 1e3)}
        if per:
            out["hold_us_per_node"] = h.summary([t.hold / per for t in timed], 1e6, 2)
        return out

    tree = engine("tree", nodes)
    floor_tree = floor("floor_tree", floor_nodes)
    props_loc = engine("props_locator")
    props_node = engine("props_node")
    floor_props = floor("floor_props")
    diagnostics = engine("diagnostics")

    def ratio(a: dict[str, Any], b: dict[str, Any], key: str = "hold_ms") -> float:
        return round(a[key]["median"] / b[key]["median"], 2)

    return {
        "controls": size,
        "form": {
            "controls": info.controls,
            "named": info.named,
            "unnamed": info.unnamed,
            "names_shared": info.names_shared,
            "max_depth": info.max_depth,
            "by_type": info.by_type,
            "build_ms": round(info.build_seconds * 1e3, 1),
            "show_ms": round(show_seconds * 1e3, 1),
        },
        "tree": {
            "call": f"probe.tree(max_depth={MAX_DEPTH})",
            "returned_nodes": nodes,
            "node_cap": facts["node_cap"],
            "truncated": facts["truncated"],
            "cold_hold_ms": round(cold["tree_hold_ms"], 3),
            **tree,
        },
        "floor_tree": {"nodes": floor_nodes, **floor_tree},
        # Ratio of the median per-node holds (node counts can differ at the cap).
        "tree_ratio": round(tree["hold_us_per_node"]["median"] / floor_tree["hold_us_per_node"]["median"], 2),
        "diagnostics": {
            "call": "probe.diagnostics(take=200)",
            "findings": facts["findings"],
            **diagnostics,
            # Against the bare walk of the same form: diagnostics reads more per control
            # (bounds, parent client area, tab order, names) but walks it once, in one hop.
            "ratio_to_floor_walk": ratio(diagnostics, floor_tree),
        },
        "properties": {
            "call": f"properties(include_defaults=True, take={PROPS_TAKE})",
            "element": selector,
            "returned": facts["properties_returned"],
            "total": facts["properties_total"],
            "via_locator": props_loc,
            "via_node_id": props_node,
            "floor": {"properties": facts["floor_properties"], **floor_props},
            "ratio_via_locator": ratio(props_loc, floor_props),
            "ratio_via_node_id": ratio(props_node, floor_props),
        },
    }


def render(
    results: list[dict[str, Any]], longest: dict[str, Any], machine: dict[str, Any], repeat: int,
    grid: dict[str, Any] | None = None,
) -> str:  # fmt: skip
    def mp(d: dict[str, Any], digits: int = 1) -> str:
        return f"{d['median']:.{digits}f} / {d['p95']:.{digits}f}"

    lines = [
        f"wpfprobe snapshot benchmark: {machine['runtime']['description']}, Python {machine['python']}, "
        f"{machine['cpu_count']} CPUs, load {machine['load_average_at_start']}, display {machine['display']}",
        f"median / p95 of {repeat} runs after 1 warm-up; hold = time on the UI thread, wall = caller's time",
    ]
    if results:  # a run of only --grid has no forms of controls
        lines += [
            "",
            f"Full snapshot: probe.tree(max_depth={MAX_DEPTH}) vs bare pythonnet walk (floor), same form, same run",
        ]
        head = ("controls", "nodes", "hold ms", "hold us/node", "wall ms", "floor hold ms", "floor us/node", "ratio")
        rows = [head]
        for r in results:
            t, f = r["tree"], r["floor_tree"]
            at_cap = t["truncated"] or t["returned_nodes"] >= t["node_cap"]
            nodes = f"{t['returned_nodes']}{' (cap)' if at_cap else ''}"
            rows.append((
                f"{r['controls']:,}", nodes, mp(t["hold_ms"]), mp(t["hold_us_per_node"]), mp(t["wall_ms"]),
                mp(f["hold_ms"]), mp(f["hold_us_per_node"]), f"{r['tree_ratio']:.1f}x",
            ))  # fmt: skip
        lines += _table(rows)
        lines += [
            "",
            f"All properties of one TextBox: properties(include_defaults=True, take={PROPS_TAKE}) vs "
            "TypeDescriptor.GetProperties + GetValue (floor)",
        ]
        head = ("controls", "props", "via locator hold ms", "via node id hold ms", "locator wall ms",
                "floor hold ms", "ratio locator", "ratio node id")  # fmt: skip
        rows = [head]
        for r in results:
            p = r["properties"]
            rows.append((
                f"{r['controls']:,}", f"{p['returned']}", mp(p["via_locator"]["hold_ms"], 2),
                mp(p["via_node_id"]["hold_ms"], 2), mp(p["via_locator"]["wall_ms"], 2), mp(p["floor"]["hold_ms"], 2),
                f"{p['ratio_via_locator']:.1f}x", f"{p['ratio_via_node_id']:.1f}x",
            ))  # fmt: skip
        lines += _table(rows)
        lines += [
            "",
            "Every diagnostics provider over the whole app: probe.diagnostics() vs the bare walk (floor) above",
        ]
        head = ("controls", "findings", "hold ms", "wall ms", "hops", "floor hold ms", "ratio")
        rows = [head]
        for r in results:
            d = r["diagnostics"]
            rows.append((
                f"{r['controls']:,}", f"{d['findings']}", mp(d["hold_ms"]), mp(d["wall_ms"]), f"{d['hops']}",
                mp(r["floor_tree"]["hold_ms"]), f"{d['ratio_to_floor_walk']:.1f}x",
            ))  # fmt: skip
        lines += _table(rows)
    if grid is not None:
        lines += [
            "",
            f"A bound grid and a virtual list view of {grid['rows']:,} rows each, their rows in view and cells: "
            "tree() vs the bare walk of the same items (floor), and the engine's own path",
        ]
        head = ("rows", "nodes", "hold us/node", "floor nodes", "floor us/node", "ratio", "own path us/node", "ratio")
        lines += _table([
            head,
            (
                f"{grid['rows']:,}", f"{grid['nodes']}", mp(grid["tree_hold_us_per_node"]), f"{grid['floor_nodes']}",
                mp(grid["floor_hold_us_per_node"]), f"{grid['ratio']:.2f}x", mp(grid["own_path_hold_us_per_node"]),
                f"{grid['own_path_ratio']:.2f}x",
            ),
        ])  # fmt: skip
    lines += ["", f"Longest single UI-thread hold by the probe in this run: {longest['ms']:.1f} ms ({longest['op']})"]
    hops = {r["tree"]["hops"] for r in results} | {r["properties"]["via_locator"]["hops"] for r in results}
    if hops:
        lines.append(f"UI-thread hops per call: {', '.join(map(str, sorted(hops)))}")
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
        results = [bench_size(loop, rec, size, args.repeat) for size in args.sizes]
        grid = None if args.grid is None else bench_grid(loop, rec, args.grid, args.repeat)
        worst = rec.longest()
        longest = {"ms": round(worst.seconds * 1e3, 3), "op": worst.label} if worst else {"ms": 0.0, "op": "none"}
        report = {
            "benchmark": "bench_snapshot",
            "machine": machine,
            "settings": {
                "sizes": args.sizes,
                "grid": args.grid,
                "repeat": args.repeat,
                "warmup": 1,
                "max_depth": MAX_DEPTH,
                "properties_take": PROPS_TAKE,
                "ui_timeout_s": UI_TIMEOUT,
                "statistics": "median and p95 (linear interpolation) over the measured runs",
            },
            "results": results,
            "grid": grid,
            "longest_hold": longest,
            "holds_recorded": len(rec.holds),
            "load_average_at_end": h.loadavg(),
        }
        print(render(results, longest, machine, args.repeat, grid))
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
        name = type(exc).__name__
        print(f"{PROG}: failed: {name}: {exc}", file=sys.stderr)
        code = 1
    finally:
        rec.uninstall()
        code = h.finish(code, loop, display, PROG)
    return code


if __name__ == "__main__":
    sys.exit(main())
