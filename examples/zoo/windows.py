"""The zoo's other windows: an MDI parent with an old-style MainMenu and document children, and a modeless Find window.

Both stay for the app's whole life: closing one hides it (File > Find... and
File > Documents in the main window show it again); the main window closes
them for real when it closes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from System.Drawing import Point, Size
from System.Windows.Forms import (
    Button,
    CheckBox,
    DockStyle,
    Form,
    FormBorderStyle,
    FormStartPosition,
    Label,
    MainMenu,
    MdiLayout,
    MenuItem,
    TextBox,
)

from zoo.common import Journal, add, place


@dataclass
class Lifetime:
    """Whether the app is ending: until then, closing a secondary window only hides it."""

    ending: bool = False
    windows: list[Any] = field(default_factory=list)

    def keep(self, form: Any) -> Any:
        def on_closing(sender: Any, args: Any) -> None:
            if not self.ending:
                args.Cancel = True
                form.Hide()

        form.FormClosing += on_closing
        self.windows.append(form)
        return form

    def end(self) -> None:
        self.ending = True
        for form in self.windows:
            if not form.IsDisposed:
                form.Close()


def _window(name: str, text: str, x: int, y: int, width: int, height: int) -> Any:
    form = Form()
    form.Name = name
    form.Text = text
    form.StartPosition = FormStartPosition.Manual
    form.Location = Point(x, y)
    form.ClientSize = Size(width, height)
    return form


def _menu_item(name: str, text: str, on_click: Callable[[], None] | None = None) -> Any:
    item = MenuItem(text)
    item.Name = name
    if on_click is not None:
        item.Click += lambda sender, args: on_click()
    return item


def documents_window(journal: Journal, lifetime: Lifetime) -> Any:
    """An MDI parent: File (New document, Close document) and Window (the open documents, Cascade, Tile)."""
    form = lifetime.keep(_window("documentsWindow", "Documents", 10, 740, 600, 250))
    form.IsMdiContainer = True
    opened = [0]

    def new_document() -> Any:
        opened[0] += 1
        n = opened[0]
        child = Form()
        child.Name = f"document{n}"
        child.Text = f"Document {n}"
        child.MdiParent = form
        child.ClientSize = Size(260, 120)
        body = place(TextBox(), f"document{n}Text", 0, 0, 260, 120, f"Text of document {n}")
        body.Multiline = True
        body.Dock = DockStyle.Fill
        child.Controls.Add(body)
        child.Show()
        journal(f"Opened {child.Text}")
        return child

    def close_document() -> None:
        child = form.ActiveMdiChild
        if child is not None:
            journal(f"Closed {child.Text}")
            child.Close()

    def on_activate(sender: Any, args: Any) -> None:
        child = form.ActiveMdiChild
        form.Text = f"Documents - {child.Text}" if child is not None else "Documents"
        if child is not None:
            journal(f"Active {child.Text}")

    form.MdiChildActivate += on_activate
    menu = MainMenu()
    menu.Name = "documentsMenu"
    file_menu = _menu_item("documentsFileMenu", "&File")
    file_menu.MenuItems.Add(_menu_item("newDocumentMenuItem", "&New document", new_document))
    file_menu.MenuItems.Add(_menu_item("closeDocumentMenuItem", "&Close document", close_document))
    window_menu = _menu_item("windowMenu", "&Window")
    window_menu.MdiList = True  # WinForms lists the open documents below, when the menu opens
    window_menu.MenuItems.Add(
        _menu_item("cascadeMenuItem", "&Cascade", lambda: (form.LayoutMdi(MdiLayout.Cascade), journal("Cascaded")))
    )
    window_menu.MenuItems.Add(
        _menu_item(
            "tileMenuItem", "Tile &horizontally", lambda: (form.LayoutMdi(MdiLayout.TileHorizontal), journal("Tiled"))
        )
    )
    menu.MenuItems.Add(file_menu)
    menu.MenuItems.Add(window_menu)
    form.Menu = menu

    def on_shown(sender: Any, args: Any) -> None:
        new_document()
        new_document()

    form.Shown += on_shown
    return form


def find_window(journal: Journal, lifetime: Lifetime, find: Callable[[str, bool], str | None]) -> Any:
    """A modeless tool window: ``find(text, match_case)`` answers what it found (and shows it), or None."""
    form = lifetime.keep(_window("findWindow", "Find", 1000, 10, 260, 120))
    form.FormBorderStyle = FormBorderStyle.FixedToolWindow
    form.ShowInTaskbar = False
    what = place(TextBox(), "findBox", 10, 30, 240, 24)
    match_case = place(CheckBox(), "matchCaseCheck", 10, 60, 120, 24, "Match &case")
    go = place(Button(), "findNextButton", 140, 86, 110, 28, "&Find next")

    def on_find(sender: Any, args: Any) -> None:
        found = find(str(what.Text), bool(match_case.Checked))
        journal(f"Found {found}" if found is not None else f"Not found: {what.Text}")

    go.Click += on_find
    add(form, place(Label(), "findLabel", 10, 8, 240, 20, "Fi&nd what:"), what, match_case, go)
    form.AcceptButton = go
    return form
