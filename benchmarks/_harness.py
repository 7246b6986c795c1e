"""Shared plumbing for the wpfprobe benchmarks (not part of the package).

- ``Display``: use $DISPLAY, or start a private Xvfb and stop it at exit.
- ``load_winforms``: load the CLR the way wpfprobe does and reference WinForms.
- ``UiLoop``: a WinForms message loop on an STA thread of its own, with a bare
  BeginInvoke hop (``call``) that times the callable on the UI thread.
- ``HoldRecorder``: wraps ``wpfprobe_clr.UiThread.run`` so the duration of every
  callable the engine runs on the UI thread is recorded (the UI-thread hold),
  beside the caller's wall time.
- ``build_form``: a deterministic form of exactly N controls (Form included).
- ``floor_walk`` / ``floor_properties``: the bare pythonnet reads the engine
  is compared with.

Every benchmark ends the UI thread before the interpreter exits: exiting with
a WinForms thread still running kills the process on Mono (see
docs/benchmarks.md).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as _dt
import math
import os
import platform
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The checkout's own code, even where another copy is installed (an editable install of
# another worktree measured that worktree instead: the fingerprint below named this one).
sys.path.insert(0, str(ROOT / "src"))

from wpfprobe.testing import virtual_display  # noqa: E402

perf_counter = time.perf_counter


class BenchError(Exception):
    """A setup or environment problem, reported as one clear line."""


# -- display -------------------------------------------------------------------


class Display:
    """The X display the forms are shown on."""

    def __init__(self, name: str, stack: contextlib.ExitStack | None = None) -> None:
        self.name = name
        self._stack = stack

    @property
    def owned(self) -> bool:
        return self._stack is not None

    @classmethod
    def ensure(cls) -> Display:
        """$DISPLAY if set, else a private Xvfb (stopped at exit).

        The library's own ``virtual_display()`` starts it, so the benchmarks
        and the tests run under the same server options.
        """
        current = os.environ.get("DISPLAY")
        if current:
            return cls(current)
        stack = contextlib.ExitStack()
        try:
            name = stack.enter_context(virtual_display())
        except RuntimeError as err:
            raise BenchError(str(err)) from None
        display = cls(name or "", stack)
        atexit.register(display.stop)
        return display

    def stop(self) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            stack.close()

    def describe(self) -> str:
        return f"{self.name} (Xvfb started by the benchmark)" if self.owned else f"{self.name} (from $DISPLAY)"


# -- CLR and the UI thread ------------------------------------------------------


def load_winforms() -> Any:
    """Load the CLR as wpfprobe does (Mono here) and reference WinForms; returns its description."""
    warnings.filterwarnings("ignore", message="Hosting Mono versions before")  # DESIGN.md: 6.8 works
    try:
        from wpfprobe_clr import ensure_clr

        description = ensure_clr()
    except Exception as exc:  # ClrUnavailableError and import errors alike
        raise BenchError(f"Could not load a .NET runtime: {exc}") from exc
    import clr

    try:
        clr.AddReference("System.Windows.Forms")
        clr.AddReference("System.Drawing")
    except Exception as exc:
        raise BenchError(f"System.Windows.Forms is not available ({exc}); on Linux install mono-complete.") from exc
    return description


@dataclass
class Timed:
    result: Any
    hold: float  # seconds the callable ran on the UI thread
    wall: float  # seconds from posting to having the result on the caller's thread


class UiLoop:
    """A WinForms message loop on its own STA thread, with no form of its own.

    A hidden Control created on that thread is the handle calls are posted
    through, so forms can be built, shown and closed on the thread at will.
    """

    def __init__(self, thread: Any, marshal: Any, context: Any) -> None:
        self._thread = thread
        self._marshal = marshal
        self._context = context
        self.ended_cleanly: bool | None = None

    @classmethod
    def start(cls, *, timeout: float = 30.0) -> UiLoop:
        from System.Threading import ApartmentState, Thread, ThreadStart
        from System.Windows.Forms import Application, ApplicationContext, Control

        ready = threading.Event()
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                marshal = Control()
                marshal.CreateControl()
                _ = marshal.Handle  # an invisible control gets a handle only when asked
                context = ApplicationContext()
                box["marshal"], box["context"] = marshal, context
            except BaseException as exc:
                box["error"] = exc
                ready.set()
                return
            ready.set()
            try:
                Application.Run(context)
            except BaseException as exc:
                box["loop_error"] = exc
            finally:
                with contextlib.suppress(Exception):
                    marshal.Dispose()

        thread = Thread(ThreadStart(run))
        thread.SetApartmentState(ApartmentState.STA)
        thread.IsBackground = True
        thread.Start()
        if not ready.wait(timeout):
            raise BenchError(f"The WinForms UI thread did not start within {timeout:g} s.")
        if "error" in box:
            exc = box["error"]
            hint = " (is the X display reachable?)" if "display" in str(exc).lower() else ""
            raise BenchError(f"The WinForms UI thread failed to start: {exc}{hint}")
        return cls(thread, box["marshal"], box["context"])

    def call(self, fn: Callable[[], Any], *, timeout: float = 120.0) -> Timed:
        """Run ``fn`` on the UI thread in one BeginInvoke hop; time it there and here."""
        from System import Action

        outcome: queue.SimpleQueue[tuple[bool, Any, float]] = queue.SimpleQueue()

        def work() -> None:
            t0 = perf_counter()
            try:
                result, ok = fn(), True
            except BaseException as exc:
                result, ok = exc, False
            outcome.put((ok, result, perf_counter() - t0))

        t0 = perf_counter()
        self._marshal.BeginInvoke(Action(work))
        try:
            ok, result, hold = outcome.get(timeout=timeout)
        except queue.Empty:
            raise BenchError(f"The UI thread did not answer within {timeout:g} s.") from None
        wall = perf_counter() - t0
        if not ok:
            raise result
        return Timed(result, hold, wall)

    def settle(self, *, quiet: float = 0.005, times: int = 5, timeout: float = 10.0) -> None:
        """Wait until the UI thread is idle: ``times`` no-op posts in a row each come back within ``quiet`` s.

        A form just shown keeps the thread busy painting for a while; what is
        measured after must not include that. Gives up after ``timeout`` s
        with a note (the machine is too busy to settle), as the numbers say.
        """
        deadline = perf_counter() + timeout
        in_a_row = 0
        while in_a_row < times:
            in_a_row = in_a_row + 1 if self.call(lambda: None).wall <= quiet else 0
            if perf_counter() > deadline:
                note(f"the UI thread did not settle within {timeout:g} s; measuring anyway")
                return

    def stop(self, timeout: float = 20.0) -> bool:
        """End the message loop and wait for the thread; False if it would not end."""
        if self.ended_cleanly is not None:
            return self.ended_cleanly
        from System import Action
        from System.Windows.Forms import Application

        def close_all() -> None:
            for form in list(Application.OpenForms):
                with contextlib.suppress(Exception):
                    form.Close()
            self._context.ExitThread()

        if self._thread.IsAlive:
            try:
                self._marshal.BeginInvoke(Action(close_all))
            except Exception:
                pass
            self._thread.Join(int(timeout * 1000))
        self.ended_cleanly = not self._thread.IsAlive
        return self.ended_cleanly


def install_sigterm() -> None:
    """Turn SIGTERM into KeyboardInterrupt so the UI thread is still shut down cleanly."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    with contextlib.suppress(ValueError):  # not the main thread
        signal.signal(signal.SIGTERM, handler)


