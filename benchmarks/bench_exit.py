"""How long an app takes to exit once its UI has ended, with the probe and without.

    python benchmarks/bench_exit.py [--runs 5] [--src DIR] [--json PATH]

The app is tests/integration/scripts/ending_app.py (a plain pythonnet WinForms
app whose timer closes its window on request). Each layout runs ``--runs``
times without the probe and with it, interleaved, and the exit delay is the
time from the ``UI-ENDED`` line the app prints (its message loop returned) to
the process's exit, seen from here:

- ``main``: the UI on the main thread, ``wpfprobe.start()`` before Application.Run;
- ``thread``: the UI on a Python thread, the main thread returns;
- ``run``: the UI on the main thread, the probe from ``wpfprobe run``.

``--src DIR`` puts another checkout's ``src`` first on the app's PYTHONPATH (the
numbers before a change). Medians go to stdout, every run to ``--json``. It
asserts nothing. Without ``DISPLAY`` a private Xvfb is started.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "tests" / "integration" / "scripts" / "ending_app.py"
LAYOUTS = {
    "main": (["--ui", "main"], "start"),
    "thread": (["--ui", "thread"], "start"),
    "run": (["--ui", "main"], "run"),
}


def one_exit(layout: str, probed: bool, env: dict[str, str], home: Path) -> float:
    args, how = LAYOUTS[layout]
    control = home / "close-now"
    control.unlink(missing_ok=True)
    app_args = [*args, "--close-when", str(control)]
    if not probed:
        argv = [sys.executable, str(APP), *app_args]
    elif how == "run":
        argv = [sys.executable, "-m", "wpfprobe", "run", str(APP), *app_args]
    else:
        argv = [sys.executable, str(APP), *app_args, "--probe"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        ended = None
        for line in proc.stdout:
            if line.startswith("UP "):
                if probed:
                    wait_for_manifest(home, proc.pid)
                control.write_text("close", encoding="utf-8")
            elif line.startswith("UI-ENDED "):
                ended = float(line.split()[1])
        proc.wait(300)
        exited = time.time()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    if ended is None or proc.returncode != 0:
        raise RuntimeError(f"{layout} probed={probed}: status {proc.returncode}, no UI-ENDED line: {ended}")
    return exited - ended


def wait_for_manifest(home: Path, pid: int) -> None:
    deadline = time.monotonic() + 120
    sessions = home / "sessions"
    while time.monotonic() < deadline:
        for path in sessions.glob("[!.]*.json") if sessions.is_dir() else []:  # not a manifest being written
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
                return
        time.sleep(0.05)
    raise RuntimeError("no manifest")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--layouts", default=",".join(LAYOUTS), help="main,thread,run")
    parser.add_argument("--src", type=Path, help="another checkout's src directory to measure instead")
    parser.add_argument("--json", type=Path, default=ROOT / "artifacts" / "bench_exit.json")
    options = parser.parse_args()
    from wpfprobe.testing import virtual_display

    results: dict[str, dict[str, list[float]]] = {}
    with virtual_display(), tempfile.TemporaryDirectory(prefix="bench-exit-") as tmp:
        home = Path(tmp)
        env = {
            **os.environ, "WPFPROBE_HOME": str(home), "MONO_THREADS_SUSPEND": "preemptive",
            "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning",
        }  # fmt: skip
        if options.src is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(options.src.resolve()), env.get("PYTHONPATH", "")]).rstrip(
                os.pathsep
            )
        for layout in options.layouts.split(","):
            runs = results.setdefault(layout, {"plain": [], "probe": []})
            for i in range(options.runs):
                for probed in (False, True):
                    delay = one_exit(layout, probed, env, home)
                    runs["probe" if probed else "plain"].append(delay)
                    print(f"{layout} {'probe' if probed else 'plain'} run {i + 1}: {delay:.2f} s", file=sys.stderr)
    print(f"exit delay after the UI ended, median of {options.runs} (s)")
    print(f"{'layout':8} {'plain':>7} {'probe':>7}")
    for layout, runs in results.items():
        print(f"{layout:8} {statistics.median(runs['plain']):7.2f} {statistics.median(runs['probe']):7.2f}")
    options.json.parent.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    options.json.write_text(json.dumps({"runs": results, "loadavg": load, "src": str(options.src or "")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
