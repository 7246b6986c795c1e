"""A small Python-hosted WinForms app: Mono under Xvfb on Linux, .NET on Windows.

    python examples/winforms_app.py          # run it like any app

It knows nothing of wpfprobe. Its controls follow the example contract shared
with examples/wpf_app.py (same names), so the same integration tests drive
both: mainWindow, menuBar/fileMenu/saveMenuItem (Ctrl+S)/saveAsMenuItem/
exitMenuItem, formPanel, nameBox, passwordBox, greetingLabel (data-bound),
statusLabel, itemsList, sizeCombo, subscribeCheck, saveButton (the form's
default button), disabledButton, loadButton (sets the status 600 ms later),
coveredButton under coverPanel, hiddenLabel; Save As opens the modal
saveAsDialog with fileNameBox, okButton and cancelButton. Every action a test
drives reports itself in statusLabel. brokenLabel is bound to a BindingSource
with no items, so it shows nothing: the binding that wpf_get_binding_info explains.

diagnosticsPanel (WinForms only, below the buttons, right of coveredButton)
holds deliberate mistakes for wpf_run_diagnostics: clippedButton sticks 40 px
out of the panel's right edge, overlapA and overlapB overlap, and unnamedBox
is a text box with no label and no AccessibleName.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

if "clr" not in sys.modules:
    import os

    import pythonnet

    # Mono's default thread-suspend mode can deadlock pythonnet calls made from
    # several threads during a garbage collection; signals do not.
    os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
    pythonnet.load()  # Mono on Linux and macOS, .NET Framework on Windows

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")
clr.AddReference("System.Data")

from System import Func, Object
from System.Data import DataTable
from System.Drawing import Color, Point, Size
from System.Threading import ApartmentState, Thread, ThreadStart
from System.Windows.Forms import (
    AnchorStyles,
    Application,
    BindingSource,
    Button,
    CheckBox,
    ComboBox,
    ComboBoxStyle,
    DockStyle,
    FlowLayoutPanel,
    Form,
    FormBorderStyle,
    FormStartPosition,
    Keys,
    Label,
    ListBox,
    MenuStrip,
    Panel,
    TableLayoutPanel,
    TextBox,
    Timer,
    ToolStripMenuItem,
)

TITLE = "wpfprobe demo"


def _label(name: str, text: str, *, width: int = 200) -> Label:
    label = Label()
    label.Name = name
    label.Text = text
    label.AutoSize = False
    label.Size = Size(width, 22)
    return label


def _button(name: str, text: str) -> Button:
    button = Button()
    button.Name = name
    button.Text = text
    return button


def build_save_as_dialog(status: Label) -> Form:
    """The modal Save As dialog; OK reports the file name in the main window's status."""
    dialog = Form()
    dialog.Name = "saveAsDialog"
    dialog.Text = "Save As"
    dialog.FormBorderStyle = FormBorderStyle.FixedDialog
    dialog.ShowInTaskbar = False
    dialog.StartPosition = FormStartPosition.Manual
    dialog.Location = Point(120, 120)
    dialog.ClientSize = Size(300, 90)
    file_name = TextBox()
    file_name.Name = "fileNameBox"
    file_name.Text = "untitled.txt"
    file_name.Location = Point(10, 10)
    file_name.Width = 280
    ok = _button("okButton", "OK")
    ok.Location = Point(130, 50)
    cancel = _button("cancelButton", "Cancel")
    cancel.Location = Point(215, 50)

    def on_ok(sender: Any, args: Any) -> None:
        status.Text = f"Saved as {file_name.Text}"
        dialog.Close()

    ok.Click += on_ok
    cancel.Click += lambda sender, args: dialog.Close()
    for control in (file_name, ok, cancel):
        dialog.Controls.Add(control)
    dialog.AcceptButton = ok
    dialog.CancelButton = cancel
    return dialog


