"""The walked snapshot against the engine's own on public pythonnet apps, in this process.

    python benchmarks/walk_outside_apps.py --checkouts DIR

``tests/integration/test_walker_live.py`` compares the snapshot made from the
.NET walk (engine/walked.py) with the engine's own, node for node, on apps
written here. This does the same on apps nobody here wrote, from checkouts
made by ``survey_outside_apps.py --fetch`` (nothing of theirs is in this
repository):

- pythonnet's ``demo/wordpad.py``: a Form subclassed in Python, a rich text
  box, menus;
- nikll123/normzad: an MDI records app over SQLite, all five of its child
  windows open (grids bound to tables, tool strips), run from a copy of its
  checkout, with its ``Application.Run`` replaced by ``Show`` so that it runs
  on this process's UI thread;
- a form with a grid bound to a 5,000-row DataTable, the way normzad binds
  its tables, at a size normzad's sample data does not reach.

The CLR and WinForms are loaded before the probe attaches, as an app does.
Each window is read three times (walk, engine's own, walk): an app still
filling its grids changes between reads, and the line says so. Prints one
line per window; exits 1 if a walk differs from the engine's read that
followed it and the app did not change. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness as h

PROG = "walk_outside_apps"


def snapshots(probe: Any, locator: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], bool]:
    """(walk, own, walk again) of one window, and whether the walks were made from the walk."""
    from wpfprobe.engine import walked

    built: list[Any] = []
    build = walked.build

    def counted(prepared: Any) -> Any:
        built.append(result := build(prepared))
        return result

    def walk() -> dict[str, Any]:
        walked.build = counted  # type: ignore[assignment]
        try:
            return dict(probe.tree(locator, max_depth=10).model_dump())
        finally:
            walked.build = build

    kept = probe.engine.settings
    first = walk()
    probe.engine.settings = kept.model_copy(update={"toolkit_walk": False})
    try:
        own = dict(probe.tree(locator, max_depth=10).model_dump())
    finally:
        probe.engine.settings = kept
    again = walk()
    return first, own, again, len(built) == 2 and all(b is not None for b in built)


def compare(probe: Any, label: str) -> bool:
    ok = True
    for window in probe.windows():
        first, own, again, used = snapshots(probe, window.locator)
        counts = "/".join(str(t["returned_node_count"]) for t in (first, own, again))
        if first == own:
            verdict = "equal"
        elif again == own:
            verdict = "equal once the app stopped changing (it changed between the first reads)"
        else:
            changed = first["returned_node_count"] != own["returned_node_count"]
            verdict = "DIFFERENT" + (" (the app was still changing)" if changed else "")
            ok = ok and changed
        print(f"{label} {window.locator}: nodes walk/own/walk {counts}; walk used: {used}; {verdict}", flush=True)
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkouts", required=True, help="where survey_outside_apps.py --fetch put the repositories")
    args = parser.parse_args(argv)
    checkouts = Path(args.checkouts)
    h.install_sigterm()
    h.Display.ensure()
    h.load_winforms()
    loop = h.UiLoop.start()
    import wpfprobe

    ok = True
    # pythonnet's wordpad: a Form subclassed in Python.
    sys.path.insert(0, str(checkouts / "pythonnet+pythonnet" / "demo"))
    wordpad = importlib.import_module("wordpad")

    def show_wordpad() -> Any:
        form = wordpad.Wordpad()
        form.Show()
        return form

    form = loop.call(show_wordpad).result
    loop.settle()
    ok = compare(wpfprobe.attach(form, name="wordpad"), "wordpad") and ok
    loop.call(lambda: form.Close())

    # nikll123/normzad: its database is written as it runs, so it runs from a copy.
    work = Path(tempfile.mkdtemp(prefix="normzad-"))
    shutil.copytree(checkouts / "nikll123+normzad", work, dirs_exist_ok=True)
    os.chdir(work)
    sys.path.insert(0, str(work))
    source = (work / "guiMain.py").read_text(encoding="utf-8")
    source = source.replace("WinForms.Application.Run(mainForm)", "mainForm.Show()")
    names: dict[str, Any] = {"__name__": "normzad_main"}
    loop.call(lambda: exec(compile(source, "guiMain.py", "exec"), names))
    for opener in (
        "openFormDepartments",
        "openFormPositions",
        "openFormTasks",
        "openFormWorkerList",
        "openFormJobList",
    ):
        loop.call(partial(names[opener], None, None))
    loop.settle()
    normzad = wpfprobe.attach(names["mainForm"], name="normzad")
    ok = compare(normzad, "normzad") and ok

    # A grid bound to a 5,000-row DataTable.
    import clr

    clr.AddReference("System.Data")
    from System.Data import DataTable
    from System.Windows.Forms import DataGridView, DockStyle, Form

    def show_grid() -> Any:
        grid_form = Form()
        grid_form.Name, grid_form.Text = "bigGrid", "5,000 rows"
        table = DataTable()
        table.Columns.Add("Id")
        table.Columns.Add("Name")
        for i in range(5000):
            table.Rows.Add(str(i), f"row {i}")
        grid = DataGridView()
        grid.Name, grid.Dock, grid.DataSource = "grid", DockStyle.Fill, table
        grid_form.Controls.Add(grid)
        grid_form.Show()
        return grid_form

    grid_form = loop.call(show_grid).result
    loop.settle()
    ok = compare(wpfprobe.attach(grid_form, name="big-grid"), "5,000-row grid") and ok
    print("OK: every walk equals the engine's own read" if ok else "FAILED: a walk differs", flush=True)
    # pythonnet's shutdown under Mono with these apps' threads is slow and noisy: leave at once.
    sys.stdout.flush()
    os._exit(0 if ok else 1)


if __name__ == "__main__":
    sys.exit(main())
