"""The WPF walk in .NET: a visual subtree's elements, their node ids and what a tree node shows, in one call.

The WinForms walker's twin (``toolkits/winforms/walker.py``, whose docstring
says why: every pythonnet read costs microseconds). One delegate compiled
from an expression (``net.expr``; no SDK, the same on the .NET Framework and
CoreCLR) goes breadth first through the *visual* tree from a root
(``VisualTreeHelper.GetChildrenCount``/``GetChild``, in that order, as
``_tree._TreeAdapter.children`` lists them), to ``max_depth`` and at most
``cap`` elements, in slices that end at a Stopwatch deadline, and reads per
element what the engine's own path reads for its tree node:

- naming (``_TreeAdapter.naming``): type name, full type name (or the name),
  a FrameworkElement's Name, ``AutomationProperties.GetAutomationId``;
- state (``_TreeAdapter.state`` and ``_ItemsAdapter._item_states``):
  IsVisible, IsEnabled, IsKeyboardFocusWithin of a UIElement or UIElement3D
  (any other visual: not visible, enabled, not focused), and the checked,
  selected and expanded states of items, a ToggleButton, a ComboBox and an
  Expander (``_walk_items.py``);
- text (``_PropertiesMixin.text_property``, ``read_property``,
  ``display_text``): the first of Window.Title, TextBox.Text, TextBlock.Text,
  AccessText.Text, HeaderedContentControl.Header, HeaderedItemsControl.Header,
  ContentControl.Content the element is, read with GetValue; a value that is
  an element reads as no text; the access key is stripped by WPF's rules
  where the text shows through an AccessText (``WPF_MARKER``); a container
  WPF generated for a String item shows that item (``_walk_items.py``);
- the visual child count;
- the total count of children (``_ItemsAdapter.child_total``) of an
  ItemsControl (its Items.Count, over ``MAX_LISTED_ITEMS``) and of a panel
  that hosts items (its owner's Items.Count, over its visual children): the
  walk follows the visual tree, so a list's template parts, its items host
  and the containers WPF has realised are walked.

The packed form is ``toolkits/_walk_format.py``'s, with the automation id in
its last field (the two before it are an item's selection and expansion).
An element whose node needs more than those reads is
marked *rich*, and the engine reads it its own way (``Walk.incomplete``); its
text is then not read here at all. Conservative on purpose (equality with the
engine's path beats coverage):

- a class written in Python (``net.bridge.DERIVED_INTERFACE``);
- a container generated for an item the walk cannot show exactly as the
  engine does (not a String; a display or search path or an item format on
  its list; a list written in Python or hiding a member read by name: see
  ``_walk_items.py``);
- a DataGridCell (its text is its column's element's);
- a PasswordBox: its Password is never read here;
- an element whose text property is data-bound (the binding's path may name
  a secret, ``_properties._bound_to_secret``), or whose Header or Content is
  neither a string, nor null, nor an element (the engine shows it with
  ``to_plain``);
- an element whose type hides a member the engine reads by name (``new
  bool IsVisible``, ``new bool IsSelected``: pythonnet reads the most
  derived one, the walk the WPF one).

Every read is guarded: a getter that throws leaves its exception's full type
name and message in that field and the rest of the element is still read; a
failed child listing leaves the element without children (per-element fault
isolation, the failures named in the engine's read order by ``_walk_format``).

WPF members used in the expressions are named with their owner type in
sight (``E.method(T, "M", ...)``, ``E.static_call(T, "M", ...)``,
``E.prop(E.convert(x, T), "M")``, ``E.call(E.convert(x, T), "M", ...)``), so
that ``tests/unit/wpf_surface.py`` checks them against the public WPF API as
it checks attribute access.
"""

from __future__ import annotations

import logging
from typing import Any

from System import Array, Object, String
from System import Exception as NetException
from System import Type as NetType
from System.Collections.Generic import List
from System.Linq.Expressions import Expression
from System.Reflection import BindingFlags, PropertyInfo

from wpfprobe.core.protocol import PropertyDescriptor
from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.toolkits._walk_format import WPF_MARKER, Walked
from wpfprobe_clr.toolkits._walk_frame import WalkFrame, advance, any_of, memo_per_type
from wpfprobe_clr.toolkits._wpf_items import MAX_LISTED_ITEMS
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._walk_items import ITEM_TEXT, READ_BY_NAME, READ_BY_NAME_OWNERS, ItemReads

