"""Items in the WPF walk: the containers of a list's items, and the states of items, read in .NET.

The walk (``_walker.py``) follows the visual tree, so a list's items are the
containers WPF has realised (ListBoxItem, ComboBoxItem, ListViewItem,
TabItem, TreeViewItem, MenuItem, a plain ItemsControl's ContentPresenter,
DataGridRow). They used to be left to the engine's path; this module reads
them as ``_items.py`` and ``_properties.py`` do:

- states (``_ItemsAdapter._item_states``, in its order of reads, so that a
  getter that throws is the same failure): a ListBoxItem's IsSelected and
  the check of a ToggleButton it shows as its Content; a TabItem's and a
  DataGridRow's IsSelected; a TreeViewItem's IsSelected, the check of a
  ToggleButton Header, IsExpanded when it HasItems; a MenuItem's IsChecked
  when IsCheckable or IsChecked, IsSubmenuOpen when it HasItems; a
  ToggleButton's IsChecked; a ComboBox's IsDropDownOpen; an Expander's
  IsExpanded. A failure of any leaves the error in the checked field, the
  first the engine's node reads after visible, enabled and focused;
- the text of a generated container (``_item_text_source``: one
  ``ItemsControl.ItemsControlFromItemContainer`` names, whose
  ``ItemFromContainer`` is neither itself, nor unset, nor null, nor an
  element): its item's string, shown through AccessText (the access key
  marked) in a MenuItem or TabItem only (``display_text``). Its descriptor is
  ``ITEM_TEXT``'s, which the walk lists among its text properties, so a
  redactor that judges it otherwise sends the snapshot down the engine's path.

Conservative on purpose: a generated container is rich when its item is not
a String (the engine shows it with ToString, or hides a string that is only
its type's name), when its list, or a tree or menu it is nested in, has a
DisplayMemberPath or TextSearch.TextPath (the engine's redaction judges that
path's names per list), when its list has an ItemStringFormat, when a list
on the way is a class written in Python or hides a member the engine reads
by name, or when any of these reads throws (the engine then says why). A
list box item or tree node that shows a ToggleButton written in Python is
rich too: the engine reads its check the Python way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from System import Exception as NetException
from System import Object, String
from System.Linq.Expressions import Expression

from wpfprobe.core.protocol import PropertyDescriptor
from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.toolkits._walk_frame import Pack, any_of
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

if _WPF_LOAD_ERROR is None:
    from System.Windows import DependencyObject, DependencyProperty
    from System.Windows.Controls import (
        ComboBox,
        ContentControl,
        ContentPresenter,
        DataGridRow,
        Expander,
        HeaderedItemsControl,
        ItemContainerGenerator,
        ItemsControl,
        ListBoxItem,
        MenuItem,
        TabItem,
        TextSearch,
        TreeViewItem,
    )
    from System.Windows.Controls.Primitives import ToggleButton

    # Item containers whose text is their item's (``_ItemsAdapter._item_text_source``; a DataGridCell is rich).
    _CONTAINER_TYPES: tuple[type, ...] = (ContentControl, HeaderedItemsControl, DataGridRow, ContentPresenter)
    # Generated containers that show their item's own string through AccessText (``display_text``).
    _ITEM_ACCESS_KEY_TYPES: tuple[type, ...] = (MenuItem, TabItem)

__all__ = ["ITEM_TEXT", "READ_BY_NAME_OWNERS", "ItemReads"]

#: How ``text_property`` describes the text of a container whose item is a String and whose list names no path.
ITEM_TEXT = PropertyDescriptor(name="Item", type_name="System.String", category=None, read_only=True)

#: Members the engine's path reads by name on items and their lists (pythonnet takes the most derived).
READ_BY_NAME = (
    "IsSelected", "IsExpanded", "HasItems", "IsCheckable", "IsSubmenuOpen", "IsDropDownOpen", "Content", "Header",
    "DisplayMemberPath", "ItemStringFormat", "ItemContainerGenerator",
)  # fmt: skip

#: The WPF types that declare one of ``READ_BY_NAME`` (the public WPF API): declared anywhere else, it hides WPF's.
READ_BY_NAME_OWNERS = (
    "System.Windows.Controls.ContentControl", "System.Windows.Controls.ContentPresenter",
    "System.Windows.Controls.GridViewRowPresenter", "System.Windows.Controls.Page",
    "System.Windows.Media.Media3D.ModelVisual3D", "System.Windows.Controls.HeaderedContentControl",
    "System.Windows.Controls.HeaderedItemsControl", "System.Windows.Controls.DataGridRow",
    "System.Windows.Controls.DataGridCell", "System.Windows.Controls.ListBoxItem", "System.Windows.Controls.TabItem",
    "System.Windows.Controls.TreeViewItem", "System.Windows.Controls.Primitives.CalendarDayButton",
    "System.Windows.Controls.Expander", "System.Windows.Controls.StickyNoteControl",
    "System.Windows.Controls.ItemsControl", "System.Windows.Controls.MenuItem", "System.Windows.Controls.ComboBox",
    "System.Windows.Controls.DatePicker", "System.Windows.Controls.Primitives.VirtualizingPanel",
)  # fmt: skip

# How many lists up a tree node's or menu item's text source is looked for (``_tree._MAX_DEPTH``).
_MAX_DEPTH = 256


@dataclass(frozen=True, slots=True)
class ItemReads:
    """The variables and expressions of one record's item reads; the walker writes them where its fields go."""

    #: Whether the element is a generated container whose text is its item's (set by ``container``).
    item_text: Any
    #: Its item, as a String, when ``item_text``.
    item_string: Any
    #: Tri-states (-1: null, 0: false, 1: true) of checked, selected and expanded, and the exception a read threw.
    checked: Any
    selected: Any
    expanded: Any
    failed: Any

    @classmethod
    def new(cls) -> ItemReads:
        return cls(
            E.variable(bool, "itemText"), E.variable(String, "itemString"), E.variable(int, "itemChecked"),
            E.variable(int, "itemSelected"), E.variable(int, "itemExpanded"), E.variable(NetException, "stateFailed"),
        )  # fmt: skip

    @property
    def variables(self) -> list[Any]:
        return [self.item_text, self.item_string, self.checked, self.selected, self.expanded, self.failed]

    # -- the container and its item's text

    def container(self, c: Any, set_rich: Any, hides: Any) -> Any:
        """Decide whether ``c`` shows its item's text, and read it; rich where the engine's text is not certain.

        ``hides(type_expression)`` is the walker's per-type check of members read by name.
        """
        owner = E.variable(ItemsControl, "containerOwner")
        item = E.variable(Object, "containerItem")
        cur = E.variable(ItemsControl, "textOwner")
        going = E.variable(bool, "going")
        i = E.variable(int, "up")

        def has_text(s: Any) -> Any:
            return Expression.AndAlso(
                Expression.ReferenceNotEqual(s, E.null(String)),
                Expression.GreaterThan(E.prop(s, "Length"), E.const(0, int)),
            )

        def odd(list_: Any) -> Any:
            """A list the walk does not read the engine's way: written in Python, or hiding a member read by name."""
            return Expression.OrElse(
                E.is_type(list_, bridge.DERIVED_INTERFACE),
                hides(E.call(E.convert(list_, object), E.method(Object, "GetType"))),
            )

        # ``_text_source_of``: the list's paths, then those of the trees and menus it is nested in.
        up_the_lists = E.block(
            [],
            E.assign(cur, owner),
            E.assign(going, E.const(True, bool)),
            E.for_range(
                i,
                E.const(_MAX_DEPTH, int),
                Expression.IfThen(
                    Expression.AndAlso(going, Expression.ReferenceNotEqual(cur, E.null(ItemsControl))),
                    E.block(
                        [],
                        Expression.IfThen(
                            any_of(
                                [
                                    odd(cur),
                                    has_text(E.prop(E.convert(cur, ItemsControl), "DisplayMemberPath")),
                                    has_text(E.static_call(TextSearch, "GetTextPath", cur)),
                                ]
                            ),
                            E.assign(self.item_text, E.const(False, bool)),
                        ),
                        Expression.IfThenElse(
                            Expression.OrElse(E.is_type(cur, TreeViewItem), E.is_type(cur, MenuItem)),
                            E.assign(cur, E.static_call(ItemsControl, "ItemsControlFromItemContainer", cur)),
                            E.assign(going, E.const(False, bool)),
                        ),
                    ),
                ),
            ),
        )
        generator = E.prop(E.convert(owner, ItemsControl), "ItemContainerGenerator")
        decide = E.block(
            [],
            E.assign(owner, E.static_call(ItemsControl, "ItemsControlFromItemContainer", c)),
            Expression.IfThen(
                Expression.ReferenceNotEqual(owner, E.null(ItemsControl)),
                E.block(
                    [],
                    E.assign(item, E.call(E.convert(generator, ItemContainerGenerator), "ItemFromContainer", c)),
                    Expression.IfThen(
                        Expression.Not(
                            any_of(
                                [
                                    Expression.ReferenceEqual(item, E.null(Object)),
                                    Expression.ReferenceEqual(item, E.convert(c, Object)),
                                    Expression.ReferenceEqual(item, E.const(DependencyProperty.UnsetValue, Object)),
                                    E.is_type(item, DependencyObject),
                                ]
                            )
                        ),
                        # A generated container showing a data item: its text is the item's, or the engine's to read.
                        E.block(
                            [],
                            E.assign(self.item_text, E.const(True, bool)),
                            Expression.IfThen(
                                any_of(
                                    [
                                        Expression.Not(E.is_type(item, String)),
                                        has_text(E.prop(E.convert(owner, ItemsControl), "ItemStringFormat")),
                                    ]
                                ),
                                E.assign(self.item_text, E.const(False, bool)),
                            ),
                            Expression.IfThen(self.item_text, up_the_lists),
                            Expression.IfThenElse(
                                self.item_text, E.assign(self.item_string, E.convert(item, String)), set_rich
                            ),
                        ),
                    ),
                ),
            ),
        )
        is_container = any_of([E.is_type(c, t) for t in _CONTAINER_TYPES])
        return E.block(
            [owner, item, cur, going, i],
            E.assign(self.item_text, E.const(False, bool)),
            E.assign(self.item_string, E.null(String)),
            Expression.IfThen(
                is_container,
                E.try_catch(
                    Pack.void(decide),
                    NetException,
                    "ex",
                    lambda _ex: Pack.void(E.assign(self.item_text, E.const(False, bool)), set_rich),
                ),
            ),
        )

    @staticmethod
    def shows_python(c: Any) -> Any:
        """Whether a list box item's Content or a tree node's Header, whose check the state reads, is a class
        written in Python (pythonnet would read its IsChecked the Python way): the element is rich then."""
        return any_of([
            Expression.AndAlso(
                E.is_type(c, ListBoxItem),
                E.is_type(E.prop(E.convert(c, ContentControl), "Content"), bridge.DERIVED_INTERFACE),
            ),
            Expression.AndAlso(
                E.is_type(c, TreeViewItem),
                E.is_type(E.prop(E.convert(c, HeaderedItemsControl), "Header"), bridge.DERIVED_INTERFACE),
            ),
        ])  # fmt: skip

    def marked(self, c: Any, access_key_types: tuple[type, ...]) -> Any:
        """Whether the text shows through AccessText: an item's string in a menu or tab item, else by type."""
        return Expression.Condition(
            self.item_text,
            any_of([E.is_type(c, t) for t in _ITEM_ACCESS_KEY_TYPES]),
            any_of([E.is_type(c, t) for t in access_key_types]),
        )

    # -- states

    def states(self, c: Any) -> Any:
        """Read the states ``_item_states`` reads, in its order; a throw is kept for ``checked_field``."""
        nullable_checked = E.prop(E.convert(c, ToggleButton), "IsChecked")
        toggle = Expression.Variable(nullable_checked.Type, "toggle")
        shown = E.variable(Object, "shown")

        def tri(test: Any) -> Any:
            return E.condition(test, E.const(1, int), E.const(0, int), int)

        def set_(target: Any, value: Any) -> Any:
            return E.assign(target, value)

        def toggle_of(read: Any) -> Any:
            """``_toggle_state``: the check of a ToggleButton the item shows; null (-1) otherwise."""
            checked_of = E.prop(E.convert(shown, ToggleButton), "IsChecked")
            return E.block(
                [],
                E.assign(shown, read),
                Expression.IfThen(
                    E.is_type(shown, ToggleButton),
                    E.block(
                        [],
                        E.assign(toggle, checked_of),
                        Expression.IfThen(E.prop(toggle, "HasValue"), set_(self.checked, tri(E.prop(toggle, "Value")))),
                    ),
                ),
            )

        list_box_item = E.block(
            [],
            set_(self.selected, tri(E.prop(E.convert(c, ListBoxItem), "IsSelected"))),
            toggle_of(E.prop(E.convert(c, ContentControl), "Content")),
        )
        tree_view_item = E.block(
            [],
            Expression.IfThen(
                E.prop(E.convert(c, ItemsControl), "HasItems"),
                set_(self.expanded, tri(E.prop(E.convert(c, TreeViewItem), "IsExpanded"))),
            ),
            set_(self.selected, tri(E.prop(E.convert(c, TreeViewItem), "IsSelected"))),
            toggle_of(E.prop(E.convert(c, HeaderedItemsControl), "Header")),
        )
        menu_item = E.block(
            [],
            Expression.IfThen(
                Expression.OrElse(
                    E.prop(E.convert(c, MenuItem), "IsCheckable"), E.prop(E.convert(c, MenuItem), "IsChecked")
                ),
                set_(self.checked, tri(E.prop(E.convert(c, MenuItem), "IsChecked"))),
            ),
            Expression.IfThen(
                E.prop(E.convert(c, ItemsControl), "HasItems"),
                set_(self.expanded, tri(E.prop(E.convert(c, MenuItem), "IsSubmenuOpen"))),
            ),
        )
        toggle_button = E.block(
            [],
            E.assign(toggle, E.prop(E.convert(c, ToggleButton), "IsChecked")),
            Expression.IfThen(E.prop(toggle, "HasValue"), set_(self.checked, tri(E.prop(toggle, "Value")))),
        )
        # As ``_item_states``' chain of isinstance tests (the types are apart: none derives from another).
        chain: Any = E.block([], E.const(0, int))
        for kind, read in reversed([
            (ListBoxItem, list_box_item),
            (TabItem, set_(self.selected, tri(E.prop(E.convert(c, TabItem), "IsSelected")))),
            (TreeViewItem, tree_view_item),
            (MenuItem, menu_item),
            (DataGridRow, set_(self.selected, tri(E.prop(E.convert(c, DataGridRow), "IsSelected")))),
            (ToggleButton, toggle_button),
            (ComboBox, set_(self.expanded, tri(E.prop(E.convert(c, ComboBox), "IsDropDownOpen")))),
            (Expander, set_(self.expanded, tri(E.prop(E.convert(c, Expander), "IsExpanded")))),
        ]):  # fmt: skip
            chain = Expression.IfThenElse(E.is_type(c, kind), Pack.void(read), Pack.void(chain))
        return E.block(
            [toggle, shown],
            E.assign(self.checked, E.const(-1, int)),
            E.assign(self.selected, E.const(-1, int)),
            E.assign(self.expanded, E.const(-1, int)),
            E.assign(self.failed, E.null(NetException)),
            E.try_catch(
                Pack.void(chain),
                NetException,
                "ex",
                lambda ex: Pack.void(
                    E.assign(self.failed, ex),
                    E.assign(self.checked, E.const(-1, int)),
                    E.assign(self.selected, E.const(-1, int)),
                    E.assign(self.expanded, E.const(-1, int)),
                ),
            ),
        )

    def checked_field(self, pack: Pack) -> Any:
        """The checked field, or the failure of the state reads (the engine's node reports one state failure)."""
        return pack.guarded(
            Expression.IfThenElse(
                Expression.ReferenceNotEqual(self.failed, E.null(NetException)),
                Expression.Throw(self.failed),
                _tri_field(pack, self.checked),
            )
        )

    def selected_field(self, pack: Pack) -> Any:
        return _tri_field(pack, self.selected)

    def expanded_field(self, pack: Pack) -> Any:
        return _tri_field(pack, self.expanded)


def _tri_field(pack: Pack, value: Any) -> Any:
    return Expression.IfThenElse(
        Expression.LessThan(value, E.const(0, int)),
        pack.void(pack.null()),
        pack.flag(Expression.GreaterThan(value, E.const(0, int))),
    )