def build_diagnostics_panel() -> Panel:
    """Layout and accessibility mistakes that wpf_run_diagnostics reports (nothing here is wired up)."""
    panel = Panel()
    panel.Name = "diagnosticsPanel"
    panel.Location = Point(150, 272)
    panel.Size = Size(290, 70)
    overlap_a = _button("overlapA", "Overlap A")
    overlap_a.Location = Point(10, 10)
    overlap_a.Size = Size(90, 23)
    overlap_b = _button("overlapB", "Overlap B")
    overlap_b.Location = Point(60, 20)  # 40x13 px of it lies under overlapA
    overlap_b.Size = Size(90, 23)
    clipped = _button("clippedButton", "Clipped")
    clipped.Location = Point(230, 10)  # 40 px past the panel's right edge
    clipped.Size = Size(100, 23)
    unnamed = TextBox()
    unnamed.Name = "unnamedBox"  # no Label before it, no AccessibleName
    unnamed.Location = Point(10, 46)
    unnamed.Width = 100
    # No zero-size control: Mono gives every control at least 1 px (an X11 window cannot be empty).
    for control in (overlap_a, overlap_b, clipped, unnamed):
        panel.Controls.Add(control)
    return panel


def build() -> Form:
    """The main window. Call on the thread that will run its message loop."""
    form = Form()
    form.Name = "mainWindow"
    form.Text = TITLE
    form.ClientSize = Size(460, 380)
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(40, 40)

    menu = MenuStrip()
    menu.Name = "menuBar"
    file_menu = ToolStripMenuItem("File")
    file_menu.Name = "fileMenu"
    save_item = ToolStripMenuItem("Quick Save")
    save_item.Name = "saveMenuItem"
    save_item.ShortcutKeys = Keys.Control | Keys.S
    save_as = ToolStripMenuItem("Save As")
    save_as.Name = "saveAsMenuItem"
    exit_item = ToolStripMenuItem("Exit")
    exit_item.Name = "exitMenuItem"
    file_menu.DropDownItems.Add(save_item)
    file_menu.DropDownItems.Add(save_as)
    file_menu.DropDownItems.Add(exit_item)
    menu.Items.Add(file_menu)

    panel = Panel()
    panel.Name = "formPanel"
    panel.Dock = DockStyle.Fill

    fields = TableLayoutPanel()
    fields.Name = "fieldsTable"
    fields.ColumnCount = 2
    fields.RowCount = 2
    fields.Location = Point(10, 10)
    fields.Size = Size(430, 64)
    name_box = TextBox()
    name_box.Name = "nameBox"
    name_box.Text = "Ada"
    name_box.Width = 200
    password_box = TextBox()
    password_box.Name = "passwordBox"
    password_box.PasswordChar = "*"
    password_box.Text = "hunter2"
    password_box.Width = 200
    fields.Controls.Add(_label("nameLabel", "Name", width=100), 0, 0)
    fields.Controls.Add(name_box, 1, 0)
    fields.Controls.Add(_label("passwordLabel", "Password", width=100), 0, 1)
    fields.Controls.Add(password_box, 1, 1)

    # The greeting is data-bound: a DataTable row drives the label's Text.
    model = DataTable("Person")
    model.Columns.Add("Greeting")
    model.Rows.Add("Hello, Ada")
    greeting = _label("greetingLabel", "", width=300)
    greeting.Location = Point(10, 80)
    greeting.DataBindings.Add("Text", model, "Greeting")

    # Deliberately broken: the messages were never loaded, so the source has no
    # current item and the label stays empty. (Binding to a missing member
    # would throw here on Mono instead of failing quietly.)
    messages = DataTable("Messages")
    messages.Columns.Add("Text")
    message_source = BindingSource()
    message_source.DataSource = messages
    broken = _label("brokenLabel", "", width=130)
    broken.Location = Point(320, 80)
    broken.DataBindings.Add("Text", message_source, "Text")

    status = _label("statusLabel", "Ready", width=300)
    status.Location = Point(10, 106)

    items = ListBox()
    items.Name = "itemsList"
    items.Location = Point(10, 134)
    items.Size = Size(200, 80)
    for fruit in ("Apple", "Banana", "Cherry"):
        items.Items.Add(fruit)

    sizes = ComboBox()
    sizes.Name = "sizeCombo"
    sizes.DropDownStyle = ComboBoxStyle.DropDownList
    sizes.Location = Point(230, 134)
    sizes.Width = 120
    for size in ("Small", "Medium", "Large"):
        sizes.Items.Add(size)
    sizes.SelectedIndex = 0

    subscribe = CheckBox()
    subscribe.Name = "subscribeCheck"
    subscribe.Text = "Subscribe"
    subscribe.Location = Point(230, 166)

    buttons = FlowLayoutPanel()
    buttons.Name = "buttonPanel"
    buttons.Location = Point(10, 224)
    buttons.Size = Size(430, 40)
    buttons.Anchor = AnchorStyles.Left | AnchorStyles.Top
    save = _button("saveButton", "Save")
    disabled = _button("disabledButton", "Disabled")
    disabled.Enabled = False
    load = _button("loadButton", "Load")
    buttons.Controls.Add(save)
    buttons.Controls.Add(disabled)
    buttons.Controls.Add(load)

    hidden = _label("hiddenLabel", "Hidden")
    hidden.Location = Point(10, 270)
    hidden.Visible = False

    # A panel on top of a button: the button is there, but nobody can click it.
    covered = _button("coveredButton", "Covered")
    covered.Location = Point(10, 300)
    cover = Panel()
    cover.Name = "coverPanel"
    cover.Location = Point(5, 295)
    cover.Size = Size(120, 40)
    cover.BackColor = Color.SteelBlue

    timer = Timer()
    timer.Interval = 600

    def on_name_changed(sender: Any, args: Any) -> None:
        model.Rows[0]["Greeting"] = f"Hello, {name_box.Text}"

    def on_save(sender: Any, args: Any) -> None:
        status.Text = f"Saved {name_box.Text}"

    def on_tick(sender: Any, args: Any) -> None:
        timer.Stop()
        status.Text = "Loaded"

    def on_load(sender: Any, args: Any) -> None:
        status.Text = "Loading"
        timer.Start()

    def on_save_as(sender: Any, args: Any) -> None:
        dialog = build_save_as_dialog(status)
        try:
            dialog.ShowDialog(form)
        finally:
            dialog.Dispose()

    def on_subscribe(sender: Any, args: Any) -> None:
        status.Text = "Subscribed" if subscribe.Checked else "Unsubscribed"

    def on_item(sender: Any, args: Any) -> None:
        if items.SelectedIndex >= 0:
            status.Text = f"Selected {items.SelectedItem}"

    def on_size(sender: Any, args: Any) -> None:
        if sizes.SelectedIndex >= 0:
            status.Text = f"Size {sizes.SelectedItem}"

    name_box.TextChanged += on_name_changed
    save.Click += on_save
    save_item.Click += on_save
    load.Click += on_load
    timer.Tick += on_tick
    save_as.Click += on_save_as
    subscribe.CheckedChanged += on_subscribe
    items.SelectedIndexChanged += on_item
    sizes.SelectedIndexChanged += on_size
    covered.Click += lambda sender, args: setattr(status, "Text", "Covered clicked")
    exit_item.Click += lambda sender, args: form.Close()
    form.FormClosed += lambda sender, args: timer.Dispose()

    diagnostics = build_diagnostics_panel()

    # The cover goes in first: earlier controls are on top.
    for control in (cover, covered, fields, greeting, status, items, sizes, subscribe, buttons, hidden, diagnostics):
        panel.Controls.Add(control)
    panel.Controls.Add(broken)
    # Docking order: the fill panel first, the menu last, so the menu takes the top.
    form.Controls.Add(panel)
    form.Controls.Add(menu)
    form.MainMenuStrip = menu
    form.AcceptButton = save
    return form


