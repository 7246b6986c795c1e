"""DataGridView columns, rows and cells; only the rows in view are listed.

A grid may hold a million rows, and reading ``Rows[i]`` unshares a row (each
one then costs memory of its own), so the probe lists the rows the user sees:
the grid's Displayed rows, found through the row states (which never
unshare), and reads only those. ``child_total`` is every column plus every
row. The columns come first, in display order: each stands for its header
(its text is the header text; clicking it raises the header click, where the
grid sorts). A row's children are its cells in display order; a cell's text
is its formatted value, as drawn, and a row's text is its visible cells'
texts joined with " | ", so ``DataGridViewRow[text*="Ada"]`` finds a row.

Typing into a cell is what a user does: make it current, begin editing, type
into the editing control, then end the edit and commit the row, so a bound
DataTable holds the value afterwards.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.errors import ElementNotInteractableError, InvalidArgumentError
from wpfprobe.core.protocol import ActionKind, Blocker, ElementState, InputMode
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.net.lazy import clr_namespace, is_instance
from wpfprobe_clr.toolkits.winforms.items.base import Fact, Item, call_protected, checked_of

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")

#: The separator between a row's cell texts.
ROW_TEXT_SEPARATOR = " | "


def children_of(grid: Any) -> list[Any]:
    columns = sorted(grid.Columns, key=lambda c: int(c.DisplayIndex))
    return [*columns, *(grid.Rows[i] for i in displayed_rows(grid))]


def child_total(grid: Any) -> int:
    return int(grid.Columns.Count) + int(grid.Rows.Count)


def displayed_rows(grid: Any) -> list[int]:
    """Indexes of the rows in view, read from the row states (which do not unshare rows)."""
    if not grid.Visible or not grid.IsHandleCreated:
        return []
    rows = grid.Rows
    shown = WF.DataGridViewElementStates.Displayed
    found: list[int] = []
    index = int(rows.GetFirstRow(shown))
    while index >= 0:
        found.append(index)
        index = int(rows.GetNextRow(index, shown))
    return found


def _display_order(grid: Any) -> list[Any]:
    return sorted(grid.Columns, key=lambda c: int(c.DisplayIndex))


class GridColumn(Item):
    """A DataGridViewColumn, standing for its header cell."""

    kind_label = "grid column"

    def owner(self, el: Any) -> Any:
        return el.DataGridView

    def is_alive(self, el: Any) -> bool:
        grid = el.DataGridView
        return grid is not None and not grid.IsDisposed

    def client_rect(self, el: Any) -> Any | None:
        grid = el.DataGridView
        if not grid.Visible or not grid.IsHandleCreated or not grid.ColumnHeadersVisible or not el.Displayed:
            return None
        r = grid.GetColumnDisplayRectangle(int(el.Index), True)
        return Drawing.Rectangle(r.X, r.Y, r.Width, int(grid.ColumnHeadersHeight))

    def state(self, el: Any) -> ElementState:
        grid = el.DataGridView
        visible = bool(grid.Visible) and bool(el.Visible) and bool(el.Displayed) and bool(grid.ColumnHeadersVisible)
        return ElementState(visible, bool(grid.Enabled), False, selected=bool(el.Selected))

    def text(self, el: Any) -> str | None:
        return str(el.HeaderText)

    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        if action == "click":
            return None
        return "A column header is clicked (to sort), not selected, toggled or typed into."

    def pick(self, el: Any) -> None:
        pass  # the header click itself (mouse) is what sorts

    def mouse(self, el: Any, button: str, count: int) -> None:
        grid = el.DataGridView
        which = {"left": WF.MouseButtons.Left, "right": WF.MouseButtons.Right, "middle": WF.MouseButtons.Middle}[button]
        for n in range(1, count + 1):
            args = WF.DataGridViewCellMouseEventArgs(int(el.Index), -1, 0, 0, WF.MouseEventArgs(which, n, 0, 0, 0))
            call_protected(grid, WF.DataGridView, "OnColumnHeaderMouseClick", args)
            if n == 2:
                call_protected(grid, WF.DataGridView, "OnColumnHeaderMouseDoubleClick", args)

    def action_state(self, el: Any) -> dict[str, Any]:
        return {}


class GridRow(Item):
    kind_label = "grid row"

    def owner(self, el: Any) -> Any:
        return el.DataGridView

    def children(self, el: Any) -> list[Any]:
        cells = el.Cells
        return [cells[int(c.Index)] for c in _display_order(el.DataGridView)]

    def is_alive(self, el: Any) -> bool:
        grid = el.DataGridView
        return grid is not None and not grid.IsDisposed and int(el.Index) >= 0

    def client_rect(self, el: Any) -> Any | None:
        grid = el.DataGridView
        if not grid.Visible or not grid.IsHandleCreated or not el.Displayed:
            return None
        return grid.GetRowDisplayRectangle(int(el.Index), True)

    def state(self, el: Any) -> ElementState:
        grid = el.DataGridView
        current = grid.CurrentCell
        focused = current is not None and int(current.RowIndex) == int(el.Index) and bool(grid.Focused)
        visible = bool(grid.Visible) and bool(el.Visible) and bool(el.Displayed)
        return ElementState(visible, bool(grid.Enabled), focused, selected=bool(el.Selected))

    def text(self, el: Any) -> str | None:
        texts = []
        for column in _display_order(el.DataGridView):
            if column.Visible:
                texts.append(cell_text(el.Cells[int(column.Index)]) or "")
        joined = ROW_TEXT_SEPARATOR.join(texts)
        return joined if joined.strip(ROW_TEXT_SEPARATOR) else None

    def data_type(self, el: Any) -> str | None:
        return type_full_name(el.DataBoundItem)

    def select(self, el: Any) -> None:
        grid = el.DataGridView
        first = _first_visible_cell(el)
        if first is not None:
            grid.CurrentCell = first  # the current row moves here, as the user's click moves it
        if int(grid.SelectionMode) in (
            int(WF.DataGridViewSelectionMode.FullRowSelect),
            int(WF.DataGridViewSelectionMode.RowHeaderSelect),
        ):
            grid.ClearSelection()
            el.Selected = True

    def mouse(self, el: Any, button: str, count: int) -> None:
        grid = el.DataGridView
        which = {"left": WF.MouseButtons.Left, "right": WF.MouseButtons.Right, "middle": WF.MouseButtons.Middle}[button]
        for n in range(1, count + 1):
            args = WF.DataGridViewCellMouseEventArgs(-1, int(el.Index), 0, 0, WF.MouseEventArgs(which, n, 0, 0, 0))
            call_protected(grid, WF.DataGridView, "OnRowHeaderMouseClick", args)
            if n == 2:
                call_protected(grid, WF.DataGridView, "OnRowHeaderMouseDoubleClick", args)

    def action_state(self, el: Any) -> dict[str, Any]:
        return {"selected": bool(el.Selected)}


class GridCell(Item):
    kind_label = "grid cell"

    def owner(self, el: Any) -> Any:
        return el.DataGridView

    def parent(self, el: Any) -> Any:
        return el.OwningRow

    def is_alive(self, el: Any) -> bool:
        grid = el.DataGridView
        return grid is not None and not grid.IsDisposed and int(el.RowIndex) >= 0 and int(el.ColumnIndex) >= 0

    def client_rect(self, el: Any) -> Any | None:
        grid = el.DataGridView
        if not grid.Visible or not grid.IsHandleCreated or not _cell_displayed(el):
            return None
        return grid.GetCellDisplayRectangle(int(el.ColumnIndex), int(el.RowIndex), True)

    def state(self, el: Any) -> ElementState:
        grid = el.DataGridView
        current = grid.CurrentCell
        is_current = (
            current is not None
            and int(current.RowIndex) == int(el.RowIndex)
            and (int(current.ColumnIndex) == int(el.ColumnIndex))
        )
        visible = bool(grid.Visible) and bool(el.Visible) and _cell_displayed(el)
        checked = cell_checked(el) if is_instance(el, WF.types.DataGridViewCheckBoxCell) else None
        return ElementState(
            visible, bool(grid.Enabled), is_current and bool(grid.Focused), selected=bool(el.Selected), checked=checked
        )

    def text(self, el: Any) -> str | None:
        return None if is_instance(el, WF.types.DataGridViewCheckBoxCell) else cell_text(el)

    def facts(self, el: Any) -> list[Fact]:
        return [
            Fact("Text", "System.String", self.text),
            Fact("Column", "System.String", lambda e: str(e.OwningColumn.HeaderText)),
            Fact("ColumnName", "System.String", lambda e: str(e.OwningColumn.Name)),
        ]

    def data_type(self, el: Any) -> str | None:
        return type_full_name(el.OwningRow.DataBoundItem)

    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        if action == "toggle":
            return None if is_instance(el, WF.types.DataGridViewCheckBoxCell) else "It is not a check box cell."
        if action == "type":
            if is_instance(
                el, (WF.types.DataGridViewCheckBoxCell, WF.types.DataGridViewButtonCell, WF.types.DataGridViewLinkCell)
            ):
                return "It is a check box, button or link cell: click or toggle it."
            return None
        return super().unsupported(el, action)

    def blocker(self, el: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        if action in ("type", "toggle") and el.ReadOnly:
            return Blocker("read-only", "The cell is read-only (itself, its column, its row or the grid).")
        return None

    def select(self, el: Any) -> None:
        el.DataGridView.CurrentCell = el  # selects it (its row, in full-row mode)

    def pick(self, el: Any) -> None:
        self.select(el)
        if is_instance(el, WF.types.DataGridViewCheckBoxCell) and not el.ReadOnly:
            self.toggle(el, None)  # a click on a check box cell flips it

    def mouse(self, el: Any, button: str, count: int) -> None:
        grid = el.DataGridView
        col, row = int(el.ColumnIndex), int(el.RowIndex)
        which = {"left": WF.MouseButtons.Left, "right": WF.MouseButtons.Right, "middle": WF.MouseButtons.Middle}[button]
        content = is_instance(
            el, (WF.types.DataGridViewButtonCell, WF.types.DataGridViewLinkCell, WF.types.DataGridViewCheckBoxCell)
        )
        for n in range(1, count + 1):
            if button == "left":
                call_protected(grid, WF.DataGridView, "OnCellClick", WF.DataGridViewCellEventArgs(col, row))
                if content:
                    call_protected(grid, WF.DataGridView, "OnCellContentClick", WF.DataGridViewCellEventArgs(col, row))
            mouse = WF.DataGridViewCellMouseEventArgs(col, row, 0, 0, WF.MouseEventArgs(which, n, 0, 0, 0))
            call_protected(grid, WF.DataGridView, "OnCellMouseClick", mouse)
            if n == 2:
                if button == "left":
                    call_protected(grid, WF.DataGridView, "OnCellDoubleClick", WF.DataGridViewCellEventArgs(col, row))
                call_protected(grid, WF.DataGridView, "OnCellMouseDoubleClick", mouse)

    def toggle(self, el: Any, state: bool | None) -> None:
        current = cell_checked(el)
        wanted = (not current) if state is None else state
        if current is wanted:
            return
        grid = el.DataGridView
        grid.CurrentCell = el
        el.Value = wanted
        grid.EndEdit()  # CellValueChanged; the bound row takes the value
        _commit_row(grid)

    def typing_target(self, el: Any) -> Any:
        grid = el.DataGridView
        grid.CurrentCell = el
        if not grid.BeginEdit(True) or grid.EditingControl is None:
            raise ElementNotInteractableError(
                "The grid did not open an editor for the cell (its CellBeginEdit handler may have cancelled it).",
                suggestion="Check that the cell is editable, or set its value with wpf_set_property on Value.",
                detail={"reason": "read-only"},
            )
        return grid.EditingControl

    def typed(self, el: Any) -> None:
        grid = el.DataGridView
        grid.EndEdit()  # CellValidating/CellValueChanged: the typed text becomes the cell's value
        _commit_row(grid)

    def action_state(self, el: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"selected": bool(el.Selected)}
        if is_instance(el, WF.types.DataGridViewCheckBoxCell):
            out["checked"] = cell_checked(el)
        return out


def select_row(grid: Any, item: str | None, index: int | None) -> None:
    """``wpf_select`` on a grid: the row at ``index`` (any row: the grid scrolls to it, and only it is unshared)."""
    if index is None:
        raise InvalidArgumentError(
            "A grid's rows are selected by index here: matching text would read every row.",
            suggestion='Pass index, or select a row in view by itself (DataGridViewRow[text*="..."]).',
        )
    count = int(grid.Rows.Count)
    if index >= count:
        raise InvalidArgumentError(
            f"index {index} is out of range: the grid has {count} rows.",
            suggestion="Pass an index from 0 to the row count minus one.",
            detail={"count": count},
        )
    GridRow().select(grid.Rows[index])


def cell_text(cell: Any) -> str | None:
    value = cell.FormattedValue
    return None if value is None else str(value)


def cell_checked(cell: Any) -> bool | None:
    value = cell.Value
    if value is None or type_full_name(value) == "System.DBNull":
        return False
    if isinstance(value, bool):
        return value
    if type_full_name(value) == "System.Windows.Forms.CheckState":
        return checked_of(value)
    return str(value).lower() in ("true", "1", "checked")


def _cell_displayed(cell: Any) -> bool:
    # Mono never sets a cell's own Displayed state: its row and column being displayed is what it means.
    return bool(cell.OwningRow.Displayed) and bool(cell.OwningColumn.Displayed)


def _first_visible_cell(row: Any) -> Any | None:
    for column in _display_order(row.DataGridView):
        if column.Visible:
            return row.Cells[int(column.Index)]
    return None


def _commit_row(grid: Any) -> None:
    """Push the current row's edit into its data source, as moving to another row would."""
    source = grid.DataSource
    if source is None:
        return
    manager = grid.BindingContext[source, grid.DataMember or ""]
    if manager is not None:
        manager.EndCurrentEdit()