if _WPF_LOAD_ERROR is None:
    from System.Windows import DependencyObject, DependencyProperty, FrameworkElement, UIElement, UIElement3D, Window
    from System.Windows.Automation import AutomationProperties
    from System.Windows.Controls import (
        AccessText,
        ContentControl,
        DataGridCell,
        Expander,
        GroupBox,
        HeaderedContentControl,
        HeaderedItemsControl,
        ItemsControl,
        Label,
        MenuItem,
        Panel,
        PasswordBox,
        TabItem,
        TextBlock,
        TextBox,
    )
    from System.Windows.Controls.Primitives import ButtonBase
    from System.Windows.Data import BindingOperations
    from System.Windows.Media import Visual, VisualTreeHelper
    from System.Windows.Media.Media3D import Visual3D

    # As ``_properties._TEXT_PROPERTIES``, most specific first (test_wpf_walker_tables checks they agree).
    _TEXT_PROPERTIES: tuple[tuple[type, DependencyProperty], ...] = (
        (Window, Window.TitleProperty),
        (TextBox, TextBox.TextProperty),
        (TextBlock, TextBlock.TextProperty),
        (AccessText, AccessText.TextProperty),
        (HeaderedContentControl, HeaderedContentControl.HeaderProperty),
        (HeaderedItemsControl, HeaderedItemsControl.HeaderProperty),
        (ContentControl, ContentControl.ContentProperty),
    )
    # As ``_PropertiesMixin.display_text``: these show a string caption through an AccessText.
    _ACCESS_KEY_TYPES: tuple[type, ...] = (ButtonBase, Label, MenuItem, TabItem, GroupBox, Expander, AccessText)
    # A text the walk does not read: a cell's (its column's element's), a password box's (never read).
    _RICH_TYPES: tuple[type, ...] = (DataGridCell, PasswordBox)

__all__ = ["prepare", "ready", "walking"]

_KEY = ("wpf.walker", 3)

# Members the engine's path reads by name on the element and on the lists of items (pythonnet takes
# the most derived), and the WPF types that declare them: a type where one of these is declared
# elsewhere is rich.
_READ_BY_NAME = (
    "Name", "IsVisible", "IsEnabled", "IsKeyboardFocusWithin", "IsChecked", "IsItemsHost", "Items", *READ_BY_NAME,
)  # fmt: skip
_READ_BY_NAME_OWNERS = (
    "System.Windows.FrameworkElement", "System.Windows.UIElement", "System.Windows.UIElement3D",
    "System.Windows.Controls.Primitives.ToggleButton", "System.Windows.Controls.Panel", *READ_BY_NAME_OWNERS,
)  # fmt: skip


def ready() -> bool:
    """Whether the walk is compiled (``prepare``); until it is, snapshots are read the engine's way."""
    return E.is_compiled(_KEY)


def prepare() -> None:
    """Compile the walk, once per process, on any thread (``wpfprobe_clr._compiling``, as WinForms')."""
    if _WPF_LOAD_ERROR is not None:
        return
    try:
        E.compiled(_KEY, _build)
    except Exception:  # a runtime that cannot build it: every snapshot is read the engine's way
        logging.getLogger("wpfprobe.clr").warning("the WPF .NET walk could not be compiled", exc_info=True)


def can_walk(root: Any) -> bool:
    """Whether ``root`` is in the visual tree the walk follows (an ItemRef or a content element is not)."""
    if _WPF_LOAD_ERROR is not None:
        return False
    return isinstance(root, Visual) or isinstance(root, Visual3D)


def walking(root: Any, registry: Any, *, max_depth: int, cap: int) -> Walked:
    """The walk of ``root``, not started: ``advance(seconds)`` on the UI thread until it says it is done."""
    first, *others = text_properties()
    return Walked(
        step=lambda seconds, walk: advance(
            E.compiled(_KEY, _build), DependencyObject, root, registry, max_depth, cap, walk, seconds
        ),
        text_property=first,
        marker=WPF_MARKER,
        text_properties=tuple(others),
    )


_described: list[PropertyDescriptor] = []


def text_properties() -> list[PropertyDescriptor]:
    """The text properties a walked node's text may come from, described as ``text_property`` describes them."""
    if not _described:
        dp: DependencyProperty
        seen: set[tuple[str, str]] = set()
        for _wpf_type, dp in _TEXT_PROPERTIES:
            declared: NetType = dp.PropertyType
            key = (str(dp.Name), str(declared.FullName))
            if key not in seen:
                seen.add(key)
                _described.append(
                    PropertyDescriptor(name=key[0], type_name=key[1], category=None, read_only=bool(dp.ReadOnly))
                )
        _described.append(ITEM_TEXT)  # a container's text is its item's string (``_walk_items``)
    return _described


# -- the expression ---------------------------------------------------------------