def finish(code: int, loop: UiLoop | None, display: Display | None, prog: str) -> int:
    """End the UI thread, then the display; exit hard if the UI thread would not end.

    Letting the interpreter exit while the WinForms thread still runs kills the
    process on Mono ("Failed to create Python type for ThreadAbortException").
    """
    clean = True
    if loop is not None:
        try:
            clean = loop.stop()
        except Exception as exc:
            print(f"{prog}: could not stop the UI thread: {exc}", file=sys.stderr)
            clean = False
    if not clean:
        print(
            f"{prog}: the WinForms UI thread did not end; exiting without interpreter shutdown.",
            file=sys.stderr,
        )
        if display is not None:
            display.stop()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code or 3)
    return code


# -- hold recording -------------------------------------------------------------


@dataclass
class Hold:
    label: str
    seconds: float


@dataclass
class Span:
    label: str
    holds: list[float] = field(default_factory=list)
    wall: float = 0.0

    @property
    def hold(self) -> float:
        return sum(self.holds)


class HoldRecorder:
    """Records how long every engine callable runs on the UI thread.

    ``wpfprobe_clr.UiThread.run`` is wrapped at class level, so every UiThread
    (the one each probe uses, and the one attach uses to bootstrap) is timed:
    the submitted callable is wrapped with perf_counter at start and end, and
    those run on the UI thread itself. Queueing and the trip back are not in
    the hold; they are in the caller's wall time.
    """

    def __init__(self) -> None:
        self.holds: list[Hold] = []
        self._label = "unlabelled"
        self._original: Any = None

    def install(self) -> None:
        from wpfprobe_clr._ui_thread import UiThread

        if self._original is not None:
            return
        original = UiThread.run
        recorder = self

        def run(ui: Any, fn: Callable[[], Any], *, timeout: float | None = None) -> Any:
            label = recorder._label

            def timed() -> Any:
                t0 = perf_counter()
                try:
                    return fn()
                finally:
                    recorder.holds.append(Hold(label, perf_counter() - t0))

            return original(ui, timed, timeout=timeout)

        run.__wrapped__ = original  # type: ignore[attr-defined]
        UiThread.run = run  # type: ignore[method-assign]
        self._original = original

    def uninstall(self) -> None:
        if self._original is None:
            return
        from wpfprobe_clr._ui_thread import UiThread

        UiThread.run = self._original  # type: ignore[method-assign]
        self._original = None

    @contextlib.contextmanager
    def op(self, label: str) -> Iterator[Span]:
        """Time one engine call: the holds of the hops it made, and its wall time."""
        previous, self._label = self._label, label
        start = len(self.holds)
        span = Span(label)
        t0 = perf_counter()
        try:
            yield span
        finally:
            span.wall = perf_counter() - t0
            span.holds = [h.seconds for h in self.holds[start:]]
            self._label = previous

    def longest(self, predicate: Callable[[Hold], bool] = lambda h: True) -> Hold | None:
        chosen = [h for h in self.holds if predicate(h)]
        return max(chosen, key=lambda h: h.seconds) if chosen else None


