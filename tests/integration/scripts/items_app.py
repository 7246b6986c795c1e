"""A WinForms window full of items: lists, a checked list, a combo box, a list view, trees, tabs, a grid, menus.

    python items_app.py [interact|mutate] [--big N]

``build()`` makes the window (call it on the UI thread that will show it): the
Python API tests show it beside the example app, on the example's UI thread.
Run as a script, it shows the window on a UI thread of its own with a probe
at the given tier, under a private X display, prints one JSON line
{"url", "token"} once the server listens, and serves until "close" arrives
on stdin (then prints {"threadViolations": [...]}).

Every handler a test drives reports itself in ``itemsStatus`` (the last
event) and appends to ``events`` (all of them, in order), so a test can see
that the app's own handlers ran. Captions carry access keys ("&Edit",
"Select &All", "&Close"), as real apps' do. ``eventLog`` is a list view in
virtual mode, whose rows the app makes on request. With ``--big N`` (or
``build(big=N)``) a second window, ``bigWindow``, holds ``bigList`` with N items.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if "clr" not in sys.modules:
    import pythonnet

    os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
    pythonnet.load()

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")
clr.AddReference("System.Data")

from System import Int32  # noqa: E402
from System.Data import DataTable  # noqa: E402
from System.Drawing import Point, Size  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    Button,
    CheckedListBox,
    ColumnHeader,
    ComboBox,
    ComboBoxStyle,
    ContextMenu,
    ContextMenuStrip,
    DataGridView,
    DataGridViewAutoSizeColumnsMode,
    Form,
    FormStartPosition,
    Label,
    ListBox,
    ListView,
    ListViewItem,
    MenuItem,
    MenuStrip,
    SelectionMode,
    TabControl,
    TabPage,
    TextBox,
    ToolStripMenuItem,
    TreeView,
    View,
)

FRUITS = ("Apple", "Banana", "Cherry", "Date", "Elderberry", "Fig", "Grape", "Honeydew", "Kiwi", "Lemon")
PEOPLE = (("Ada", "36", "London"), ("Grace", "45", "Arlington"), ("Linus", "28", "Helsinki"))
GRID_ROWS = 60
VIRTUAL_ROWS = 1000


@dataclass
class ItemsWindow:
    """The window, what its handlers did (in order; the last one is also in itemsStatus), the grid's table."""

    form: Any
    status: Any
    table: Any = None
    seen: list[str] = field(default_factory=list)

    def __call__(self, text: str) -> None:
        self.seen.append(text)
        self.status.Text = text


def _place(control: Any, name: str, x: int, y: int, width: int, height: int) -> Any:
    control.Name = name
    control.Location = Point(x, y)
    control.Size = Size(width, height)
    return control


