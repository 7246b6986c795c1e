"""The Lists and Grid pages: list boxes (plain, checked, owner-drawn, big), combo boxes, a list view, the data grid."""

from __future__ import annotations

from typing import Any

import clr
from System import Boolean, Int32
from System.Data import DataTable
from System.Drawing import Color, Rectangle, SolidBrush
from System.Windows.Forms import (
    CheckedListBox,
    ColumnHeader,
    ComboBox,
    ComboBoxStyle,
    DataGridView,
    DataGridViewAutoSizeColumnsMode,
    DataGridViewSelectionMode,
    DockStyle,
    DrawMode,
    ListBox,
    ListView,
    ListViewItem,
    TabPage,
    View,
)

from zoo.common import Journal, add, place

FRUITS = ("Apple", "Banana", "Cherry", "Date", "Elderberry", "Fig", "Grape", "Honeydew")
TOPPINGS = ("Cheese", "Ham", "Olives", "Peppers")
CITIES = ("London", "Paris", "Tokyo")
PORTIONS = ("Small", "Regular", "Large")
PAINTS = ("Red", "Green", "Blue", "Orange", "Purple")
PEOPLE = (
    ("Ada", "36", "London"),
    ("Grace", "45", "Arlington"),
    ("Linus", "28", "Helsinki"),
    ("Alan", "41", "Wilmslow"),
)
CUSTOMERS = ("Ada", "Grace", "Linus", "Margaret", "Alan", "Barbara")
PRODUCTS = ("Apples", "Pears", "Plums", "Figs")


def part_name(index: int) -> str:
    """The text of the big list's item at ``index``."""
    return f"Part {index:05d}"


def lists_page(journal: Journal, items: int) -> Any:
    page = TabPage("Lists")
    page.Name = "listsPage"

    fruits = place(ListBox(), "fruitList", 10, 10, 140, 100)
    for fruit in FRUITS:
        fruits.Items.Add(fruit)
    fruits.SelectedIndexChanged += lambda sender, args: journal(f"Fruit {fruits.SelectedItem}")
    fruits.DoubleClick += lambda sender, args: journal(f"Opened {fruits.SelectedItem}")

    toppings = place(CheckedListBox(), "toppingList", 160, 10, 140, 100)
    for topping in TOPPINGS:
        toppings.Items.Add(topping)
    toppings.SetItemChecked(TOPPINGS.index("Olives"), True)
    toppings.ItemCheck += lambda sender, args: journal(f"Topping {toppings.Items[args.Index]} {args.NewValue}")

    cities = place(ComboBox(), "cityCombo", 10, 120, 140, 24)  # DropDown: a text box with a list
    for city in CITIES:
        cities.Items.Add(city)
    cities.TextChanged += lambda sender, args: journal(f"City {cities.Text}")

    portions = place(ComboBox(), "portionCombo", 160, 120, 140, 24)
    portions.DropDownStyle = ComboBoxStyle.DropDownList
    for portion in PORTIONS:
        portions.Items.Add(portion)
    portions.SelectedIndex = 1
    portions.SelectedIndexChanged += lambda sender, args: journal(f"Portion {portions.SelectedItem}")

    paints = place(ListBox(), "paintList", 310, 10, 140, 100)
    paints.DrawMode = DrawMode.OwnerDrawFixed
    paints.ItemHeight = 18
    for paint in PAINTS:
        paints.Items.Add(paint)

    def draw_paint(sender: Any, args: Any) -> None:
        # A swatch and the name: the app draws each item itself, so the text is the app's business.
        if args.Index < 0:
            return
        args.DrawBackground()
        name = str(paints.Items[args.Index])
        bounds = args.Bounds
        args.Graphics.FillRectangle(SolidBrush(Color.FromName(name)), Rectangle(bounds.X + 2, bounds.Y + 2, 14, 14))
        args.Graphics.DrawString(name, args.Font, SolidBrush(args.ForeColor), float(bounds.X + 20), float(bounds.Y + 1))
        args.DrawFocusRectangle()

    paints.DrawItem += draw_paint
    paints.SelectedIndexChanged += lambda sender, args: journal(f"Paint {paints.SelectedItem}")

    catalog = place(ListBox(), "catalogList", 460, 10, 160, 150)
    catalog.BeginUpdate()
    for i in range(items):
        catalog.Items.Add(part_name(i))
    catalog.EndUpdate()
    catalog.SelectedIndexChanged += lambda sender, args: journal(f"Catalog {catalog.SelectedItem}")

    people = place(ListView(), "peopleView", 10, 170, 440, 130)
    people.View = View.Details
    people.FullRowSelect = True
    people.CheckBoxes = True
    for title, width in (("Name", 120), ("Age", 60), ("City", 120)):
        header = ColumnHeader()
        header.Text = title
        header.Name = f"{title.lower()}Column"
        header.Width = width
        people.Columns.Add(header)
    for person in PEOPLE:
        row = ListViewItem(person[0])
        row.Name = f"person{person[0]}"
        for cell in person[1:]:
            row.SubItems.Add(cell)
        people.Items.Add(row)
    people.SelectedIndexChanged += lambda sender, args: journal(
        f"Person {people.SelectedItems[0].Text}" if people.SelectedItems.Count else "No person"
    )
    people.ItemChecked += lambda sender, args: journal(
        f"{'Invited' if args.Item.Checked else 'Uninvited'} {args.Item.Text}"
    )

    def sort_people(sender: Any, args: Any) -> None:
        column = args.Column
        rows = sorted(people.Items, key=lambda r: _sort_key(r.SubItems[column].Text))
        people.BeginUpdate()
        people.Items.Clear()
        for row in rows:
            people.Items.Add(row)
        people.EndUpdate()
        journal(f"Sorted by {people.Columns[column].Text}")

    people.ColumnClick += sort_people

    add(page, fruits, toppings, cities, portions, paints, catalog, people)
    return page