class BackgroundApp:
    """The example running on a UI thread of its own (how the tests use it)."""

    toolkit = "winforms"

    def __init__(self, form: Form, thread: Thread) -> None:
        self.app = form
        self.main_window = form
        self._thread = thread

    def invoke(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the UI thread and return its result."""
        return self.app.Invoke(Func[Object](fn))

    def close(self, timeout: float = 10.0) -> None:
        if self._thread.IsAlive and not self.app.IsDisposed:
            try:
                self.app.BeginInvoke(Func[Object](lambda: self.app.Close()))
            except Exception:
                pass
        self._thread.Join(int(timeout * 1000))


def start_in_background(*, timeout: float = 30.0) -> BackgroundApp:
    """Start the app on a new STA thread and return once its window is shown."""
    shown = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            form = build()
            form.Shown += lambda sender, args: shown.set()
            box["form"] = form
            Application.Run(form)
        except Exception as exc:
            box["error"] = exc
            shown.set()

    thread = Thread(ThreadStart(run))
    thread.SetApartmentState(ApartmentState.STA)
    thread.IsBackground = True
    thread.Start()
    if not shown.wait(timeout):
        raise TimeoutError(f"the WinForms example did not show its window within {timeout} s")
    if "error" in box:
        raise RuntimeError(f"the WinForms example failed to start: {box['error']}")
    return BackgroundApp(box["form"], thread)


def main() -> None:
    Application.EnableVisualStyles()
    Application.Run(build())


if __name__ == "__main__":
    main()
