"""Items as elements: what every ItemsControl shows, in the logical tree, and their state and text.

An item is its container when WPF has generated one (ListBoxItem,
ComboBoxItem, TreeViewItem, TabItem, MenuItem, DataGridRow...), the item
itself when it is an element (a ListBoxItem or MenuItem written in XAML), and
otherwise a data item, ``ItemRef(list, index)`` (a string, a DataRowView, a
view model).

The two trees show them as each tree is:

- The visual tree is what is drawn: the containers WPF has realised, where
  its panels put them, and nothing for the items a virtualizing list has not
  realised. The items host panel says how many items its list has in all
  (``child_total``) when it holds fewer containers.
- The logical tree is what the app holds: every ItemsControl lists its items
  in order, as containers, elements or data items, the first
  ``MAX_LISTED_ITEMS`` of them (``child_total`` gives the count when there are
  more; wpf_select by text or index reaches every one). A tree node's children
  are there whether it is expanded or not: data items under a collapsed node,
  and under a data item the children its HierarchicalDataTemplate's
  ItemsSource names (a plain property path). A DataGridRow's children are its
  cells (those realised).

A data item is named by the container its list would make for it (see
``toolkits/_wpf_items.py``), so a path reads the same before and after WPF
realises it. Its text is the value at the list's DisplayMemberPath, else its
TextSearch.TextPath, else its string; it is described by that path, so the
engine's redaction judges the path's names before anything is read.

Where this meets objects from .NET that could be Python-defined elements
(see the report of issue 11): ``ItemContainerGenerator.ContainerFromIndex``,
``ItemFromContainer`` and ``ContainerFromItem``, ``ItemCollection`` indexing,
``LogicalTreeHelper``, ``ItemsControl.ItemsControlFromItemContainer`` and
``DataGridColumn.GetCellContent``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from System import Object, String, Type
from System.Collections import IEnumerable, IList
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor
from System.ComponentModel import TypeDescriptor

from wpfprobe.core.protocol import Bounds, ElementState, ItemRef, Naming, TreeType
from wpfprobe_clr._values import type_full_name
from wpfprobe_clr.toolkits._wpf_items import (
    MAX_LISTED_ITEMS,
    TextSource,
    container_type_name,
    item_text_source,
    parse_property_path,
    readable_string,
)
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._tree import _MAX_DEPTH, _TreeAdapter

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        DataTemplate,
        DataTemplateKey,
        DependencyObject,
        DependencyProperty,
        FrameworkElement,
        HierarchicalDataTemplate,
        LogicalTreeHelper,
        PropertyPath,
        UIElement,
    )
    from System.Windows.Controls import (
        ComboBox,
        ContentControl,
        ContentPresenter,
        DataGrid,
        DataGridBoundColumn,
        DataGridCell,
        DataGridColumn,
        DataGridRow,
        Expander,
        HeaderedItemsControl,
        ItemCollection,
        ItemContainerGenerator,
        ItemsControl,
        ListBox,
        ListBoxItem,
        MenuItem,
        Panel,
        TabItem,
        TextBlock,
        TextBox,
        TextSearch,
        TreeView,
        TreeViewItem,
    )
    from System.Windows.Controls.Primitives import MenuBase, MultiSelector, Selector, ToggleButton
    from System.Windows.Data import Binding, BindingBase
    from System.Windows.Media import VisualTreeHelper

# How far up from a cell's content its DataGridCell is at most (content, presenter, border, cell).
_CELL_DEPTH = 6


@dataclass(frozen=True, slots=True)
class _ItemText:
    """The handle of an item's text: whose item it is, and where its text comes from."""

    #: The ItemRef, or the generated container showing the item.
    element: Any
    source: TextSource


@dataclass(frozen=True, slots=True)
class _CellText:
    """The handle of a DataGridCell's text: what the element the cell shows reads."""

    cell: DataGridCell


