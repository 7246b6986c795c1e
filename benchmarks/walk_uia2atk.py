"""The walked snapshot against the engine's own on mono/uia2atk's WinForms samples, each in a process of its own.

    python benchmarks/walk_uia2atk.py --checkouts DIR [SAMPLE.py ...]

``walk_outside_apps.py`` compares the snapshot made from the .NET walk with the
engine's own on a few public apps; Mono's accessibility test samples
(``DIR/mono+uia2atk/test/samples/winforms/*.py``, from ``fetch`` or ``git
clone https://github.com/mono/uia2atk``; nothing of theirs is in this
repository) cover every WinForms control, one small app each: lists, trees,
list views, grids, tool strips, menus, dialogs.

They were written for IronPython, so each is loaded the way IronPython would
run it, in memory: tabs expanded, Python 2 syntax converted as 2to3 does, and
the base constructor called first in every ``__init__`` (IronPython does that
itself; under pythonnet a Form subclass that skips it has no .NET object yet,
and its first property set throws). ``Application.Run(form)`` becomes
``form.Show()`` on this process's UI thread. Every window is then read three
times (walk, engine's own, walk), as ``walk_outside_apps.compare`` does.

Prints one line per sample (its windows' verdicts, or why it did not run)
and a summary; exits 1 if a walk differs from the engine's own read of an app
that did not change. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROG = "walk_uia2atk"
SAMPLES = Path("mono+uia2atk") / "test" / "samples" / "winforms"


def as_ironpython_ran_it(source: str) -> str:
    """The sample's source as IronPython ran it, for pythonnet: see the module's docstring."""
    source = source.expandtabs(8)
    try:
        compile(source, "sample", "exec")
    except SyntaxError:
        warnings.simplefilter("ignore")  # lib2to3 is deprecated, and still the converter 2to3 was
        from lib2to3 import refactor

        tool = refactor.RefactoringTool(refactor.get_fixers_from_package("lib2to3.fixes"))
        source = str(tool.refactor_string(source + "\n", "sample"))
    source = re.sub(
        r"^([ \t]+)def __init__\(self([^)]*)\):[ \t]*\n",
        lambda m: f"{m.group(1)}def __init__(self{m.group(2)}):\n{m.group(1)}    super(type(self), self).__init__()\n",
        source,
        flags=re.M,
    )
    source = re.sub(r"Application\.Run\((.*)\)", r"_shown = \1; _shown.Show()", source)
    return source.replace("Application.EnableVisualStyles()", "")


def run_one(sample: Path) -> int:
    """In this process: show the sample on a UI thread, attach, compare; the exit status says how it went."""
    sys.path.insert(0, str(HERE))
    import _harness as h
    from walk_outside_apps import compare

    h.install_sigterm()
    h.Display.ensure()
    h.load_winforms()
    loop = h.UiLoop.start()
    source = as_ironpython_ran_it(sample.read_text(encoding="utf-8", errors="replace"))
    sys.path.insert(0, str(sample.parent))  # the samples find their images from path[0]
    names: dict[str, Any] = {"__name__": "sample"}
    try:
        loop.call(lambda: exec(compile(source, str(sample), "exec"), names), timeout=60)
    except Exception as exc:
        print(f"{sample.name}: did not start: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}", flush=True)
        sys.stdout.flush()
        os._exit(3)
    if "_shown" not in names:
        print(f"{sample.name}: did not start: no Application.Run(form) to show", flush=True)
        os._exit(3)
    loop.settle()
    import wpfprobe

    ok = compare(wpfprobe.attach(names["_shown"], name=sample.stem), sample.name)
    sys.stdout.flush()
    # pythonnet's shutdown under Mono with a UI thread running is slow and noisy: leave at once.
    os._exit(0 if ok else 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkouts", help="the folder holding mono+uia2atk")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process's own mode
    parser.add_argument("samples", nargs="*", help="sample file names (default: every sample)")
    args = parser.parse_args(argv)
    if args.one:
        return run_one(Path(args.one))
    if not args.checkouts:
        parser.error("--checkouts is required")
    folder = Path(args.checkouts) / SAMPLES
    if not folder.is_dir():
        parser.error(f"no samples in {folder}: fetch mono/uia2atk there first")
    chosen = [folder / name for name in args.samples] or sorted(folder.glob("*.py"))
    verdicts = {"equal": 0, "different": 0, "did not start": 0}
    for sample in chosen:
        try:
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--one", str(sample.resolve())],
                capture_output=True, text=True, timeout=120, cwd=sample.parent,  # some open files from there
            )  # fmt: skip
            status, out = done.returncode, done.stdout
        except subprocess.TimeoutExpired:
            status, out = 3, f"{sample.name}: did not start: no window within 120 s\n"
        lines = [line for line in out.splitlines() if line.startswith(sample.name)]
        if not lines:
            lines = [f"{sample.name}: did not start: exit status {status}"]
            status = 3
        print("\n".join(lines), flush=True)
        verdicts["equal" if status == 0 else "different" if status == 1 else "did not start"] += 1
    print(f"{len(chosen)} samples: " + ", ".join(f"{n} {what}" for what, n in verdicts.items()), flush=True)
    return 1 if verdicts["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
