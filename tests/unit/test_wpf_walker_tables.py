"""The WPF walk in .NET mirrors tables of the engine's own WPF path: read both with ``ast`` and compare.

WPF cannot run here, so nothing compares the two paths' output on Linux (the
Windows workflow does, ``tests/integration/test_walker_live.py``). What can be
checked here is that the walk (``toolkits/wpf/_walker.py``) follows the same
tables as the adapter: which property is an element's text and in which
order, which elements show an access key, and which elements have states
(the walk reads them, ``_walk_items.py``, or leaves them to the engine: rich).
The item reads themselves are compared with the engine's over stand-in types
(``tests/integration/test_wpf_walker_stub.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "wpfprobe_clr" / "toolkits" / "wpf"


def _tree(name: str) -> ast.Module:
    return ast.parse((PACKAGE / name).read_text(encoding="utf-8"))


def _assigned(tree: ast.Module, name: str) -> ast.expr:
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            assert node.value is not None
            return node.value
    raise AssertionError(f"{name} is not assigned")


def _names(node: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"no function {name}")


def _isinstance_types(fn: ast.AST) -> list[str]:
    """Type names in the function's ``isinstance(element, T)`` and ``isinstance(element, (T, U))`` tests."""
    found: list[str] = []
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == "element"
        ):
            found.extend(_names(node.args[1]))
    return found


def test_the_walk_reads_the_text_from_the_properties_the_adapter_reads_in_the_same_order() -> None:
    walker = ast.unparse(_assigned(_tree("_walker.py"), "_TEXT_PROPERTIES"))
    adapter = ast.unparse(_assigned(_tree("_properties.py"), "_TEXT_PROPERTIES"))
    assert walker == adapter


def test_the_walk_strips_access_keys_where_display_text_does() -> None:
    display_text = _function(_tree("_properties.py"), "display_text")
    # Its last test lists the types whose string caption shows through an AccessText.
    captions = display_text.body[-2]
    assert isinstance(captions, ast.If)
    expected = _names(captions.test)[2:]  # isinstance, element, then the types
    walker = _names(_assigned(_tree("_walker.py"), "_ACCESS_KEY_TYPES"))
    assert walker == expected


def _walked_state_types() -> list[str]:
    """The types in ``_walk_items.ItemReads.states``' chain: the first name of each (type, read) pair."""
    states = _function(_tree("_walk_items.py"), "states")
    for node in ast.walk(states):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.args[0], ast.List):
            pairs = node.iter.args[0].elts
            return [ast.unparse(p.elts[0]) for p in pairs if isinstance(p, ast.Tuple)]
    raise AssertionError("no chain of (type, read) pairs in states")


def test_every_element_with_a_state_is_read_by_the_walk_in_the_adapters_order_or_is_rich() -> None:
    states = _isinstance_types(_function(_tree("_items.py"), "_item_states"))
    rich = _names(_assigned(_tree("_walker.py"), "_RICH_TYPES"))
    assert [t for t in states if t not in rich] == _walked_state_types()
    assert "PasswordBox" in rich and "DataGridCell" in rich
    # An ItemsControl and an items host show only their total beyond the walk's reads, and the walk reads it.
    assert "ItemsControl" not in rich and "Panel" not in rich


def test_the_walk_reads_the_totals_the_adapter_gives() -> None:
    # child_total answers an ItemsControl, an items host Panel and a data item (never in the visual tree).
    answered = set(_isinstance_types(_function(_tree("_items.py"), "child_total"))) - {"ItemRef"}
    assert answered == {"ItemsControl", "Panel"}
    walker = ast.unparse(_function(_tree("_walker.py"), "_build"))
    assert all(f"E.is_type(c, {kind})" in walker for kind in answered)
    assert "GetItemsOwner" in walker and "MAX_LISTED_ITEMS" in walker


def test_every_text_the_adapter_reads_specially_is_rich_in_the_walk() -> None:
    # text_property answers items, cells and password boxes before the table: the walk must not read them.
    text_property = _function(_tree("_properties.py"), "text_property")
    special = set(_isinstance_types(text_property)) - {"wpf_type"}
    walker = _tree("_walker.py")
    rich = set(_names(_assigned(walker, "_RICH_TYPES")))
    assert special <= rich, special - rich
    containers = _names(_assigned(_tree("_walk_items.py"), "_CONTAINER_TYPES"))
    item_text_source = _function(_tree("_items.py"), "_item_text_source")
    # (An ItemRef is a data item: never in the visual tree the walk follows; a DataGridCell is rich.)
    assert [t for t in _isinstance_types(item_text_source) if t not in ("DataGridCell", "ItemRef")] == containers


def test_an_items_string_shows_its_access_key_in_the_containers_display_text_names() -> None:
    display_text = _function(_tree("_properties.py"), "display_text")
    item_branch = display_text.body[1]
    assert isinstance(item_branch, ast.If)
    adapter = [t for t in _isinstance_types(item_branch) if t != "ItemRef"]
    walker = _names(_assigned(_tree("_walk_items.py"), "_ITEM_ACCESS_KEY_TYPES"))
    assert walker == adapter == ["MenuItem", "TabItem"]
    # The same two, named for a data item not yet realised (``display_text``'s ``container in ...``).
    found = [
        n.value for n in _tree("_properties.py").body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "_ACCESS_KEY_CONTAINERS"
    ]  # fmt: skip
    assert len(found) == 1 and isinstance(found[0], ast.Call)
    assert sorted(ast.literal_eval(found[0].args[0])) == walker
