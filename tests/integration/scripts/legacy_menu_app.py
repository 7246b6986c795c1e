"""A word processor in the style of pythonnet's demo/wordpad.py: an old-style MainMenu over a RichTextBox.

    python legacy_menu_app.py

It never imports wpfprobe: the tests run it under `wpfprobe run`. Like the
demo, the form is a Python subclass of Form, the menu is a MainMenu of
MenuItems (present on Mono and .NET Framework) whose captions carry access
keys ("&File", "Save &As", "E&xit"), Format > Word Wrap is a checked item
that the app's own Click handler flips (with the RichTextBox's WordWrap), and
the UI runs on an STA thread the script starts and joins. File > Exit closes
the window, which ends the script. Each handler reports itself in the status
bar panel and on stdout.
"""

from __future__ import annotations

import os
import sys

if "clr" not in sys.modules:
    import pythonnet

    os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
    pythonnet.load()

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

import System.Windows.Forms as WinForms  # noqa: E402
from System.Drawing import Point, Size  # noqa: E402
from System.Threading import ApartmentState, Thread, ThreadStart  # noqa: E402


class Wordpad(WinForms.Form):
    """The main window: a menu bar of old-style menus, a rich text box, a status bar."""

    def __init__(self) -> None:
        super().__init__()
        self.word_wrap = True
        self.Text = "Python Wordpad - (New Document)"
        self.StartPosition = WinForms.FormStartPosition.Manual
        self.Location = Point(30, 30)
        self.ClientSize = Size(600, 400)

        self.mainMenu = WinForms.MainMenu()
        self.fileMenu = self._menu("&File", [
            self._item("&New", self.on_new), self._item("&Open", self.on_other), self._item("&Save", self.on_other),
            self._item("Save &As", self.on_other), self._item("-", None), self._item("E&xit", self.on_exit),
        ])  # fmt: skip
        self.editMenu = self._menu(
            "&Edit", [self._item("&Undo", self.on_other), self._item("Select All", self.on_other)]
        )
        self.menuFormatWordWrap = self._item("Word Wrap", self.on_word_wrap)
        self.menuFormatWordWrap.Checked = self.word_wrap
        self.formatMenu = self._menu("F&ormat", [self._item("Fo&nt", self.on_other), self.menuFormatWordWrap])
        self.formatMenu.Popup += lambda sender, args: self.report("format menu opened")
        self.disabledItem = self._item("&Disabled", self.on_other)
        self.disabledItem.Enabled = False
        self.helpMenu = self._menu("&Help", [self._item("&About", self.on_other), self.disabledItem])
        for menu in (self.fileMenu, self.editMenu, self.formatMenu, self.helpMenu):
            self.mainMenu.MenuItems.Add(menu)
        self.Menu = self.mainMenu

        self.richTextBox = WinForms.RichTextBox()
        self.richTextBox.Dock = WinForms.DockStyle.Fill
        self.richTextBox.Text = "Call me Ishmael."
        self.statusBar = WinForms.StatusBar()
        self.statusPanel = WinForms.StatusBarPanel()
        self.statusPanel.Text = "Ready"
        self.statusPanel.Width = 400
        self.statusBar.ShowPanels = True
        self.statusBar.Panels.Add(self.statusPanel)
        self.Controls.Add(self.richTextBox)
        self.Controls.Add(self.statusBar)

    def _menu(self, text: str, items: list[WinForms.MenuItem]) -> WinForms.MenuItem:
        menu = WinForms.MenuItem(text)
        for item in items:
            menu.MenuItems.Add(item)
        return menu

    def _item(self, text: str, handler: object) -> WinForms.MenuItem:
        item = WinForms.MenuItem(text)
        if handler is not None:
            item.Click += handler
        return item

    def report(self, text: str) -> None:
        self.statusPanel.Text = text
        print(text, flush=True)

    def on_word_wrap(self, sender: object, args: object) -> None:
        value = not self.word_wrap
        self.richTextBox.WordWrap = value
        self.menuFormatWordWrap.Checked = value
        self.word_wrap = value
        self.report(f"word wrap {'on' if value else 'off'}")

    def on_new(self, sender: object, args: object) -> None:
        self.richTextBox.Text = ""
        self.report("new document")

    def on_other(self, sender: object, args: object) -> None:
        self.report(f"clicked {sender.Text}")

    def on_exit(self, sender: object, args: object) -> None:
        self.report("exit")
        self.Close()


def app_thread() -> None:
    app = Wordpad()
    WinForms.Application.Run(app)
    app.Dispose()


def main() -> None:
    thread = Thread(ThreadStart(app_thread))
    thread.SetApartmentState(ApartmentState.STA)
    thread.Start()
    thread.Join()


if __name__ == "__main__":
    main()