def build(*, big: int = 0) -> ItemsWindow:
    """The items window (and, with ``big``, the big-list window, shown with it). Call on its UI thread."""
    form = Form()
    form.Name = "itemsWindow"
    form.Text = "Items"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(520, 40)
    form.ClientSize = Size(740, 560)

    status = _place(Label(), "itemsStatus", 10, 530, 500, 22)
    status.Text = "Ready"
    events = ItemsWindow(form, status)

    menu = MenuStrip()
    menu.Name = "itemsMenu"
    edit = ToolStripMenuItem("&Edit")
    edit.Name = "editMenu"
    select_all = ToolStripMenuItem("Select &All")
    select_all.Name = "selectAllMenuItem"
    select_all.Click += lambda s, a: events("select all")
    wrap = ToolStripMenuItem("&Wrap Lines")
    wrap.Name = "wrapMenuItem"
    wrap.CheckOnClick = True
    wrap.CheckedChanged += lambda s, a: events(f"wrap {'on' if wrap.Checked else 'off'}")
    edit.DropDownItems.Add(select_all)
    edit.DropDownItems.Add(wrap)
    menu.Items.Add(edit)

    fruits = _place(ListBox(), "fruits", 10, 30, 120, 70)  # about five rows: the rest scroll
    for fruit in FRUITS:
        fruits.Items.Add(fruit)
    fruits.SelectedIndexChanged += lambda s, a: events(f"fruit {fruits.SelectedItem}")
    fruits.DoubleClick += lambda s, a: events(f"opened {fruits.SelectedItem}")
    fruits_menu = ContextMenuStrip()
    fruits_menu.Name = "fruitsMenu"
    copy = fruits_menu.Items.Add("&Copy")
    copy.Name = "copyMenuItem"
    copy.Click += lambda s, a: events(
        f"copy from {fruits_menu.SourceControl.Name if fruits_menu.SourceControl else None}"
    )
    fruits.ContextMenuStrip = fruits_menu

    locked = _place(ListBox(), "lockedList", 10, 110, 120, 40)
    for word in ("Alpha", "Beta"):
        locked.Items.Add(word)
    locked.Enabled = False

    toppings = _place(CheckedListBox(), "toppings", 140, 30, 120, 60)
    for topping in ("Cheese", "Ham", "Olives"):
        toppings.Items.Add(topping)
    toppings.SetItemChecked(2, True)
    toppings.ItemCheck += lambda s, a: events(f"topping {toppings.Items[a.Index]} {a.NewValue}")

    sizes = _place(ComboBox(), "sizes", 140, 100, 120, 24)
    sizes.DropDownStyle = ComboBoxStyle.DropDownList
    for size in ("Small", "Medium", "Large"):
        sizes.Items.Add(size)
    sizes.SelectedIndex = 0
    sizes.SelectedIndexChanged += lambda s, a: events(f"size {sizes.SelectedItem}")

    people = _place(ListView(), "people", 270, 30, 260, 90)
    people.View = View.Details
    people.FullRowSelect = True
    for title, width in (("Name", 80), ("Age", 50), ("City", 100)):
        header = ColumnHeader()
        header.Text = title
        header.Name = f"{title.lower()}Column"
        header.Width = width
        people.Columns.Add(header)
    for row in PEOPLE:
        item = ListViewItem(row[0])
        item.Name = f"person{row[0]}"
        for cell in row[1:]:
            item.SubItems.Add(cell)
        people.Items.Add(item)
    people.SelectedIndexChanged += lambda s, a: events(
        f"person {people.SelectedItems[0].Text}" if people.SelectedItems.Count else "no person"
    )
    people.ColumnClick += lambda s, a: events(f"sort by {people.Columns[a.Column].Text}")

    foods = _place(TreeView(), "foods", 540, 30, 190, 120)
    fruit_node = foods.Nodes.Add("fruitsNode", "Fruits")
    for name in ("Apple", "Banana"):
        fruit_node.Nodes.Add(name)
    vegetables = foods.Nodes.Add("vegetablesNode", "Vegetables")
    for name in ("Carrot", "Potato"):
        vegetables.Nodes.Add(f"{name.lower()}Node", name)
    foods.AfterSelect += lambda s, a: events(f"node {a.Node.FullPath}")
    foods.AfterExpand += lambda s, a: events(f"expanded {a.Node.Text}")
    foods.AfterCollapse += lambda s, a: events(f"collapsed {a.Node.Text}")
    foods.NodeMouseDoubleClick += lambda s, a: events(f"double-clicked {a.Node.Text}")

    tasks = _place(TreeView(), "tasks", 540, 160, 190, 90)
    tasks.CheckBoxes = True
    chores = tasks.Nodes.Add("choresNode", "Chores")
    for name in ("Dishes", "Laundry"):
        chores.Nodes.Add(name)
    chores.Expand()
    tasks.AfterCheck += lambda s, a: events(f"task {a.Node.Text} {'done' if a.Node.Checked else 'open'}")
    tasks.AfterExpand += lambda s, a: events(f"expanded {a.Node.Text}")
    tasks.AfterCollapse += lambda s, a: events(f"collapsed {a.Node.Text}")

    tabs = _place(TabControl(), "tabs", 10, 160, 250, 100)
    for name, title in (("generalPage", "General"), ("advancedPage", "Advanced")):
        page = TabPage(title)
        page.Name = name
        inner = _place(Label(), f"{name}Label", 5, 5, 200, 20)
        inner.Text = f"{title} settings"
        page.Controls.Add(inner)
        tabs.TabPages.Add(page)
    tabs.SelectedIndexChanged += lambda s, a: events(f"tab {tabs.SelectedTab.Text}")

    table = DataTable("People")
    table.Columns.Add("Name")
    table.Columns.Add("Age", clr.GetClrType(Int32))
    for i in range(GRID_ROWS):
        table.Rows.Add(f"Person {i}", 20 + i)
    grid = _place(DataGridView(), "grid", 270, 130, 260, 200)
    grid.AutoSizeColumnsMode = DataGridViewAutoSizeColumnsMode.Fill
    grid.DataSource = table
    grid.CellValueChanged += lambda s, a: events(
        f"cell {grid.Columns[a.ColumnIndex].Name}={grid.Rows[a.RowIndex].Cells[a.ColumnIndex].Value}"
        if a.RowIndex >= 0
        else "header"
    )
    events.table = table

    notes = _place(TextBox(), "notes", 10, 340, 250, 24)
    legacy = ContextMenu()
    paste = MenuItem("&Paste")
    paste.Name = "pasteMenuItem"
    paste.Click += lambda s, a: events("paste")
    legacy.MenuItems.Add(paste)
    notes.ContextMenu = legacy

    close = _place(Button(), "closeButton", 270, 340, 90, 26)
    close.Text = "&Close"
    close.Click += lambda s, a: events("close pressed")

    # A list in virtual mode: the app makes each row when the list asks for it, a new object every time.
    log = _place(ListView(), "eventLog", 540, 260, 190, 110)
    log.View = View.Details
    log.FullRowSelect = True
    log.Columns.Add("Event", 90)
    log.Columns.Add("Code", 60)
    log.VirtualMode = True

    def make_row(sender: Any, args: Any) -> None:
        row = ListViewItem(f"Event {args.ItemIndex}")
        row.SubItems.Add(str(1000 + args.ItemIndex))
        args.Item = row

    log.RetrieveVirtualItem += make_row
    log.VirtualListSize = VIRTUAL_ROWS
    log.SelectedIndexChanged += lambda s, a: events(
        f"event {log.SelectedIndices[0]}" if log.SelectedIndices.Count else "no event"
    )

    multi = _place(ListBox(), "multiList", 10, 380, 120, 60)
    multi.SelectionMode = SelectionMode.MultiExtended
    for word in ("One", "Two", "Three"):
        multi.Items.Add(word)

    for control in (
        fruits,
        locked,
        toppings,
        sizes,
        people,
        foods,
        tasks,
        tabs,
        grid,
        notes,
        close,
        log,
        multi,
        status,
    ):
        form.Controls.Add(control)
    form.Controls.Add(menu)
    form.MainMenuStrip = menu

    if big:
        extra = Form()
        extra.Name = "bigWindow"
        extra.Text = "Big list"
        extra.StartPosition = FormStartPosition.Manual
        extra.Location = Point(40, 600)
        extra.ClientSize = Size(300, 200)
        big_list = _place(ListBox(), "bigList", 10, 10, 280, 180)
        big_list.BeginUpdate()
        for i in range(big):
            big_list.Items.Add(f"Row {i}")
        big_list.EndUpdate()
        extra.Controls.Add(big_list)
        form.Shown += lambda s, a: extra.Show()
        form.FormClosed += lambda s, a: extra.Close()
    return events


