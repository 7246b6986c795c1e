"""Run the WPF walk (toolkits/wpf/_walker.py) over stand-in WPF types and print what it read, as JSON.

WPF does not exist here. ``wpf_stub.cs`` (compiled by the test with mcs) declares
the WPF types and members the walk names, with the same namespaces, names and
signatures, so that the expression builds, compiles and runs on Mono; the
elements are plain objects whose values and failures the script sets. It
proves the expression is well typed and the walk's own logic (order, slices,
rich elements, texts, faults, ids); it proves nothing about WPF itself.

Items are read both ways over the same stand-ins: the walk, and the engine's
own adapter code (``_tree.py``, ``_items.py``, ``_properties.py``: naming,
state, text property, its reading and display text), so the test compares
the two node for node (``"items"`` in the output).

Usage: python wpf_walker_stub.py STUB_DLL   (on Mono; WPFPROBE_TEST_CLR=coreclr: on CoreCLR)
"""

from __future__ import annotations

import json
import pathlib
import sys
import types
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from clr_runtimes import load_test_clr

RUNTIME = load_test_clr()  # Mono, or CoreCLR where WPFPROBE_TEST_CLR says (test_coreclr.py)
import clr  # noqa: E402

clr.AddReference(str(pathlib.Path(sys.argv[1]).resolve()))

import wpfprobe_clr.toolkits as toolkits  # noqa: E402

# The package's __init__ loads the real WPF and its other modules: import the walker alone, told WPF loaded.
package = types.ModuleType("wpfprobe_clr.toolkits.wpf")
package.__path__ = [str(pathlib.Path(toolkits.__file__).parent / "wpf")]
sys.modules[package.__name__] = package
load = types.ModuleType("wpfprobe_clr.toolkits.wpf._load")
load._WPF_LOAD_ERROR = None  # type: ignore[attr-defined]
sys.modules[load.__name__] = load
# The binding trace hooks PresentationTraceSources, which the stand-ins do not have; no item read uses it.
trace = types.ModuleType("wpfprobe_clr.toolkits.wpf._binding_trace")
trace.install_binding_trace = lambda: None  # type: ignore[attr-defined]
trace._binding_error = lambda expression: None  # type: ignore[attr-defined]
sys.modules[trace.__name__] = trace

from Stub import Hiding, HidingItem, HidingList, Person  # noqa: E402
from System import Int32  # noqa: E402
from System.Windows import UIElement3D, Window  # noqa: E402
from System.Windows.Controls import (  # noqa: E402
    Button,
    CheckBox,
    ComboBox,
    ComboBoxItem,
    ContentControl,
    ContentPresenter,
    DataGrid,
    DataGridCell,
    DataGridRow,
    Expander,
    HeaderedContentControl,
    HeaderedItemsControl,
    ItemsControl,
    Label,
    ListBox,
    ListBoxItem,
    ListView,
    ListViewItem,
    Menu,
    MenuItem,
    PasswordBox,
    StackPanel,
    TabControl,
    TabItem,
    TextBlock,
    TextSearch,
    TreeView,
    TreeViewItem,
)

from wpfprobe_clr._objects import ClrObjectTable  # noqa: E402
from wpfprobe_clr.toolkits.wpf import _walker  # noqa: E402
from wpfprobe_clr.toolkits.wpf._properties import _PropertiesMixin  # noqa: E402


def content(element: Any, value: Any) -> Any:
    element.Values[ContentControl.ContentProperty] = value
    return element


