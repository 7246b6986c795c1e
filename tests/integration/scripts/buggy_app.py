"""A WinForms app with planted bugs, for the test kit's exploration, minimization and replay tests.

    python buggy_app.py [--pager] [--hard-exit] [MARKER_FILE]

- A crash reached only through a few steps: with Mode set to "Expert" and
  Turbo checked, Apply starts a worker thread that throws; nothing catches it,
  so the process dies (Mono prints FATAL UNHANDLED EXCEPTION).
- An exception in a handler that needs state first: Process raises KeyError
  once Add has been clicked at least twice.
- A destructive button: "Delete all" writes MARKER_FILE (the tests check it
  never exists); "Close" closes the window. Exploration must press neither.

With ``--pager`` the window is a paged list instead, with one bug that needs
accumulated state (minimization's hard case): "Next page" raises IndexError
once the list holds five or more items, so its shortest repro is five Add
clicks and Next page; the other controls are noise.

With ``--hard-exit`` a "Sync now" button calls ``os._exit(3)``: the process
ends at once, with no exception, no event and no screen left to capture.

No timers: the app does the same thing for the same input, so a seed repeats.
"""

from __future__ import annotations

import os
import sys
from typing import Any

os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
import pythonnet

pythonnet.load()
import clr  # noqa: E402

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

from System.Drawing import Point, Size  # noqa: E402
from System.Threading import Thread, ThreadStart  # noqa: E402
from System.Windows.Forms import (  # noqa: E402
    Application,
    Button,
    CheckBox,
    ComboBox,
    ComboBoxStyle,
    Form,
    FormStartPosition,
    Label,
    ListBox,
    TextBox,
)

FLAGS = {a for a in sys.argv[1:] if a.startswith("--")}
POSITIONAL = [a for a in sys.argv[1:] if not a.startswith("--")]
MARKER = POSITIONAL[0] if POSITIONAL else None
PAGE_SIZE = 4


def add_hard_exit(form: Form) -> None:
    sync = Button()
    sync.Name = "syncButton"
    sync.Text = "Sync now"
    sync.Location = Point(10, 220)
    sync.Width = 90
    sync.Click += lambda sender, args: os._exit(3)
    form.Controls.Add(sync)


def build_pager() -> Form:
    """A paged list: Next page fails once the list holds five or more items (the state comes first)."""
    form = Form()
    form.Name = "pagerWindow"
    form.Text = "Pager"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(20, 20)
    form.ClientSize = Size(420, 260)

    def add(control: Any, name: str, x: int, y: int, width: int = 100, text: str | None = None) -> Any:
        control.Name = name
        control.Location = Point(x, y)
        control.Width = width
        if text is not None:
            control.Text = text
        form.Controls.Add(control)
        return control

    name_box = add(TextBox(), "nameBox", 10, 10, 150)
    sort = add(ComboBox(), "sortCombo", 170, 10, 110)
    sort.DropDownStyle = ComboBoxStyle.DropDownList
    for item in ("Newest", "Oldest", "Name"):
        sort.Items.Add(item)
    sort.SelectedIndex = 0
    details = add(CheckBox(), "detailsCheck", 290, 10, 100, "Details")
    add_button = add(Button(), "addButton", 10, 50, 90, "Add")
    previous = add(Button(), "previousButton", 110, 50, 90, "Previous")
    next_page = add(Button(), "nextPageButton", 210, 50, 90, "Next page")
    items = add(ListBox(), "itemsList", 10, 90, 200)
    items.Height = 100
    status = add(Label(), "statusLabel", 220, 90, 190, "Page 1")
    page = [0]

    def on_add(sender: Any, args: Any) -> None:
        items.Items.Add(name_box.Text or "item")
        status.Text = f"{items.Items.Count} items"

    def on_previous(sender: Any, args: Any) -> None:
        page[0] = max(0, page[0] - 1)
        status.Text = f"Page {page[0] + 1}"

    def on_next(sender: Any, args: Any) -> None:
        names = [str(x) for x in items.Items]
        if len(names) <= PAGE_SIZE:
            status.Text = "No more pages"
            return
        # The planted bug: the next page's first item is read one page too far.
        status.Text = f"Page {page[0] + 2} from {names[(page[0] + 2) * PAGE_SIZE + len(names)]}"

    def on_details(sender: Any, args: Any) -> None:
        status.Text = "Details on" if details.Checked else "Details off"

    add_button.Click += on_add
    previous.Click += on_previous
    next_page.Click += on_next
    details.CheckedChanged += on_details
    return form


def build() -> Form:
    form = Form()
    form.Name = "buggyWindow"
    form.Text = "Buggy"
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(20, 20)
    form.ClientSize = Size(420, 260)

    def add(control: Any, name: str, x: int, y: int, width: int = 100, text: str | None = None) -> Any:
        control.Name = name
        control.Location = Point(x, y)
        control.Width = width
        if text is not None:
            control.Text = text
        form.Controls.Add(control)
        return control

    name_box = add(TextBox(), "nameBox", 10, 10, 150)
    mode = add(ComboBox(), "modeCombo", 170, 10, 110)
    mode.DropDownStyle = ComboBoxStyle.DropDownList
    for item in ("Basic", "Advanced", "Expert"):
        mode.Items.Add(item)
    mode.SelectedIndex = 0
    turbo = add(CheckBox(), "turboCheck", 290, 10, 100, "Turbo")
    apply = add(Button(), "applyButton", 10, 50, 90, "Apply")
    add_button = add(Button(), "addButton", 110, 50, 90, "Add")
    process = add(Button(), "processButton", 210, 50, 90, "Process")
    delete_all = add(Button(), "deleteAllButton", 310, 50, 90, "Delete all")
    items = add(ListBox(), "itemsList", 10, 90, 200)
    items.Height = 100
    status = add(Label(), "statusLabel", 220, 90, 190, "Ready")
    close = add(Button(), "closeButton", 310, 220, 90, "Close")

    def on_apply(sender: Any, args: Any) -> None:
        if mode.SelectedIndex == 2 and turbo.Checked:

            def boom() -> None:
                raise RuntimeError("turbo in expert mode overflowed the engine")

            Thread(ThreadStart(boom)).Start()
            return
        status.Text = f"Applied {mode.SelectedItem}{' turbo' if turbo.Checked else ''}"

    def on_add(sender: Any, args: Any) -> None:
        items.Items.Add(name_box.Text or "item")
        status.Text = f"{items.Items.Count} items"

    def on_process(sender: Any, args: Any) -> None:
        if items.Items.Count >= 2:
            totals = {}
            status.Text = f"Total {totals['items']}"  # KeyError: the planted bug
        status.Text = "Processed"

    def on_delete_all(sender: Any, args: Any) -> None:
        if MARKER:
            with open(MARKER, "w", encoding="utf-8") as fh:
                fh.write("the destructive button was pressed\n")
        items.Items.Clear()

    apply.Click += on_apply
    add_button.Click += on_add
    process.Click += on_process
    delete_all.Click += on_delete_all
    close.Click += lambda sender, args: form.Close()
    return form


if __name__ == "__main__":
    window = build_pager() if "--pager" in FLAGS else build()
    if "--hard-exit" in FLAGS:
        add_hard_exit(window)
    Application.Run(window)