def show_on(invoke: Callable[[Callable[[], Any]], Any], *, big: int = 0) -> ItemsWindow:
    """Build and show the window on the UI thread ``invoke`` runs on (the example's, in the API tests)."""
    box: dict[str, ItemsWindow] = {}

    def make() -> None:
        box["window"] = build(big=big)
        box["window"].form.Show()

    invoke(make)
    return box["window"]


def main() -> None:
    tier = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "interact"
    big = int(sys.argv[sys.argv.index("--big") + 1]) if "--big" in sys.argv else 0
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "src"))
    import wpfprobe
    from wpfprobe.testing import virtual_display

    with virtual_display():
        from System.Threading import ApartmentState, Thread, ThreadStart
        from System.Windows.Forms import Application

        shown = threading.Event()
        box: dict[str, Any] = {}

        def run() -> None:
            form = build(big=big).form
            form.Shown += lambda s, a: shown.set()
            box["form"] = form
            Application.Run(form)

        thread = Thread(ThreadStart(run))
        thread.SetApartmentState(ApartmentState.STA)
        thread.IsBackground = True
        thread.Start()
        if not shown.wait(60):
            raise SystemExit("the items window did not show")
        form = box["form"]
        settings = wpfprobe.ProbeSettings(check_thread_affinity=True, ui_timeout=5.0)
        handle = wpfprobe.start(form, name="items", allow=tier, settings=settings)
        print(json.dumps({"url": handle.url, "token": handle.token}), flush=True)
        try:
            for line in sys.stdin:
                if line.strip() == "close":
                    break
        finally:
            violations = handle.probe.engine.thread_violations
            handle.stop()
            from System import Func, Object

            form.BeginInvoke(Func[Object](lambda: form.Close()))
            thread.Join(10000)
        print(json.dumps({"threadViolations": violations}), flush=True)


if __name__ == "__main__":
    main()