class _ItemsAdapter(_TreeAdapter):
    """The trees with items in them, and what an item is: its name, state and text."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self._containers: dict[type, str] = {}

    # -- the trees

    def children(self, element: Any, tree_type: TreeType) -> list[Any]:
        if isinstance(element, ItemRef):
            if tree_type == "visual":
                return []  # a data item without a container draws nothing
            kids = self._hierarchy_items(element)
            return [ItemRef(element, i) for i in range(min(len(kids), MAX_LISTED_ITEMS))]
        if tree_type == "visual":
            return super().children(element, "visual")
        if isinstance(element, ItemsControl):
            return self._listed_items(element)
        if isinstance(element, DataGridRow):
            return self._row_cells(element)
        wrapped = self._wrapped_element(element)
        if wrapped is not None:
            return [wrapped]
        return super().children(element, "logical")

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        if isinstance(element, ItemRef):
            return element.owner if tree_type == "logical" else None
        if tree_type == "visual" or not isinstance(element, DependencyObject):
            return super().parent(element, tree_type)
        if isinstance(element, DataGridCell):
            row: DataGridRow | None = DataGridRow.GetRowContainingElement(element)
            if row is not None:
                return row
        found = LogicalTreeHelper.GetParent(element)
        if found is None:
            # A generated container has no logical parent: its list is its parent here.
            return ItemsControl.ItemsControlFromItemContainer(element)
        if isinstance(found, ItemsControl) and not found.IsItemItsOwnContainer(element):
            # An element item (a Button in a ListBox) sits in the container made for it.
            generator: ItemContainerGenerator = found.ItemContainerGenerator
            container = generator.ContainerFromItem(element)
            if isinstance(container, DependencyObject) and not Object.ReferenceEquals(container, element):
                return container
        return found

    def is_alive(self, element: Any) -> bool:
        if isinstance(element, ItemRef):
            owner = element.owner
            if isinstance(owner, ItemRef):
                return self.is_alive(owner) and 0 <= element.index < len(self._hierarchy_items(owner))
            if not isinstance(owner, ItemsControl) or not super().is_alive(owner):
                return False
            items: ItemCollection = owner.Items
            return 0 <= element.index < int(items.Count)
        return super().is_alive(element)

    def child_total(self, element: Any) -> int | None:
        if isinstance(element, ItemsControl):
            items: ItemCollection = element.Items
            count = int(items.Count)
            return count if count > MAX_LISTED_ITEMS else None
        if isinstance(element, Panel) and element.IsItemsHost:
            # A virtualizing panel holds containers for some items only.
            owner: ItemsControl | None = ItemsControl.GetItemsOwner(element)
            if owner is None:
                return None
            listed: ItemCollection = owner.Items
            count = int(listed.Count)
            return count if count > int(VisualTreeHelper.GetChildrenCount(element)) else None
        if isinstance(element, ItemRef):
            kids = len(self._hierarchy_items(element))
            return kids if kids > MAX_LISTED_ITEMS else None
        return None

    # -- what an item is

    def naming(self, element: Any) -> Naming:
        if isinstance(element, ItemRef):
            return Naming(
                type_name=self._container_type(element),
                full_type_name=type_full_name(self._data_item(element)) or "System.Object",
                name=None,
                automation_id=None,
            )
        return super().naming(element)

    def state(self, element: Any) -> ElementState:
        if isinstance(element, ItemRef):
            container = self._ref_container(element)
            if container is not None:
                return self.state(container)  # WPF has made its container since
            return self._data_item_state(element)
        base = super().state(element)
        selected, checked, expanded = self._item_states(element)
        if selected is None and checked is None and expanded is None:
            return base
        return ElementState(base.visible, base.enabled, base.focused, selected, checked, expanded)

    def bounds(self, element: Any) -> Bounds | None:
        if isinstance(element, ItemRef):
            container = self._ref_container(element)
            return self.bounds(container) if container is not None else None
        return super().bounds(element)

    def is_template_part(self, element: Any) -> bool:
        if isinstance(element, FrameworkElement):
            # What a DataGridCell shows (a TextBlock, an editing TextBox) stands for the cell,
            # as a template's parts stand for their control: a search by text finds the cell.
            if isinstance(element.Parent, DataGridCell):
                return True
            presenter = VisualTreeHelper.GetParent(element)
            if isinstance(presenter, ContentPresenter) and isinstance(presenter.TemplatedParent, DataGridCell):
                return True
        return super().is_template_part(element)

    def _item_states(self, element: Any) -> tuple[bool | None, bool | None, bool | None]:
        """(selected, checked, expanded) of an element, None where it does not apply."""
        if isinstance(element, ListBoxItem):
            return bool(element.IsSelected), _toggle_state(element.Content), None
        if isinstance(element, TabItem):
            return bool(element.IsSelected), None, None
        if isinstance(element, TreeViewItem):
            expanded = bool(element.IsExpanded) if element.HasItems else None
            return bool(element.IsSelected), _toggle_state(element.Header), expanded
        if isinstance(element, MenuItem):
            # A menu item shows a check mark whenever IsChecked, checkable or not.
            checked = bool(element.IsChecked) if element.IsCheckable or element.IsChecked else None
            return None, checked, bool(element.IsSubmenuOpen) if element.HasItems else None
        if isinstance(element, DataGridRow):
            return bool(element.IsSelected), None, None
        if isinstance(element, DataGridCell):
            return bool(element.IsSelected), _toggle_state(element.Content), None
        if isinstance(element, ToggleButton):
            checked_now = element.IsChecked
            return None, None if checked_now is None else bool(checked_now), None
        if isinstance(element, ComboBox):
            return None, None, bool(element.IsDropDownOpen)
        if isinstance(element, Expander):
            return None, None, bool(element.IsExpanded)
        return None, None, None

    def _data_item_state(self, ref: ItemRef) -> ElementState:
        """A data item without a container is not drawn; it is enabled as its list is, selected as its list says."""
        control = self._items_control_of(ref)
        enabled = bool(control.IsEnabled) if control is not None else True
        item = self._data_item(ref)
        owner = ref.owner
        selected: bool | None = None
        if isinstance(owner, ListBox):
            chosen: IList = owner.SelectedItems
            selected = bool(chosen.Contains(item))
        elif isinstance(owner, MultiSelector):
            many: IList = owner.SelectedItems
            selected = bool(many.Contains(item))
        elif isinstance(owner, Selector):
            selected = int(owner.SelectedIndex) == ref.index
        else:
            tree = self._tree_view_of(ref)
            if tree is not None:
                selected = item is not None and bool(Object.Equals(tree.SelectedItem, item))
        expanded: bool | None = None
        if self._tree_view_of(ref) is not None and self._hierarchy_items(ref):
            expanded = False  # expanding makes its container
        return ElementState(visible=False, enabled=enabled, focused=False, selected=selected, expanded=expanded)

    # -- items, containers and data

    def _listed_items(self, control: ItemsControl) -> list[Any]:
        """A list's logical children: its header if that is an element (a menu item's), then its items."""
        items: ItemCollection = control.Items
        out: list[Any] = []
        if isinstance(control, HeaderedItemsControl):
            header = control.Header
            if isinstance(header, DependencyObject):
                out.append(header)
        generator: ItemContainerGenerator = control.ItemContainerGenerator
        for index in range(min(int(items.Count), MAX_LISTED_ITEMS)):
            container = generator.ContainerFromIndex(index)
            if isinstance(container, DependencyObject):
                out.append(container)
                continue
            item = items[index]
            out.append(item if isinstance(item, DependencyObject) else ItemRef(control, index))
        return out

    def _row_cells(self, row: DataGridRow) -> list[Any]:
        """A row's realised cells, in the order the user sees its columns."""
        grid = ItemsControl.ItemsControlFromItemContainer(row)
        if not isinstance(grid, DataGrid):
            return super().children(row, "logical")
        columns: list[DataGridColumn] = list(grid.Columns)
        columns.sort(key=_display_index)
        cells: list[Any] = []
        # By the row's item: given the row, pythonnet may pick the GetCellContent(object) overload,
        # which looks the row up by item and finds nothing.
        item = row.Item
        column: DataGridColumn
        for column in columns:
            content = column.GetCellContent(item)
            cell = _cell_of(content) if content is not None else None
            if cell is not None:
                cells.append(cell)
        return cells

    def _wrapped_element(self, element: Any) -> DependencyObject | None:
        """The element item a generated container shows (WPF does not make it the container's logical child)."""
        if not isinstance(element, (ContentControl, HeaderedItemsControl)):
            return None
        item = self._container_item(element)
        return item if isinstance(item, DependencyObject) else None

    def _container_item(self, element: DependencyObject) -> Any:
        """The item a generated container shows, or None if ``element`` is not one (an element is its own)."""
        control = ItemsControl.ItemsControlFromItemContainer(element)
        if control is None:
            return None
        generator: ItemContainerGenerator = control.ItemContainerGenerator
        item = generator.ItemFromContainer(element)
        if Object.ReferenceEquals(item, element) or Object.ReferenceEquals(item, DependencyProperty.UnsetValue):
            return None
        return item

    def _ref_container(self, ref: ItemRef) -> DependencyObject | None:
        """The container WPF has made for a data item since it was listed, if any."""
        owner = ref.owner
        if not isinstance(owner, ItemsControl):
            return None
        generator: ItemContainerGenerator = owner.ItemContainerGenerator
        container = generator.ContainerFromIndex(ref.index)
        return container if isinstance(container, DependencyObject) else None

    def _items_host(self, control: ItemsControl) -> Panel | None:
        """The panel the template marks IsItemsHost, a few levels down (breadth first)."""
        level: list[Any] = [control]
        for _depth in range(8):
            below: list[Any] = []
            for visual in level:
                for child in self.children(visual, "visual"):
                    if isinstance(child, Panel) and child.IsItemsHost:
                        return child
                    if not isinstance(child, ItemsControl):  # a nested list's host is not ours
                        below.append(child)
            level = below
            if not level:
                break
        return None

    def _data_item(self, ref: ItemRef) -> Any:
        owner = ref.owner
        if isinstance(owner, ItemRef):
            return self._hierarchy_items(owner)[ref.index]
        if not isinstance(owner, ItemsControl):
            return None
        items: ItemCollection = owner.Items
        return items[ref.index]

    def _items_control_of(self, element: Any) -> ItemsControl | None:
        """The nearest ItemsControl that holds ``element`` (a data item's list, or its ancestors' nearest)."""
        current: Any = element
        for _ in range(_MAX_DEPTH):
            if not isinstance(current, ItemRef):
                break
            current = current.owner
        return current if isinstance(current, ItemsControl) else None

    def _tree_view_of(self, element: Any) -> TreeView | None:
        """The TreeView a tree node or a data item in one belongs to."""
        current: Any = self._items_control_of(element) if isinstance(element, ItemRef) else element
        for _ in range(_MAX_DEPTH):
            if isinstance(current, TreeView):
                return current
            if not isinstance(current, TreeViewItem):
                return None
            current = ItemsControl.ItemsControlFromItemContainer(current)
        return None

    def _container_type(self, ref: ItemRef) -> str:
        owner = ref.owner
        if isinstance(owner, ItemRef):
            return self._container_type(owner)  # a tree node's children are nodes too
        key = type(owner)
        found = self._containers.get(key)
        if found is None:
            found = container_type_name(_type_chain(owner))
            self._containers[key] = found
        return found

    # -- hierarchical data: the children of a node that has no container yet

    def _hierarchy_items(self, ref: ItemRef) -> list[Any]:
        """The children of a data item, as its HierarchicalDataTemplate's ItemsSource names them; [] if none.

        Only trees and menus nest their items (a TreeView, a Menu and their items).
        """
        control = self._items_control_of(ref)
        if not isinstance(control, (TreeView, HeaderedItemsControl, MenuBase)):
            return []
        template = self._item_template(ref)
        if not isinstance(template, HierarchicalDataTemplate):
            return []
        source: BindingBase | None = template.ItemsSource
        if not isinstance(source, Binding):
            return []
        if source.Source is not None or source.ElementName or source.RelativeSource is not None:
            return []
        if source.XPath or source.Converter is not None:
            return []
        path: PropertyPath | None = source.Path
        segments = parse_property_path(str(path.Path) if path is not None else "")
        if segments is None:
            return []
        value = _path_value(self._data_item(ref), segments)
        if value is None or isinstance(value, str) or not isinstance(value, IEnumerable):
            return []
        return list(value)

    def _item_template(self, ref: ItemRef) -> DataTemplate | None:
        """The template a container for ``ref`` would show it with: its list's, or the one for its type."""
        owner = ref.owner
        control = self._items_control_of(ref)
        if isinstance(owner, ItemsControl):
            explicit: DataTemplate | None = owner.ItemTemplate
        else:
            above = self._item_template(owner)
            explicit = None
            if isinstance(above, HierarchicalDataTemplate):
                lower: DataTemplate | None = above.ItemTemplate
                if lower is not None:
                    explicit = lower
                elif control is not None and control.ItemTemplate is not None:
                    # A level whose template names no ItemTemplate keeps the list's (HeaderedItemsControl does).
                    explicit = above
        if explicit is not None:
            return explicit
        if control is None:
            return None
        return _implicit_template(control, self._data_item(ref))

    # -- text

    def _item_text_source(self, element: Any) -> TextSource | None:
        """Where the text of a data item, or of a container showing one, comes from; None for other elements."""
        if isinstance(element, ItemRef):
            return self._text_source_of(self._items_control_of(element))
        if isinstance(element, DataGridCell):
            return None  # a cell shows its column's value, not its row's item (see _cell_text)
        if isinstance(element, (ContentControl, HeaderedItemsControl, DataGridRow, ContentPresenter)):
            item = self._container_item(element)
            if item is None or isinstance(item, DependencyObject):
                return None
            return self._text_source_of(ItemsControl.ItemsControlFromItemContainer(element))
        return None

    def _text_source_of(self, control: ItemsControl | None) -> TextSource:
        """The list's DisplayMemberPath or TextSearch.TextPath, else the nearest of the lists it is in (a tree)."""
        current = control
        for _ in range(_MAX_DEPTH):
            if current is None:
                break
            source = item_text_source(str(current.DisplayMemberPath or ""), str(TextSearch.GetTextPath(current) or ""))
            if source.path:
                return source
            if not isinstance(current, (TreeViewItem, MenuItem)):
                break
            current = ItemsControl.ItemsControlFromItemContainer(current)
        return item_text_source(None, None)

    def _text_item(self, element: Any) -> Any:
        """The data item whose text ``element`` shows (itself if an ItemRef, else the container's item)."""
        if isinstance(element, ItemRef):
            return self._data_item(element)
        return self._container_item(element) if isinstance(element, DependencyObject) else None

    def _cell_text_name(self, cell: DataGridCell) -> str:
        """A cell's text is described by its column's binding path and header: both say what it holds."""
        column: DataGridColumn | None = cell.Column
        names: list[str] = []
        if isinstance(column, DataGridBoundColumn):
            binding: BindingBase | None = column.Binding
            if isinstance(binding, Binding):
                path: PropertyPath | None = binding.Path
                if path is not None and str(path.Path):
                    names.append(str(path.Path))
        if column is not None and isinstance(column.Header, str) and column.Header:
            names.append(str(column.Header))
        return " / ".join(names) or "Text"

    def _cell_text(self, cell: DataGridCell) -> str | None:
        """What the cell shows as text: its TextBlock's, its editing TextBox's, its combo box's."""
        content = cell.Content
        text: Any = None
        if isinstance(content, TextBlock):
            text = content.Text
        elif isinstance(content, TextBox):
            text = content.Text
        elif isinstance(content, ComboBox):
            text = content.Text
        return str(text) if text else None

    def _item_text_value(self, handle: _ItemText) -> tuple[Any, str | None]:
        """(raw value at the text's path, the text a user reads) of an item; the raw value's type decides redaction."""
        element = handle.element
        if isinstance(element, ItemRef):
            control = self._items_control_of(element)
        else:
            control = ItemsControl.ItemsControlFromItemContainer(element)
        return _data_text(control, handle.source, self._text_item(element))