def _build_hides() -> Any:
    """``Func<Type, bool>``: whether the type has one of ``_READ_BY_NAME`` declared outside WPF's declaring types.

    The declaring types are compared by full name: some of them (a DatePicker's, a StickyNoteControl's)
    are never walked as what declares the member, and need not be loaded to be named.

    GetProperty answers the most derived public property, as pythonnet reads
    it; one that hides WPF's (``new``) is declared elsewhere. An ambiguous
    name throws, and the caller's guard makes the element rich.
    """
    t = E.param(NetType, "type")
    found = E.variable(PropertyInfo, "found")
    result = E.variable(bool, "result")
    i = E.variable(int, "i")
    names = E.const(Array[String](list(_READ_BY_NAME)), E.array_of(String))
    allowed = List[String]()
    for owner in _READ_BY_NAME_OWNERS:
        allowed.Add(owner)
    flags = E.const(BindingFlags.Public | BindingFlags.Instance, BindingFlags)
    get_property = E.method(NetType, "GetProperty", str, BindingFlags)
    body = E.block(
        [found, result, i],
        E.assign(result, E.const(False, bool)),
        E.for_range(
            i,
            E.prop(names, "Length"),
            E.block(
                [],
                E.assign(found, E.call(t, get_property, Expression.ArrayIndex(names, i), flags)),
                Expression.IfThen(
                    Expression.AndAlso(
                        Expression.ReferenceNotEqual(found, E.null(PropertyInfo)),
                        Expression.Not(
                            E.call(
                                E.const(allowed, List[String]),
                                E.method(List[String], "Contains", String),
                                E.prop(E.prop(found, "DeclaringType"), "FullName"),
                            )
                        ),
                    ),
                    E.assign(result, E.const(True, bool)),
                ),
            ),
        ),
        result,
    )
    return E.compile_lambda(E.func(NetType, bool), body, t)