# -- the forms --------------------------------------------------------------------

ROWS_PER_COLUMN = 4
SECTION_COLUMNS = 3  # sections per row of the form's grid


@dataclass
class FormInfo:
    controls: int
    named: int
    unnamed: int
    names_shared: int  # controls whose Name is also another control's Name
    max_depth: int
    by_type: dict[str, int]
    sample_textbox: str
    build_seconds: float = 0.0


def build_form(total: int) -> tuple[Any, Any, FormInfo]:
    """A form of exactly ``total`` controls, the Form included. Call on the UI thread.

    Layout (deterministic): the form holds GroupBox sections on a 3-wide grid;
    each section has two columns, a Panel and (every third section) an
    "Options" GroupBox wrapping one more Panel; each column holds 4 rows, and
    a row is an unnamed Panel with a Label (unnamed), a TextBox
    (``field{k}Box``), a CheckBox (``field{k}Check`` on even k, else unnamed)
    and a Button named ``browseButton`` in every row (a shared name, as a
    repeated user control would give). Depth: at most 5 below the form.
    Returns (form, sample TextBox, info).
    """
    from System.Drawing import Point, Size
    from System.Windows.Forms import (
        Button,
        CheckBox,
        Form,
        FormStartPosition,
        GroupBox,
        Label,
        Panel,
        TextBox,
    )

    if total < 1:
        raise BenchError("A form has at least 1 control (the form itself).")
    t0 = perf_counter()
    left = total - 1
    containers: list[Any] = []

    def add(parent: Any, cls: Any, *, name: str | None = None, text: str | None = None,
            at: tuple[int, int] = (0, 0), size: tuple[int, int] = (10, 10)) -> Any:  # fmt: skip
        nonlocal left
        if left <= 0:
            return None
        c = cls()
        if name is not None:
            c.Name = name
        if text is not None:
            c.Text = text
        c.Location = Point(*at)
        c.Size = Size(*size)
        parent.Controls.Add(c)
        left -= 1
        return c

    form = Form()
    form.Name = f"bench{total}Form"
    form.Text = f"wpfprobe benchmark, {total} controls"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(0, 0)
    form.ClientSize = Size(1200, 900)
    form.AutoScroll = True
    form.SuspendLayout()
    containers.append(form)
    section = 0
    field_no = 0
    textboxes: list[str] = []
    while left > 0:
        gx, gy = section % SECTION_COLUMNS, section // SECTION_COLUMNS
        group = add(form, GroupBox, name=f"section{section}", text=f"Section {section}",
                    at=(8 + gx * 396, 8 + gy * 168), size=(390, 160))  # fmt: skip
        group.SuspendLayout()
        containers.append(group)
        for column in range(2):
            at, size = (6 + column * 190, 18), (186, 136)
            if column == 1 and section % 3 == 2:
                box = add(group, GroupBox, name=f"section{section}Options", text="Options", at=at, size=size)
                holder = None if box is None else add(box, Panel, at=(2, 14), size=(182, 120))
            else:
                name = f"section{section}Fields" if column == 0 else None
                holder = add(group, Panel, name=name, at=at, size=size)
            if holder is None:
                break
            for r in range(ROWS_PER_COLUMN):
                row = add(holder, Panel, at=(0, r * 29), size=(182, 28))
                if row is None:
                    break
                k = field_no
                field_no += 1
                add(row, Label, text=f"Field {k}", at=(0, 4), size=(44, 20))
                if add(row, TextBox, name=f"field{k}Box", text=f"value {k}", at=(46, 2), size=(70, 22)) is not None:
                    textboxes.append(f"field{k}Box")
                add(row, CheckBox, name=f"field{k}Check" if k % 2 == 0 else None, text="On",
                    at=(118, 2), size=(36, 22))  # fmt: skip
                add(row, Button, name="browseButton", text="...", at=(156, 2), size=(26, 22))
        group.ResumeLayout(False)
        section += 1
    form.ResumeLayout(False)
    build_seconds = perf_counter() - t0
    if not textboxes:
        raise BenchError(f"A form of {total} controls has no TextBox; use at least 8 controls.")

    info = describe_form(form)
    info.sample_textbox = textboxes[len(textboxes) // 2]
    info.build_seconds = build_seconds
    if info.controls != total:
        raise BenchError(f"Built {info.controls} controls instead of {total}: the builder is wrong.")
    sample = form.Controls.Find(info.sample_textbox, True)[0]
    return form, sample, info


def describe_form(form: Any) -> FormInfo:
    by_type: Counter[str] = Counter()
    names: Counter[str] = Counter()
    unnamed = 0
    max_depth = 0
    stack = [(form, 0)]
    while stack:
        c, depth = stack.pop()
        max_depth = max(max_depth, depth)
        by_type[type(c).__name__] += 1
        if c.Name:
            names[str(c.Name)] += 1
        else:
            unnamed += 1
        stack.extend((k, depth + 1) for k in c.Controls)
    count = sum(by_type.values())
    return FormInfo(
        controls=count,
        named=count - unnamed,
        unnamed=unnamed,
        names_shared=sum(n for n in names.values() if n > 1),
        max_depth=max_depth,
        by_type=dict(sorted(by_type.items())),
        sample_textbox="",
    )


def show_form(loop: UiLoop, total: int) -> tuple[Any, Any, FormInfo, float]:
    """Build and show a form on the UI thread; wait for Shown and let it paint."""
    shown = threading.Event()

    def make() -> tuple[Any, Any, FormInfo, float]:
        form, sample, info = build_form(total)
        form.Shown += lambda sender, args: shown.set()
        t0 = perf_counter()
        form.Show()
        return form, sample, info, perf_counter() - t0

    form, sample, info, show_seconds = loop.call(make).result
    if not shown.wait(60):
        raise BenchError(f"The {total}-control form was not shown within 60 s.")
    loop.settle()  # the paint messages queued by Show have run
    return form, sample, info, show_seconds


GRID_COLUMNS = ("Id", "Customer", "Product", "Quantity", "Shipped")


def build_grid_form(rows: int) -> tuple[Any, Any, FormInfo]:
    """A form of two big lists side by side, each of ``rows`` rows: a DataGridView bound to a DataTable of
    orders (five columns, as the zoo's) and a ListView in virtual mode whose rows a Python handler makes (three
    columns), and a TextBox above them (``gridFilter``). Call on the UI thread. Only the rows in view are
    children of either, so a snapshot is a few hundred nodes of items. Returns (form, the TextBox, info)."""
    import clr

    clr.AddReference("System.Data")
    from System import Boolean, Int32
    from System.Data import DataTable
    from System.Drawing import Point, Size
    from System.Windows.Forms import (
        ColumnHeader,
        DataGridView,
        Form,
        FormStartPosition,
        ListView,
        ListViewItem,
        RetrieveVirtualItemEventHandler,
        TextBox,
        View,
    )

    t0 = perf_counter()
    form = Form()
    form.Name = f"grid{rows}Form"
    form.Text = f"wpfprobe benchmark, a grid and a virtual list of {rows} rows"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(0, 0)
    form.ClientSize = Size(1200, 900)
    box = TextBox()
    box.Name = "gridFilter"
    box.Location = Point(4, 4)
    box.Size = Size(300, 22)
    table = DataTable("Orders")
    for name in GRID_COLUMNS:
        kind = Int32 if name in ("Id", "Quantity") else Boolean if name == "Shipped" else None
        if kind is None:
            table.Columns.Add(name)
        else:
            table.Columns.Add(name, clr.GetClrType(kind))
    table.BeginLoadData()
    for i in range(rows):
        table.Rows.Add(i + 1, f"customer {i % 97}", f"product {i % 13}", 1 + i % 9, i % 3 == 0)
    table.EndLoadData()
    table.AcceptChanges()
    grid = DataGridView()
    grid.Name = "ordersGrid"
    grid.Location = Point(0, 30)
    grid.Size = Size(760, 860)
    grid.AllowUserToAddRows = False
    grid.DataSource = table
    lv = ListView()
    lv.Name = "virtualOrders"
    lv.View = View.Details
    lv.Location = Point(770, 30)
    lv.Size = Size(420, 860)
    for title in ("Order", "Customer", "Quantity"):
        header = ColumnHeader()
        header.Text = title
        header.Width = 130
        lv.Columns.Add(header)
    lv.VirtualMode = True
    lv.VirtualListSize = rows

    def make_row(_sender: Any, args: Any) -> None:
        i = int(args.ItemIndex)
        item = ListViewItem(f"order {i + 1}")
        item.SubItems.Add(f"customer {i % 97}")
        item.SubItems.Add(str(1 + i % 9))
        args.Item = item

    lv.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_row)
    for control in (box, grid, lv):
        form.Controls.Add(control)
    info = describe_form(form)
    info.sample_textbox = "gridFilter"
    info.build_seconds = perf_counter() - t0
    return form, box, info