def tree() -> Any:
    window = Window()
    window.Values[Window.TitleProperty] = "Main _x"  # a window's title shows no access key
    window.AutomationId = "mainId"
    form = StackPanel()
    form.NameValue = "form"
    window.Kids.Add(form)
    save = content(Button(), "Save _As")
    save.NameValue = "save"
    plain = TextBlock()
    plain.Values[TextBlock.TextProperty] = "a_b"
    agree = content(CheckBox(), "_Agree")
    agree.Checked = True
    third = content(CheckBox(), "Maybe")  # IsChecked null: no check
    bound = TextBlock()
    bound.Bound.Add(TextBlock.TextProperty)
    bound.Values[TextBlock.TextProperty] = "from a binding"
    number = content(Label(), 42)
    element_content = content(Button(), StackPanel())
    hosted = StackPanel()
    hosted.Host = True
    container = content(ContentControl(), "an item")
    ItemsControl().Holds(container, "an item")  # a generated container: its text is its item's
    broken = TextBlock()
    broken.ThrowOnName = True
    broken.ThrowOnVisible = True
    broken.ThrowOnChildren = True
    unreadable = TextBlock()
    unreadable.ThrowOnGetValue = True
    for kid in (save, plain, PasswordBox(), agree, third, bound, number, element_content, ListBoxItem(), hosted,
                container, Hiding(), broken, unreadable, UIElement3D()):  # fmt: skip
        form.Kids.Add(kid)
    for i in range(40):  # enough for several slices
        row = StackPanel()
        row.Kids.Add(content(Label(), f"row {i}"))
        form.Kids.Add(row)
    # Lists: their totals are read (items over MAX_LISTED_ITEMS; an items host's owner's items over its children).
    for count, host_kids in ((1500, 3), (10, 3), (2, 3)):
        items = ItemsControl()
        items.NameValue = f"list{count}"
        items.ItemsValue.CountValue = count
        host = StackPanel()
        host.Host = True
        host.Values[ItemsControl.HostOf] = items
        for _ in range(host_kids):
            host.Kids.Add(StackPanel())
        items.Kids.Add(host)
        form.Kids.Add(items)
    failing = ItemsControl()
    failing.ItemsValue.ThrowOnCount = True  # its total cannot be read: the engine's to read
    form.Kids.Add(failing)
    form.Kids.Add(ComboBox())  # its expansion state is the engine's to read
    return window


class PythonCheckBox(CheckBox):  # type: ignore[misc]
    """A check box written in Python: pythonnet reads its members the Python way, the walk would not."""

    __namespace__ = "StubPython"


class PythonListBoxItem(ListBoxItem):  # type: ignore[misc]
    __namespace__ = "StubPython"


def header(element: Any, value: Any) -> Any:
    prop = HeaderedItemsControl.HeaderProperty if isinstance(element, HeaderedItemsControl) else None
    element.Values[prop or HeaderedContentControl.HeaderProperty] = value
    return element


def state(element: Any, **values: Any) -> Any:
    for name, value in values.items():
        element.P[name] = value
    return element


def named(element: Any, name: str) -> Any:
    element.NameValue = name
    return element