def _build() -> Any:
    f = WalkFrame(DependencyObject, automation_ids=True)
    c, pack = f.c, f.pack
    void, guarded, string_field, flag, bool_field, int_field = (
        pack.void, pack.guarded, pack.string_field, pack.flag, pack.bool_field, pack.int_field
    )  # fmt: skip
    kids, k, is_rich = f.kids, f.k, f.is_rich
    n_kids = E.variable(int, "nKids")
    dp = E.variable(DependencyProperty, "dp")
    value = E.variable(object, "value")
    the_type = E.variable(NetType, "t")
    owner = E.variable(ItemsControl, "itemsOwner")
    n_items = E.variable(int, "nItems")
    reads = ItemReads.new()

    def is_any(types: tuple[type, ...]) -> Any:
        return any_of([E.is_type(c, t) for t in types])

    def set_rich() -> Any:
        return E.assign(is_rich, E.const(True, bool))

    # Whether the type hides a member read by name: per type, for the life of the process.
    hides_key = ("wpf.hides_member", 2)
    member_hidden = memo_per_type(hides_key, _build_hides, the_type)

    def hides(type_read: Any) -> Any:
        other = E.variable(NetType, "otherType")
        return E.block([other], E.assign(other, type_read), memo_per_type(hides_key, _build_hides, other))

    rich_tests = [E.is_type(c, bridge.DERIVED_INTERFACE), is_any(_RICH_TYPES), member_hidden, reads.shows_python(c)]

    # The text property: the first of the table the element is (null: it has no text).
    text_dp: Any = E.null(DependencyProperty)
    for wpf_type, prop in reversed(_TEXT_PROPERTIES):
        text_dp = E.condition(E.is_type(c, wpf_type), E.const(prop, DependencyProperty), text_dp, DependencyProperty)
    # Read only for an element that is not rich: redaction is decided (a binding seen) before GetValue runs.
    text_field = Expression.IfThenElse(
        is_rich,
        void(pack.null()),
        Expression.IfThenElse(
            reads.item_text,
            pack.string_value(reads.item_string),
            guarded(
                E.block(
                    [],
                    E.assign(dp, text_dp),
                    Expression.IfThenElse(
                        Expression.ReferenceEqual(dp, E.null(DependencyProperty)),
                        void(pack.null()),
                        Expression.IfThenElse(
                            Expression.ReferenceNotEqual(
                                E.static_call(BindingOperations, "GetBindingBase", c, dp), E.null(Object)
                            ),
                            void(pack.null(), set_rich()),
                            void(
                                E.assign(value, E.call(E.convert(c, DependencyObject), "GetValue", dp)),
                                Expression.IfThenElse(
                                    Expression.OrElse(
                                        Expression.ReferenceEqual(value, E.null(Object)),
                                        E.is_type(value, DependencyObject),
                                    ),
                                    void(pack.null()),
                                    Expression.IfThenElse(
                                        E.is_type(value, String),
                                        pack.string_value(E.convert(value, String)),
                                        void(pack.null(), set_rich()),  # shown with ToString by the engine's to_plain
                                    ),
                                ),
                            ),
                        ),
                    ),
                )
            ),
        ),
    )

    # Written out per type (not through a helper taking the type) so that the surface checker sees each member.
    state_fields = Expression.IfThenElse(
        E.is_type(c, UIElement),
        void(
            bool_field(E.prop(E.convert(c, UIElement), "IsVisible")),
            bool_field(E.prop(E.convert(c, UIElement), "IsEnabled")),
            bool_field(E.prop(E.convert(c, UIElement), "IsKeyboardFocusWithin")),
        ),
        Expression.IfThenElse(
            E.is_type(c, UIElement3D),
            void(
                bool_field(E.prop(E.convert(c, UIElement3D), "IsVisible")),
                bool_field(E.prop(E.convert(c, UIElement3D), "IsEnabled")),
                bool_field(E.prop(E.convert(c, UIElement3D), "IsKeyboardFocusWithin")),
            ),
            # Brushes' and drawings' visuals are never shown on their own.
            void(pack.false(), pack.true(), pack.false()),
        ),
    )
    # ``_ItemsAdapter.child_total``: a list's count of items over MAX_LISTED_ITEMS, an items host's over its
    # visual children (a virtualizing panel holds containers for some items only); else none (-1, null).
    total = void(
        Expression.IfThen(
            E.is_type(c, ItemsControl),
            void(
                E.assign(n_items, E.prop(E.prop(E.convert(c, ItemsControl), "Items"), "Count")),
                Expression.IfThen(
                    Expression.GreaterThan(n_items, E.const(MAX_LISTED_ITEMS, int)), E.assign(f.total, n_items)
                ),
            ),
        ),
        Expression.IfThen(
            Expression.AndAlso(E.is_type(c, Panel), E.prop(E.convert(c, Panel), "IsItemsHost")),
            void(
                E.assign(owner, E.static_call(ItemsControl, "GetItemsOwner", c)),
                Expression.IfThen(
                    Expression.ReferenceNotEqual(owner, E.null(ItemsControl)),
                    void(
                        E.assign(n_items, E.prop(E.prop(owner, "Items"), "Count")),
                        Expression.IfThen(
                            Expression.GreaterThan(n_items, E.static_call(VisualTreeHelper, "GetChildrenCount", c)),
                            E.assign(f.total, n_items),
                        ),
                    ),
                ),
            ),
        ),
    )
    record = E.block(
        [],
        f.position(),
        E.assign(the_type, E.call(E.convert(c, object), E.method(Object, "GetType"))),
        f.id_field(),
        pack.type_field(
            the_type,
            E.prop(the_type, "Name"),
            Expression.Coalesce(E.prop(the_type, "FullName"), E.prop(the_type, "Name")),
        ),
        Expression.IfThenElse(
            E.is_type(c, FrameworkElement),
            string_field(E.prop(E.convert(c, FrameworkElement), "Name")),
            void(pack.null()),
        ),
        # Rich first, read guarded (an element that cannot say is left to the engine): it decides the text read.
        E.assign(is_rich, E.const(False, bool)),
        E.try_catch(
            void(Expression.IfThen(any_of(rich_tests), set_rich()), Expression.IfThen(Expression.Not(is_rich), total)),
            NetException,
            "ex",
            lambda _ex: void(set_rich(), E.assign(f.total, E.const(-1, int))),
        ),
        # An item container's text is its item's (or the element is rich): decided before the text is read.
        E.assign(reads.item_text, E.const(False, bool)),
        Expression.IfThen(Expression.Not(is_rich), reads.container(c, set_rich(), hides)),
        text_field,
        void(flag(reads.marked(c, _ACCESS_KEY_TYPES))),
        state_fields,
        reads.states(c),
        reads.checked_field(pack),
        # Children: listed whole or not at all (a GetChild that throws half way lists none).
        E.assign(f.listed, E.const(False, bool)),
        E.call(kids, E.method(List[DependencyObject], "Clear")),
        guarded(
            void(
                Expression.IfThen(
                    Expression.OrElse(E.is_type(c, Visual), E.is_type(c, Visual3D)),
                    void(
                        E.assign(n_kids, E.static_call(VisualTreeHelper, "GetChildrenCount", c)),
                        E.for_range(
                            k,
                            n_kids,
                            E.call(
                                kids,
                                E.method(List[DependencyObject], "Add", DependencyObject),
                                E.static_call(VisualTreeHelper, "GetChild", c, k),
                            ),
                        ),
                    ),
                ),
                E.assign(f.listed, E.const(True, bool)),
                int_field(E.prop(kids, "Count")),
            )
        ),
        f.rich_field(),
        reads.selected_field(pack),
        reads.expanded_field(pack),
        string_field(E.static_call(AutomationProperties, "GetAutomationId", c)),
        f.enqueue_kids(),
    )
    return f.compile([n_kids, dp, value, the_type, owner, n_items, *reads.variables], record)