def _data_text(control: ItemsControl | None, source: TextSource, item: Any) -> tuple[Any, str | None]:
    """(raw value at ``source``'s path on ``item``, the text a user reads), as ``control`` shows it."""
    if source.segments is None:
        return None, None  # a path of a kind this probe does not evaluate
    value = _path_value(item, source.segments)
    if value is None or isinstance(value, DependencyObject):
        return value, None
    if control is not None:
        shown_format = str(control.ItemStringFormat or "")
        # ItemStringFormat formats what the list shows: the item, or its DisplayMemberPath value.
        if shown_format and source.path in ("", str(control.DisplayMemberPath or "")):
            return value, str(String.Format(shown_format, value))
    if isinstance(value, str):
        return value, value or None
    if isinstance(value, (bool, int, float)):
        return value, str(value)
    if getattr(value, "ToString", None) is None:
        return value, readable_string(str(value), None)  # a Python object in the list: WPF shows its str()
    data: Object = value  # a ToString that throws propagates: this text's read fails, not the answer
    return value, readable_string(str(data.ToString() or ""), type_full_name(value))


def _toggle_state(content: Any) -> bool | None:
    """An item's checked state when what it shows is a check box (a ToggleButton); None otherwise."""
    if isinstance(content, ToggleButton):
        checked = content.IsChecked
        return None if checked is None else bool(checked)
    return None


