"""The main window's frame: menu bar, tool bar, status bar, and the navigation tree with its context menu."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from System.Windows.Forms import (
    ComboBoxStyle,
    ContextMenuStrip,
    DockStyle,
    Keys,
    MenuStrip,
    StatusStrip,
    ToolStrip,
    ToolStripButton,
    ToolStripComboBox,
    ToolStripDropDownButton,
    ToolStripLabel,
    ToolStripMenuItem,
    ToolStripProgressBar,
    ToolStripSeparator,
    ToolStripStatusLabel,
    TreeView,
)

from zoo.common import Journal

#: The animals of the navigation tree: (text, children); a name in CAPITALS starts expanded.
ANIMALS: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("MAMMALS", (("Cat", ()), ("Dog", ()), ("Horses", (("Pony", ()), ("Shire", ()))))),
    ("Birds", (("Owl", ()), ("Penguin", ()))),
    ("Reptiles", (("Gecko", ()),)),
)


def _item(name: str, text: str, on_click: Callable[[], None] | None = None) -> Any:
    item = ToolStripMenuItem(text)
    item.Name = name
    if on_click is not None:
        item.Click += lambda sender, args: on_click()
    return item


def menu_bar(journal: Journal, actions: dict[str, Callable[..., None]]) -> Any:
    """File (Find..., Documents, Exit), View (Status bar, Tool bar: check marks), Help (About).

    ``actions``: "find", "documents" and "exit" take nothing; "status bar" and "tool bar" take
    whether the bar is to be shown.
    """
    menu = MenuStrip()
    menu.Name = "zooMenu"
    file_menu = _item("zooFileMenu", "&File")
    find = _item("findMenuItem", "&Find...", actions["find"])
    find.ShortcutKeys = Keys.Control | Keys.F
    documents = _item("documentsMenuItem", "&Documents", actions["documents"])
    exit_item = _item("quitMenuItem", "E&xit", actions["exit"])
    for entry in (find, documents, ToolStripSeparator(), exit_item):
        file_menu.DropDownItems.Add(entry)

    view_menu = _item("viewMenu", "&View")
    for name, text, key in (
        ("statusBarMenuItem", "&Status bar", "status bar"),
        ("toolBarMenuItem", "&Tool bar", "tool bar"),
    ):
        shown = _item(name, text)
        shown.CheckOnClick = True
        shown.Checked = True

        def on_checked(sender: Any, args: Any, key: str = key) -> None:
            actions[key](bool(sender.Checked))
            journal(f"{key.capitalize()} {'shown' if sender.Checked else 'hidden'}")

        shown.CheckedChanged += on_checked
        view_menu.DropDownItems.Add(shown)

    help_menu = _item("helpMenu", "&Help")
    help_menu.DropDownItems.Add(_item("aboutMenuItem", "&About the zoo", lambda: journal("About the zoo")))
    for top in (file_menu, view_menu, help_menu):
        menu.Items.Add(top)
    return menu


def tool_bar(journal: Journal) -> Any:
    """New (a button), Bold (a check button), Zoom (a combo box), Share (a drop-down button), a label."""
    bar = ToolStrip()
    bar.Name = "zooToolBar"
    new = ToolStripButton("&New")
    new.Name = "newToolButton"
    new.Click += lambda sender, args: journal("New clicked")
    bold = ToolStripButton("&Bold")
    bold.Name = "boldToolButton"
    bold.CheckOnClick = True
    bold.CheckedChanged += lambda sender, args: journal(f"Bold {'on' if bold.Checked else 'off'}")
    zoom = ToolStripComboBox()
    zoom.Name = "zoomToolCombo"
    zoom.DropDownStyle = ComboBoxStyle.DropDownList
    for level in ("50%", "100%", "200%"):
        zoom.Items.Add(level)
    zoom.SelectedIndex = 1
    zoom.SelectedIndexChanged += lambda sender, args: journal(f"Zoom {zoom.SelectedItem}")
    share = ToolStripDropDownButton("&Share")
    share.Name = "shareToolButton"
    for name, text in (("emailShareItem", "&Email"), ("printShareItem", "&Print")):
        entry = _item(name, text)
        entry.Click += lambda sender, args, text=text: journal(f"Shared by {text.replace('&', '')}")
        share.DropDownItems.Add(entry)
    caption = ToolStripLabel("Zoo tools")
    caption.Name = "toolsCaption"
    for entry in (new, bold, ToolStripSeparator(), zoom, share, caption):
        bar.Items.Add(entry)
    return bar


def status_bar(journal: Journal, rows: int) -> Any:
    """The status text every handler writes (the journal's witness), the row count, a progress bar."""
    bar = StatusStrip()
    bar.Name = "zooStatusBar"
    text = ToolStripStatusLabel("Ready")
    text.Name = "statusText"
    text.Spring = True
    count = ToolStripStatusLabel(f"{rows} orders")
    count.Name = "rowCountText"
    busy = ToolStripProgressBar()
    busy.Name = "busyBar"
    busy.Value = 30
    for entry in (text, count, busy):
        bar.Items.Add(entry)
    journal.status = text
    return bar


def navigation_tree(journal: Journal) -> Any:
    """The animals, nested, some collapsed, with a context menu that acts on the selected node."""
    tree = TreeView()
    tree.Name = "animalTree"
    tree.Dock = DockStyle.Fill
    tree.HideSelection = False

    def add(nodes: Any, entries: tuple[Any, ...]) -> None:
        for text, children in entries:
            node = nodes.Add(f"{text.lower()}Node", text.capitalize())
            add(node.Nodes, children)
            if text.isupper():
                node.Expand()

    add(tree.Nodes, ANIMALS)
    tree.AfterSelect += lambda sender, args: journal(f"Animal {args.Node.FullPath.replace(tree.PathSeparator, '/')}")
    tree.AfterExpand += lambda sender, args: journal(f"Expanded {args.Node.Text}")
    tree.AfterCollapse += lambda sender, args: journal(f"Collapsed {args.Node.Text}")

    menu = ContextMenuStrip()
    menu.Name = "animalMenu"

    def feed() -> None:
        node = tree.SelectedNode
        source = menu.SourceControl.Name if menu.SourceControl is not None else None
        journal(f"Fed {node.Text if node is not None else 'nobody'} (from {source})")

    menu.Items.Add(_item("feedMenuItem", "&Feed", feed))
    menu.Items.Add(_item("expandAllMenuItem", "E&xpand all", lambda: (tree.ExpandAll(), journal("Expanded all"))))
    menu.Items.Add(
        _item("collapseAllMenuItem", "&Collapse all", lambda: (tree.CollapseAll(), journal("Collapsed all")))
    )
    tree.ContextMenuStrip = menu
    return tree
