"""What `wpfprobe attach` costs the app it enters, measured by the app itself.

    python benchmarks/bench_attach.py [--rounds 3] [--json PATH]

Each round starts tests/integration/scripts/attach_target.py (a plain pythonnet
WinForms app whose 20 ms timer records its own gaps) with
MONO_THREADS_SUSPEND=preemptive, attaches at the interact tier, makes one call,
detaches, and closes the app. Reported per round:

- the attach in all, and the injector's share (gdb: from its start until it
  detached, during part of which every thread of the app is stopped);
- the app's longest tick gap during the injector's run and during the rest of
  the attach (the probe starting: imports on its own thread, hops to the UI
  thread); a gap of the timer is what a user of the app would feel;
- the detach;
- how long the app took to end once its form was closed, against a round that
  was never attached (pythonnet's shutdown collects garbage up to 20 times, and
  the modules an attach loaded stay loaded).

Nothing is asserted; the numbers go in docs/attach.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness as h

PROG = "bench_attach"
TARGET = h.ROOT / "tests" / "integration" / "scripts" / "attach_target.py"


def start(work: Path, n: int) -> tuple[subprocess.Popen[bytes], Path]:
    stats = work / f"stats-{n}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WPFPROBE")}
    env["MONO_THREADS_SUSPEND"] = "preemptive"
    proc = subprocess.Popen(
        [sys.executable, str(TARGET), str(stats)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 90
    while not stats.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the target did not come up")
        time.sleep(0.05)
    time.sleep(1.0)  # let its first paints and the timer settle
    return proc, stats


def gaps_between(stats: Path, begin: float, end: float) -> float:
    """The longest of the app's own gaps (0.25 s or more are recorded) that ended in [begin, end]."""
    data = json.loads(stats.read_text())
    inside = [gap for when, gap in data["gaps"] if begin <= when <= end + 0.05]
    return max(inside, default=0.0)


def close(proc: subprocess.Popen[bytes], stats: Path) -> float:
    Path(str(stats) + ".close").write_text("")
    started = time.monotonic()
    try:
        proc.wait(300)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        return float("inf")
    return time.monotonic() - started


def round_trip(work: Path, n: int) -> dict[str, Any]:
    from wpfprobe.apps.attach import attacher, inject
    from wpfprobe.mcp.client import call

    proc, stats = start(work, n)
    spans: list[tuple[float, float]] = []
    original = inject.Gdb._run_once

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        began = time.time()
        try:
            return original(self, *args, **kwargs)
        finally:
            spans.append((began, time.time()))

    inject.Gdb._run_once = timed  # type: ignore[method-assign]
    try:
        began = time.time()
        done = attacher.attach(proc.pid, allow="interact")
        ended = time.time()
        manifest = attacher.probe_in(proc.pid)
        assert manifest is not None
        call(manifest, "wpf_get_windows", {})
        detach_began = time.monotonic()
        attacher.detach(proc.pid)
        detach = time.monotonic() - detach_began
        time.sleep(0.6)  # the stats file is rewritten every half second
        injector = (spans[0][0], spans[-1][1]) if spans else (began, began)
        row = {
            "attach": round(ended - began, 3),
            "mechanism": done.mechanism,
            "injector": round(injector[1] - injector[0], 3),
            "injectorTries": len(spans),
            "gapDuringInjector": gaps_between(stats, injector[0], injector[1]),
            "gapDuringProbeStart": gaps_between(stats, injector[1], ended),
            "detach": round(detach, 3),
        }
    finally:
        inject.Gdb._run_once = original  # type: ignore[method-assign]
        row_exit = close(proc, stats)
    row["exitAfterClose"] = round(row_exit, 2)
    return row


def never_attached(work: Path, n: int) -> float:
    proc, stats = start(work, 1000 + n)
    return round(close(proc, stats), 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=str(h.ROOT / "artifacts" / "bench_attach.json"))
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="wpfprobe-bench-attach-"))
    os.environ["WPFPROBE_HOME"] = str(work / "home")
    with contextlib.ExitStack() as stack:
        display = h.Display.ensure()
        stack.callback(display.stop)
        rounds = [round_trip(work, n) for n in range(args.rounds)]
        plain = [never_attached(work, n) for n in range(args.rounds)]
    report = {"rounds": rounds, "exitNeverAttached": plain, "python": sys.version.split()[0]}
    for key in ("attach", "injector", "gapDuringInjector", "gapDuringProbeStart", "detach", "exitAfterClose"):
        values = [r[key] for r in rounds]
        print(f"{key:>22}: median {statistics.median(values):.3f}  max {max(values):.3f}  ({values})")
    print(f"{'exitNeverAttached':>22}: median {statistics.median(plain):.3f}  max {max(plain):.3f}  ({plain})")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