def items_tree() -> tuple[Any, list[str]]:
    """Lists and their containers, and the names of those the walk must leave to the engine (rich)."""
    window = Window()
    form = StackPanel()
    window.Kids.Add(form)
    rich: list[str] = []

    def under(owner: Any, container: Any, item: Any, *, is_rich: bool = False) -> Any:
        """``container`` made by ``owner`` for ``item`` (None: an element that is its own container)."""
        owner.Holds(container, item)
        if item is not None and isinstance(item, str) and isinstance(container, ContentControl):
            content(container, item)  # as WPF sets it; the engine reads the item, not this
        owner.Kids.Add(container)
        if is_rich:
            rich.append(str(container.NameValue))
        return container

    fruits = named(ListBox(), "fruits")
    under(fruits, state(named(ListBoxItem(), "apple"), IsSelected=True), "Apple")
    under(fruits, named(ListBoxItem(), "banana"), "Ba_nana")  # a list box item shows "_" as it is
    under(fruits, content(state(named(ListBoxItem(), "own"), IsSelected=True), "_Own"), None)  # an element item
    box = CheckBox()
    box.Checked = True
    under(fruits, content(named(ListBoxItem(), "checked"), box), None)  # shows a check box: checked as it is
    wrapped = Button()
    under(fruits, content(named(ListBoxItem(), "wraps"), wrapped), wrapped)  # an element item, wrapped
    under(fruits, named(ListBoxItem(), "empty"), "")
    nothing = named(ListBoxItem(), "nothing")
    fruits.Holds(nothing, "x")
    fruits.Generator.Made[nothing] = None  # a null item: the container's own Content is its text
    fruits.Kids.Add(content(nothing, "own content"))
    fails = state(named(ListBoxItem(), "fails"), IsSelected=True)
    fails.Throws.Add("IsSelected")
    under(fruits, fails, "Broken")
    combo = state(named(ComboBox(), "combo"), IsDropDownOpen=True)
    under(combo, named(ComboBoxItem(), "one"), "One")
    view = named(ListView(), "view")
    under(view, state(named(ListViewItem(), "row_a"), IsSelected=True), "row_a")
    tabs = named(TabControl(), "tabs")
    under(tabs, state(named(TabItem(), "home"), IsSelected=True), "_Home")  # shown through AccessText
    under(tabs, header(named(TabItem(), "settings"), "_Settings"), None)
    tree = named(TreeView(), "tree")
    fruit = under(tree, state(named(TreeViewItem(), "fruit"), HasItems=True, IsExpanded=True), "Fruit")
    under(fruit, state(named(TreeViewItem(), "pear"), IsSelected=True), "Pear")
    under(tree, state(named(TreeViewItem(), "closed"), IsExpanded=False, HasItems=True), "Closed")
    under(tree, state(named(TreeViewItem(), "leaf"), IsExpanded=True), "Leaf")  # no items: no expansion state
    unticked = CheckBox()
    unticked.Checked = False
    under(tree, header(named(TreeViewItem(), "ticks"), unticked), None)
    menu = named(Menu(), "menu")
    file_ = under(menu, state(named(MenuItem(), "file"), HasItems=True, IsSubmenuOpen=True), "_File")
    under(file_, state(named(MenuItem(), "bold"), IsCheckable=True, IsChecked=True), "_Bold")
    under(file_, state(named(MenuItem(), "marked"), IsChecked=True), "Marked")  # checked, not checkable
    under(file_, state(named(MenuItem(), "plain"), IsCheckable=True), "Plain")
    under(menu, header(state(named(MenuItem(), "help"), HasItems=True), "_Help"), None)
    more = header(state(named(Expander(), "more"), IsExpanded=True), "_More")
    shut = header(named(Expander(), "shut"), "Shut")
    presenters = named(ItemsControl(), "presenters")
    under(presenters, named(ContentPresenter(), "presented"), "pre_sented")
    grid = named(DataGrid(), "grid")
    under(grid, state(named(DataGridRow(), "textRow"), IsSelected=True), "a row")
    under(grid, named(DataGridRow(), "personRow"), Person(), is_rich=True)  # its ToString: the engine's
    cell = named(DataGridCell(), "cell")
    grid.Kids.Add(cell)
    rich.append("cell")
    # The engine's path reads these in ways the walk does not: they stay rich.
    by_name = state(named(ListBox(), "byName"), DisplayMemberPath="Name")
    under(by_name, named(ListBoxItem(), "displayed"), "Ada", is_rich=True)
    searched = named(ListBox(), "searched")
    searched.Values[TextSearch.TextPathProperty] = "Name"
    under(searched, named(ListBoxItem(), "searchedItem"), "Ada", is_rich=True)
    formatted = state(named(ListBox(), "formatted"), ItemStringFormat="#{0}")
    under(formatted, named(ListBoxItem(), "formattedItem"), "7", is_rich=True)
    under(fruits, named(ListBoxItem(), "number"), Int32(42), is_rich=True)
    under(fruits, named(ListBoxItem(), "person"), Person(), is_rich=True)
    under(fruits, named(HidingItem(), "hiding"), "Hidden", is_rich=True)
    hiding_list = named(HidingList(), "hidingList")
    under(hiding_list, named(ListBoxItem(), "inHidingList"), "Hidden", is_rich=True)
    under(fruits, content(named(ListBoxItem(), "showsPython"), PythonCheckBox()), None, is_rich=True)
    under(fruits, named(PythonListBoxItem(), "python"), "Python", is_rich=True)
    shown_by_path = state(named(TreeView(), "pathTree"), DisplayMemberPath="Name")
    outer = under(shown_by_path, named(TreeViewItem(), "outer"), "Outer", is_rich=True)
    under(outer, named(TreeViewItem(), "inner"), "Inner", is_rich=True)  # its tree's path, two lists up
    for element in (fruits, combo, view, tabs, tree, menu, more, shut, presenters, grid, by_name, searched, formatted,
                    hiding_list, shown_by_path):  # fmt: skip
        form.Kids.Add(element)
    return window, rich


