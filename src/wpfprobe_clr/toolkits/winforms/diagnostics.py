"""The facts the engine's UI diagnostics judge a WinForms element by.

diagnostic_facts runs for every node of a diagnostics walk, so it reads what the
checks need and nothing else: bounds from the parent's memoised screen origin,
the element's kind from the per-type table, and the layout, tab-order, naming
and item facts only for the app's own controls (a control's parts, such as the
text box inside an up-down, get bounds alone).
"""

from __future__ import annotations

from typing import Any

from System.Windows.Forms import ListView, ToolStripItem

from wpfprobe.core.protocol import Bounds, DiagnosticFacts
from wpfprobe_clr.toolkits.winforms.kinds import KindTable
from wpfprobe_clr.toolkits.winforms.tree import client_origin, walk_bounds


def diagnostic_facts(element: Any, memo: dict[Any, Any], kinds: KindTable) -> DiagnosticFacts:
    kind = kinds.of(element)
    if not kind.control:
        # Menu and tool strip items: their strip lays them out, Tab never stops on them.
        owner = element.Owner if isinstance(element, ToolStripItem) else None
        return DiagnosticFacts(bounds=walk_bounds(element, owner, memo), zero_size_expected=kind.separator)
    parent = element.Parent
    bounds = walk_bounds(element, parent, memo)
    if parent is not None and not kinds.of(parent).container:
        # A control's own parts (the text box inside an up-down or a combo box).
        return DiagnosticFacts(bounds=bounds)
    client = None
    if kind.container and element.Controls.Count:
        origin = client_origin(element, memo)
        if origin is not None:
            size = element.ClientSize
            client = Bounds(origin[0], origin[1], int(size.Width), int(size.Height))
    item_count: int | None = None
    virtualized: bool | None = None
    if kind.items == "virtual-mode":  # ListView, DataGridView
        virtualized = bool(element.VirtualMode)
        if isinstance(element, ListView):
            item_count = int(element.VirtualListSize) if virtualized else int(element.Items.Count)
        else:
            item_count = int(element.RowCount)
    elif kind.items == "native":  # ListBox, ComboBox: drawn natively, virtualization does not apply
        item_count = int(element.Items.Count)
    return DiagnosticFacts(
        bounds=bounds,
        client_area=client,
        scrolls=kind.scrollable and bool(element.AutoScroll),
        free_layout=kind.free_layout,
        docked=int(element.Dock) != 0,
        tab_index=int(element.TabIndex),
        tab_stop=bool(element.TabStop),
        is_input=kind.input,
        names_itself=kind.names_itself,
        has_accessible_name=bool(element.AccessibleName),
        is_label=kind.label,
        item_count=item_count,
        virtualized=virtualized,
    )