def _sort_key(text: str) -> tuple[int, Any]:
    return (0, int(text)) if text.isdigit() else (1, text)


def orders_table(rows: int) -> Any:
    """``rows`` orders: Id, Customer, Product, Quantity, Shipped."""
    table = DataTable("Orders")
    table.Columns.Add("Id", clr.GetClrType(Int32))
    table.Columns.Add("Customer")
    table.Columns.Add("Product")
    table.Columns.Add("Quantity", clr.GetClrType(Int32))
    table.Columns.Add("Shipped", clr.GetClrType(Boolean))
    table.BeginLoadData()
    for i in range(rows):
        table.Rows.Add(i + 1, CUSTOMERS[i % len(CUSTOMERS)], PRODUCTS[i % len(PRODUCTS)], 1 + i % 9, i % 3 == 0)
    table.EndLoadData()
    table.AcceptChanges()
    return table


def grid_page(journal: Journal, table: Any) -> Any:
    page = TabPage("Grid")
    page.Name = "gridPage"
    grid = DataGridView()
    grid.Name = "ordersGrid"
    grid.Dock = DockStyle.Fill
    grid.AutoSizeColumnsMode = DataGridViewAutoSizeColumnsMode.Fill
    grid.SelectionMode = DataGridViewSelectionMode.FullRowSelect
    grid.AllowUserToAddRows = False
    grid.DataSource = table

    def on_value(sender: Any, args: Any) -> None:
        if args.RowIndex < 0:
            return
        row = grid.Rows[args.RowIndex]
        column = grid.Columns[args.ColumnIndex].Name
        journal(f"Order {row.Cells['Id'].Value} {column}={row.Cells[args.ColumnIndex].Value}")

    def on_selection(sender: Any, args: Any) -> None:
        current = grid.CurrentRow
        if current is not None and current.Index >= 0:
            journal(f"Order {current.Cells['Id'].Value} selected")

    grid.CellValueChanged += on_value
    grid.SelectionChanged += on_selection
    grid.ColumnHeaderMouseClick += lambda sender, args: journal(f"Grid header {grid.Columns[args.ColumnIndex].Name}")
    page.Controls.Add(grid)
    return page
