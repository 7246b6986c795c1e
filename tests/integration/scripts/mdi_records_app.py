"""A records app in the style of the outside apps surveyed in docs/compatibility.md: MDI and MouseClick.

    python mdi_records_app.py

It never imports wpfprobe: the tests run it under `wpfprobe run`. The main
window is an MDI parent with a MenuStrip; Records > People opens an MDI child
form (Name "peopleForm") with a filter box, Add/Close buttons and a grid of
people. Like the surveyed app, the buttons' handlers listen on MouseClick,
not Click: Add opens a modal "Person" dialog (a text box and a Save button,
also on MouseClick, and a Help button laid out outside the dialog's client
area), and Save appends the typed name to the grid. Each handler prints a
line on stdout.
"""

from __future__ import annotations

import sys

if "clr" not in sys.modules:
    import pythonnet

    pythonnet.load("mono")

import clr

clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

import System.Windows.Forms as WinForms  # noqa: E402
from System.Drawing import Point, Size  # noqa: E402


def say(line: str) -> None:
    print(line, flush=True)


class PersonDialog(WinForms.Form):
    """The modal dialog Add opens: a name and a Save button whose handler is on MouseClick."""

    def __init__(self) -> None:
        super().__init__()
        self.Name = "personDialog"
        self.Text = "Person"
        self.ClientSize = Size(260, 90)
        self.StartPosition = WinForms.FormStartPosition.Manual
        self.Location = Point(80, 80)
        self.nameBox = WinForms.TextBox()
        self.nameBox.Name = "nameBox"
        self.nameBox.Location = Point(10, 10)
        self.nameBox.Width = 230
        self.save = WinForms.Button()
        self.save.Name = "saveButton"
        self.save.Text = "Save"
        self.save.Location = Point(10, 50)
        self.save.MouseClick += self.on_save
        # Like the About box of pythonnet's wordpad demo: a button laid out past the
        # dialog's client area, so nobody sees it (and no pointer can reach it).
        self.help = WinForms.Button()
        self.help.Name = "helpButton"
        self.help.Text = "Help"
        self.help.Location = Point(300, 120)
        self.help.Click += self.on_help
        self.Controls.Add(self.nameBox)
        self.Controls.Add(self.save)
        self.Controls.Add(self.help)

    def on_help(self, sender: object, args: object) -> None:
        say("help")
        self.nameBox.Text = "help shown"

    def on_save(self, sender: object, args: object) -> None:
        say(f"save {self.nameBox.Text}")
        self.DialogResult = WinForms.DialogResult.OK
        self.Close()


class PeopleForm(WinForms.Form):
    """The MDI child: a filter box, Add and Close (handlers on MouseClick) and a grid of people."""

    def __init__(self) -> None:
        super().__init__()
        self.Name = "peopleForm"
        self.Text = "People"
        self.ClientSize = Size(420, 260)
        self.filterBox = WinForms.TextBox()
        self.filterBox.Name = "filterBox"
        self.filterBox.Location = Point(10, 10)
        self.filterBox.Width = 200
        self.add = WinForms.Button()
        self.add.Name = "addButton"
        self.add.Text = "Add"
        self.add.Location = Point(220, 8)
        self.add.MouseClick += self.on_add
        self.grid = WinForms.DataGridView()
        self.grid.Name = "peopleGrid"
        self.grid.Location = Point(10, 40)
        self.grid.Size = Size(400, 210)
        self.grid.AllowUserToAddRows = False
        self.grid.ColumnCount = 1
        self.grid.Columns[0].Name = "Name"
        for person in ("Ada", "Grace"):
            self.grid.Rows.Add(person)
        for control in (self.filterBox, self.add, self.grid):
            self.Controls.Add(control)

    def on_add(self, sender: object, args: object) -> None:
        say("add clicked")
        dialog = PersonDialog()
        if dialog.ShowDialog(self) == WinForms.DialogResult.OK:
            self.grid.Rows.Add(dialog.nameBox.Text)
        dialog.Dispose()


class MainWindow(WinForms.Form):
    def __init__(self) -> None:
        super().__init__()
        self.Name = "mainWindow"
        self.Text = "Records"
        self.IsMdiContainer = True
        self.StartPosition = WinForms.FormStartPosition.Manual
        self.Location = Point(20, 20)
        self.ClientSize = Size(640, 420)
        strip = WinForms.MenuStrip()
        records = WinForms.ToolStripMenuItem("Records")
        people = WinForms.ToolStripMenuItem("People")
        people.Click += self.on_people
        records.DropDownItems.Add(people)
        strip.Items.Add(records)
        self.MainMenuStrip = strip
        self.Controls.Add(strip)

    def on_people(self, sender: object, args: object) -> None:
        say("people opened")
        child = PeopleForm()
        child.MdiParent = self
        child.Show()


if __name__ == "__main__":
    WinForms.Application.Run(MainWindow())
    say("exit")