def engine_node(adapter: Any, element: Any) -> dict[str, Any]:
    """What the engine's own path reads for ``element``'s tree node (``engine.reading``'s order, no redaction)."""
    from wpfprobe_clr._ui_thread import exception_identity

    naming = adapter.naming(element)
    faults: list[list[str]] = []
    try:
        st = adapter.state(element)
        states = [st.visible, st.enabled, st.focused, st.checked, st.selected, st.expanded]
    except Exception as exc:
        faults.append(["state", *exception_identity(exc)])
        states = [True, True, False, None, None, None]
    prop = adapter.text_property(element)
    text = key = None
    if prop is not None:
        value = adapter.read_property(element, prop).value
        if value is not None and value != "":
            text, key = adapter.display_text(element, value if isinstance(value, str) else str(value))
    return {
        "type": naming.type_name, "fullType": naming.full_type_name, "name": naming.name,
        "automationId": naming.automation_id, "text": text or None, "accessKey": key,
        "visible": states[0], "enabled": states[1], "focused": states[2], "checked": states[3],
        "selected": states[4], "expanded": states[5], "faults": faults,
        "textProperty": None if prop is None else [prop.name, prop.type_name],
    }  # fmt: skip


def items(objects: ClrObjectTable) -> dict[str, Any]:
    root, rich = items_tree()
    adapter = object.__new__(_PropertiesMixin)  # its reads only: no app, no dispatcher
    adapter._type_names = {}
    adapter._containers = {}
    walk = _walker.walking(root, objects.registry, max_depth=10, cap=1000)
    walk.advance(None)
    walked, engine = [], []
    for n in walk.nodes():
        element = objects.get(n.node_id)
        walked.append({
            "type": n.naming.type_name, "fullType": n.naming.full_type_name, "name": n.naming.name,
            "automationId": n.naming.automation_id, "text": n.text, "accessKey": n.access_key,
            "visible": n.state.visible, "enabled": n.state.enabled, "focused": n.state.focused,
            "checked": n.state.checked, "selected": n.state.selected, "expanded": n.state.expanded,
            "faults": [list(f) for f in n.faults], "complete": n.complete,
        })  # fmt: skip
        engine.append(engine_node(adapter, element) if n.complete else None)  # a rich one: the engine reads it
    return {"walked": walked, "engine": engine, "rich": rich}


def run(root: Any, objects: ClrObjectTable, *, seconds: float | None, max_depth: int, cap: int) -> dict[str, Any]:
    walk = _walker.walking(root, objects.registry, max_depth=max_depth, cap=cap)
    slices = 1
    while not walk.advance(seconds):
        slices += 1
    nodes = [
        {
            "id": n.node_id, "parent": n.parent, "depth": n.depth, "type": n.naming.type_name,
            "fullType": n.naming.full_type_name, "name": n.naming.name, "automationId": n.naming.automation_id,
            "text": n.text, "accessKey": n.access_key, "visible": n.state.visible, "enabled": n.state.enabled,
            "focused": n.state.focused, "checked": n.state.checked, "children": n.child_count,
            "complete": n.complete, "faults": [list(f) for f in n.faults], "total": n.total_count,
            "selected": n.state.selected, "expanded": n.state.expanded,
        }
        for n in walk.nodes()
    ]  # fmt: skip
    incomplete = [[objects.id_for(el), depth] for el, depth in walk.incomplete]
    registered = all(objects.get(i) is not None for i in walk.ids)
    return {"slices": slices, "nodes": nodes, "incomplete": incomplete, "registered": registered}


def main() -> None:
    _walker.prepare()
    root = tree()
    objects = ClrObjectTable()
    from wpfprobe_clr import describe_clr

    out = {
        "runtime": describe_clr().kind,
        "ready": _walker.ready(),
        "textProperties": [[p.name, p.type_name] for p in _walker.text_properties()],
        "whole": run(root, objects, seconds=None, max_depth=10, cap=1000),
        "sliced": run(root, objects, seconds=0.0, max_depth=10, cap=1000),
        "shallow": run(root, objects, seconds=None, max_depth=1, cap=1000),
        "capped": run(root, objects, seconds=None, max_depth=10, cap=5),
        "items": items(objects),
    }
    print(json.dumps(out))


main()