def _display_index(column: DataGridColumn) -> int:
    return int(column.DisplayIndex)


def _cell_of(content: FrameworkElement) -> DataGridCell | None:
    current: Any = content
    for _ in range(_CELL_DEPTH):
        if isinstance(current, DataGridCell):
            return current
        if not isinstance(current, UIElement):
            return None
        current = VisualTreeHelper.GetParent(current)
    return None


def _type_chain(value: Any) -> Sequence[str]:
    """Full names of ``value``'s .NET type and its base types, most derived first."""
    data: Object = value
    names: list[str] = []
    current: Type | None = data.GetType()
    while current is not None and len(names) < _MAX_DEPTH:
        names.append(str(current.FullName or current.Name))
        current = current.BaseType
    return names


def _implicit_template(control: ItemsControl, item: Any) -> DataTemplate | None:
    """The DataTemplate the resources hold for the item's type or a base type (DataType="{x:Type ...}")."""
    if item is None or isinstance(item, str):
        return None
    data: Object = item
    current: Type | None = data.GetType()
    for _ in range(_MAX_DEPTH):
        if current is None:
            break
        found = control.TryFindResource(DataTemplateKey(current))
        if isinstance(found, DataTemplate):
            return found
        current = current.BaseType
    return None


def _path_value(item: Any, segments: tuple[str, ...]) -> Any:
    """The value at a plain property path on ``item`` (a getter that throws propagates: the read fails)."""
    value = item
    for segment in segments:
        if value is None:
            return None
        found: NetPropertyDescriptor | None = TypeDescriptor.GetProperties(value).Find(segment, False)
        if found is None:
            return None
        value = found.GetValue(value)
    return value


__all__: list[str] = []
