"""Run the WPF walk (toolkits/wpf/_walker.py) over stand-in WPF types and print what it read, as JSON.

WPF does not exist here. ``wpf_stub.cs`` (compiled by the test with mcs) declares
the WPF types and members the walk names, with the same namespaces, names and
signatures, so that the expression builds, compiles and runs on Mono; the
elements are plain objects whose values and failures the script sets. It
proves the expression is well typed and the walk's own logic (order, slices,
rich elements, texts, faults, ids); it proves nothing about WPF itself.

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

from Stub import Hiding  # noqa: E402
from System.Windows import UIElement3D, Window  # noqa: E402
from System.Windows.Controls import (  # noqa: E402
    Button,
    CheckBox,
    ComboBox,
    ContentControl,
    ItemsControl,
    Label,
    ListBoxItem,
    PasswordBox,
    StackPanel,
    TextBlock,
)

from wpfprobe_clr._objects import ClrObjectTable  # noqa: E402
from wpfprobe_clr.toolkits.wpf import _walker  # noqa: E402


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
    container.Values[ItemsControl.Owner] = ItemsControl()
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
    }
    print(json.dumps(out))


main()
