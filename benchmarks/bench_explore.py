"""The test kit's costs and fidelity: exploration speed, replay fidelity, minimization against a known repro.

    python benchmarks/bench_explore.py [--steps 100] [--replays 5] [--seed 2] [--json PATH]

- exploration: actions per second on the WinForms example (the whole run, app
  starts included, and the steps alone), with its coverage;
- replay fidelity: a recorded exploration of the example replayed N times on
  fresh apps (same outcome: nothing fails, every step applies), and each
  ticket of the planted-bug app (tests/integration/scripts/buggy_app.py)
  replayed N times (same failure every time);
- minimization: for each planted bug, the minimized repro's size against the
  known minimal repro (3 steps for both), the candidates run and the time;
  and the bug that needs accumulated state (``buggy_app.py --pager``: Next
  page fails once the list holds five items, 6 steps at least), explored with
  seed 7 and minimized with the default budget (300 s, 60 candidates).

Apps run in processes of their own under a private WPFPROBE_HOME (profiles
written there), on $DISPLAY or a private Xvfb. It reports numbers and ratios;
nothing is asserted (docs/testing.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness as h

PROG = "bench_explore"
EXAMPLE = h.ROOT / "examples" / "winforms_app.py"
BUGGY = h.ROOT / "tests" / "integration" / "scripts" / "buggy_app.py"
KNOWN_MINIMAL = {"crash|RuntimeError|Button#applyButton": 3, "exception|KeyError|Button#processButton": 3}
PAGER = "exception|IndexError|Button#nextPageButton"
PAGER_MINIMAL = 6  # five activations of Add and Next page


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100, help="exploration steps on the example (100)")
    parser.add_argument("--replays", type=int, default=5, help="replays per recording (5)")
    parser.add_argument("--seed", type=int, default=2, help="the seed of the planted-bug exploration (2)")
    parser.add_argument("--bug-steps", type=int, default=45, help="exploration steps on the planted-bug app (45)")
    parser.add_argument("--pager-steps", type=int, default=45, help="exploration steps on the pager, seed 7 (45)")
    parser.add_argument("--json", default=str(h.ROOT / "artifacts" / "bench_explore.json"))
    args = parser.parse_args(argv)
    if args.steps < 1 or args.replays < 1 or args.bug_steps < 1:
        parser.error("--steps, --bug-steps and --replays must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    home = tempfile.mkdtemp(prefix="wpfprobe-bench-explore-")
    os.environ["WPFPROBE_HOME"] = home
    os.environ["PYTHONPATH"] = os.pathsep.join([str(h.ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    from wpfprobe.apps.profiles import add_profile, new_profile
    from wpfprobe.core.trace import load_trace
    from wpfprobe.testkit import AppTarget, ExploreOptions, MinimizeOptions, ProcessFactory, explore
    from wpfprobe.testkit.replay import run_replay

    artifacts = Path(home) / "artifacts"
    add_profile(new_profile("example", [sys.executable, str(EXAMPLE)], cwd=h.ROOT, allow="interact"))
    add_profile(new_profile("buggy", [sys.executable, str(BUGGY)], cwd=h.ROOT, allow="interact"))
    add_profile(new_profile("pager", [sys.executable, str(BUGGY), "--pager"], cwd=h.ROOT, allow="interact"))
    out: dict[str, Any] = {"loadavg": h.loadavg()}
    with h.virtual_display():
        example = ProcessFactory(AppTarget(profile="example"), work_dir=artifacts / "apps")
        h.note(f"exploring the example for {args.steps} steps")
        started = time.perf_counter()
        report = explore(example, ExploreOptions(seed=1, max_steps=args.steps, artifacts=artifacts, minimize=False))
        wall = time.perf_counter() - started
        steps = load_trace(Path(report.session_path) / "steps.jsonl").steps
        acting = sum(s.duration_ms for s in steps) / 1000
        out["exploration"] = {
            "steps": report.steps, "seconds": report.seconds, "actionsPerSecond": report.actions_per_second,
            "launches": report.launches, "stepsAloneSeconds": round(acting, 2),
            "actionsPerSecondExcludingLaunchesAndLooks": round(len(steps) / acting, 2) if acting else None,
            "coverage": report.coverage, "failures": [f.signature for f in report.failures], "wallSeconds": round(wall, 2),
        }  # fmt: skip
        h.note(f"replaying that run {args.replays} times")
        recorded = load_trace(Path(report.session_path) / "steps.jsonl")
        fidelity = run_replay(recorded, example, artifacts=artifacts / "replay", runs=args.replays)
        out["replayExample"] = {
            "runs": fidelity.runs,
            "sameOutcome": fidelity.reproduced_runs,
            "stepsRun": fidelity.steps_run,
        }

        buggy = ProcessFactory(AppTarget(profile="buggy"), work_dir=artifacts / "apps")
        h.note(f"exploring the planted-bug app with seed {args.seed}, minimizing what it finds")
        found = explore(
            buggy,
            ExploreOptions(seed=args.seed, max_steps=args.bug_steps, artifacts=artifacts / "bugs",
                           minimize_options=MinimizeOptions(confirm=args.replays)),
        )  # fmt: skip
        rows = []
        for failure in found.failures:
            ticket = json.loads((Path(str(failure.ticket)) / "ticket.json").read_text(encoding="utf-8"))
            minimization = ticket.get("minimization") or {}
            known = KNOWN_MINIMAL.get(failure.signature)
            replayed = run_replay(
                load_trace(Path(str(failure.ticket)) / "repro.actions.json"), buggy, artifacts=artifacts / "replay-bugs",
                runs=args.replays,
            )  # fmt: skip
            rows.append({
                "signature": failure.signature, "fromSteps": failure.steps, "toSteps": failure.minimized_steps,
                "knownMinimal": known,
                "sizeRatio": round(failure.minimized_steps / known, 2) if known and failure.minimized_steps else None,
                "candidates": minimization.get("candidates"), "seconds": minimization.get("seconds"),
                "complete": minimization.get("complete"), "confirmed": ticket.get("reproRate"),
                "replayed": f"{replayed.reproduced_runs}/{replayed.runs}",
            })  # fmt: skip
        out["minimization"] = rows

        pager = ProcessFactory(AppTarget(profile="pager"), work_dir=artifacts / "apps")
        h.note(f"exploring the pager with seed 7 for {args.pager_steps} steps, minimizing with the default budget")
        paged = explore(pager, ExploreOptions(seed=7, max_steps=args.pager_steps, artifacts=artifacts / "pager"))
        for failure in paged.failures:
            ticket = json.loads((Path(str(failure.ticket)) / "ticket.json").read_text(encoding="utf-8"))
            minimization = ticket.get("minimization") or {}
            out.setdefault("statefulMinimization", []).append({
                "signature": failure.signature, "fromSteps": failure.steps, "toSteps": failure.minimized_steps,
                "knownMinimal": PAGER_MINIMAL if failure.signature == PAGER else None,
                "candidates": minimization.get("candidates"), "seconds": minimization.get("seconds"),
                "complete": minimization.get("complete"), "stages": minimization.get("stages"),
                "confirmed": ticket.get("reproRate"), "loadavg": h.loadavg(),
            })  # fmt: skip
        out["bugsFound"] = sorted(f.signature for f in found.failures)
        out["bugsKnown"] = sorted(KNOWN_MINIMAL)
    print(json.dumps(out, indent=2))
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    h.note(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