def show_grid_form(loop: UiLoop, rows: int) -> tuple[Any, Any, FormInfo, float]:
    """``build_grid_form``, shown (its grid and list scrolled half way), painted and settled."""
    shown = threading.Event()

    def make() -> tuple[Any, Any, FormInfo, float]:
        form, box, info = build_grid_form(rows)
        form.Shown += lambda sender, args: shown.set()
        t0 = perf_counter()
        form.Show()
        return form, box, info, perf_counter() - t0

    form, box, info, show_seconds = loop.call(make).result
    if not shown.wait(60):
        raise BenchError(f"The {rows}-row grid form was not shown within 60 s.")

    def scroll() -> None:
        grid, lv = form.Controls[1], form.Controls[2]
        if rows:
            grid.FirstDisplayedScrollingRowIndex = rows // 2
            lv.EnsureVisible(rows // 2)
        form.Refresh()

    loop.call(scroll)
    loop.settle()
    return form, box, info, show_seconds


def close_form(loop: UiLoop, form: Any) -> None:
    """Close ``form``; a failure is reported, not raised, so it cannot hide the error that led here."""
    try:
        loop.call(lambda: None if form.IsDisposed else form.Close(), timeout=30)
    except BaseException as exc:
        note(f"could not close the form: {exc}")


# -- the floors ---------------------------------------------------------------------


def floor_walk(form: Any) -> int:
    """What the engine reads per node, bare: one hop, no ids, no locators, no models.

    Per control: type(c).__name__ (the adapter caches the .NET type name per
    Python type, so this is the fair equivalent), Name, Text, Visible,
    Enabled, Focused and Controls.Count, kept as plain tuples; the walk goes
    through Controls like the adapter's children().
    """
    out = []
    stack = [form]
    while stack:
        c = stack.pop()
        kids = c.Controls
        out.append((type(c).__name__, c.Name, c.Text, c.Visible, c.Enabled, c.Focused, kids.Count))
        stack.extend(kids)
    return len(out)


def floor_walk_items(form: Any, cap: int) -> int:
    """``floor_walk`` with list items as nodes, breadth first to ``cap`` nodes, as a snapshot counts them.

    The bare pythonnet walk of a form whose nodes are mostly list items: per
    control the same seven reads, and per item of a ListBox, CheckedListBox
    or ComboBox what a bare loop reads to show it (its text through
    GetItemText, and whether it is selected), kept as plain tuples; likewise
    a grid's columns (header text, visible), its rows in view (selected) and
    their cells (formatted value, selected), and a virtual list view's rows in
    view (text, selected) and their cells (text).
    """
    from collections import deque

    from System.Windows.Forms import ComboBox, DataGridView, DataGridViewElementStates, ListBox, ListView, SelectionMode

    one = SelectionMode.One
    out: list[tuple[Any, ...]] = []
    queue = deque([form])
    while queue and len(out) < cap:
        c = queue.popleft()
        kids = c.Controls
        out.append((type(c).__name__, c.Name, c.Text, c.Visible, c.Enabled, c.Focused, kids.Count))
        queue.extend(kids)
        if isinstance(c, (ListBox, ComboBox)):
            items = c.Items
            multi = isinstance(c, ListBox) and c.SelectionMode != one
            for i in range(min(int(items.Count), cap - len(out) - len(queue))):
                selected = c.GetSelected(i) if multi else c.SelectedIndex == i
                out.append((c.GetItemText(items[i]), selected))
        elif isinstance(c, DataGridView) and c.Visible and c.IsHandleCreated:
            shown = DataGridViewElementStates.Displayed
            columns = list(c.Columns)
            out.extend((str(col.HeaderText), col.Visible) for col in columns)
            index = int(c.Rows.GetFirstRow(shown))
            while index >= 0 and len(out) < cap:
                row = c.Rows[index]
                out.append((row.Index, row.Selected))
                cells = row.Cells
                out.extend((cells[k].FormattedValue, cells[k].Selected) for k in range(len(columns)))
                index = int(c.Rows.GetNextRow(index, shown))
        elif isinstance(c, ListView) and c.VirtualMode and c.IsHandleCreated and c.TopItem is not None:
            top = c.TopItem
            first = int(top.Index)
            end = min(int(c.VirtualListSize), first + int(c.ClientSize.Height) // max(int(top.Bounds.Height), 1) + 2)
            for i in range(first, end):
                if len(out) >= cap:
                    break
                item = c.Items[i]
                out.append((item.Text, item.Selected))
                out.extend((sub.Text,) for sub in item.SubItems)
    return len(out)


def floor_properties(element: Any) -> int:
    """Every property of one element, bare: TypeDescriptor.GetProperties + GetValue."""
    from System.ComponentModel import TypeDescriptor

    out = []
    for pd in TypeDescriptor.GetProperties(element):
        try:
            value = pd.GetValue(element)
        except Exception as exc:
            value = exc
        out.append((pd.Name, value))
    return len(out)


# -- statistics and machine --------------------------------------------------------


def percentile(samples: list[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    s = sorted(samples)
    k = (len(s) - 1) * p
    lo = math.floor(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(samples: list[float], scale: float = 1.0, digits: int = 3) -> dict[str, Any]:
    values = [v * scale for v in samples]
    return {
        "median": round(statistics.median(values), digits),
        "p95": round(percentile(values, 0.95), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
        "samples": [round(v, digits) for v in values],
    }


def machine_info(runtime: Any, display: Display) -> dict[str, Any]:
    from importlib import metadata

    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    cpu_model = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model,
        "runtime": {"kind": runtime.kind, "version": runtime.version, "description": runtime.description},
        "pythonnet": version("pythonnet"),
        "wpfprobe": version("wpfprobe"),
        "display": display.describe(),
        "mono_threads_suspend": os.environ.get("MONO_THREADS_SUSPEND"),
        "load_average_at_start": loadavg(),
        "source": source_fingerprint(),
    }


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


SOURCE_FILES = (
    "src/wpfprobe/_engine.py",
    "src/wpfprobe_clr/_ui_thread.py",
    "src/wpfprobe_clr/_objects.py",
    "src/wpfprobe_clr/toolkits/winforms/adapter.py",
    "src/wpfprobe_clr/toolkits/winforms/kinds.py",
    "src/wpfprobe_clr/toolkits/winforms/tree.py",
    "src/wpfprobe_clr/toolkits/winforms/values.py",
    "src/wpfprobe_clr/toolkits/winforms/bindings.py",
    "src/wpfprobe_clr/toolkits/winforms/properties.py",
    "src/wpfprobe_clr/toolkits/winforms/diagnostics.py",
)


def source_fingerprint() -> dict[str, Any]:
    """Which engine code was measured: the git commit (if any) and a hash of the hot files."""
    import hashlib

    digest = hashlib.sha256()
    # The hot files named above moved (the engine is a package now): hash every source file.
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*.py"))
    for rel in files:
        with contextlib.suppress(OSError):
            digest.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes())
    commit = None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5
        )
        commit = done.stdout.strip() or None if done.returncode == 0 else None
    return {"git_commit": commit, "files": f"{len(files)} files under src/", "sha256": digest.hexdigest()[:16]}


def note(message: str) -> None:
    """Progress goes to stderr, so stdout holds only the results."""
    print(message, file=sys.stderr, flush=True)
