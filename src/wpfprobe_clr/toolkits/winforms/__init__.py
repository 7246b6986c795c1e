"""The WinForms adapter (.NET on Windows, Mono on Linux). UI thread only.

Elements are Controls (Forms included), ToolStripItems (MenuStrip,
ToolStrip and ContextMenuStrip items), where the runtime still has them Menu
objects (MainMenu/MenuItem/ContextMenu, gone from .NET Core 3.1+), and the
items a user picks inside controls (list and combo box items, tree nodes,
list view rows and cells, grid columns, rows and cells: see ``items``). The
tree is the same whether asked as visual or logical: WinForms has one.

One module per concern, lowest first:

- ``kinds``: what kind of element an object is (every type test the others decide by)
- ``items``: items as elements (a package: one module per family of items)
- ``tree``: children, parent, naming, state, bounds: the facts every node reads
- ``values``: what a value read from the app becomes (a UI object only as a reference)
- ``bindings``: data bindings, and the errors they run into (one store per process)
- ``properties``: listing, reading and setting properties through TypeDescriptor
- ``diagnostics``: the facts the engine's UI diagnostics judge an element by
- ``delivery``: protected members and window messages, how input reaches a control
- ``blockers``: what stops an action now (modal dialogs, hidden, covered...)
- ``actions``: click, type, keys, select, toggle, focus
- ``capture``: screenshots
- ``ui_loop``: finding the app's forms, the control calls are posted through, and the message loop's end
- ``adapter``: WinFormsAdapter, the protocol assembled from the above
- ``connect``: connect

Importing the package loads none of its modules (each name below is imported
on first use): ``wpfprobe.start()`` reads ``ui_loop`` on the app's thread
before it returns, and leaves the rest to a thread of its own.

WinForms and System.Drawing classes are named through ``net.lazy``
(``WF = clr_namespace("System.Windows.Forms")``), never imported by name: a
class is made by pythonnet (20 ms and 1.7 MiB for DataGridView) only when the
probe first uses it, and a type test takes the ``System.Type`` alone
(``is_a(x, WF.types.ListView)``, ``E.is_type(c, WF.types.ListView)``), which
makes no class at all. ``WF.ListView`` is for what needs the class: calling a
static, constructing, an enum's members in Python.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import clr

# Referenced here, before any module of the package imports from them: importing
# one of its modules always runs this first.
clr.AddReference("System.Windows.Forms")
clr.AddReference("System.Drawing")

if TYPE_CHECKING:
    from wpfprobe_clr.toolkits.winforms.adapter import WinFormsAdapter
    from wpfprobe_clr.toolkits.winforms.connect import connect
    from wpfprobe_clr.toolkits.winforms.kinds import is_winforms_object
    from wpfprobe_clr.toolkits.winforms.ui_loop import find_app

__all__ = ["WinFormsAdapter", "connect", "find_app", "is_winforms_object"]

_HOMES = {
    "WinFormsAdapter": "adapter",
    "connect": "connect",
    "find_app": "ui_loop",
    "is_winforms_object": "kinds",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    # The import bound the submodule ``connect`` to the package's name ``connect``: the function wins, as before.
    globals()[name] = value
    return value
